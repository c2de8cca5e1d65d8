"""A run of QATCH tests from a file: load the tests, score each, average the metrics.

Tests are JSON Lines, CSV or YAML rows with a ``db_id``, a target column (default
``query``) and a prediction column (default ``prediction``), and optionally an ``id``.
Bad rows are ``InputError`` at their line; a test whose target fails is reported as an
error of the test; a failing prediction scores zeros.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from answerkey.comparator.values import MatchRule
from answerkey.errors import InputError
from answerkey.files import load_yaml, read_jsonl, read_text
from answerkey.metrics.table import TABLE_METRICS
from answerkey.qatch.run import MAX_TABLE_CHARS, TASKS, TestOutcome, evaluate_test, is_table
from answerkey.signature import Signature
from answerkey.adapters.sql import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, Databases

__all__ = [
    "FORMATS",
    "QatchTest",
    "QatchOptions",
    "QatchResult",
    "QatchRun",
    "InputErrors",
    "load_tests",
    "run_tests",
]

FORMATS = ("jsonl", "csv", "yaml")


class InputErrors(InputError):
    """Several located input errors (every bad row of a tests file)."""

    def __init__(self, errors: Sequence[InputError]) -> None:
        super().__init__(f"{len(errors)} error{'s' if len(errors) != 1 else ''} in input")
        self.errors = list(errors)


@dataclass(frozen=True)
class QatchTest:
    """One row of a tests file."""

    id: str
    line: int | None
    db_id: str | None
    target: object
    prediction: object


@dataclass(frozen=True)
class QatchOptions:
    """Everything that changes the scores of a run (all of it goes into the signature)."""

    task: str
    metrics: tuple[str, ...] = TABLE_METRICS
    epsilon: float = 1e-4
    strings: str = "exact"
    root: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r}; known: {', '.join(TASKS)}")
        unknown = [name for name in self.metrics if name not in TABLE_METRICS]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(TABLE_METRICS)}")
        self.rule  # validates epsilon and strings

    @property
    def rule(self) -> MatchRule:
        return MatchRule(epsilon=self.epsilon, strings=self.strings)

    @property
    def signature(self) -> str:
        """E.g. ``task:sp|eps:0.0001|strings:exact|timeout:30|max_rows:1000000|v:0.1.0``."""
        described = self.rule.describe()
        return Signature.of(
            task=self.task, epsilon=described["epsilon"], strings=described["strings"],
            timeout=f"{self.timeout:g}", max_rows=self.max_rows,
        )


@dataclass(frozen=True)
class QatchResult:
    """One test and its outcome."""

    test: QatchTest
    outcome: TestOutcome


@dataclass(frozen=True)
class QatchRun:
    """A whole run: the results in file order and the mean of each metric over the tests
    without error where it applies (``None`` when it applies to none)."""

    options: QatchOptions
    results: list[QatchResult]
    means: dict[str, float | None] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        return self.options.signature


def _detect_format(path: str, format: str | None) -> str:
    if format:
        return format
    lowered = os.fspath(path).lower()
    if lowered.endswith(".csv"):
        return "csv"
    if lowered.endswith((".yaml", ".yml", ".json")):
        return "yaml"
    return "jsonl"


def _raw_rows(text: str, format: str, source: str) -> tuple[list[tuple[int | None, object]], list[InputError]]:
    """(line, row) pairs of a tests file, and the errors of rows that could not be read."""
    if format == "jsonl":
        rows, errors = [], []
        for entry in read_jsonl(text, source=source):
            if entry.error is not None:
                errors.append(entry.error)
            else:
                rows.append((entry.line, entry.value))
        return rows, errors
    if format == "csv":
        csv.field_size_limit(max(csv.field_size_limit(), MAX_TABLE_CHARS))
        reader = csv.DictReader(io.StringIO(text, newline=""))
        rows, errors = [], []
        try:
            if not reader.fieldnames:
                return [], []
            previous = reader.line_num
            for row in reader:
                line = previous + 1
                previous = reader.line_num
                if None in row:
                    errors.append(InputError("more cells than header columns", source=source, line=line))
                else:
                    rows.append((line, row))
        except csv.Error as error:
            errors.append(InputError(f"invalid CSV: {error}", source=source, line=reader.line_num))
        return rows, errors
    document = load_yaml(text, source=source)
    if document.data is None:
        return [], []
    if not isinstance(document.data, list):
        raise document.error("a tests file in YAML is a list of tests (mappings)")
    return [(document.locate((index,))[0], row) for index, row in enumerate(document.data)], []


def load_tests(
    path: str | os.PathLike,
    *,
    task: str,
    target_col: str = "query",
    prediction_col: str = "prediction",
    format: str | None = None,
) -> list[QatchTest]:
    """Read the tests of ``path`` (``-``: standard input, JSON Lines unless ``format``).

    Raises ``InputErrors`` listing every bad row, each as ``FILE:LINE: message``.
    """
    source = os.fspath(path)
    format = _detect_format(source, format)
    if format not in FORMATS:
        raise ValueError(f"unknown tests format {format!r}; known: {', '.join(FORMATS)}")
    rows, errors = _raw_rows(read_text(path), format, source)
    tests: list[QatchTest] = []
    seen: dict[str, int | None] = {}
    for index, (line, row) in enumerate(rows):
        def error(message: str) -> None:
            errors.append(InputError(message, source=source, line=line))

        if not isinstance(row, dict):
            error(f"a test is a mapping of columns, not {type(row).__name__}")
            continue
        if target_col not in row or row[target_col] in (None, ""):
            error(f"missing target column {target_col!r}")
            continue
        if prediction_col not in row:
            error(f"missing prediction column {prediction_col!r}")
            continue
        target, prediction = row[target_col], row[prediction_col]
        identifier = row.get("id")
        identifier = str(index + 1) if identifier in (None, "") else str(identifier)
        if identifier in seen:
            error(f"duplicate id {identifier!r} (first on line {seen[identifier]})")
            continue
        seen[identifier] = line
        if task == "sp" and not isinstance(target, str):
            error(f"the target of an SP test is SQL text, not {type(target).__name__}")
            continue
        if task == "qa" and not isinstance(target, str) and not is_table(target):
            error(f"the target of a QA test is SQL text or a table, not {type(target).__name__}")
            continue
        db_id = row.get("db_id")
        needs_database = task == "sp" or not is_table(target)
        if needs_database and (db_id in (None, "") or isinstance(db_id, (list, dict, bool))):
            error("missing db_id (the target is an SQL query)")
            continue
        tests.append(QatchTest(identifier, line, None if db_id in (None, "") else str(db_id), target, prediction))
    if errors:
        errors.sort(key=lambda e: (e.line or 0))
        raise InputErrors(errors)
    return tests


def needs_databases(tests: Iterable[QatchTest], task: str) -> bool:
    """True when some test runs SQL (so a databases root is needed)."""
    return task == "sp" or any(not is_table(test.target) for test in tests)


def _evaluate(job: tuple[QatchTest, QatchOptions]) -> TestOutcome:
    # Module level, plain arguments: runs in worker processes with --jobs.
    test, options = job
    databases = None
    if options.root is not None:
        databases = Databases(options.root, timeout=options.timeout, max_rows=options.max_rows)
    return evaluate_test(
        test.target, test.prediction, task=options.task, db_id=test.db_id,
        databases=databases, metrics=options.metrics, rule=options.rule,
    )


def run_tests(tests: Sequence[QatchTest], options: QatchOptions, *, jobs: int = 1, quiet: bool = False) -> QatchRun:
    """Score every test (in ``jobs`` processes; same results in the same order)."""
    from answerkey.parallel import ordered_map
    from answerkey.progress import progress

    outcomes = progress(
        ordered_map(_evaluate, [(test, options) for test in tests], jobs=jobs),
        total=len(tests), label="qatch", quiet=quiet,
    )
    results = [QatchResult(test, outcome) for test, outcome in zip(tests, outcomes)]
    means: dict[str, float | None] = {}
    for name in options.metrics:
        values = [
            r.outcome.scores[name] for r in results
            if r.outcome.error is None and r.outcome.scores.get(name) is not None
        ]
        means[name] = math.fsum(values) / len(values) if values else None
    counts = {
        "tests": len(results),
        "errors": sum(r.outcome.error is not None for r in results),
        "prediction_errors": sum(r.outcome.prediction_error is not None for r in results),
    }
    counts["evaluated"] = counts["tests"] - counts["errors"]
    return QatchRun(options, results, means, counts)
