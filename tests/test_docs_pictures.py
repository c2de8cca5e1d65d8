"""The docs read well in their column: pictures shown inline fit it (a wider sheet is shown by
its top-left part, linking to the whole), the first example of each command's page fits it, a
command's page shows its command before the tables that explain it, and the SQL switching page
maps test-suite-sql-eval's command line by line."""

import re
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
# docs/stylesheets/extra.css widens the text column to about 990 px: pictures up to 1,000 px wide
# show nearly at their size, and a code line of 120 characters fits.
SHOWN_WIDTH, SHOWN_HEIGHT = 1000, 1000
CODE_LINE = 120
COMMAND_PAGES = ["comparator.md", "cas.md", "score.md", "qatch.md", "sdmx.md", "steps.md", "sql.md", "fuzz.md"]
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")
LINKED_IMAGE = re.compile(r"\[!\[[^\]]*\]\(([^)]+)\)\]\(([^)]+)\)")


def picture_size(path: Path) -> tuple[float, float]:
    """Width and height in pixels: a PNG's header, an SVG's viewBox."""
    if path.suffix == ".png":
        return struct.unpack(">II", path.read_bytes()[16:24])
    view_box = re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+) ([\d.]+)"', path.read_text(encoding="utf-8")[:2000])
    assert view_box, f"{path}: no viewBox"
    return float(view_box.group(1)), float(view_box.group(2))


def inline_pictures() -> list[tuple[str, Path, Path | None]]:
    """(page, picture shown, picture it links to) for every picture of the pages."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        linked = {match.group(1): match.group(2) for match in LINKED_IMAGE.finditer(text)}
        for source in IMAGE.findall(text):
            if source.startswith("http"):
                continue
            target = linked.get(source)
            found.append(
                (page.name, page.parent / source, page.parent / target if target and target != source else None)
            )
    return found


def test_the_pages_have_pictures():
    """The scan finds the diagram and the workbooks' pictures."""
    names = {shown.name for _, shown, _ in inline_pictures()}
    assert "data-flow.svg" in names and "sql-overview.part.png" in names


@pytest.mark.parametrize(("page", "shown", "whole"), inline_pictures(), ids=lambda value: str(value))
def test_a_picture_shown_inline_fits_the_column(page, shown, whole):
    """A picture shown in a page is at most 1,000 px wide and tall; a part links to its whole,
    which is the larger picture it was cut from."""
    width, height = picture_size(shown)
    assert width <= SHOWN_WIDTH and height <= SHOWN_HEIGHT, f"{page}: {shown.name} is {width:.0f} x {height:.0f} px"
    if shown.name.endswith(".part.png"):
        assert whole is not None and whole.name == shown.name.replace(".part.png", ".png"), page
        whole_width, whole_height = picture_size(whole)
        assert (whole_width, whole_height) != (width, height) and whole_width >= width and whole_height >= height


def test_every_sheet_too_large_for_the_column_is_shown_by_its_part():
    """No page shows a workbook picture wider or taller than the column whole."""
    for page, shown, _ in inline_pictures():
        if shown.parent.name == "reports" and not shown.name.endswith(".part.png"):
            width, height = picture_size(shown)
            assert width <= SHOWN_WIDTH and height <= SHOWN_HEIGHT, (page, shown.name)


def console_blocks(page: Path) -> list[str]:
    return re.findall(r"^```console\n(.*?)^```", page.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("name", COMMAND_PAGES)
def test_the_first_example_of_a_command_page_fits_the_column(name):
    """What the first example of a command's page prints fits in 120 characters a line."""
    lines = [line for line in console_blocks(DOCS / name)[0].splitlines() if not line.startswith("$ ")]
    assert max(len(line) for line in lines) <= CODE_LINE


def test_the_column_is_as_wide_as_these_tests_assume():
    """The stylesheet that widens the column is the site's."""
    assert "max-width: 76rem" in (DOCS / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert "  - stylesheets/extra.css" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["qatch.md", "score.md", "sdmx.md", "sql.md", "steps.md"])
def test_a_command_page_shows_its_command_before_any_table(name):
    """The first example comes before the first Markdown table (the QATCH page opened with its
    metric and conversion tables)."""
    text = (DOCS / name).read_text(encoding="utf-8")
    first_table = re.search(r"^\|", text, re.MULTILINE)
    assert text.index("```console\n$ answerkey ") < (first_table.start() if first_table else len(text))


def test_switching_sql_maps_each_option_of_evaluation_py():
    """Each option of test-suite-sql-eval's evaluation.py (commit e97acc5, lines 917-929) has a
    row in the mapping table of docs/switching-sql.md."""
    text = (DOCS / "switching-sql.md").read_text(encoding="utf-8")
    section = text.split("## From `evaluation.py --gold --pred --db --etype exec`")[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    for option in ("--gold", "--pred", "--db", "--etype exec", "--table", "--keep_distinct", "--plug_value"):
        assert any(row.split("|")[1].count(f"`{option}") for row in rows), option
    assert any("--progress_bar_for_each_datapoint" in row for row in rows)
    assert "answerkey sql gold.sql pred.sql --db database --semantics test-suite" in section
