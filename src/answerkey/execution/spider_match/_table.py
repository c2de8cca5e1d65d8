"""The official Spider table: counts, execution and exact-match accuracy per hardness level,
and the partial-matching accuracy, recall and F1 of each component (evaluation.py lines
450-705 at test-suite-sql-eval e97acc54), and the same per turn for sessions.

The figures are aggregated as officially: a component's accuracy is the mean over the items
whose prediction has that component, its recall the mean over the items whose gold has it,
and its F1 is computed from those two means (1 when both are 0, line 698).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from answerkey.execution.spider_match._match import COMPONENTS, HARDNESS_LEVELS, ComponentScore

#: The table's columns: the hardness levels and all items.
LEVELS = (*HARDNESS_LEVELS, "all")
#: The turn columns of a session file's table (line 451).
TURNS = ("turn 1", "turn 2", "turn 3", "turn 4", "turn > 4")


def turn_name(index: int) -> str:
    """The official name of the turn at 0-based ``index`` in its session (lines 576-580).

    >>> turn_name(0), turn_name(3), turn_name(4)
    ('turn 1', 'turn 4', 'turn > 4')
    """
    return TURNS[min(index, 4)]


@dataclass(frozen=True)
class TableRow:
    """One evaluated item as the table counts it.

    ``hardness`` of the gold; ``execution`` and ``exact`` are ``None`` where that kind of
    evaluation was not done; ``components`` the ten partial scores of an exact match;
    ``turn`` and ``session`` place the item in a session file (``None`` for single items).
    """

    hardness: str
    execution: bool | None = None
    exact: bool | None = None
    components: Mapping[str, ComponentScore] | None = None
    turn: int | None = None
    session: int | None = None


@dataclass(frozen=True)
class ComponentFigures:
    """One component at one level: mean accuracy, mean recall and their F1."""

    acc: float
    rec: float
    f1: float


@dataclass(frozen=True)
class LevelFigures:
    """One column of the table: count, execution and exact-match accuracy, and the components."""

    count: int
    execution: float | None
    exact: float | None
    components: Mapping[str, ComponentFigures] = field(default_factory=dict)


@dataclass
class _Sums:
    count: int = 0
    execution: int = 0
    exact: int = 0
    acc: dict[str, list[int]] = field(default_factory=lambda: {name: [0, 0] for name in COMPONENTS})
    rec: dict[str, list[int]] = field(default_factory=lambda: {name: [0, 0] for name in COMPONENTS})

    def add(self, row: TableRow) -> None:
        self.count += 1
        self.execution += bool(row.execution)
        self.exact += bool(row.exact)
        for name, score in (row.components or {}).items():
            if score.pred_total > 0:
                self.acc[name][0] += score.acc
                self.acc[name][1] += 1
            if score.label_total > 0:
                self.rec[name][0] += score.rec
                self.rec[name][1] += 1

    def figures(self, execution: bool, exact: bool) -> LevelFigures:
        components: dict[str, ComponentFigures] = {}
        if exact:
            for name in COMPONENTS:
                acc = self.acc[name][0] / self.acc[name][1] if self.acc[name][1] else 0.0
                rec = self.rec[name][0] / self.rec[name][1] if self.rec[name][1] else 0.0
                f1 = 1.0 if acc == 0 and rec == 0 else 2.0 * acc * rec / (rec + acc)
                components[name] = ComponentFigures(acc, rec, f1)

        def mean(total: int) -> float:
            return total / self.count if self.count else 0.0

        return LevelFigures(
            self.count,
            mean(self.execution) if execution else None,
            mean(self.exact) if exact else None,
            components,
        )


@dataclass(frozen=True)
class SpiderTable:
    """The official table of a set of items (``SpiderTable.of(rows)``).

    ``levels`` maps each of ``LEVELS`` to its figures; ``turns`` each of ``TURNS`` (only for
    a file of several sessions, as officially, line 525) and ``interactions`` (the sessions
    whose every turn is right) are ``None`` otherwise.
    """

    levels: Mapping[str, LevelFigures]
    turns: Mapping[str, LevelFigures] | None = None
    interactions: LevelFigures | None = None

    @classmethod
    def of(cls, rows: Iterable[TableRow], *, sessions: int = 1) -> SpiderTable:
        """Aggregate ``rows``; ``sessions`` is the number of sessions in the file."""
        rows = list(rows)
        execution = any(row.execution is not None for row in rows)
        exact = any(row.exact is not None for row in rows)
        levels = {level: _Sums() for level in LEVELS}
        turns = {turn: _Sums() for turn in TURNS}
        for row in rows:
            levels[row.hardness].add(row)
            levels["all"].add(row)
            if row.turn is not None:
                turns[turn_name(row.turn)].add(row)
        figures = {level: sums.figures(execution, exact) for level, sums in levels.items()}
        if sessions <= 1:
            return cls(figures)
        return cls(
            figures,
            {turn: sums.figures(execution, exact) for turn, sums in turns.items()},
            _interactions(rows, sessions, execution, exact),
        )

    def lines(self) -> list[str]:
        """The table as text, laid out like the official one (20-character columns)."""
        first = self.levels["all"]
        columns: Sequence[str] = LEVELS
        out = [_row("", list(columns)), _row("count", [str(self.levels[c].count) for c in columns])]
        if first.execution is not None:
            out.append(_row("execution", [f"{self.levels[c].execution:.3f}" for c in columns]))
        if first.exact is not None:
            out.append(_row("exact match", [f"{self.levels[c].exact:.3f}" for c in columns]))
            for title, attribute in (("accuracy", "acc"), ("recall", "rec"), ("F1", "f1")):
                out.append(f"partial matching {title}:")
                for name in COMPONENTS:
                    out.append(
                        _row(name, [f"{getattr(self.levels[c].components[name], attribute):.3f}" for c in columns])
                    )
        if self.turns is not None and self.interactions is not None:
            out.append(_row("", [*TURNS, "interaction"]))
            figures = [*self.turns.values(), self.interactions]
            out.append(_row("count", [str(f.count) for f in figures]))
            if first.execution is not None:
                out.append(_row("execution", [f"{f.execution:.3f}" for f in figures]))
            if first.exact is not None:
                out.append(_row("exact match", [f"{f.exact:.3f}" for f in figures]))
        return out


def _row(name: str, cells: list[str]) -> str:
    return (f"{name:20} " + " ".join(f"{cell:<20}" for cell in cells)).rstrip()


def _interactions(rows: list[TableRow], sessions: int, execution: bool, exact: bool) -> LevelFigures:
    """Sessions whose every turn is right (lines 664-668; a session of no turn counts as right)."""
    wrong_execution: set[int | None] = {row.session for row in rows if row.execution is False}
    wrong_exact: set[int | None] = {row.session for row in rows if row.exact is False}
    return LevelFigures(
        sessions,
        (sessions - len(wrong_execution)) / sessions if execution else None,
        (sessions - len(wrong_exact)) / sessions if exact else None,
    )
