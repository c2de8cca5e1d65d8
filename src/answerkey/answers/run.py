"""Judging each row of a questions-and-answers table by claims, with an LLM judge.

``run_answers`` sends each row to the judge (``answerkey.metrics.answers.AnswerJudge``) and
collects an ``AnswersRun``: one ``Correctness`` per row, in the table's order, and the
figures over the judged rows. A row the judge could not judge (a blank text, a failed call, a
timeout, a reply not in the asked format) keeps its error and the run goes on; each such row
is also a warning (``FILE:LINE: why``). With ``jobs`` above 1, that many requests are sent at
once (threads: the work is waiting for the endpoint), and the results keep the table's order.

Figures: ``recall`` = matching / reference claims, ``precision`` = matching / actual claims,
``f1`` their harmonic mean (0 when both are 0), per row; the summary's are their means over
the judged rows (None when no row was judged).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from answerkey._deprecated import keep_old_names
from answerkey.answers.load import AnswerRow, AnswerTable
from answerkey.answers.schema import AnswersReport, AnswersSummary, RowReport, tsv_text
from answerkey.errors import RunWarning
from answerkey.metrics.answers import ENVIRONMENT, AnswerJudge, Correctness
from answerkey.progress import progress
from answerkey.report import Reported
from answerkey.report.schema import build
from answerkey.signature import Signature

# A run of this many rows shows a progress bar on a terminal (the default threshold suits fast
# items): each row waits seconds for a remote model, so every run shows one.
ROWS_WORTH_A_PROGRESS_BAR = 1

T = TypeVar("T")
R = TypeVar("R")


def judge_signature(judge: AnswerJudge) -> Signature:
    """``model:gpt-4o-mini|v:...``: the judge's model (its prompt changes only with the version).

    >>> str(judge_signature(AnswerJudge("http://127.0.0.1:9/v1", model="m"))).startswith("model:m|v:")
    True
    """
    if judge.graphrag_eval == 6:  # 6.x's JSON reply, and the config's prompt or answerkey's
        prompt = "config" if judge.correctness_prompt is not None else "answerkey"
        return Signature.of(model=judge.model, graphrag_eval=6, prompt=prompt)
    return Signature.of(model=judge.model)


@dataclass(frozen=True)
class RowJudgement:
    """One row of the table and its judgement."""

    row: AnswerRow
    correctness: Correctness

    @property
    def judged(self) -> bool:
        """True when the row has claim counts (no error)."""
        return self.correctness.error is None


def _mean(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return math.fsum(present) / len(present) if present else None


@dataclass
class AnswersRun(Reported):
    """Everything a run judged: each row's judgement, in the table's order (an
    ``answerkey.report.Result``)."""

    signature: Signature
    source: str
    header: list[str]
    rows: list[RowJudgement]
    warnings: list[RunWarning] = field(default_factory=list)

    @property
    def judged(self) -> int:
        """Rows with claim counts."""
        return sum(judgement.judged for judgement in self.rows)

    @property
    def errors(self) -> int:
        """Rows with an error instead of claim counts."""
        return len(self.rows) - self.judged

    @property
    def recall(self) -> float | None:
        """Mean recall over the judged rows."""
        return _mean([judgement.correctness.recall for judgement in self.rows])

    @property
    def precision(self) -> float | None:
        """Mean precision over the judged rows."""
        return _mean([judgement.correctness.precision for judgement in self.rows])

    @property
    def f1(self) -> float | None:
        """Mean F1 over the judged rows."""
        return _mean([judgement.correctness.f1 for judgement in self.rows])

    def report(self) -> AnswersReport:
        """The report (``answerkey schema answers-report``)."""
        return build(
            AnswersReport,
            signature=str(self.signature),
            summary=build(
                AnswersSummary,
                rows=len(self.rows),
                judged=self.judged,
                errors=self.errors,
                answer_recall=self.recall,
                answer_precision=self.precision,
                answer_f1=self.f1,
            ),
            rows=[_row_report(judgement) for judgement in self.rows],
            warnings=[str(warning) for warning in self.warnings],
        )

    def tsv_text(self, layout: str = "all") -> str:
        """The output TSV (see ``answerkey.answers.schema.tsv_text``)."""
        return tsv_text(self.header, ((judgement.row.cells, _row_report(judgement)) for judgement in self.rows), layout)


def _row_report(judgement: RowJudgement) -> RowReport:
    correctness, row = judgement.correctness, judgement.row
    return build(
        RowReport,
        line=row.line,
        question_text=row.question,
        reference_answer=row.reference_answer,
        actual_answer=row.actual_answer,
        answer_reference_claims_count=correctness.reference_claims,
        answer_actual_claims_count=correctness.actual_claims,
        answer_matching_claims_count=correctness.matching_claims,
        answer_correctness_reason=correctness.reason,
        answer_recall=correctness.recall,
        answer_precision=correctness.precision,
        answer_f1=correctness.f1,
        answer_eval_error=correctness.error,
    )


def ordered_in_threads(function: Callable[[T], R], items: Sequence[T], jobs: int) -> Iterator[R]:
    """``map(function, items)`` computed in ``jobs`` threads, yielded in the order of ``items``
    as soon as each next one is done. The threads are daemons that stop taking work when the
    iterator is closed, so an interrupted run ends at once rather than after the calls under
    way. An exception of ``function`` is raised here, at its item.

    >>> list(ordered_in_threads(lambda n: n * n, [3, 1, 2], jobs=2))
    [9, 1, 4]
    """
    if jobs <= 1 or len(items) <= 1:
        yield from map(function, items)
        return
    results: list[tuple[bool, Any]] = [(False, None)] * len(items)
    ready = [threading.Event() for _ in items]
    indexes = iter(range(len(items)))
    lock = threading.Lock()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            with lock:
                index = next(indexes, None)
            if index is None:
                return
            try:
                results[index] = (True, function(items[index]))
            except BaseException as error:  # noqa: BLE001 (handed to the caller, at its item)
                results[index] = (False, error)
            ready[index].set()

    for number in range(min(jobs, len(items))):
        threading.Thread(target=work, name=f"answerkey-judge-{number}", daemon=True).start()
    try:
        for index in range(len(items)):
            ready[index].wait()
            done, value = results[index]
            results[index] = (False, None)  # the caller keeps what it needs
            if not done:
                raise value
            yield value
    finally:
        stop.set()


def run_answers(table: AnswerTable, judge: AnswerJudge, *, jobs: int = 1, quiet: bool = True) -> AnswersRun:
    """Judge every row of ``table`` with ``judge`` (``jobs`` requests at once); never raises
    for a row: its error is kept in its ``Correctness`` and listed as a warning. ``quiet=False``
    draws a progress bar on a terminal for large tables."""

    def judge_row(row: AnswerRow) -> Correctness:
        return judge.judge_correctness(row.question, row.reference_answer, row.actual_answer)

    judgements = progress(
        ordered_in_threads(judge_row, table.rows, jobs),
        total=len(table.rows),
        label="answers",
        quiet=quiet,
        threshold=ROWS_WORTH_A_PROGRESS_BAR,
    )
    rows = [RowJudgement(row, correctness) for row, correctness in zip(table.rows, judgements)]
    warnings = [
        RunWarning(f"{table.source}:{judgement.row.line}: {judgement.correctness.error}", "row-error")
        for judgement in rows
        if judgement.correctness.error is not None
    ]
    asked = any(
        all(text.strip() for text in (row.question, row.reference_answer, row.actual_answer)) for row in table.rows
    )
    if asked and not any(judgement.judged for judgement in rows):
        # Every call failed: more likely the endpoint's settings than the rows.
        warnings.append(
            RunWarning(
                f"no row was judged: is the endpoint at {ENVIRONMENT['url']} ({judge.url}) right, "
                f"and its model ({judge.model}) and key?",
                "no-judgement",
            )
        )
    warnings.extend(judge.cache_warnings())
    return AnswersRun(judge_signature(judge), table.source, table.header, rows, warnings)


# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(globals(), {"judge_table": "run_answers"})
