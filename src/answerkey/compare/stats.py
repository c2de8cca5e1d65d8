"""Paired significance between two systems scored on the same items.

Each function takes the per-item values of system A and system B (same items, same order) and
a seed, and draws its random numbers from ``random.Random(seed)`` in a fixed order, so a
figure is the same on every machine and every run:

- ``paired_bootstrap``: the 95% interval of mean(B) - mean(A). Each of ``resamples`` rounds
  draws ``n`` per-item differences ``b - a`` with replacement (``Random.choices``, one call per
  round) and takes their mean; the interval is the 2.5th and 97.5th percentiles of those means
  (linear interpolation between order statistics, as ``statistics.quantiles(method=
  "inclusive")`` and numpy's default).
- ``approximate_randomization``: the two-sided p-value of the difference of means. Each round
  swaps A's and B's value of every item with probability 1/2 (one ``getrandbits(m)`` per
  round, bit ``i`` for the ``i``-th item whose values differ: items with equal values do not
  change the statistic) and counts the rounds whose ``|mean(B') - mean(A')|`` is at least the
  observed one; p = (count + 1) / (rounds + 1) (sacrebleu's ``paired_ar`` procedure).
- ``mcnemar_exact``: the exact two-sided McNemar test of two correct/incorrect verdict lists:
  with ``b`` items only A gets right and ``c`` only B does, p = min(1, 2 * P(X <= min(b, c)))
  for X ~ Binomial(b + c, 1/2); 1 when no item differs.

>>> mcnemar_exact([1, 1, 1, 0, 0], [0, 0, 0, 0, 1])
0.625
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

DEFAULT_SEED = 12345
"""The seed of every resampling unless ``--seed`` says otherwise (sacrebleu's default too)."""
DEFAULT_RESAMPLES = 1000
"""Rounds of bootstrap resampling and of approximate randomization."""


def _differences(a: Sequence[float], b: Sequence[float]) -> list[float]:
    if len(a) != len(b):
        raise ValueError(f"paired values need the same number of items, not {len(a)} and {len(b)}")
    return [y - x for x, y in zip(a, b)]


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of sorted values, interpolated linearly between order
    statistics (position ``fraction * (n - 1)``).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 0.025)
    (2.5, 1.075)
    """
    position = fraction * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[float, float, float]:
    """mean(B) - mean(A) and its 95% paired bootstrap interval ``(difference, low, high)``.

    >>> paired_bootstrap([0, 0, 1, 1], [1, 1, 1, 1], resamples=200)
    (0.5, 0.0, 1.0)
    """
    differences = _differences(a, b)
    count = len(differences)
    if count == 0:
        return math.nan, math.nan, math.nan
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(differences, k=count)) / count for _ in range(resamples))
    return math.fsum(differences) / count, percentile(means, 0.025), percentile(means, 0.975)


def approximate_randomization(
    a: Sequence[float], b: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> float:
    """The two-sided approximate-randomization p-value of mean(B) - mean(A).

    >>> approximate_randomization([0, 0, 0, 0], [0, 0, 0, 0])
    1.0
    """
    differences = [difference for difference in _differences(a, b) if difference != 0]
    if not differences:
        return 1.0
    total = math.fsum(differences)
    observed = abs(total)
    # A tolerance for sums of reals that are equal but added in another order.
    tolerance = 1e-9 * max(1.0, observed)
    rng = random.Random(seed)
    count = len(differences)
    at_least = 0
    for _ in range(resamples):
        # Bit i of the draw (written out once: shifting a long integer per item is quadratic).
        flips = format(rng.getrandbits(count), f"0{count}b")[::-1]
        swapped = math.fsum(itertools.compress(differences, map("1".__eq__, flips)))
        if abs(total - 2 * swapped) >= observed - tolerance:
            at_least += 1
    return (at_least + 1) / (resamples + 1)


def mcnemar_exact(a: Sequence[float], b: Sequence[float]) -> float:
    """The exact two-sided McNemar p-value of two lists of verdicts (1 correct, 0 incorrect)."""
    only_a = sum(1 for x, y in zip(a, b) if x and not y)
    only_b = sum(1 for x, y in zip(a, b) if y and not x)
    trials = only_a + only_b
    if trials == 0:
        return 1.0
    # C(n, 0) + ... + C(n, m) in exact integers, each term from the one before (math.comb per
    # term recomputes a huge number from scratch: minutes for 20,000 changed items).
    term = tail = 1
    for k in range(min(only_a, only_b)):
        term = term * (trials - k) // (k + 1)
        tail += term
    return min(1.0, 2 * tail / 2**trials)
