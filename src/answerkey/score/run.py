"""Scoring one system's answers against a corpus: verdicts, ATIS figures, graded metrics.

``run_score`` computes everything once into a ``ScoreRun``, the result its reports are
written from (its ``ScoreReport``, ``answerkey.score.schema``).

Each scored item gets a verdict: ``correct``, ``incorrect`` or ``no_answer`` (no answer in
the answers file, ``null`` or ``NO_ANSWER``). A system answer that does not parse is
``incorrect``, with the parse error as the reason. Category ``X`` items are listed with the
verdict ``excluded`` and never scored (H89-2019 section 5).

Figures, over the scored items of a group (all, one category, one tag):

- ``accuracy`` = correct / scored (a fraction, None when nothing is scored);
- ATIS: ``weighted_error`` = 2 x %incorrect + %no_answer and ``score`` = 100 - weighted_error
  (in percentage points, so the score runs from -100 to 100);
- the mean of each graded metric (``answerkey.metrics``) over the scored items where it is
  defined.

Graded metrics compare the canonical relation with the system relation (a scalar is a
one-tuple relation). With ``OR`` alternatives an item takes, for each metric, the best value
over the alternatives; a min/max item is measured against its minimal answer; a missing,
``NO_ANSWER`` or unparseable system answer scores 0.0 on every metric. ``tuple_order``
applies only where the canonical answer is ordered (as QATCH computes it only for queries
with ``ORDER BY``): elsewhere it is undefined (NaN, ``null`` in reports) and left out of means.

>>> from answerkey.grammar import parse
>>> item_metrics(parse("((1) (2))"), parse("((2) (1))"), MatchRule(), ["cell_recall", "tuple_order"])
{'cell_recall': 1.0, 'tuple_order': nan}
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter, methodcaller
from typing import Any, NamedTuple

from answerkey._deprecated import keep_old_names
from answerkey.comparator import (
    DEFAULT_ABS_EPSILON,
    DEFAULT_EPSILON,
    SCALAR_RULES,
    STRING_MODES,
    MatchRule,
    Verdict,
    judge,
    judge_min_max,
    judge_signature,
)
from answerkey.comparator.search import find_mapping
from answerkey.errors import InputError, InputErrors, ParseError, RunWarning, plural
from answerkey.grammar import parse
from answerkey.metrics import METRICS, TABLE_METRICS, metrics_for, needs_order, table_scores
from answerkey.model import Alternatives, Answer, NoAnswer, Relation
from answerkey.parallel import ordered_map, shared
from answerkey.progress import progress
from answerkey.report import Reported
from answerkey.report.alignment import aligned_verdict
from answerkey.report.schema import build
from answerkey.score.load import Answers, Corpus
from answerkey.score.schema import CATEGORIES, VERDICTS, GroupFigures, ItemReport, ScoreReport, Summary
from answerkey.signature import Signature

# Items per unit of work sent to a worker process: large enough that the per-item work
# dominates pickling and scheduling, small enough to spread a corpus over the workers.
BATCH_SIZE = 64


def relation_metrics() -> dict[str, Callable[..., float]]:
    """The registered graded metrics that compare two relations, by name (registry order):
    ``metric(target, prediction, *, rule=None) -> float``."""
    return {name: METRICS[name] for name in metrics_for("score")}


@dataclass(frozen=True)
class ScoreOptions:
    """The run's options. ``epsilon``, ``scalars`` and ``strings`` change verdicts and are in
    the signature (a corpus item's own ``epsilon``/``ordered`` override them for that item);
    ``metrics`` names the graded metrics to compute. ``abs_epsilon``, the absolute floor of
    the tolerance for reals (``MatchRule``), applies to every item and is in the signature
    only when set."""

    epsilon: float = DEFAULT_EPSILON
    scalars: str = SCALAR_RULES[0]
    strings: str = "exact"
    metrics: tuple[str, ...] = ()
    abs_epsilon: float = DEFAULT_ABS_EPSILON
    aligned_lines: int = 0
    """With ``--html``: the lines of each item's two answers aligned that the page shows
    (``answerkey.report.alignment``); 0 aligns none. Not in the signature: no verdict changes."""

    def __post_init__(self) -> None:
        if self.scalars not in SCALAR_RULES:
            raise ValueError(f"scalars must be one of {', '.join(SCALAR_RULES)}, not {self.scalars!r}")
        if self.strings not in STRING_MODES:
            raise ValueError(f"strings must be one of {', '.join(STRING_MODES)}, not {self.strings!r}")
        MatchRule(epsilon=self.epsilon, abs_epsilon=self.abs_epsilon)  # rejects a negative or non-finite one
        if self.metrics:
            known = relation_metrics()
            unknown = [name for name in self.metrics if name not in known]
            if unknown:
                raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(known) or 'none'}")

    @property
    def signature(self) -> Signature:
        """``eps:0.0001|scalars:atis|strings:exact|v:...``."""
        return judge_signature(
            epsilon=self.epsilon, scalars=self.scalars, strings=self.strings, abs_epsilon=self.abs_epsilon
        )


@dataclass(slots=True)
class ItemResult:
    """One corpus item's outcome, with the texts a report shows beside it."""

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
    aligned: dict[str, Any] | None = None  # both answers aligned, for the HTML page

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
        """Count ``results`` and average their metrics over the scored ones where defined."""
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
class ScoreRun(Reported):
    """Everything a scoring run computed: per item results and the summaries (a
    ``answerkey.report.Result``)."""

    signature: Signature
    options: ScoreOptions
    items: list[ItemResult]
    summary: GroupSummary
    by_category: dict[str, GroupSummary]
    by_tag: dict[str, GroupSummary]
    warnings: list[RunWarning] = field(default_factory=list)

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The graded metrics computed in this run."""
        return self.options.metrics

    def report(self) -> ScoreReport:
        """The report (``answerkey schema score-report``): undefined figures are None."""
        return build(
            ScoreReport,
            signature=str(self.signature),
            summary=_figures(
                self.summary,
                Summary,
                by_category={name: _figures(group) for name, group in self.by_category.items()},
                by_tag={name: _figures(group) for name, group in self.by_tag.items()},
            ),
            items=[_item_report(item) for item in self.items],
            warnings=[str(warning) for warning in self.warnings],
        )


def _numbers(metrics: dict[str, float] | dict[str, float | None]) -> dict[str, float | None]:
    return {name: None if value is None or math.isnan(value) else value for name, value in metrics.items()}


def _figures(group: GroupSummary, model: type[GroupFigures] = GroupFigures, **more: Any) -> Any:
    """``group``'s figures as a ``model`` (``Summary`` takes ``more``: the groups)."""
    return build(
        model,
        items=group.items,
        scored=group.scored,
        correct=group.correct,
        incorrect=group.incorrect,
        no_answer=group.no_answer,
        accuracy=group.accuracy,
        weighted_error=group.weighted_error,
        score=group.score,
        metrics=_numbers(group.metrics),
        **more,
    )


def _item_report(item: ItemResult) -> ItemReport:
    return build(
        ItemReport,
        id=item.id,
        verdict=item.verdict,
        reason=item.reason,
        category=item.category,
        tags=list(item.tags),
        metrics=_numbers(item.metrics),
        query=item.query,
        canonical=item.canonical,
        max_answer=item.max_answer,
        system=item.system,
        context=list(item.context),
        aligned=item.aligned,
    )


# ---------------------------------------------------------------- canonical answers


def _with_order(answer: Answer, ordered: bool | None) -> Answer:
    if ordered is None or isinstance(answer, NoAnswer):
        return answer
    if isinstance(answer, Alternatives):
        return Alternatives(tuple(_with_order(option, ordered) for option in answer.options))  # type: ignore[misc]
    if answer.ordered == ordered:
        return answer
    return Relation(answer.rows, ordered=ordered, scalar=answer.scalar)


def _with_sort_keys(answer: Answer, order_by: tuple[int, ...]) -> Answer:
    """``answer`` ordered by a corpus item's ``order_by`` (columns numbered from 1), in place
    of any sort keys its CAS text gives; every alternative gets them."""
    if isinstance(answer, NoAnswer):
        return answer
    options: Sequence[Relation] = answer.options if isinstance(answer, Alternatives) else (answer,)
    keys = tuple(column - 1 for column in order_by)
    keyed = []
    for number, option in enumerate(options, start=1):
        what = f"alternative {number} of the answer" if isinstance(answer, Alternatives) else "the answer"
        if option.scalar:
            raise _CanonicalProblem("order_by", f"order_by: {what} is a scalar, which has no columns to sort by")
        beyond = [column for column in order_by if column > option.arity]
        if option.rows and beyond:
            raise _CanonicalProblem(
                "order_by", f"order_by: column {beyond[0]} is beyond the {plural(option.arity, 'column')} of {what}"
            )
        keyed.append(Relation.checked(option.rows, option.arity, order_by=keys))
    return Alternatives(tuple(keyed)) if isinstance(answer, Alternatives) else keyed[0]


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
        raise _CanonicalProblem(
            field_name,
            f"{field_name}: {error.message} (at {error.line}:{error.column} "
            f"of the {field_name.replace('_', ' ')} text)",
        ) from None


def canonical_answers(
    answer: str,
    max_answer: str | None = None,
    *,
    ordered: bool | None = None,
    scored: bool = True,
    order_by: tuple[int, ...] | None = None,
) -> tuple[Answer, Relation | None]:
    """Parse a corpus item's canonical answer (and maximal answer), apply its ``ordered``
    override and ``order_by`` sort keys (columns from 1) and check that they can be scored;
    raises ``InputError`` naming the field.

    >>> canonical_answers("((1 2))", "((1 2 3))")[1].arity
    3
    >>> canonical_answers("((1 2))", "((1 3))")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    answerkey.errors.InputError: <input>: max_answer: does not contain the minimal answer (no columns of it ...)
    >>> canonical_answers("((1 2) (3 4))", order_by=(2,))[0]
    Relation((ORDERED BY 2 (1 2) (3 4)))
    >>> canonical_answers("((1 2))", order_by=(3,))
    Traceback (most recent call last):
    ...
    answerkey.errors.InputError: <input>: order_by: column 3 is beyond the 2 columns of the answer
    """
    try:
        return _canonical_answers(answer, max_answer, ordered, scored, order_by)
    except _CanonicalProblem as problem:
        raise InputError(problem.message) from None


def _canonical_answers(
    answer: str, max_answer: str | None, ordered: bool | None, scored: bool, order_by: tuple[int, ...] | None = None
) -> tuple[Answer, Relation | None]:
    canonical = _with_order(_parse_canonical(answer, "answer", alternatives=True), ordered)
    if order_by is not None:
        canonical = _with_sort_keys(canonical, order_by)
    if isinstance(canonical, NoAnswer) and scored:
        raise _CanonicalProblem(
            "answer",
            "answer: NO_ANSWER cannot be a canonical answer (nothing matches it; "
            "use category X to list an item without scoring it)",
        )
    if max_answer is None:
        return canonical, None
    maximal = _with_order(_parse_canonical(max_answer, "max_answer", alternatives=True), ordered)
    if not isinstance(maximal, Relation):
        what = "NO_ANSWER" if isinstance(maximal, NoAnswer) else "OR alternatives"
        raise _CanonicalProblem("max_answer", f"max_answer: must be one relation, not {what}")
    if maximal.order_by is not None:
        raise _CanonicalProblem(
            "max_answer",
            "max_answer: sort keys (ORDERED BY) go on the minimal answer in 'answer', whose columns they number",
        )
    if not isinstance(canonical, Relation):
        raise _CanonicalProblem(
            "answer",
            "answer: a minimal answer with max_answer must be one relation (not OR alternatives, not NO_ANSWER)",
        )
    if bool(canonical.rows) != bool(maximal.rows):
        raise _CanonicalProblem(
            "max_answer", "max_answer: the minimal and maximal answers must both be empty or both have tuples"
        )
    if canonical.rows and find_mapping(canonical.rows, maximal.rows, MatchRule(epsilon=0)) is None:
        raise _CanonicalProblem(
            "max_answer",
            "max_answer: does not contain the minimal answer (no columns of it give the minimal answer's tuples)",
        )
    return canonical, maximal


# ---------------------------------------------------------------- metrics


def _applies(name: str, target: Relation) -> bool:
    return not needs_order(name) or target.ordered


def item_metrics(canonical: Answer, system: Answer | None, rule: MatchRule, names: Sequence[str]) -> dict[str, float]:
    """Graded metric values of one item: for OR alternatives the best value over them; 0.0
    for every metric when the system gave no usable answer (``None`` or ``NO_ANSWER``); NaN
    for an order metric where the canonical answer is not ordered."""
    if not names:
        return {}
    if isinstance(canonical, NoAnswer):
        return dict.fromkeys(names, 0.0)
    targets: Sequence[Relation] = canonical.options if isinstance(canonical, Alternatives) else (canonical,)
    if not isinstance(system, Relation):
        return {name: 0.0 if any(_applies(name, target) for target in targets) else math.nan for name in names}
    per_target = [_metric_values(target, system, rule, names) for target in targets]
    return {
        name: max((values[name] for values in per_target), key=lambda score: -1.0 if math.isnan(score) else score)
        for name in names
    }


def _metric_values(target: Relation, system: Relation, rule: MatchRule, names: Sequence[str]) -> dict[str, float]:
    wanted = [name for name in names if _applies(name, target)] if not target.ordered else list(names)
    if _TABLE_NAMES.issuperset(wanted):
        # The table metrics share their per-table work when computed together.
        values = table_scores(target, system, rule=rule, metrics=wanted)
    else:
        functions = relation_metrics()
        values = {name: functions[name](target, system, rule=rule) for name in wanted}
    return {name: values.get(name, math.nan) for name in names}


_TABLE_NAMES = frozenset(TABLE_METRICS)


# ---------------------------------------------------------------- one batch (runs in workers)


class _Task(NamedTuple):
    """What a worker needs to score one corpus item (plain values: they cross processes)."""

    position: int
    answer: str | None
    max_answer: str | None
    epsilon: float | None
    ordered: bool | None
    order_by: tuple[int, ...] | None
    scored: bool
    has_system: bool
    system: str | None
    origin: str
    embedded: bool


class _Outcome(NamedTuple):
    verdict: str
    reason: str
    metrics: dict[str, float]
    problem: tuple[str, str] | None = None  # (field, message): the corpus item is unusable
    aligned: dict[str, Any] | None = None  # both answers aligned (options.aligned_lines)


def _system_parse_reason(answer: _Task, error: ParseError) -> str:
    if answer.embedded:
        where = f"{answer.origin} (at {error.line}:{error.column} of the answer text)"
    else:
        where = f"{answer.origin}:{error.line}:{error.column}"
    return f"unparseable system answer: {where}: {error.message}"


def _score_task(task: _Task, options: ScoreOptions) -> _Outcome:
    canonical: Answer | None = None
    maximal: Relation | None = None
    if task.answer is not None:
        try:
            canonical, maximal = _canonical_answers(
                task.answer, task.max_answer, task.ordered, task.scored, task.order_by
            )
        except _CanonicalProblem as problem:
            return _Outcome("", "", {}, (problem.field, problem.message))
    if not task.scored or canonical is None:
        return _Outcome("excluded", "category X: listed, not scored (H89-2019 section 5)", {})
    epsilon = options.epsilon if task.epsilon is None else task.epsilon
    rule = MatchRule(epsilon=epsilon, strings=options.strings, abs_epsilon=options.abs_epsilon)
    names = options.metrics
    declined = item_metrics(canonical, None, rule, names)  # 0.0 on every metric that applies
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
    verdict: Verdict
    if maximal is not None and isinstance(canonical, Relation):
        verdict = judge_min_max(
            canonical,
            maximal,
            system,
            epsilon=epsilon,
            scalars=options.scalars,
            strings=options.strings,
            abs_epsilon=options.abs_epsilon,
        )
    else:
        verdict = judge(
            canonical,
            system,
            epsilon=epsilon,
            scalars=options.scalars,
            strings=options.strings,
            abs_epsilon=options.abs_epsilon,
        )
    aligned = aligned_verdict(verdict, options.aligned_lines) if options.aligned_lines else None
    return _Outcome(verdict.label, verdict.reason, item_metrics(canonical, system, rule, names), aligned=aligned)


def _score_batch(start: int) -> list[_Outcome]:
    """Score the batch of items from ``start`` (module level: worker processes import it by
    name; the tasks and options are shared with every worker once, not sent per batch)."""
    options: ScoreOptions
    tasks: list[_Task]
    options, tasks = shared()  # type: ignore[misc]
    return [_score_task(task, options) for task in tasks[start : start + BATCH_SIZE]]


# ---------------------------------------------------------------- the run


def _tasks(corpus: Corpus, answers: Answers | None) -> list[_Task]:
    by_id = answers.by_id if answers is not None else {}
    tasks = []
    for index, item in enumerate(corpus.items):
        given = by_id.get(item.id)
        tasks.append(
            _Task(
                index,
                item.answer,
                item.max_answer,
                item.epsilon,
                item.ordered,
                item.order_by,
                item.scored,
                given is not None,
                given.text if given else None,
                given.origin if given else "",
                given.embedded if given else True,
            )
        )
    return tasks


def _outcomes(tasks: list[_Task], options: ScoreOptions, jobs: int) -> Iterator[_Outcome]:
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
            problems.append(_problem(corpus, task.position, *outcome.problem))
    return sorted(problems, key=InputError.sort_key)


def _summaries(
    results: list[ItemResult], names: Sequence[str]
) -> tuple[GroupSummary, dict[str, GroupSummary], dict[str, GroupSummary]]:
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


def _unknown_ids(corpus: Corpus, answers: Answers) -> list[RunWarning]:
    """A warning for each answer whose id is not in the corpus; when many of them match a
    corpus id but for case, one more saying so (ids are compared exactly)."""
    known = {item.id for item in corpus.items}
    unknown = [(item_id, given) for item_id, given in answers.by_id.items() if item_id not in known]
    warnings = [
        RunWarning(f"{given.origin}: answer for id {item_id!r}, which is not in the corpus", "unknown-id")
        for item_id, given in unknown
    ]
    if unknown:
        folded = {item_id.casefold() for item_id in known}
        by_case = [item_id for item_id, _ in unknown if item_id.casefold() in folded]
        if by_case:
            warnings.append(
                RunWarning(
                    f"{plural(len(by_case), 'answer id')} of {len(unknown):,} not in the corpus match a corpus id "
                    f"but for case (e.g. {by_case[0]!r}); ids are compared exactly",
                    "unknown-id-case",
                )
            )
        elif len(unknown) == len(answers.by_id):
            warnings.append(
                RunWarning(
                    f"no answer in {answers.source} has an id of the corpus {corpus.source}: "
                    "are these the answers to this corpus?",
                    "unknown-id-all",
                )
            )
    return warnings


def run_score(
    corpus: Corpus,
    answers: Answers,
    options: ScoreOptions | None = None,
    *,
    jobs: int = 1,
    quiet: bool = True,
) -> ScoreRun:
    """Score ``answers`` against ``corpus``: one verdict per item, summaries, warnings.

    Canonical answers are parsed here (in ``jobs`` processes, in batches); if any corpus item
    is invalid or its CAS text is unusable, ``InputErrors`` lists every such item and nothing
    is scored. Results are in corpus order whatever ``jobs`` is. ``quiet=False`` draws a
    progress bar on a terminal for large corpora.
    """
    options = options or ScoreOptions()
    tasks = _tasks(corpus, answers)
    problems = list(corpus.problems)
    results: list[ItemResult] = []
    outcomes = progress(_outcomes(tasks, options, jobs), total=len(tasks), label="score", quiet=quiet)
    for item, task, outcome in zip(corpus.items, tasks, outcomes):
        if outcome.problem is not None:
            problems.append(_problem(corpus, task.position, *outcome.problem))
            continue
        results.append(
            ItemResult(
                id=item.id,
                verdict=outcome.verdict,
                reason=outcome.reason,
                category=item.category,
                tags=tuple(item.tags),
                metrics=outcome.metrics,
                query=item.query,
                canonical=item.answer,
                max_answer=item.max_answer,
                system=task.system if task.has_system else None,
                context=tuple(item.context),
                aligned=outcome.aligned,
            )
        )
    if problems:
        raise InputErrors(problems)
    summary, by_category, by_tag = _summaries(results, options.metrics)
    return ScoreRun(options.signature, options, results, summary, by_category, by_tag, _unknown_ids(corpus, answers))


# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(globals(), {"score_corpus": "run_score"})
