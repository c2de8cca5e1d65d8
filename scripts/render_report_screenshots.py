#!/usr/bin/env python3
"""Render the docs' pictures: the Excel reports of the bundled examples, and the data-flow diagram.

Not part of the package, of its tests or of CI: a developer's tool, run by hand when a report,
an example or the diagram changes; the pictures it writes are committed (docs/img/).

Run it from the repository root (every install is a dev-time tool, none goes into .venv):

    apt-get install -y libreoffice-calc python3-uno poppler-utils fonts-crosextra-carlito
    python3 -m pip install --target /tmp/pylibs pillow
    PYTHONPATH=/tmp/pylibs .venv/bin/python scripts/render_report_screenshots.py

and for the diagram's SVG (optional; skipped with a note when mmdc is not found):

    apt-get install -y chromium
    PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix /tmp/mmdc @mermaid-js/mermaid-cli
    PYTHONPATH=/tmp/pylibs .venv/bin/python scripts/render_report_screenshots.py --mmdc /tmp/mmdc/node_modules/.bin/mmdc

What it needs:
- answerkey installed in the repository's virtual environment (`.venv/bin/answerkey`; another
  one with --answerkey PATH);
- LibreOffice Calc (`soffice`) and its Python bridge (python3-uno, importable by the system's
  `python3`): it opens each workbook, lets every row grow to its wrapped text (as Excel does
  when it opens a workbook whose rows have no height set) and prints each sheet to one PDF
  page cut to the sheet's used range (the PDF export's "whole sheet" option);
- `pdftoppm` (poppler-utils) to turn those pages into PNG at 110 dpi;
- fonts-crosextra-carlito, metric-compatible with Calibri (the workbooks' font), so columns
  hold what they hold in Excel;
- Pillow, optional but wanted: it crops the white margins and keeps each picture to a palette
  of 64 colours (a quarter of the size, the text as sharp). Without it the pages are written
  as pdftoppm makes them, and the script says so.

What it does: runs the real commands on the bundled examples into a temporary directory, each
with --xlsx (score, qatch --task sp, sdmx, steps evaluate then steps aggregate, sql on the
Spider example), renders every sheet but Warnings, and writes
docs/img/reports/<command>-<sheet>.png (sheet names in lower case, spaces as hyphens, e.g.
score-overview.png, steps-aggregate-step-counts.png). The names depend on nothing but the
commands and the sheets, and a second run rewrites the same files; a picture wider than 1000 px
or taller than 700 px also gets its top-left part, <name>.part.png, which the docs show inline
(linking to the whole picture) so that it stays readable in their 700 px column (--parts-only
cuts them again from the pictures there, with Pillow alone); a <command>-*.png there
that this run did not write (a sheet since removed) is deleted. It prints each file with its
size and warns about any over 250 KB.

The diagram: docs/img/data-flow.mmd is the Mermaid source (the docs include it in a mermaid
fence, so the site draws it); with mermaid-cli (`mmdc`, driving the system's Chromium: its
own browser download is not needed) the script also writes docs/img/data-flow.svg, with
plain SVG text (no HTML inside) and a fixed seed, so a re-run writes the same bytes.
--no-reports or --no-diagram leave one part out.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "img" / "reports"
DIAGRAM = REPO / "docs" / "img" / "data-flow.mmd"
# Plain SVG text rather than HTML in foreignObject (any SVG viewer shows it), labels wide enough
# for a module name on one line, and a fixed seed for the shapes mermaid draws with jitter.
MERMAID_CONFIG = {"handDrawnSeed": 1, "htmlLabels": False, "flowchart": {"htmlLabels": False, "wrappingWidth": 300}}
RESOLUTION = 110
COLOURS = 64
# The docs' text column is about 700 px wide: a sheet wider or taller than this is shown there
# by its top-left part, <name>.part.png, which links to the whole picture.
PART_WIDTH, PART_HEIGHT = 1000, 700
MAX_BYTES = 250_000
# Every sheet is rendered except these: the Warnings sheet is a plain list of lines.
SKIPPED_SHEETS = frozenset({"Warnings"})


@dataclass(frozen=True)
class Report:
    """One command whose workbook is rendered: its name in the pictures' file names and its runs."""

    name: str
    # Each run is an argument list for answerkey; "{tmp}" is replaced by the temporary directory.
    # The last run writes {tmp}/<name>.xlsx.
    runs: tuple[tuple[str, ...], ...]


REPORTS = (
    Report(
        "score",
        (
            (
                "score",
                "examples/personnel/corpus.yaml",
                "examples/personnel/answers.jsonl",
                "--xlsx",
                "{tmp}/score.xlsx",
            ),
        ),
    ),
    Report(
        "qatch",
        (
            (
                "qatch",
                "examples/qatch/sp-tests.jsonl",
                "--task",
                "sp",
                "--db",
                "examples/qatch/databases",
                "--xlsx",
                "{tmp}/qatch.xlsx",
            ),
        ),
    ),
    Report(
        "sdmx",
        (("sdmx", "examples/sdmx/cases", "examples/sdmx/selections.jsonl", "--xlsx", "{tmp}/sdmx.xlsx"),),
    ),
    Report(
        "steps-aggregate",
        (
            (
                "steps",
                "evaluate",
                "examples/steps/reference.yaml",
                "examples/steps/responses.jsonl",
                "--yaml",
                "{tmp}/results.yaml",
            ),
            (
                "steps",
                "aggregate",
                "{tmp}/results.yaml",
                "--yaml",
                "{tmp}/aggregates.yaml",
                "--xlsx",
                "{tmp}/steps-aggregate.xlsx",
            ),
        ),
    ),
    Report(
        "sql",
        (
            (
                "sql",
                "examples/sql/spider/gold.sql",
                "examples/sql/spider/pred.sql",
                "--db",
                "examples/sql/spider/database",
                "--xlsx",
                "{tmp}/sql.xlsx",
            ),
        ),
    ),
)


class Failure(Exception):
    """A step that cannot go on: its message is printed and the script exits 1."""


def main(argv: list[str] | None = None) -> int:
    """Run the commands, render their workbooks and write the pictures; 0 on success."""
    parser = argparse.ArgumentParser(description="Render the bundled examples' Excel reports as PNG pictures.")
    parser.add_argument("--answerkey", help="the answerkey executable (default: .venv/bin/answerkey, else on PATH)")
    parser.add_argument(
        "--out", type=Path, default=OUT, help=f"where the pictures go (default: {OUT.relative_to(REPO)})"
    )
    parser.add_argument("--keep", type=Path, help="also copy the workbooks and PDFs into this directory")
    parser.add_argument("--mmdc", help="mermaid-cli's mmdc (default: on PATH; without it no SVG is written)")
    parser.add_argument("--chromium", help="the browser mmdc drives (default: chromium on PATH)")
    parser.add_argument("--no-reports", action="store_true", help="leave the workbooks' pictures as they are")
    parser.add_argument("--no-diagram", action="store_true", help="leave docs/img/data-flow.svg as it is")
    parser.add_argument(
        "--parts-only",
        action="store_true",
        help="only cut the .part.png pictures again from the pictures in --out (needs Pillow, not LibreOffice)",
    )
    # Internal: the part that drives LibreOffice runs under a Python that has its bridge.
    parser.add_argument("--uno-pdf", nargs="+", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        if args.uno_pdf:
            uno_pdf(Path(args.uno_pdf[0]), [Path(p) for p in args.uno_pdf[1:]])
            return 0
        if args.parts_only:
            for picture in sorted(args.out.glob("*.png")):
                if not picture.name.endswith(".part.png"):
                    write_part(picture)
            return 0
        if not args.no_reports:
            render_all(find_answerkey(args.answerkey), args.out.resolve(), args.keep)
        if not args.no_diagram:
            render_diagram(args.mmdc, args.chromium)
    except Failure as failure:
        print(f"render_report_screenshots: {failure}", file=sys.stderr)
        return 1
    return 0


def find_answerkey(given: str | None) -> str:
    """The answerkey executable to run: the one given, the repository's venv's, or the one on PATH."""
    if given:
        return given
    venv = REPO / ".venv" / "bin" / "answerkey"
    if venv.exists():
        return str(venv)
    found = shutil.which("answerkey")
    if found is None:
        raise Failure("answerkey not found: create .venv (see README) or pass --answerkey PATH")
    return found


def need(program: str, package: str) -> str:
    """The path of a program, or a Failure naming the Debian package that has it."""
    found = shutil.which(program)
    if found is None:
        raise Failure(f"{program} not found: apt-get install -y {package}")
    return found


def uno_python() -> str:
    """A Python that can import LibreOffice's bridge (`uno`): this one, else the system's python3."""
    for candidate in (sys.executable, "/usr/bin/python3", shutil.which("python3") or ""):
        if (
            candidate
            and subprocess.run([candidate, "-c", "import uno"], capture_output=True, check=False).returncode == 0
        ):
            return candidate
    raise Failure("no Python can import uno (LibreOffice's Python bridge): apt-get install -y python3-uno")


def render_all(answerkey: str, out: Path, keep: Path | None) -> None:
    """Run every report's commands, convert the workbooks to PDF, and write one PNG per sheet."""
    need("soffice", "libreoffice-calc")
    pdftoppm = need("pdftoppm", "poppler-utils")
    python = uno_python()
    try:
        from PIL import Image  # type: ignore[import-not-found]  # noqa: F401  (only whether it is there)

        pillow = True
    except ImportError:
        pillow = False
        print("Pillow not found: pages are written uncropped and in full colour (see the docstring)", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="answerkey-screenshots-") as name:
        tmp = Path(name)
        workbooks = [run_report(answerkey, report, tmp) for report in REPORTS]
        pdf_dir = tmp / "pdf"
        pdf_dir.mkdir()
        converted = subprocess.run(
            [python, str(Path(__file__).resolve()), "--uno-pdf", str(pdf_dir), *map(str, workbooks)],
            capture_output=True,
            check=False,
            text=True,
        )
        if converted.returncode != 0:
            raise Failure(f"LibreOffice conversion failed:\n{converted.stdout}{converted.stderr}")
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for report, workbook in zip(REPORTS, workbooks, strict=True):
            pdf = pdf_dir / f"{workbook.stem}.pdf"
            sheets = json.loads((pdf_dir / f"{workbook.stem}.json").read_text(encoding="utf-8"))
            pages = page_count(pdf)
            if pages != len(sheets):
                raise Failure(f"{pdf.name} has {pages} pages for {len(sheets)} sheets {sheets}: cannot tell them apart")
            for page, sheet in enumerate(sheets, start=1):
                if sheet in SKIPPED_SHEETS:
                    continue
                target = out / f"{report.name}-{slug(sheet)}.png"
                raw = tmp / f"{report.name}-{page}"
                subprocess.run(
                    [
                        pdftoppm,
                        "-png",
                        "-r",
                        str(RESOLUTION),
                        "-f",
                        str(page),
                        "-l",
                        str(page),
                        "-singlefile",
                        str(pdf),
                        str(raw),
                    ],
                    check=True,
                )
                if pillow:
                    finish_png(raw.with_suffix(".png"), target)
                    part = write_part(target)
                    if part is not None:
                        written.append(part)
                else:
                    shutil.copyfile(raw.with_suffix(".png"), target)
                written.append(target)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for path in [*workbooks, *pdf_dir.glob("*.pdf")]:
                shutil.copy(path, keep / path.name)

    # A sheet that a report no longer has leaves its old picture behind: remove it (only
    # pictures named after one of these reports, so other files in --out are left alone).
    ours = {path for report in REPORTS for path in out.glob(f"{report.name}-*.png")}
    for stale in sorted(ours - set(written)):
        print(f"removed {display(stale)} (not written by this run)")
        stale.unlink()
    for path in written:
        size = path.stat().st_size
        warning = f"  over {MAX_BYTES // 1000} KB" if size > MAX_BYTES else ""
        print(f"{display(path)}  {size / 1000:.0f} KB{warning}")


def render_diagram(mmdc: str | None, chromium: str | None) -> None:
    """Write docs/img/data-flow.svg from docs/img/data-flow.mmd with mermaid-cli, if it is here."""
    mmdc = mmdc or shutil.which("mmdc")
    if mmdc is None:
        print(
            f"mmdc not found: {display(DIAGRAM.with_suffix('.svg'))} not written (see the docstring)", file=sys.stderr
        )
        return
    browser = chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise Failure("chromium not found (mmdc drives it): apt-get install -y chromium")
    target = DIAGRAM.with_suffix(".svg")
    with tempfile.TemporaryDirectory(prefix="answerkey-diagram-") as name:
        tmp = Path(name)
        # As root, Chromium refuses to start without --no-sandbox; it only opens mermaid's page.
        puppeteer = {"executablePath": browser, "args": ["--no-sandbox", "--disable-gpu"]}
        (tmp / "puppeteer.json").write_text(json.dumps(puppeteer), encoding="utf-8")
        (tmp / "mermaid.json").write_text(json.dumps(MERMAID_CONFIG), encoding="utf-8")
        svg = tmp / "data-flow.svg"
        done = subprocess.run(
            [
                mmdc,
                "-p",
                str(tmp / "puppeteer.json"),
                "-c",
                str(tmp / "mermaid.json"),
                "-i",
                str(DIAGRAM),
                "-o",
                str(svg),
            ],
            capture_output=True,
            check=False,
            text=True,
        )
        if done.returncode != 0 or not svg.exists():
            raise Failure(f"mmdc failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
        # mmdc ends the file without a newline; the repository's text files end with one.
        text = svg.read_text(encoding="utf-8")
        target.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    print(f"{display(target)}  {target.stat().st_size / 1000:.0f} KB")


def run_report(answerkey: str, report: Report, tmp: Path) -> Path:
    """Run a report's commands from the repository root (paths in the reports stay relative)."""
    for run in report.runs:
        command = [answerkey, *(argument.replace("{tmp}", str(tmp)) for argument in run), "-q"]
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise Failure(f"exit {done.returncode}: {' '.join(command)}\n{done.stderr}")
    workbook = tmp / f"{report.name}.xlsx"
    if not workbook.exists():
        raise Failure(f"{report.name}: no workbook written at {workbook}")
    return workbook


def page_count(pdf: Path) -> int:
    """The number of pages of a PDF, read by pdfinfo (poppler-utils, beside pdftoppm)."""
    info = subprocess.run([need("pdfinfo", "poppler-utils"), str(pdf)], capture_output=True, text=True, check=True)
    for line in info.stdout.splitlines():
        if line.startswith("Pages:"):
            return int(line.split()[1])
    raise Failure(f"pdfinfo gave no page count for {pdf}")


def slug(sheet: str) -> str:
    """A sheet name as a file name part: lower case, hyphens for spaces ("Step counts" -> step-counts)."""
    return "-".join(sheet.lower().split())


def display(path: Path) -> str:
    """A path relative to the repository when it is inside it."""
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


def finish_png(raw: Path, target: Path) -> None:
    """Crop the white margins (a few pixels of white kept) and save with a 64-colour palette."""
    from PIL import Image, ImageChops  # type: ignore[import-not-found, unused-ignore]

    with Image.open(raw) as opened:
        image = opened.convert("RGB")
    background = Image.new("RGB", image.size, (255, 255, 255))
    box = ImageChops.difference(image, background).getbbox()
    if box is None:
        raise Failure(f"{target.name}: the page is blank")
    margin = 6
    left, top, right, bottom = box
    image = image.crop(
        (
            max(0, left - margin),
            max(0, top - margin),
            min(image.width, right + margin),
            min(image.height, bottom + margin),
        )
    )
    # A palette without dithering: table text and flat fills need no more, and the file shrinks
    # to about a quarter. Median cut is deterministic, so a re-run writes the same bytes.
    image.quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        target, optimize=True
    )


def write_part(picture: Path) -> Path | None:
    """For a picture wider than PART_WIDTH or taller than PART_HEIGHT, write its top-left part
    beside it (<name>.part.png: the docs show it, linking to the whole) and return its path."""
    from PIL import Image  # type: ignore[import-not-found, unused-ignore]

    part = picture.with_name(picture.stem + ".part.png")
    with Image.open(picture) as image:
        if image.width <= PART_WIDTH and image.height <= PART_HEIGHT:
            part.unlink(missing_ok=True)
            return None
        image.crop((0, 0, min(image.width, PART_WIDTH), min(image.height, PART_HEIGHT))).save(part, optimize=True)
    print(f"{display(part)}  {part.stat().st_size / 1000:.0f} KB")
    return part


def uno_pdf(pdf_dir: Path, workbooks: list[Path]) -> None:
    """Print each workbook to PDF through LibreOffice, one page per sheet, rows grown to their text.

    Runs under a Python with LibreOffice's bridge; starts its own headless soffice with a
    throwaway profile, and stops it (that process only) at the end. Beside each PDF it writes
    the sheet names in order as JSON, so pages can be named.
    """
    import uno  # type: ignore[import-not-found]
    from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]
    from com.sun.star.connection import NoConnectException  # type: ignore[import-not-found]
    from com.sun.star.lang import DisposedException  # type: ignore[import-not-found]

    def prop(name: str, value: object) -> PropertyValue:
        item = PropertyValue()
        item.Name = name
        item.Value = value
        return item

    profile = Path(tempfile.mkdtemp(prefix="answerkey-soffice-profile-"))
    pipe = f"answerkey_screenshots_{os.getpid()}"
    office = subprocess.Popen(
        [
            need("soffice", "libreoffice-calc"),
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nodefault",
            "--nolockcheck",
            f"-env:UserInstallation={profile.as_uri()}",
            f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        deadline = time.monotonic() + 60
        while True:
            try:
                context = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                break
            except NoConnectException:  # until soffice listens
                if time.monotonic() > deadline or office.poll() is not None:
                    raise Failure("soffice did not start (60 s)") from None
                time.sleep(0.25)
        desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        for workbook in workbooks:
            document = desktop.loadComponentFromURL(workbook.resolve().as_uri(), "_blank", 0, (prop("Hidden", True),))
            try:
                names = list(document.Sheets.ElementNames)
                for name in names:
                    sheet = document.Sheets.getByName(name)
                    cursor = sheet.createCursor()
                    cursor.gotoEndOfUsedArea(False)
                    end = cursor.RangeAddress
                    used = sheet.getCellRangeByPosition(0, 0, end.EndColumn, end.EndRow)
                    # Excel sizes a row without a set height to its wrapped text when it opens the
                    # file; LibreOffice keeps the default height, so text would run over the next row.
                    used.Rows.OptimalHeight = True
                    reach_overflow(sheet, used.getDataArray(), end.EndColumn)
                filter_data = uno.Any("[]com.sun.star.beans.PropertyValue", (prop("SinglePageSheets", True),))
                target = pdf_dir / f"{workbook.stem}.pdf"
                uno.invoke(
                    document,
                    "storeToURL",
                    (
                        target.resolve().as_uri(),
                        (prop("FilterName", "calc_pdf_Export"), prop("FilterData", filter_data)),
                    ),
                )
                (pdf_dir / f"{workbook.stem}.json").write_text(json.dumps(names), encoding="utf-8")
            finally:
                document.close(True)
        # The bridge may drop while soffice exits, before terminate() returns.
        with contextlib.suppress(DisposedException):
            desktop.terminate()
        office.wait(timeout=30)
    finally:
        if office.poll() is None:
            office.terminate()
            try:
                office.wait(timeout=10)
            except subprocess.TimeoutExpired:
                office.kill()
        shutil.rmtree(profile, ignore_errors=True)


# An upper bound of the width of one character of the workbooks' 11 pt text, in LibreOffice's
# unit (1/100 mm): 0.68 em. Too wide only adds white space, which the cropping removes.
CHARACTER_WIDTH = 265


def reach_overflow(sheet: Any, values: tuple[tuple[object, ...], ...], last_column: int) -> None:
    """Widen the printed part of a sheet to the text that runs past its last used column.

    The whole-sheet PDF export stops at the last used column, cutting a long text (a
    signature, a note, the last header) that a spreadsheet shows running on into the empty
    cells beside it. An invisible one-space cell on the first row, far enough to the right,
    makes the export take those columns in; the cropping then drops what stays white.
    """
    columns = sheet.Columns
    starts = [0]
    for index in range(last_column + 1):
        starts.append(starts[-1] + columns.getByIndex(index).Width)
    reach = starts[-1]
    for row, cells in enumerate(values):
        for column, value in enumerate(cells):
            if not isinstance(value, str) or not value:
                continue
            width = max(len(line) for line in value.splitlines() or [""]) * CHARACTER_WIDTH
            if starts[column] + width <= starts[column + 1]:
                continue
            if sheet.getCellByPosition(column, row).IsTextWrapped:
                continue
            reach = max(reach, starts[column] + width)
    column, right = last_column, starts[-1]
    while right < reach:
        column += 1
        right += columns.getByIndex(column).Width
    if column > last_column:
        # One column further than the text reaches: a cell holding anything, even a space,
        # stops the text of its row from running on into it.
        sheet.getCellByPosition(column + 1, 0).setString(" ")


if __name__ == "__main__":
    sys.exit(main())
