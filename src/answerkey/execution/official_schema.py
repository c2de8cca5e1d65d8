"""The official Spider table in the reports of ``answerkey sql --tables tables.json``.

``SpiderOfficial`` is the ``official`` field of the SQL report (``SqlReport``): counts,
execution accuracy (under the headline semantics) and exact-set-match accuracy per hardness
level, the partial-matching accuracy, recall and F1 of each component, per turn and per
interaction for a file of several sessions, and each item's hardness and exact verdict. It
is built from an ``answerkey.execution.spider_match.SpiderTable``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from answerkey.execution.spider_match import COMPONENTS, LEVELS, TURNS, ComponentFigures, LevelFigures, SpiderTable
from answerkey.report.schema import build
from answerkey.report.workbook import Column, Sheet

_STRICT = ConfigDict(extra="forbid", defer_build=True)


class SpiderComponent(BaseModel):
    """One component at one level: mean accuracy, mean recall and their F1 (the official means)."""

    model_config = _STRICT
    acc: float
    rec: float
    f1: float


class SpiderLevel(BaseModel):
    """One column of the official table."""

    model_config = _STRICT
    count: int = Field(ge=0)
    execution: float | None = Field(description="Execution accuracy under the headline semantics.")
    exact: float | None = Field(description="Exact-set-match accuracy.")
    components: dict[str, SpiderComponent] = Field(description="Partial matching per component (levels only).")


class SpiderItem(BaseModel):
    """One item's place in the official table."""

    model_config = _STRICT
    id: str
    hardness: str | None = Field(description="The gold's hardness; null when the official parser cannot read it.")
    exact: bool | None = Field(description="Exact-set-match; null when the gold cannot be read.")
    reason: str | None = Field(
        description="Why the gold was left out of the table, or why the prediction could not be read (then wrong)."
    )


class SpiderOfficial(BaseModel):
    """Spider's official table (evaluation.py --etype all of test-suite-sql-eval)."""

    model_config = _STRICT
    levels: dict[str, SpiderLevel] = Field(description="easy, medium, hard, extra and all.")
    turns: dict[str, SpiderLevel] | None = Field(description="turn 1 ... turn > 4, for a file of several sessions.")
    interactions: SpiderLevel | None = Field(description="Sessions whose every turn is right.")
    unreadable_golds: int = Field(ge=0, description="Items left out: the official parser cannot read their gold.")
    items: list[SpiderItem]

    def lines(self) -> list[str]:
        """The table for the terminal, laid out like the official one."""
        return self.table().lines()

    def table(self) -> SpiderTable:
        """The figures as a ``SpiderTable`` (to print them)."""

        def level(figures: SpiderLevel) -> LevelFigures:
            components = {
                name: ComponentFigures(value.acc, value.rec, value.f1) for name, value in figures.components.items()
            }
            return LevelFigures(figures.count, figures.execution, figures.exact, components)

        return SpiderTable(
            {name: level(figures) for name, figures in self.levels.items()},
            None if self.turns is None else {name: level(figures) for name, figures in self.turns.items()},
            None if self.interactions is None else level(self.interactions),
        )

    def sheet(self) -> Sheet:
        """The ``Spider`` sheet of the workbook: one row per figure, one column per level."""
        rows: list[list[object]] = [
            ["count", *(self.levels[name].count for name in LEVELS)],
            ["execution", *(self.levels[name].execution for name in LEVELS)],
            ["exact match", *(self.levels[name].exact for name in LEVELS)],
        ]
        for label, attribute in (("accuracy", "acc"), ("recall", "rec"), ("F1", "f1")):
            for component in COMPONENTS:
                rows.append(
                    [
                        f"{component} {label}",
                        *(getattr(self.levels[name].components.get(component), attribute, None) for name in LEVELS),
                    ]
                )
        if self.turns is not None and self.interactions is not None:
            turns = [*(self.turns[name] for name in TURNS), self.interactions]
            rows.append(["turns: count", *(turn.count for turn in turns)])
            rows.append(["turns: execution", *(turn.execution for turn in turns)])
            rows.append(["turns: exact match", *(turn.exact for turn in turns)])
        columns = [Column("figure", 28, "text"), *(Column(name, 11, "ratio") for name in LEVELS)]
        notes = [("turn columns", ", ".join((*TURNS, "interaction")))] if self.turns is not None else []
        return Sheet("Spider", columns, rows, notes=notes)


def _level(figures: LevelFigures) -> SpiderLevel:
    return build(
        SpiderLevel,
        count=figures.count,
        execution=figures.execution,
        exact=figures.exact,
        components={
            name: build(SpiderComponent, acc=value.acc, rec=value.rec, f1=value.f1)
            for name, value in figures.components.items()
        },
    )


def official_model(table: SpiderTable, items: list[SpiderItem], unreadable: int) -> SpiderOfficial:
    """The report model of ``table`` and its ``items``."""
    return build(
        SpiderOfficial,
        levels={name: _level(figures) for name, figures in table.levels.items()},
        turns=None if table.turns is None else {name: _level(figures) for name, figures in table.turns.items()},
        interactions=None if table.interactions is None else _level(table.interactions),
        unreadable_golds=unreadable,
        items=items,
    )


def summary_lines(official: SpiderOfficial) -> str:
    """The official table, headed, as the terminal summary shows it."""
    head = f"Spider's official table (exact-set-match; golds left out: {official.unreadable_golds})"
    return "\n".join([head, *official.lines()])
