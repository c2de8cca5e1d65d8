"""Compare runs on the same items (``answerkey compare``): paired bootstrap intervals,
approximate-randomization and McNemar p-values, the items that changed each way.

>>> from answerkey.compare import mcnemar_exact
>>> mcnemar_exact([1, 0, 0, 0], [0, 1, 1, 1])
0.625
"""

from answerkey.compare.load import READERS as READERS, RunReport as RunReport, read_run
from answerkey.compare.run import CompareError, CompareRun, Comparison as Comparison, compare_runs
from answerkey.compare.stats import (
    DEFAULT_RESAMPLES as DEFAULT_RESAMPLES,
    DEFAULT_SEED as DEFAULT_SEED,
    approximate_randomization as approximate_randomization,
    mcnemar_exact as mcnemar_exact,
    paired_bootstrap as paired_bootstrap,
)

# The documented surface; the statistics (``answerkey.compare.stats``) and the report readers
# are importable here too.
__all__ = ["compare_runs", "read_run", "CompareRun", "CompareError"]
