"""answerkey.metrics.efficiency: BIRD's valid efficiency score, from exact times and from real runs."""

from __future__ import annotations

import hashlib
import math
import sqlite3

import pytest

from answerkey.adapters.sql import QueryResult, run_query
from answerkey.metrics import METRICS
from answerkey.metrics.efficiency import (
    DEFAULT_VES_RUNS,
    Efficiency,
    check_runs,
    measure_efficiency,
    time_ratio,
    time_runs,
    valid_efficiency_score,
    ves,
    without_outliers,
)
from answerkey.metrics.registry import METRIC_KINDS, metrics_of_kind
from answerkey.model import Number

TARGET = "SELECT year FROM games"
FASTER = "SELECT year FROM games WHERE 1"


class ScriptedDatabase:
    """Runs queries from a script: each query's rows, and the times its successive runs take."""

    def __init__(self, rows, times, errors=None):
        self.rows = rows
        self.times = {query: list(seconds) for query, seconds in times.items()}
        self.errors = errors or {}
        self.calls = []

    def __call__(self, query):
        self.calls.append(query)
        runs = sum(1 for call in self.calls if call == query)
        error = self.errors.get((query, runs))
        if error is not None:
            return QueryResult(error=error)
        return QueryResult(self.rows[query], ("year",), seconds=self.times[query][runs - 1])


def _years(*years):
    return tuple((Number.of(year),) for year in years)


@pytest.fixture
def games(tmp_path):
    """An SQLite file with QATCH 1.0's olympic_games example table (its VES tests' data)."""
    path = tmp_path / "games.sqlite"
    with sqlite3.connect(path) as connection:
        connection.executescript(
            """
            CREATE TABLE olympic_games (id INTEGER, year INTEGER, city TEXT);
            INSERT INTO olympic_games VALUES (0, 1896, 'athens'), (1, 1900, 'paris'), (2, 1904, 'st. louis'),
                (3, 2004, 'athens'), (4, 2008, 'beijing'), (5, 2012, 'london');
            """
        )
    connection.close()
    return path


def test_ves_of_exact_times():
    """VES is sqrt of the mean target/predicted ratio: twice as fast gives sqrt(2), four times 2."""
    assert ves(True, [0.5, 0.5], [0.25, 0.25]) == math.sqrt(2)
    assert ves(1.0, [2.0, 4.0], [1.0, 1.0]) == math.sqrt(3)  # the mean of the ratios 2 and 4
    assert ves(1, [0.5], [2.0]) == 0.5  # four times slower
    assert ves(True, [0.125] * 3, [0.125] * 3) == 1.0


def test_ves_is_zero_when_the_results_differ():
    """A wrong prediction scores exactly 0, whatever its times, which may be absent."""
    assert ves(False, [10.0], [0.001]) == 0.0
    assert ves(0, [], []) == 0.0
    assert ves(0.0, [1.0], [1.0]) == 0.0


def test_ves_drops_ratios_beyond_three_standard_deviations():
    """Of eleven rounds, the one whose ratio is 100 times the others is dropped (BIRD's
    clean_abnormal): the mean of 4, 4, ... 4 is 4 and VES is 2, not sqrt(40)."""
    target_times = [4.0] * 10 + [400.0]
    predicted_times = [1.0] * 11
    # mean 40, standard deviation sqrt(12960) = 113.8: 400 lies 360 > 341.5 from the mean
    assert without_outliers([t / p for t, p in zip(target_times, predicted_times)]) == [4.0] * 10
    assert ves(True, target_times, predicted_times) == 2.0
    # In nine rounds one ratio lies at most sqrt(8) = 2.8 deviations away: nothing is dropped.
    assert without_outliers([4.0] * 8 + [400.0]) == [4.0] * 8 + [400.0]
    assert time_ratio([4.0] * 8 + [400.0], [1.0] * 9) == 48.0
    # The ratio of each round counts, not the ratio of the mean times (QATCH 1.0's way).
    assert time_ratio([1.0, 3.0], [1.0, 1.5]) == 1.5  # QATCH's mean times: 2.0 / 1.25 = 1.6


def test_equal_ratios_are_all_kept():
    """With every ratio the same (deviation 0) none is an outlier (BIRD's strict test would
    keep none and fail)."""
    assert without_outliers([2.0, 2.0, 2.0]) == [2.0, 2.0, 2.0]
    assert ves(True, [2.0, 2.0, 2.0], [1.0, 1.0, 1.0]) == math.sqrt(2)
    assert without_outliers([]) == []


@pytest.mark.parametrize(
    "correct, target_times, predicted_times, message",
    [
        (True, [], [], "at least one each, not 0 and 0"),
        (True, [1.0, 1.0], [1.0], "must be as many, at least one each, not 2 and 1"),
        (True, [1.0], [0.0], r"predicted times must be numbers of seconds above 0, not 0\.0"),
        (True, [-1.0], [1.0], r"target times must be numbers of seconds above 0, not -1\.0"),
        (True, [math.inf], [1.0], "target times must be numbers of seconds above 0, not inf"),
        (True, [math.nan], [1.0], "target times must be numbers of seconds above 0, not nan"),
        (True, ["1"], [1.0], "target times must be numbers of seconds above 0, not '1'"),
        (True, [True], [1.0], "target times must be numbers of seconds above 0, not True"),
        (1.5, [1.0], [1.0], r"correct must be a bool or an execution accuracy in \[0, 1\], not 1\.5"),
        ("yes", [1.0], [1.0], "correct must be a bool or an execution accuracy in .0, 1., not 'yes'"),
    ],
)
def test_bad_times_are_refused(correct, target_times, predicted_times, message):
    """Times that cannot make a ratio, and a correctness that is not one, are a ValueError."""
    with pytest.raises(ValueError, match=message):
        ves(correct, target_times, predicted_times)


@pytest.mark.parametrize("runs", [0, -1, 2.0, True, "10", None])
def test_runs_must_be_a_whole_number_from_one(runs):
    """The run count is an int of 1 or more; anything else is a ValueError naming it."""
    with pytest.raises(ValueError, match=f"runs must be a whole number, 1 or more, not {runs!r}"):
        check_runs(runs)
    assert check_runs(3) == 3


def test_time_runs_alternates_prediction_and_target():
    """Each round runs the prediction, then the target (BIRD's order); times pair by round."""
    database = ScriptedDatabase(
        {TARGET: _years(1896), FASTER: _years(1896)},
        {TARGET: [0.4, 0.5, 0.6], FASTER: [0.1, 0.2, 0.3]},
    )
    assert time_runs(TARGET, FASTER, database, 3) == ((0.4, 0.5, 0.6), (0.1, 0.2, 0.3))
    assert database.calls == [FASTER, TARGET] * 3


def test_time_runs_stops_at_a_failing_run():
    """A timed run that fails ends the timing with its reason (the VES is then 0, as BIRD's)."""
    database = ScriptedDatabase(
        {TARGET: _years(1896), FASTER: _years(1896)},
        {TARGET: [0.4, 0.5], FASTER: [0.1, 0.2]},
        errors={(TARGET, 2): "the query ran past the time limit of 30 s"},
    )
    assert time_runs(TARGET, FASTER, database, 5) == (
        "a timed run of the target query failed: the query ran past the time limit of 30 s"
    )
    assert database.calls == [FASTER, TARGET, FASTER, TARGET]


def test_measure_efficiency_from_injected_times():
    """Both queries run once for their rows; a correct prediction is then timed `runs`
    rounds, and its VES comes from exactly those times."""
    database = ScriptedDatabase(
        {TARGET: _years(1896, 2004), FASTER: _years(2004, 1896)},
        # the first time of each query is its untimed run for the rows
        {TARGET: [9.0, 0.5, 0.5, 0.5, 0.5], FASTER: [9.0, 0.125, 0.125, 0.125, 0.125]},
    )
    measured = measure_efficiency(TARGET, FASTER, database, runs=4)
    assert measured == Efficiency(2.0, 1.0, (0.5,) * 4, (0.125,) * 4, 4.0)
    assert database.calls == [TARGET, FASTER] + [FASTER, TARGET] * 4
    assert (
        valid_efficiency_score(TARGET, FASTER, database=ScriptedDatabase(database.rows, database.times), runs=4) == 2.0
    )


def test_a_wrong_prediction_is_not_timed():
    """Different results give exactly 0 after one run of each query, with no timing."""
    database = ScriptedDatabase({TARGET: _years(1896, 2004), FASTER: _years(1896)}, {TARGET: [1.0], FASTER: [1.0]})
    assert measure_efficiency(TARGET, FASTER, database, runs=100) == Efficiency(0.0, 0.0)
    assert database.calls == [TARGET, FASTER]


def test_failing_queries():
    """A failing prediction scores 0 with its reason; a failing target is a ValueError."""
    failing = ScriptedDatabase(
        {TARGET: _years(1896), FASTER: _years(1896)},
        {TARGET: [1.0], FASTER: [1.0]},
        errors={(FASTER, 1): "no such column: yeer"},
    )
    assert measure_efficiency(TARGET, FASTER, failing) == Efficiency(
        0.0, 0.0, error="the prediction query failed: no such column: yeer"
    )
    broken = ScriptedDatabase({TARGET: (), FASTER: ()}, {}, errors={(TARGET, 1): "no such table: games"})
    with pytest.raises(ValueError, match=r"^the target query failed: no such table: games$"):
        valid_efficiency_score(TARGET, FASTER, database=broken)
    timed_out = ScriptedDatabase(
        {TARGET: _years(1896), FASTER: _years(1896)},
        {TARGET: [1.0, 1.0], FASTER: [1.0]},
        errors={(FASTER, 2): "the query ran past the time limit of 30 s"},
    )
    assert measure_efficiency(TARGET, FASTER, timed_out, runs=3) == Efficiency(
        0.0, 1.0, error="a timed run of the prediction query failed: the query ran past the time limit of 30 s"
    )


def test_qatch_ves_examples_on_a_real_database(games):
    """QATCH 1.0.36's VES tests (tests/test_metrics/test_valid_efficiency_score.py), run for
    real: the same query scores above 0 (about 1), a wrong one exactly 0. Times are real, so
    only their bounds are asserted."""
    before = hashlib.sha256(games.read_bytes()).hexdigest()
    same = valid_efficiency_score("SELECT * FROM olympic_games", "SELECT * FROM olympic_games", database=games, runs=20)
    assert 0 < same < math.inf
    wrong = "SELECT id from olympic_games WHERE year = 1896"
    assert valid_efficiency_score("SELECT * FROM olympic_games", wrong, database=str(games)) == 0.0
    measured = measure_efficiency(
        "SELECT city FROM olympic_games", "SELECT city FROM olympic_games ORDER BY 1", games, runs=5
    )
    assert measured.execution_accuracy == 1.0 and measured.error is None
    assert len(measured.target_times) == len(measured.predicted_times) == 5
    assert all(0 < seconds < 30 for seconds in measured.target_times + measured.predicted_times)
    assert measured.score == math.sqrt(measured.ratio) > 0
    assert valid_efficiency_score("SELECT 1", "DROP TABLE olympic_games", database=games) == 0.0
    assert hashlib.sha256(games.read_bytes()).hexdigest() == before


def test_limits_reach_the_queries(games):
    """timeout, max_rows and max_result_bytes bound the queries run on a path."""
    measured = measure_efficiency("SELECT 1", "SELECT year FROM olympic_games", games, max_rows=2)
    assert measured == Efficiency(0.0, 0.0, error="the prediction query failed: the query returned more than 2 rows")


def test_database_must_be_a_path_or_a_runner():
    """Anything else than a path or a function running a query is a TypeError in words."""
    with pytest.raises(
        TypeError, match="database must be the path of an SQLite file or a function running a query, not an integer"
    ):
        valid_efficiency_score(TARGET, FASTER, database=42)


def test_registered_as_a_metric_for_sql_tasks():
    """The registry holds the VES under its name, as a metric of SQL tasks (not of tables)."""
    assert METRICS["valid_efficiency_score"] is valid_efficiency_score
    assert METRIC_KINDS["valid_efficiency_score"] == "sql"
    assert metrics_of_kind("sql") == ("valid_efficiency_score",)
    assert DEFAULT_VES_RUNS == 100


def test_run_query_times_are_what_ves_compares(games):
    """The default database runner is run_query: its QueryResult.seconds are the times."""
    result = run_query(games, "SELECT * FROM olympic_games")
    assert result.ok and 0 < result.seconds < 30
