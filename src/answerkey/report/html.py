"""The HTML report (``--html OUT``): one self-contained page to read a run in a browser.

The page is built from what every run already describes once: its workbook's sheets (the
``Overview`` sheet, one row per item, becomes the items table; ``Statistics`` and the task
sheets become tables, and their charts bar charts), its signature, its warnings and the
headline figures of its JSON report. The run's command line and its inputs (size and SHA-256)
come from the command (``RunContext``). The workbook's page-only parts come along: each item's
two results aligned (``Workbook.details``, ``answerkey.report.alignment``) for its detail view,
and the charts of counts (``Workbook.count_charts``) that the page draws as inline SVG.

Nothing from the input ever becomes markup: the page's data is one JSON document in a
``<script type="application/json">`` element, with ``<``, ``>``, ``&``, U+2028 and U+2029
written as ``\\u`` escapes, and the page's script shows it with ``textContent`` only. A
Content-Security-Policy allows no network access and only the page's own script.

A cell of text longer than ``HTML_CELL_LINES`` lines or ``HTML_CELL_CHARS`` characters (a
result of many rows) is cut there, saying how much was left out; the JSON report has it all.

>>> embedded_json({"gold": "</script><b>&"})
'{"gold": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
>>> [round(bound, 4) for bound in wilson_interval(8, 10)]
[0.4902, 0.9433]
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import re
import secrets
import stat
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from answerkey.files import output_stream
from answerkey.report.figures import POINTS_DECIMALS, RATIO_DECIMALS
from answerkey.report.workbook import Sheet, Workbook

HTML_CELL_LINES = 200
"""A text cell (a query's result, an explanation) is shown up to this many lines."""
HTML_CELL_CHARS = 20_000
"""A text cell is shown up to this many characters."""
HTML_PAGE_ROWS = 100
"""Items shown per page of the items table (every item is in the page, shown page by page)."""

_Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal distribution
_ASSETS = Path(__file__).with_name("page")
# Columns shown side by side in an item's detail view: (reference, judged).
SIDE_BY_SIDE = (
    ("gold SQL", "predicted SQL"),
    ("gold rows", "predicted rows"),
    ("canonical", "system answer"),
    ("canonical", "system"),
    ("target", "prediction"),
    ("reference", "answer"),
    ("gold", "predicted"),
)


@dataclass(frozen=True)
class RunContext:
    """What the command knows about a run that its result does not: the command line that
    reproduces it, and its inputs (name such as ``CORPUS`` -> path, directory or URL)."""

    command: str = ""
    inputs: Mapping[str, str | None] = field(default_factory=dict)


def wilson_interval(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``successes / trials`` (``(nan, nan)``
    for no trials)."""
    if trials <= 0:
        return math.nan, math.nan
    p = successes / trials
    z2 = _Z95 * _Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = _Z95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean of ``values`` and its 95% interval, mean ± 1.96 standard errors (sample
    standard deviation over the square root of the count).

    >>> [round(figure, 4) for figure in mean_interval([0.0, 1.0, 1.0, 1.0])]
    [0.75, 0.26, 1.24]
    """
    count = len(values)
    if count == 0:
        return math.nan, math.nan, math.nan
    mean = math.fsum(values) / count
    if count == 1:
        return mean, math.nan, math.nan
    deviation = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / (count - 1))
    half = _Z95 * deviation / math.sqrt(count)
    return mean, mean - half, mean + half


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return float(value)


def headline_figures(document: Mapping[str, Any], overview: Sheet) -> list[dict[str, Any]]:
    """The run's headline figures, each with its 95% interval and how it was computed: the
    accuracy of the JSON report's summary (Wilson interval over its scored or evaluated
    items), then the mean of each ratio column of the ``Overview`` sheet over the items that
    have a value (mean ± 1.96 standard errors); for ``answerkey compare``, each system's
    difference from the baseline with its paired bootstrap interval."""
    figures: list[dict[str, Any]] = []
    summary = document.get("summary")
    if isinstance(summary, Mapping):
        accuracy, correct = _number(summary.get("accuracy")), summary.get("correct")
        trials = next((summary[key] for key in ("scored", "evaluated") if isinstance(summary.get(key), int)), None)
        if accuracy is not None and isinstance(correct, int) and trials:
            low, high = wilson_interval(correct, trials)
            figures.append(
                {"name": "accuracy", "value": accuracy, "low": low, "high": high, "n": trials, "method": "Wilson"}
            )
    comparisons = document.get("comparisons")
    for comparison in comparisons if isinstance(comparisons, list) else ():
        # answerkey compare: each system's difference from the baseline, with its paired
        # bootstrap interval, as the report computed them (the Overview holds item values).
        if isinstance(comparison, Mapping) and _number(comparison.get("difference")) is not None:
            figures.append(
                {
                    "name": f"{comparison.get('system')} - {comparison.get('baseline')}",
                    "value": comparison["difference"],
                    "low": comparison.get("low"),
                    "high": comparison.get("high"),
                    "n": comparison.get("items"),
                    "method": "bootstrap",
                }
            )
    if figures and comparisons:
        return figures
    for index, column in enumerate(overview.columns):
        if column.format != "ratio":
            continue
        values = [number for row in overview.rows if (number := _number(row[index])) is not None]
        if not values:
            continue
        mean, low, high = mean_interval(values)
        if len(values) > 1:  # a ratio lies in [0, 1] (one value has no interval: NaN)
            low, high = max(0.0, low), min(1.0, high)
        figures.append(
            {"name": f"mean {column.header}", "value": mean, "low": low, "high": high, "n": len(values), "method": "SE"}
        )
    for figure in figures:  # no interval (one value): null, as JSON has no NaN
        for key in ("low", "high"):
            figure[key] = _number(figure[key])
    return figures


def masked_url(location: str) -> str:
    """``location`` without a password, if it is a URL that has one.

    >>> masked_url("postgresql://eval:secret@db.example:5432/spider")
    'postgresql://eval:***@db.example:5432/spider'
    """
    if "://" not in location:
        return location
    try:
        parts = urllib.parse.urlsplit(location)
        if parts.password is None:
            return location
        netloc = f"{parts.username}:***@{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
    except ValueError:  # not a URL urllib can read: hide all but its scheme
        return location.split("://", 1)[0] + "://***"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def input_facts(inputs: Mapping[str, str | None]) -> list[dict[str, Any]]:
    """Each input's name, path and what it is: a file's size and SHA-256, a directory, a URL
    (its password masked), standard input."""
    facts = []
    for name, location in inputs.items():
        if not location:
            continue
        fact: dict[str, Any] = {"name": name, "path": location, "kind": "", "size": None, "sha256": None}
        if location == "-":
            fact["kind"] = "standard input"
        elif "://" in location:
            fact.update(path=masked_url(location), kind="URL")
        else:
            try:
                status = os.stat(location)
            except OSError:
                fact["kind"] = "not found"
            else:
                if stat.S_ISDIR(status.st_mode):
                    fact["kind"] = "directory"
                elif stat.S_ISREG(status.st_mode):
                    digest = hashlib.sha256()
                    with open(location, "rb") as stream:
                        for block in iter(lambda: stream.read(1 << 20), b""):
                            digest.update(block)
                    fact.update(kind="file", size=status.st_size, sha256=digest.hexdigest())
                else:
                    fact["kind"] = "special file"
        facts.append(fact)
    return facts


def _cell(value: Any) -> Any:
    """A sheet's value as plain JSON: numbers (NaN as null), text cut to the page's bounds."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    text = value if isinstance(value, str) else str(value)
    if len(text) > HTML_CELL_CHARS or text.count("\n") >= HTML_CELL_LINES:
        lines = text.split("\n")
        kept = "\n".join(lines[:HTML_CELL_LINES])[:HTML_CELL_CHARS]
        left_lines = len(lines) - kept.count("\n") - 1
        text = kept + (
            f"\n… cut here: {left_lines} more lines, {len(text) - len(kept)} more characters"
            " (the JSON report has them all)"
        )
    return text


def _sheet(sheet: Sheet) -> dict[str, Any]:
    return {
        "name": sheet.name,
        "columns": [{"header": column.header, "format": column.format} for column in sheet.columns],
        "rows": [[_cell(value) for value in row] for row in sheet.rows],
        "charts": [
            {
                "title": chart.title,
                "labels": chart.labels,
                "values": chart.values,
                "first": chart.first,
                "last": chart.last,
            }
            for chart in sheet.charts
        ],
        "notes": [[str(label), _cell(value)] for label, value in sheet.notes],
    }


def page_data(result: Any, run: RunContext) -> dict[str, Any]:
    """Everything the page shows, as plain JSON values."""
    workbook: Workbook = result.workbook()
    document = result.document()
    return {
        "title": f"answerkey {run.command.split(' ')[1] if run.command.count(' ') else 'report'}",
        "command": run.command,
        "signature": str(result.signature),
        "decimals": {"ratio": RATIO_DECIMALS, "points": POINTS_DECIMALS},
        "written": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "inputs": input_facts(run.inputs),
        "headline": headline_figures(document, workbook.overview),
        "warnings": [str(warning) for warning in result.warnings],
        "items": _sheet(workbook.overview),
        "sheets": [_sheet(sheet) for sheet in (workbook.statistics, *workbook.task_sheets)],
        "side_by_side": SIDE_BY_SIDE,
        "details": list(workbook.details),
        "count_charts": [
            {
                "name": chart.name,
                "title": chart.title,
                "description": chart.description,
                "groups": [[title, [list(bar) for bar in bars]] for title, bars in chart.groups],
                "total": chart.total,
            }
            for chart in workbook.count_charts
        ],
        "page_rows": HTML_PAGE_ROWS,
    }


def embedded_json(value: Any) -> str:
    """``value`` as JSON that cannot end or open an HTML element: ``<``, ``>``, ``&``, and the
    line separators U+2028 and U+2029 as ``\\u`` escapes."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    for character in "<>&\u2028\u2029":
        text = text.replace(character, f"\\u{ord(character):04x}")
    return text


def html_page(result: Any, run: RunContext | None = None) -> str:
    """The HTML report of ``result`` (any ``answerkey.report.Result``) as one page's text."""
    run = run or RunContext()
    data = page_data(result, run)
    nonce = secrets.token_urlsafe(18)
    template = (_ASSETS / "report.html").read_text(encoding="utf-8")
    # The title is the only input-free text put in markup; the rest is in the JSON element.
    replacements = {
        "nonce": nonce,
        "title": data["title"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"),
        "style": (_ASSETS / "report.css").read_text(encoding="utf-8"),
        "script": (_ASSETS / "report.js").read_text(encoding="utf-8"),
        "data": embedded_json(data),
    }
    # One pass over the template: text put in is never read again for markers.
    return re.sub(r"\{\{(\w+)\}\}", lambda match: replacements[match.group(1)], template)


def write_html(result: Any, path: str, run: RunContext | None = None) -> None:
    """Write the HTML report of ``result`` to ``path``, atomically (``OutputError`` names the
    path that cannot be written)."""
    page = html_page(result, run)
    with output_stream(path) as stream:
        # A lone surrogate (a path's undecodable byte, text of a broken file) is not UTF-8: "?".
        stream.write(page.encode("utf-8", "replace"))
