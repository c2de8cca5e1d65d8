"""Reports of any run: one protocol, one writer for ``--json``, ``--yaml``, ``--xlsx`` and ``--html``.

Every evaluation (``score``, ``qatch``, ``sdmx``, ``steps``, a single ``judge``) returns a
result that is a ``Result``: its ``signature``, its ``warnings``, a ``document()`` for JSON
and YAML (plain values; it holds ``signature`` and ``warnings`` too), a ``summary_table()``
for the terminal and a ``workbook()`` (``answerkey.report.workbook``). ``write_reports``
writes any of them to the paths a command was given, the same way for every command.
``json_text`` (from ``answerkey.files``) is the JSON text of the reports.

A workflow's result is ``Reported``: it builds one ``Report``, the workflow's report model
(``answerkey.report.schema``, the model ``answerkey schema`` prints), and its document, table
and workbook all come from that model.

>>> print(text_table(["metric", "mean"], [["cell_recall", "0.826"], ["tuple_order", "-"]]))
metric        mean
cell_recall  0.826
tuple_order      -
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from answerkey.errors import RunWarning
from answerkey.files import check_outputs, json_pieces, json_text as json_text, output_stream, write_output
from answerkey.gc_pause import gc_paused
from answerkey.report.figures import figure as figure
from answerkey.report.html import RunContext, write_html
from answerkey.report.workbook import Workbook
from answerkey.signature import Signature

__all__ = [
    "Result",
    "Report",
    "ReportPaths",
    "REPORT_FORMATS",
    "write_reports",
]

REPORT_FORMATS = ("json", "yaml", "xlsx", "html")
"""The formats ``write_reports`` writes: JSON, YAML, an Excel workbook and an HTML page."""


@runtime_checkable
class Result(Protocol):
    """What every run returns, and every report is written from."""

    @property
    def signature(self) -> Signature:
        """The options that produced the result, and the version."""
        ...

    @property
    def warnings(self) -> Sequence[RunWarning]:
        """Problems that did not stop the run."""
        ...

    def document(self) -> dict[str, Any]:
        """The JSON/YAML report: plain values, with ``signature`` and ``warnings``."""
        ...

    def summary_table(self) -> str:
        """The figures as a plain-text table."""
        ...

    def workbook(self) -> Workbook:
        """The Excel report's sheets."""
        ...


class Report(Protocol):
    """One report, built once: its document, its summary table and its workbook."""

    def document(self) -> dict[str, Any]:
        """The JSON/YAML report: plain values."""
        ...

    def summary_table(self) -> str:
        """The figures as a plain-text table."""
        ...

    def workbook(self) -> Workbook:
        """The Excel report's sheets."""
        ...


class Reported:
    """The base of a result whose reports all come from one ``Report`` (its ``report()``)."""

    def report(self) -> Report:
        """The result's report model."""
        raise NotImplementedError

    def document(self) -> dict[str, Any]:
        """The JSON/YAML report (``answerkey schema`` gives its shape)."""
        # A model per item, none in a reference cycle: collections would only walk them.
        with gc_paused():
            return self.report().document()

    def summary_table(self) -> str:
        """The figures as a plain-text table."""
        return self.report().summary_table()

    def workbook(self) -> Workbook:
        """The Excel report's sheets."""
        return self.report().workbook()


@dataclass(frozen=True)
class ReportPaths:
    """Where a command writes its reports (``-``: standard output; None: not written)."""

    json: str | None = None
    yaml: str | None = None
    xlsx: str | None = None
    html: str | None = None

    @property
    def to_stdout(self) -> bool:
        """True when a report goes to standard output (then nothing else is printed there)."""
        return "-" in (self.json, self.yaml)

    def outputs(self) -> dict[str, tuple[str | None, str]]:
        """Option name -> (path, format), as ``answerkey.files.check_outputs`` takes them."""
        return {f"--{name}": (getattr(self, name), name) for name in REPORT_FORMATS}

    def check(self, inputs: Mapping[str, str | None] | None = None) -> list[RunWarning]:
        """Refuse bad report paths before a run (``OutputError``); warnings for odd names."""
        return check_outputs(self.outputs(), inputs)


def yaml_text(document: Any, *, comment: str = "") -> str:
    """``document`` as YAML (safe, keys in document order, text with line breaks as literal
    blocks); ``comment`` becomes a leading ``#`` line."""
    import yaml

    base: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class Dumper(base):
        """Multi-line text (SPARQL results, explanations) as literal blocks."""

    def represent_text(dumper: Any, text: str) -> Any:
        style = "|" if "\n" in text and "\r" not in text and not text.endswith((" ", "\t")) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)

    Dumper.add_representer(str, represent_text)
    text = yaml.dump(document, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)
    return (f"# {comment}\n" if comment else "") + text


def write_reports(result: Result, paths: ReportPaths, *, quiet: bool = False, run: RunContext | None = None) -> None:
    """Write ``result`` to each path of ``paths`` (JSON, YAML, workbook, HTML page; ``run``
    gives the page the command line and the inputs). Raises ``answerkey.files.OutputError``
    naming the path that cannot be written."""
    if paths.xlsx:
        # Imported here so that judge and check, which write JSON only, load no Excel writer
        # (import-linter still sees this import: it reads imports inside functions too).
        from answerkey.report.excel import write_workbook

        write_workbook(
            result.workbook(), paths.xlsx, warnings=result.warnings, signature=str(result.signature), quiet=quiet
        )
    if paths.json or paths.yaml:
        document = result.document()
        if paths.json:
            with output_stream(paths.json) as stream:
                for piece in json_pieces(document):
                    stream.write(piece.encode())
                stream.write(b"\n")
        if paths.yaml:
            write_output(paths.yaml, yaml_text(document))
    if paths.html:
        write_html(result, paths.html, run)


def text_table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str = "") -> str:
    """A plain-text table; ``align`` has an ``l`` or ``r`` per column (default: the first
    column left-aligned, the others right-aligned)."""
    cells = [[str(cell) for cell in header], *([str(cell) for cell in row] for row in rows)]
    widths = [max(len(row[index]) for row in cells if index < len(row)) for index in range(len(header))]
    align = align or "l" + "r" * (len(header) - 1)
    lines = []
    for row in cells:
        parts = [
            cell.ljust(width) if side == "l" else cell.rjust(width) for cell, width, side in zip(row, widths, align)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)
