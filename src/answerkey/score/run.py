"""Scoring one system's answers against a corpus: verdicts, ATIS figures, graded metrics.

``score_corpus`` computes everything once into a ``ScoreRun``; reports read it.

Each scored item gets a verdict: ``correct``, ``incorrect`` or ``no_answer`` (no answer in
the answers file, ``null`` or ``NO_ANSWER``). A system answer that does not parse is
``incorrect``, with the parse error as the reason. Category ``X`` items are listed with the
verdict ``excluded`` and never scored (H89-2019 section 5).

Figures, over the scored items of a group (all, one category, one tag):

- ``accuracy`` = correct / scored (a fraction, None when nothing is scored);
- ATIS: ``weighted_error`` = 2 x %incorrect + %no_answer and ``score`` = 100 - weighted_error
  (in percentage points, so the score runs from -100 to 100);
- the mean of each graded metric (``answerkey.metrics``) over the scored items.

Graded metrics compare the canonical relation with the system relation (a scalar is a
one-tuple relation). With ``OR`` alternatives an item takes, for each metric, the best value
over the alternatives; a min/max item is measured against its minimal answer; a missing,
``NO_ANSWER`` or unparseable system answer scores 0.0 on every metric.

Min/max answers (ATIS 1991-92): a system answer S is correct against minimal answer M and
maximal answer X iff (1) ``judge(M, S)`` is correct: S holds columns mapping onto every column
of M, and (2) when S has tuples, some injective mapping g of S's columns onto X's columns
makes X projected onto g equivalent to S (X is the canonical side: reals within epsilon of
X's values; in order when X is ordered). (2) says every system column is a column of the
maximal answer, with its values tuple by tuple; M is checked to be a projection of X when
the corpus is read.

>>> from answerkey.grammar import parse
>>> minimal, maximal = parse('((4322) (5267))'), parse('((4322 "SMITH" 45) (5267 "JONES" 44))')
>>> judge_min_max(minimal, maximal, parse('((5267 "JONES") (4322 "SMITH"))')).correct
True
>>> judge_min_max(minimal, maximal, parse('((4322 "SMITH" 1) (5267 "JONES" 2))')).reason
'system column 3 matches no column of the maximal answer'
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter, methodcaller
from typing import TYPE_CHECKING, NamedTuple

from answerkey.gc_pause import PAUSE_FROM_CELLS, gc_paused
from answerkey.comparator import DEFAULT_EPSILON, SCALAR_RULES, STRING_MODES, MatchRule, Verdict, judge, judge_signature
from answerkey.comparator.search import find_mapping, ordered_equivalent, project, search_injective
from answerkey.comparator.tuples import equivalent
from answerkey.errors import InputError, ParseError
from answerkey.grammar import parse
from answerkey.model import Alternatives, Answer, NoAnswer, Relation

if TYPE_CHECKING:
    # Not imported at run time: worker processes score batches without the pydantic models.
    from answerkey.score.load import Answers, Corpus

__all__ = [
    "VERDICTS",
    "ScoreOptions",
    "ItemResult",
    "GroupSummary",
    "ScoreRun",
    "score_corpus",
    "check_corpus",
    "judge_min_max",
    "canonical_answers",
    "item_metrics",
    "relation_metrics",
]

# Verdicts of scored items, then the one for category X items.
VERDICTS = ("correct", "incorrect", "no_answer", "excluded")

# Items per unit of work sent to a worker process: large enough that the per-item work
# dominates pickling and scheduling, small enough to spread a corpus over the workers.
BATCH_SIZE = 64


def relation_metrics() -> dict[str, Callable[..., float]]:
    """The registered graded metrics that compare two relations, by name (registry order).

    These are the ``answerkey.metrics.METRICS`` entries named in ``TABLE_METRICS``
    (``metric(target, prediction, *, rule=None) -> float``); empty when none are registered.
    """
    try:
        from answerkey import metrics
    except ImportError:
        return {}
    registry = getattr(metrics, "METRICS", {})
    table = getattr(metrics, "TABLE_METRICS", None)
    return {name: function for name, function in registry.items() if table is None or name in table}


@dataclass(frozen=True)
class ScoreOptions:
    """The run's options. ``epsilon``, ``scalars`` and ``strings`` change verdicts and are in
    the signature (a corpus item's own ``epsilon``/``ordered`` override them for that item);
    ``metrics`` names the graded metrics to compute."""

    epsilon: float = DEFAULT_EPSILON
    scalars: str = "atis"
    strings: str = "exact"
    metrics: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.scalars not in SCALAR_RULES:
            raise ValueError(f"scalars must be one of {', '.join(SCALAR_RULES)}, not {self.scalars!r}")
        if self.strings not in STRING_MODES:
            raise ValueError(f"strings must be one of {', '.join(STRING_MODES)}, not {self.strings!r}")
        MatchRule(epsilon=self.epsilon)  # rejects a negative or non-finite epsilon
        if self.metrics:
            known = relation_metrics()
            unknown = [name for name in self.metrics if name not in known]
            if unknown:
                raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(known) or 'none'}")

    @property
    def signature(self) -> str:
        """``eps:0.0001|scalars:atis|strings:exact|v:...``."""
        return judge_signature(epsilon=self.epsilon, scalars=self.scalars, strings=self.strings)


@dataclass(slots=True)
class ItemResult:
    """One corpus item's outcome, with the texts a report shows beside it.

    (Not frozen: a frozen dataclass sets each field through ``object.__setattr__``, 1.5 µs
    per result against 0.6 µs, paid once per item of every run.)
    """

    id: str
    verdict: str
    reason: str
    category: str
    tags: tuple[str, ...]
    metrics: dict[str, float]
    query: str = ""
    canonical: str | None = None
    max_answer: str | None = None
    system: str | None = None
    context: tuple[str, ...] = ()

    @property
    def scored(self) -> bool:
        """False for category X items."""
        return self.verdict != "excluded"


_verdict = attrgetter("verdict")


def _percent(count: int, total: int) -> float:
    return 100.0 * count / total


@dataclass(frozen=True)
class GroupSummary:
    """Counts and figures of a group of items (all of them, one category or one tag)."""

    items: int
    scored: int
    correct: int
    incorrect: int
    no_answer: int
    metrics: dict[str, float | None] = field(default_factory=dict)

    @classmethod
    def of(cls, results: Sequence[ItemResult], metric_names: Sequence[str]) -> GroupSummary:
        """Count ``results`` and average their metrics over the scored ones."""
        counts = dict.fromkeys(VERDICTS, 0)
        counts.update(Counter(map(_verdict, results)))
        scored_metrics = [r.metrics for r in results if r.verdict != "excluded"]
        means: dict[str, float | None] = {}
        for name in metric_names:
            try:
                values = list(map(itemgetter(name), scored_metrics))
            except KeyError:  # an item without this metric: undefined there, like NaN
                values = list(map(methodcaller("get", name, math.nan), scored_metrics))
            total = math.fsum(values)
            if total != total:  # NaN: some item's metric is undefined; average over the others
                values = [value for value in values if value == value]
                total = math.fsum(values)
            means[name] = total / len(values) if values else None
        return cls(
            items=len(results),
            scored=len(results) - counts["excluded"],
            correct=counts["correct"],
            incorrect=counts["incorrect"],
            no_answer=counts["no_answer"],
            metrics=means,
        )

    @property
    def accuracy(self) -> float | None:
        """correct / scored, or None when no item is scored."""
        return self.correct / self.scored if self.scored else None

    @property
    def weighted_error(self) -> float | None:
        """ATIS weighted error, 2 x %incorrect + %no_answer (percentage points)."""
        if not self.scored:
            return None
        return 2 * _percent(self.incorrect, self.scored) + _percent(self.no_answer, self.scored)

    @property
    def score(self) -> float | None:
        """ATIS score, 100 - weighted error."""
        error = self.weighted_error
        return None if error is None else 100.0 - error


@dataclass
class ScoreRun:
    """Everything a scoring run computed: per item results and the summaries."""

    signature: str
    options: ScoreOptions
    items: list[ItemResult]
    summary: GroupSummary
    by_category: dict[str, GroupSummary]
    by_tag: dict[str, GroupSummary]
    warnings: list[str] = field(default_factory=list)

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The graded metrics computed in this run."""
        return self.options.metrics


# ---------------------------------------------------------------- canonical answers


def _with_order(answer: Answer, ordered: bool | None) -> Answer:
    if ordered is None or isinstance(answer, NoAnswer):
        return answer
    if isinstance(answer, Alternatives):
        return Alternatives(tuple(_with_order(option, ordered) for option in answer.options))
    if answer.ordered == ordered:
        return answer
    return Relation(answer.rows, ordered=ordered, scalar=answer.scalar)


class _CanonicalProblem(Exception):
    """A corpus item's CAS text is unusable: ``field`` names the corpus field."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


def _parse_canonical(text: str, field_name: str, *, alternatives: bool) -> Answer:
    try:
        return parse(text, allow_alternatives=alternatives)
    except ParseError as error:
        raise _CanonicalProblem(field_name, f"{field_name}: {error.message} (at {error.line}:{error.column} "
                                f"of the {field_name.replace('_', ' ')} text)") from None


def canonical_answers(
    answer: str, max_answer: str | None = None, *, ordered: bool | None = None, scored: bool = True
) -> tuple[Answer, Relation | None]:
    """Parse a corpus item's canonical answer (and maximal answer), apply its ``ordered``
    override and check that they can be scored; raises ``InputError`` naming the field.

    >>> canonical_answers("((1 2))", "((1 2 3))")[1].arity
    3
    >>> canonical_answers("((1 2))", "((1 3))")
    Traceback (most recent call last):
    ...
    answerkey.errors.InputError: <input>: max_answer: does not contain the minimal answer (no columns of it give the minimal answer's tuples)
    """
    try:
        return _canonical_answers(answer, max_answer, ordered, scored)
    except _CanonicalProblem as problem:
        raise InputError(problem.message) from None


def _canonical_answers(answer, max_answer, ordered, scored):
    canonical = _with_order(_parse_canonical(answer, "answer", alternatives=True), ordered)
    if isinstance(canonical, NoAnswer) and scored:
        raise _CanonicalProblem("answer", "answer: NO_ANSWER cannot be a canonical answer (nothing matches it; "
                                "use category X to list an item without scoring it)")
    if max_answer is None:
        return canonical, None
    maximal = _with_order(_parse_canonical(max_answer, "max_answer", alternatives=True), ordered)
    if not isinstance(maximal, Relation):
        what = "NO_ANSWER" if isinstance(maximal, NoAnswer) else "OR alternatives"
        raise _CanonicalProblem("max_answer", f"max_answer: must be one relation, not {what}")
    if not isinstance(canonical, Relation):
        raise _CanonicalProblem("answer", "answer: a minimal answer with max_answer must be one relation "
                                "(not OR alternatives, not NO_ANSWER)")
    if bool(canonical.rows) != bool(maximal.rows):
        raise _CanonicalProblem("max_answer", "max_answer: the minimal and maximal answers must both be empty "
                                "or both have tuples")
    if canonical.rows and find_mapping(canonical.rows, maximal.rows, MatchRule(epsilon=0)) is None:
        raise _CanonicalProblem("max_answer", "max_answer: does not contain the minimal answer "
                                "(no columns of it give the minimal answer's tuples)")
    return canonical, maximal


# ---------------------------------------------------------------- min/max


def _maximal_mapping(
    maximal: Sequence[tuple], system: Sequence[tuple], rule: MatchRule, ordered: bool
) -> tuple[tuple[int, ...] | None, str]:
    """An injective mapping g (system column j -> maximal column g[j]) with the maximal rows
    projected onto g equivalent to the system rows, or None and why not."""
    width, available = len(system[0]), len(maximal[0])
    if width > available:
        return None, f"the system answer has {width} columns; the maximal answer only {available}"
    # A system column may only go to a maximal column whose value set covers it both ways.
    maximal_values = [project(maximal, [i]) for i in range(available)]
    options = []
    for j in range(width):
        values = project(system, [j])
        options.append([i for i in range(available) if equivalent(maximal_values[i], values, rule)])
    for j, choices in enumerate(options):
        if not choices:
            return None, f"system column {j + 1} matches no column of the maximal answer"

    def fits(system_columns: list[int], maximal_columns: list[int]) -> bool:
        if ordered:
            return ordered_equivalent(
                [tuple(row[i] for i in maximal_columns) for row in maximal],
                [tuple(row[j] for j in system_columns) for row in system],
                rule,
            )
        return equivalent(project(maximal, maximal_columns), project(system, system_columns), rule)

    mapping = search_injective(options, fits, check_first=ordered)
    if mapping is not None:
        return mapping, ""
    return None, "no mapping of the system columns onto columns of the maximal answer gives the system tuples"


def judge_min_max(
    minimal: Relation,
    maximal: Relation,
    system: Answer,
    *,
    epsilon: float = DEFAULT_EPSILON,
    scalars: str = "atis",
    strings: str = "exact",
) -> Verdict:
    """Judge ``system`` against a minimal and a maximal answer (ATIS 1991-92): it must hold
    every minimal column and no column outside the maximal answer (see the module docstring).
    ``Verdict.mapping`` maps the minimal answer's columns onto the system's."""
    verdict = judge(minimal, system, epsilon=epsilon, scalars=scalars, strings=strings)
    if not verdict.correct:
        if isinstance(system, NoAnswer):
            return verdict
        return Verdict(False, f"the minimal answer does not match: {verdict.reason}", None, None,
                       minimal, system, verdict.rule, scalars)
    if not system.rows:
        return verdict
    rule = verdict.rule
    mapping, why = _maximal_mapping(maximal.rows, system.rows, rule, maximal.ordered)
    if mapping is None:
        return Verdict(False, why, None, None, minimal, system, rule, scalars)
    return Verdict(True, "the minimal columns match and every system column is a column of the maximal answer",
                   verdict.mapping, None, minimal, system, rule, scalars)


# ---------------------------------------------------------------- metrics


def item_metrics(
    canonical: Answer, system: Answer | None, rule: MatchRule, names: Sequence[str]
) -> dict[str, float]:
    """Graded metric values of one item: for OR alternatives the best value over them;
    0.0 for every metric when the system gave no usable answer (``None`` or ``NO_ANSWER``)."""
    if not names:
        return {}
    if not isinstance(system, Relation) or isinstance(canonical, NoAnswer):
        return dict.fromkeys(names, 0.0)
    targets = canonical.options if isinstance(canonical, Alternatives) else (canonical,)
    per_target = [_metric_values(target, system, rule, names) for target in targets]
    return {
        name: max((values[name] for values in per_target), key=lambda score: -1.0 if math.isnan(score) else score)
        for name in names
    }


def _metric_values(target: Relation, system: Relation, rule: MatchRule, names: Sequence[str]) -> dict[str, float]:
    from answerkey import metrics

    shared = getattr(metrics, "table_scores", None)
    table = getattr(metrics, "TABLE_METRICS", ())
    if shared is not None and all(name in table for name in names):
        # The table metrics share their per-table work when computed together.
        return shared(target, system, rule=rule, metrics=names)
    functions = relation_metrics()
    return {name: functions[name](target, system, rule=rule) for name in names}


# ---------------------------------------------------------------- one batch (runs in workers)


class _Task(NamedTuple):
    """What a worker needs to score one corpus item (plain values: they cross processes)."""

    index: int
    answer: str | None
    max_answer: str | None
    epsilon: float | None
    ordered: bool | None
    scored: bool
    has_system: bool
    system: str | None
    origin: str
    embedded: bool


class _Outcome(NamedTuple):
    verdict: str
    reason: str
    metrics: dict
    problem: tuple[str, str] | None = None  # (field, message): the corpus item is unusable


def _system_parse_reason(answer: _Task, error: ParseError) -> str:
    if answer.embedded:
        where = f"{answer.origin} (at {error.line}:{error.column} of the answer text)"
    else:
        where = f"{answer.origin}:{error.line}:{error.column}"
    return f"unparseable system answer: {where}: {error.message}"


def _score_task(task: _Task, options: ScoreOptions) -> _Outcome:
    canonical = maximal = None
    if task.answer is not None:
        try:
            canonical, maximal = _canonical_answers(task.answer, task.max_answer, task.ordered, task.scored)
        except _CanonicalProblem as problem:
            return _Outcome("", "", {}, (problem.field, problem.message))
    if not task.scored:
        return _Outcome("excluded", "category X: listed, not scored (H89-2019 section 5)", {})
    epsilon = options.epsilon if task.epsilon is None else task.epsilon
    rule = MatchRule(epsilon=epsilon, strings=options.strings)
    names = options.metrics
    declined = item_metrics(canonical, None, rule, names)  # 0.0 on every metric
    if not task.has_system:
        return _Outcome("no_answer", "no answer for this item in the answers file", declined)
    if task.system is None:
        return _Outcome("no_answer", "the system gave no answer (null)", declined)
    try:
        system = parse(task.system, allow_alternatives=False)
    except ParseError as error:
        return _Outcome("incorrect", _system_parse_reason(task, error), declined)
    if isinstance(system, NoAnswer):
        return _Outcome("no_answer", "the system gave no answer (NO_ANSWER)", declined)
    if maximal is not None:
        verdict = judge_min_max(canonical, maximal, system, epsilon=epsilon, scalars=options.scalars,
                                strings=options.strings)
    else:
        verdict = judge(canonical, system, epsilon=epsilon, scalars=options.scalars, strings=options.strings)
    return _Outcome(verdict.label, verdict.reason, item_metrics(canonical, system, rule, names))


def _score_batch(start: int) -> list[_Outcome]:
    """Score the batch of items from ``start`` (module level: worker processes import it by
    name; the tasks and options are shared with every worker once, not sent per batch)."""
    from answerkey.parallel import shared

    options, tasks = shared()
    return [_score_task(task, options) for task in tasks[start : start + BATCH_SIZE]]


# ---------------------------------------------------------------- the run


def _tasks(corpus: Corpus, answers: Answers | None) -> list[_Task]:
    by_id = answers.by_id if answers is not None else {}
    tasks = []
    for index, item in enumerate(corpus.items):
        given = by_id.get(item.id)
        tasks.append(_Task(
            index, item.answer, item.max_answer, item.epsilon, item.ordered, item.scored,
            given is not None, given.text if given else None, given.origin if given else "",
            given.embedded if given else True,
        ))
    return tasks


def _outcomes(tasks: list[_Task], options: ScoreOptions, jobs: int) -> Iterator[_Outcome]:
    from answerkey.parallel import ordered_map

    starts = range(0, len(tasks), BATCH_SIZE)
    for outcomes in ordered_map(_score_batch, starts, jobs=jobs, shared=(options, tasks)):
        yield from outcomes


def _problem(corpus: Corpus, index: int, field_name: str, message: str) -> InputError:
    return corpus.error(index, f"item {corpus.items[index].id!r}: {message}", field_name)


def check_corpus(corpus: Corpus, *, jobs: int = 1) -> list[InputError]:
    """Every problem of a corpus, located: invalid items (from loading) and canonical CAS text
    that does not parse or cannot be scored. Empty when the corpus can be scored."""
    problems = list(corpus.problems)
    tasks = _tasks(corpus, None)
    for task, outcome in zip(tasks, _outcomes(tasks, ScoreOptions(), jobs)):
        if outcome.problem is not None:
            problems.append(_problem(corpus, task.index, *outcome.problem))
    return sorted(problems, key=lambda error: (error.line or 0, error.column or 0))


def _summaries(results: list[ItemResult], names: Sequence[str]):
    from answerkey.score.load import CATEGORIES

    by_category: dict[str, list[ItemResult]] = {}
    by_tag: dict[str, list[ItemResult]] = {}
    for result in results:
        by_category.setdefault(result.category, []).append(result)
        for tag in dict.fromkeys(result.tags):
            by_tag.setdefault(tag, []).append(result)
    return (
        GroupSummary.of(results, names),
        {category: GroupSummary.of(by_category[category], names) for category in CATEGORIES if category in by_category},
        {tag: GroupSummary.of(by_tag[tag], names) for tag in sorted(by_tag)},
    )


def score_corpus(
    corpus: Corpus,
    answers: Answers,
    options: ScoreOptions | None = None,
    *,
    jobs: int = 1,
    quiet: bool = True,
    each: Callable[[ItemResult], object] | None = None,
) -> ScoreRun:
    """Score ``answers`` against ``corpus``: one verdict per item, summaries, warnings.

    Canonical answers are parsed here (in ``jobs`` processes, in batches); if any corpus item
    is invalid or its CAS text is unusable, ``InputErrors`` lists every such item and nothing
    is scored. Results are in corpus order whatever ``jobs`` is. ``quiet=False`` draws a
    progress bar on a terminal for large corpora. ``each`` is called with each result as it
    comes, in corpus order (``answerkey.score.report.ItemLines`` encodes the JSON
    report's lines meanwhile).
    """
    from answerkey.score.load import InputErrors
    from answerkey.progress import progress

    options = options or ScoreOptions()
    with gc_paused(len(corpus.items) >= PAUSE_FROM_CELLS):  # see answerkey.gc_pause
        tasks = _tasks(corpus, answers)
    problems = list(corpus.problems)
    results: list[ItemResult] = []
    outcomes = progress(_outcomes(tasks, options, jobs), total=len(tasks), label="score", quiet=quiet)
    for item, task, outcome in zip(corpus.items, tasks, outcomes):
        if outcome.problem is not None:
            problems.append(_problem(corpus, task.index, *outcome.problem))
            continue
        result = ItemResult(
            id=item.id, verdict=outcome.verdict, reason=outcome.reason, category=item.category,
            tags=tuple(item.tags), metrics=outcome.metrics, query=item.query, canonical=item.answer,
            max_answer=item.max_answer, system=task.system if task.has_system else None,
            context=tuple(item.context),
        )
        results.append(result)
        if each is not None:
            each(result)
    if problems:
        raise InputErrors(sorted(problems, key=lambda error: (error.line or 0, error.column or 0)))
    known = {item.id for item in corpus.items}
    warnings = [
        f"{given.origin}: answer for id {item_id!r}, which is not in the corpus"
        for item_id, given in answers.by_id.items()
        if item_id not in known
    ]
    with gc_paused(len(results) >= PAUSE_FROM_CELLS):
        summary, by_category, by_tag = _summaries(results, options.metrics)
    return ScoreRun(options.signature, options, results, summary, by_category, by_tag, warnings)
