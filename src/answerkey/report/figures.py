"""How figures are shown, the same for every command: one rule for decimal places.

A ratio (accuracy, precision, recall, a mean score: a fraction from 0 to 1) shows
``RATIO_DECIMALS`` decimals in every terminal summary and every workbook; a figure in points
(ATIS's weighted error and score, percentages) shows ``POINTS_DECIMALS``, the same precision.
Reports (JSON, YAML) and workbook cells keep the full values: only what is shown is rounded.

>>> ratio(2 / 3), points(60.869565), ratio(None), points(float("nan"))
('0.6667', '60.87', '-', '-')
"""

from __future__ import annotations

# Four decimals tell 1 item in 10,000 apart, the size of the corpora people score.
RATIO_DECIMALS = 4
# A point is a hundredth of a ratio: two decimals show it with the same precision.
POINTS_DECIMALS = RATIO_DECIMALS - 2


def figure(value: float | None, digits: int = RATIO_DECIMALS) -> str:
    """``value`` with ``digits`` decimals, ``-`` when it is undefined (None or NaN).

    >>> figure(2 / 3), figure(None), figure(float("nan"), 2)
    ('0.6667', '-', '-')
    """
    if value is None or value != value:
        return "-"
    return f"{value:.{digits}f}"


def ratio(value: float | None) -> str:
    """A ratio as every summary shows it: ``RATIO_DECIMALS`` decimals, ``-`` when undefined."""
    return figure(value, RATIO_DECIMALS)


def points(value: float | None) -> str:
    """A figure in points as every summary shows it: ``POINTS_DECIMALS`` decimals."""
    return figure(value, POINTS_DECIMALS)


def excel_format(decimals: int) -> str:
    """The Excel number format showing ``decimals`` decimals.

    >>> excel_format(RATIO_DECIMALS), excel_format(0)
    ('0.0000', '0')
    """
    return "0." + "0" * decimals if decimals else "0"
