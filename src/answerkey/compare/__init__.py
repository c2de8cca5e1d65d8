"""Compare runs on the same items (``answerkey compare``): paired bootstrap intervals,
approximate-randomization and McNemar p-values, the items that changed each way.

>>> from answerkey.compare import mcnemar_exact
>>> mcnemar_exact([1, 0, 0, 0], [0, 1, 1, 1])
0.625
"""

from answerkey.compare.load import READERS, RunReport, read_run
from answerkey.compare.run import CompareError, CompareRun, Comparison, compare_runs
from answerkey.compare.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    approximate_randomization,
    mcnemar_exact,
    paired_bootstrap,
)

__all__ = [
    "compare_runs",
    "read_run",
    "CompareRun",
    "Comparison",
    "CompareError",
    "RunReport",
    "READERS",
    "paired_bootstrap",
    "approximate_randomization",
    "mcnemar_exact",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
]
