"""``SqlOptions``: everything a run of ``answerkey sql`` needs, checked once, picklable (sent
to every process and worker); re-exported by ``answerkey.execution.run``."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from answerkey.adapters.engines import Engine, open_engine
from answerkey.adapters.sql import limits_problem
from answerkey.comparator import DEFAULT_ABS_EPSILON, DEFAULT_EPSILON, STRING_MODES, MatchRule
from answerkey.execution.semantics import (
    DEFAULT_SEMANTICS,
    decided_semantics,
    names,
    semantics_named,
)
from answerkey.execution.semantics._registry import checked_options, options_of, options_signature
from answerkey.limits import DUCKDB_MEMORY_LIMIT, DUCKDB_THREADS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.metrics.efficiency import DEFAULT_VES_RUNS, check_runs, valid_efficiency_score
from answerkey.metrics.registry import defaults_for, metrics_for
from answerkey.signature import Signature

# The metric a run times itself, on the first database (computed only when named).
VES = valid_efficiency_score.__name__
# test-suite's option, also written SqlOptions.test_suite_keep_distinct.
_KEEP_DISTINCT = "test-suite:keep_distinct"


@dataclass(frozen=True)
class SqlOptions:
    """Everything a run needs, picklable (sent to every process and worker).

    ``location`` names the databases (a directory, or a ``postgresql://`` URL) and
    ``engine`` their engine (None: from the location). ``semantics`` is the headline one;
    ``epsilon``, ``strings`` and the limits change verdicts and are in the signature with
    it (``ves_runs`` too when VES is computed; ``abs_epsilon``, the absolute floor of the
    tolerance for reals, when set). ``cache`` is a cache directory of query results.
    ``memory_limit`` (bytes) and ``threads`` bound each DuckDB query (other engines ignore
    them; not in the signature: a query past the memory limit fails with its reason).
    ``semantics_options`` are options of the semantics (``Semantics.options``), each
    ``name:option`` (in the signature when set, as ``name:option``, the name with ``_``);
    ``test_suite_keep_distinct`` is ``test-suite:keep_distinct``: DISTINCT kept in the
    queries the test-suite semantics runs (test-suite-sql-eval's ``--keep_distinct``).
    ``defog_alternatives`` reads each gold's ``{a,b}`` as defog sql-eval does: several golds
    (in the signature as ``golds:defog``).

    >>> str(SqlOptions("dbs", engine="sqlite").signature)  # doctest: +ELLIPSIS
    'semantics:answerkey|eps:0.0001|strings:exact|engine:sqlite|timeout:30|max_rows:1000000|max_result_bytes:...'
    """

    location: str
    engine: str | None = None
    semantics: str = DEFAULT_SEMANTICS
    epsilon: float = DEFAULT_EPSILON
    abs_epsilon: float = DEFAULT_ABS_EPSILON
    strings: str = next(iter(STRING_MODES))
    metrics: tuple[str, ...] = field(default_factory=partial(defaults_for, "sql"))
    timeout: float = SQL_TIMEOUT
    max_rows: int = SQL_MAX_ROWS
    max_result_bytes: int = SQL_MAX_RESULT_BYTES
    ves_runs: int = DEFAULT_VES_RUNS
    cache: str | None = None
    test_suite_keep_distinct: bool = False
    memory_limit: int = DUCKDB_MEMORY_LIMIT
    threads: int = DUCKDB_THREADS
    semantics_options: tuple[str, ...] = ()
    defog_alternatives: bool = False

    def __post_init__(self) -> None:
        if self.semantics not in names():
            raise ValueError(f"unknown semantics {self.semantics!r}; known: {', '.join(names())}")
        kept = (_KEEP_DISTINCT,) if self.test_suite_keep_distinct else ()
        chosen = checked_options((*self.semantics_options, *kept))
        # One truth for both spellings of test-suite's option (frozen: set through object).
        object.__setattr__(self, "semantics_options", chosen)
        object.__setattr__(self, "test_suite_keep_distinct", _KEEP_DISTINCT in chosen)
        known = metrics_for("sql")
        unknown = [name for name in self.metrics if name not in known]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(known)}")
        check_runs(self.ves_runs)
        problem = limits_problem(self.timeout, self.max_rows, self.max_result_bytes)
        if problem is not None:
            raise ValueError(problem)
        MatchRule(
            epsilon=self.epsilon, strings=self.strings, abs_epsilon=self.abs_epsilon
        )  # rejects a bad epsilon or strings mode

    @property
    def decided_semantics(self) -> tuple[str, ...]:
        """The semantics this run decides: those decided by default, and the headline."""
        return decided_semantics(self.semantics)

    def options_of(self, semantics: str) -> frozenset[str]:
        """The options chosen for ``semantics`` (``semantics_options``)."""
        return options_of(self.semantics_options, semantics)

    @property
    def rule(self) -> MatchRule:
        """How values are matched."""
        return MatchRule(epsilon=self.epsilon, strings=self.strings, abs_epsilon=self.abs_epsilon)

    @property
    def signature(self) -> Signature:
        """``semantics:...|eps:...|strings:...|engine:...|timeout:...|max_rows:...|max_result_bytes:...|v:...``."""
        described = self.rule.describe()
        timed = {"ves_runs": self.ves_runs} if VES in self.metrics else {}
        return Signature.of(
            semantics=self.semantics,
            **options_signature(self.semantics_options, self.decided_semantics),
            **({"golds": "defog"} if self.defog_alternatives else {}),
            epsilon=described["epsilon"],
            **({"abs_epsilon": described["abs_epsilon"]} if "abs_epsilon" in described else {}),
            strings=described["strings"],
            engine=self.engine or "auto",
            timeout=f"{self.timeout:g}",
            max_rows=self.max_rows,
            max_result_bytes=self.max_result_bytes,
            **timed,
        )

    def open_engine(self) -> Engine:
        """The engine of ``location`` with this run's limits; ``ValueError`` if it cannot be used."""
        return open_engine(
            self.location,
            engine=self.engine,
            timeout=self.timeout,
            max_rows=self.max_rows,
            max_result_bytes=self.max_result_bytes,
            memory_limit=self.memory_limit,
            threads=self.threads,
            # As the headline's official script lists a test suite and reads text (issue 26: D4, D6).
            suite_files=semantics_named(self.semantics).suite_files,
            text_decoding=semantics_named(self.semantics).text_decoding,
        )


# ---------------------------------------------------------------- batches
