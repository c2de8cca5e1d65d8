"""Workbooks that read the same in LibreOffice as in Excel (answerkey.report.excel): rows of
wrapped text get their height, ids written as numbers are numbers, charts without labels or a
fixed scale are written."""

import shutil
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from answerkey.report.excel import id_value, row_height, wrapped_lines, write_workbook
from answerkey.report.workbook import Chart, Column, Sheet, Workbook


@pytest.mark.parametrize(
    ("text", "width", "lines"),
    [
        ("", 10, 1),
        ("exactly 10", 10, 1),
        ("exactly 10 and", 10, 2),
        ("one two three four", 9, 3),
        ("x" * 20, 10, 2),
        ("x" * 21, 10, 3),
        ("ab " + "x" * 12, 10, 3),  # "ab", then the long word over two lines
        ("a\nb\r\nc\rd", 10, 4),
        ("\n", 10, 2),
        ("表" * 10, 10, 2),  # wide characters take two columns
        ("a b", 0, 2),  # a cell is at least a character wide
    ],
)
def test_wrapped_lines_counts_lines_as_a_wrapped_cell_shows_them(text, width, lines):
    assert wrapped_lines(text, width) == lines


def test_row_height_is_a_line_per_line_of_the_tallest_wrapped_cell():
    widths, wrapped = [10, 10, 10], [False, True, True]
    assert row_height(["a\nb\nc\nd", "one", "two"], widths, wrapped) is None  # not wrapped: no height
    assert row_height(["q1", "a\nb", "c\nd\ne"], widths, wrapped) == 45.0
    assert row_height(["q1", None, 3], widths, wrapped) is None
    assert row_height(["q1", "x\n" * 1000, ""], widths, wrapped) == 409.0  # Excel's tallest row


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("0", 0),
        ("42", 42),
        (str(2**53 - 1), 2**53 - 1),
        (str(2**53), str(2**53)),  # a double would not hold it exactly
        ("007", "007"),  # its leading zeros would be lost
        ("-1", "-1"),
        ("1e3", "1e3"),
        ("4.0", "4.0"),
        (" 4", " 4"),
        ("4\n", "4\n"),
        ("١٢", "١٢"),  # Arabic-Indic digits are not ASCII digits
        ("=1+1", "=1+1"),
        (7, 7),
        (None, None),
    ],
)
def test_id_value_makes_a_number_only_of_ascii_digits_that_read_back_the_same(value, cell):
    assert id_value(value) == cell and type(id_value(value)) is type(cell)


def test_a_workbook_holds_ids_as_numbers_or_text_and_wrapped_rows_with_their_height(tmp_path):
    ids = ["12", "007", "q1", "=1+1", 5]
    overview = Sheet(
        "Overview",
        [Column("id", 8, "id"), Column("query", 10, "text", wrap=True), Column("note", 6, "text")],
        [[value, "one two three", "a\nb\nc"] for value in ids] + [["9", "short", None]],
    )
    statistics = Sheet(
        "Statistics",
        [Column("recall", 8, "ratio"), Column("precision", 10, "ratio"), Column("tokens", 8, "integer")],
        [[0.5, 0.75, 1200]],
        charts=[
            Chart("Means", None, (0, 1), 0, 0),
            Chart("Tokens", None, (2,), 0, 0, scale=None),
        ],
    )
    path = tmp_path / "book.xlsx"
    write_workbook(Workbook(overview, statistics), path)
    book = openpyxl.load_workbook(path)
    sheet = book["Overview"]
    cells = [sheet.cell(row, 1) for row in range(2, 8)]
    assert [(cell.value, cell.data_type) for cell in cells] == [
        (12, "n"),
        ("007", "s"),
        ("q1", "s"),
        ("=1+1", "s"),
        (5, "n"),
        (9, "n"),
    ]
    assert cells[0].number_format == "0"
    # "one two three" in a column 10 wide: two lines; the note's lines do not wrap.
    assert [sheet.row_dimensions[row].height for row in range(1, 8)] == [None, 30.0, 30.0, 30.0, 30.0, 30.0, None]
    charts = book["Statistics"]._charts
    assert len(charts) == 2
    means, tokens = charts
    assert (means.y_axis.scaling.min, means.y_axis.scaling.max) == (0, 1)
    assert (tokens.y_axis.scaling.min, tokens.y_axis.scaling.max) == (None, None)
    assert [series.cat for series in means.series] == [None, None]


def test_libreoffice_reads_ids_row_heights_and_charts_as_written(tmp_path):
    """The workbook opened by LibreOffice, headless, and saved as CSV and as its own .xlsx:
    numeric ids as numbers, a formula-like id as its text, the wrapped row as tall as written,
    the Statistics chart kept. Skipped where LibreOffice (Debian's libreoffice-calc) is not
    installed."""
    office = shutil.which("soffice") or shutil.which("libreoffice")
    if office is None:
        pytest.skip("LibreOffice (Debian's libreoffice-calc) is not installed")
    overview = Sheet(
        "Overview",
        [Column("id", 8, "id"), Column("query", 10, "text", wrap=True)],
        [["12", "=1+1"], ["007", "one two three four five"]],
    )
    statistics = Sheet("Statistics", [Column("recall", 8, "ratio")], [[0.5]], charts=[Chart("Mean", None, (0,), 0, 0)])
    path = tmp_path / "book.xlsx"
    write_workbook(Workbook(overview, statistics), path)
    profile = (tmp_path / "profile").as_uri()
    for target in ("csv", "xlsx"):
        subprocess.run(
            [office, f"-env:UserInstallation={profile}", "--headless", "--convert-to", target]
            + ["--outdir", tmp_path / "office", path],
            check=True,
            capture_output=True,
            timeout=120,
        )
    csv = (tmp_path / "office" / "book.csv").read_text().splitlines()
    assert csv == ["id,query", "12,=1+1", "007,one two three four five"]
    book = openpyxl.load_workbook(tmp_path / "office" / "book.xlsx")
    sheet = book["Overview"]
    assert [(cell.value, cell.data_type) for cell in sheet["A"][1:]] == [(12, "n"), ("007", "s")]
    assert sheet["B2"].data_type == "s"
    assert [sheet.row_dimensions[row].height for row in (2, 3)] == [15.0, 45.0]
    assert len(book["Statistics"]._charts) == 1


def test_a_chart_without_labels_names_its_bars_by_their_columns_in_the_html_page(chromium, tmp_path):
    """The HTML overview draws the workbook's charts: a chart with no labels column (one row,
    several columns) labels each bar with its column's header."""
    from answerkey.report import ReportPaths, write_reports

    sys.path.insert(0, str(Path(__file__).parent))
    from test_report import ToyResult

    class OneRow(ToyResult):
        def workbook(self):
            book = super().workbook()
            book.statistics = Sheet(
                "Statistics",
                [Column("recall", 8, "ratio"), Column("precision", 10, "ratio")],
                [[0.5, 0.25]],
                charts=[Chart("Means", None, (0, 1), 0, 0)],
            )
            return book

    path = tmp_path / "report.html"
    write_reports(OneRow(), ReportPaths(html=str(path)))
    chromium.get_log("browser")
    chromium.get(path.as_uri())
    labels = [label.text for label in chromium.find_elements("css selector", ".chart .bar-label")]
    assert labels == ["recall", "precision"]
    assert chromium.get_log("browser") == []
