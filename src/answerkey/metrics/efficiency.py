"""BIRD's valid efficiency score (VES): how fast a correct predicted query runs, relative to
the target query.

VES = execution accuracy × sqrt(time ratio), where the time ratio is the mean, over
``runs`` repeated runs, of target time / predicted time, after the ratios beyond three
standard deviations of their mean are dropped (as BIRD's ``evaluation_ves.py``: each round
runs the prediction, then the target, and the ratio of that round's two times is kept).
So a prediction as fast as the target scores 1, twice as fast sqrt(2), and a wrong one 0,
without being timed. Execution accuracy is answerkey's (``answerkey.metrics.table``: as
many rows, the same set of cell-sorted rows, cells compared as typed values).

Times are real measurements (``QueryResult.seconds``: the query's own run, in the process
that ran it), so a VES differs a little from run to run; ``ves`` is the pure arithmetic, for
times measured elsewhere:

>>> ves(True, target_times=[0.5, 0.5, 0.5], predicted_times=[0.125, 0.125, 0.125])
2.0
>>> ves(False, target_times=[0.5], predicted_times=[0.125])
0.0

Differences from BIRD, each deliberate: when every ratio is the same (standard deviation
0) they are all kept (BIRD's strict test keeps none and the division fails: its VES is 0);
correctness is execution accuracy (BIRD compares sets of rows, so duplicates and column
order count differently); a time is the query run to its last row (BIRD times ``execute``
alone, which for SQLite is the first step of the query). QATCH 1.0's ``VES`` divides the
two mean times instead of averaging per-round ratios, and swaps them (its score is
sqrt(predicted / target)).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from answerkey.adapters.engines import QueryResult, run_query
from answerkey.comparator.values import MatchRule
from answerkey.errors import kind_of
from answerkey.limits import SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.metrics.registry import register
from answerkey.metrics.table import table_scores

# Runs of each query (BIRD's paper and QATCH 1.0 time 100).
DEFAULT_VES_RUNS = 100
# A measured time is never below the clock's resolution (a ratio needs a time above 0).
_SHORTEST = time.get_clock_info("perf_counter").resolution

# Runs one query on the database being measured: its rows or error, and .seconds.
QueryRunner = Callable[[str], QueryResult]


@dataclass(frozen=True)
class Efficiency:
    """One VES measurement: the ``score``, the ``execution_accuracy`` it rests on, the times
    of each run (empty when the prediction was wrong, and so not timed), the ``ratio``
    (mean target / predicted time after outliers, None when not timed), and ``error``: why
    the prediction scored 0 without being wrong (its query or a timed run failed)."""

    score: float
    execution_accuracy: float
    target_times: tuple[float, ...] = ()
    predicted_times: tuple[float, ...] = ()
    ratio: float | None = None
    error: str | None = None


def without_outliers(values: Sequence[float]) -> list[float]:
    """The values strictly within three (population) standard deviations of their mean, as
    BIRD's ``clean_abnormal``; all of them when that leaves none (every value the same).

    >>> without_outliers([4.0] * 10 + [400.0])
    [4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0]
    >>> without_outliers([2.0, 2.0])
    [2.0, 2.0]
    """
    if not values:
        return []
    import statistics  # only VES needs it: about 1 ms of `answerkey sql`'s start otherwise

    mean = statistics.fmean(values)
    spread = 3 * statistics.pstdev(values, mean)
    kept = [value for value in values if mean - spread < value < mean + spread]
    return kept or list(values)


def _checked_times(times: Sequence[float], what: str) -> list[float]:
    checked = []
    for value in times:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
            raise ValueError(f"{what} must be numbers of seconds above 0, not {value!r}")
        checked.append(float(value))
    return checked


def time_ratio(target_times: Sequence[float], predicted_times: Sequence[float]) -> float:
    """The mean of target time / predicted time over the runs (paired in order), after the
    ratios beyond three standard deviations are dropped.

    >>> time_ratio([0.3, 0.2], [0.1, 0.1])
    2.5
    """
    target = _checked_times(target_times, "target times")
    predicted = _checked_times(predicted_times, "predicted times")
    if len(target) != len(predicted) or not target:
        raise ValueError(
            f"target and predicted times must be as many, at least one each, not {len(target):,} and {len(predicted):,}"
        )
    kept = without_outliers([t / p for t, p in zip(target, predicted)])
    return math.fsum(kept) / len(kept)


def ves(correct: bool | float, target_times: Sequence[float], predicted_times: Sequence[float]) -> float:
    """BIRD's valid efficiency score of one prediction: ``correct`` (its execution accuracy,
    1 or 0, or a bool) × sqrt(``time_ratio(target_times, predicted_times)``). 0.0 when not
    correct, whatever the times (which may then be empty).

    >>> ves(1.0, [4.0] * 10 + [400.0], [1.0] * 11)  # the eleventh run is an outlier
    2.0
    """
    # A bool is an int: True is 1.
    if not (isinstance(correct, (int, float)) and 0 <= correct <= 1):
        raise ValueError(f"correct must be a bool or an execution accuracy in [0, 1], not {correct!r}")
    if correct == 0:
        return 0.0
    return float(correct) * math.sqrt(time_ratio(target_times, predicted_times))


def check_runs(runs: object) -> int:
    """``runs`` if it is a whole number of runs, 1 or more; else ``ValueError``."""
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be a whole number, 1 or more, not {runs!r}")
    return runs


def time_runs(
    target_query: str, predicted_query: str, run: QueryRunner, runs: int
) -> tuple[tuple[float, ...], tuple[float, ...]] | str:
    """The times of ``runs`` rounds, each running the prediction and then the target (as
    BIRD), as (target times, predicted times); or why a run failed, as text."""
    target_times: list[float] = []
    predicted_times: list[float] = []
    for _ in range(check_runs(runs)):
        for query, role, times in (
            (predicted_query, "prediction", predicted_times),
            (target_query, "target", target_times),
        ):
            result = run(query)
            if result.error is not None or result.seconds is None:
                return f"a timed run of the {role} query failed: {result.error or 'no time measured'}"
            times.append(max(result.seconds, _SHORTEST))
    return tuple(target_times), tuple(predicted_times)


def _runner(database: object, timeout: float, max_rows: int, max_result_bytes: int) -> QueryRunner:
    if isinstance(database, (str, os.PathLike)):
        return partial(run_query, database, timeout=timeout, max_rows=max_rows, max_result_bytes=max_result_bytes)
    if callable(database):
        return database
    raise TypeError(
        f"database must be the path of an SQLite file or a function running a query, not {kind_of(database)}"
    )


def measure_efficiency(
    target_query: str,
    predicted_query: str,
    database: str | os.PathLike | QueryRunner,
    *,
    runs: int = DEFAULT_VES_RUNS,
    rule: MatchRule | None = None,
    timeout: float = SQL_TIMEOUT,
    max_rows: int = SQL_MAX_ROWS,
    max_result_bytes: int = SQL_MAX_RESULT_BYTES,
) -> Efficiency:
    """Run both queries once; if the prediction is correct (execution accuracy 1), time
    ``runs`` rounds of both and give its VES, with everything measured.

    ``database`` is the path of an SQLite file (queries run read-only within ``timeout``,
    ``max_rows`` and ``max_result_bytes``, as ``answerkey.adapters.engines.run_query``) or a
    function that runs a query and returns its ``QueryResult`` (``.seconds`` is the time
    compared). ``rule`` matches cells for execution accuracy. A target query that fails is
    an error of the test: ``ValueError``.
    """
    check_runs(runs)
    run = _runner(database, timeout, max_rows, max_result_bytes)
    target = run(target_query)
    if target.error is not None:
        raise ValueError(f"the target query failed: {target.error}")
    prediction = run(predicted_query)
    if prediction.error is not None:
        return Efficiency(0.0, 0.0, error=f"the prediction query failed: {prediction.error}")
    accuracy = table_scores(target.rows, prediction.rows, rule=rule, metrics=["execution_accuracy"])
    if accuracy["execution_accuracy"] == 0:
        return Efficiency(0.0, 0.0)
    timed = time_runs(target_query, predicted_query, run, runs)
    if isinstance(timed, str):
        return Efficiency(0.0, 1.0, error=timed)
    target_times, predicted_times = timed
    return Efficiency(
        ves(1.0, target_times, predicted_times),
        1.0,
        target_times,
        predicted_times,
        time_ratio(target_times, predicted_times),
    )


# Timed: never a default, computed only when named.
@register("valid_efficiency_score", kind="sql", needs=("timing",))
def valid_efficiency_score(
    target_query: str,
    predicted_query: str,
    *,
    database: str | os.PathLike | QueryRunner,
    runs: int = DEFAULT_VES_RUNS,
    rule: MatchRule | None = None,
    timeout: float = SQL_TIMEOUT,
    max_rows: int = SQL_MAX_ROWS,
    max_result_bytes: int = SQL_MAX_RESULT_BYTES,
) -> float:
    """BIRD's VES of ``predicted_query`` against ``target_query`` on ``database`` (see
    ``measure_efficiency``): 0 for a wrong or failing prediction, about 1 for one as fast as
    the target, more for a faster one. ``ValueError`` if the target query fails.
    """
    return measure_efficiency(
        target_query,
        predicted_query,
        database,
        runs=runs,
        rule=rule,
        timeout=timeout,
        max_rows=max_rows,
        max_result_bytes=max_result_bytes,
    ).score


# The metrics of this module that compare two SQL queries run on a database (kind "sql").
SQL_METRICS = (valid_efficiency_score.__name__,)
