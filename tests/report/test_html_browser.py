"""The HTML report in a real browser (headless Chromium, the ``chromium`` fixture): it loads
from disk with no console message, its filters, search, sort, pages and detail view work, and
hostile text from the input stays text (docs: Reading a report)."""

import sys
from pathlib import Path

import pytest

from answerkey.report import ReportPaths, write_reports
from answerkey.report.workbook import Column, Sheet, Workbook

sys.path.insert(0, str(Path(__file__).parent))
from test_report import ToyResult

ROOT = Path(__file__).resolve().parents[2]
SPIDER = ROOT / "examples" / "sql" / "spider"
HOSTILE = '<script>alert("script")</script><img src=x onerror=alert("img")>'


def open_page(driver, path):
    """Open ``path`` in the browser after emptying its console log."""
    driver.get_log("browser")
    driver.get(path.as_uri())


def console(driver):
    """The console messages since the page was opened."""
    return [entry["message"] for entry in driver.get_log("browser")]


def text(driver, element_id):
    return driver.find_element("id", element_id).text


def rows(driver):
    """The items table's rows on the current page, as lists of cell texts."""
    return [
        [cell.text for cell in row.find_elements("tag name", "td")]
        for row in driver.find_elements("css selector", "#items tbody tr")
    ]


def choose(driver, select_id, value):
    from selenium.webdriver.support.select import Select

    Select(driver.find_element("id", select_id)).select_by_value(value)


def no_alert(driver):
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018


@pytest.fixture(scope="module")
def sql_page(tmp_path_factory):
    """The HTML report of the bundled Spider example (12 items, 6 correct)."""
    from click.testing import CliRunner

    from answerkey.cli import cli

    path = tmp_path_factory.mktemp("sql") / "report.html"
    args = ["sql", str(SPIDER / "gold.sql"), str(SPIDER / "pred.sql"), "--db", str(SPIDER / "database")]
    result = CliRunner().invoke(cli, [*args, "--html", str(path), "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return path


def test_the_page_loads_with_no_console_message(chromium, sql_page):
    """The overview shows the command, the accuracy with its interval and the signature; the
    console stays empty (no error, no blocked request)."""
    open_page(chromium, sql_page)
    assert text(chromium, "title") == "answerkey sql"
    assert text(chromium, "command").startswith("answerkey sql ")
    figure = chromium.find_element("css selector", ".figure")
    assert figure.text.split("\n") == ["accuracy", "0.5000", "[0.2538, 0.7462]", "Wilson score interval, n = 12"]
    assert "semantics:answerkey|" in chromium.find_element("id", "overview-view").text
    chart = chromium.find_element("id", "semantics-chart").text.split("\n")
    assert chart == [
        "Correct under each semantics",
        "answerkey",
        "6 / 12",
        "test-suite",
        "3 / 12",
        "bird",
        "4 / 12",
        "spider2",
        "5 / 12",
        "The semantics disagree on 7 of 12 items.",
    ]
    assert console(chromium) == []


def test_filters_search_sort_and_detail(chromium, sql_page):
    """Verdict 'incorrect' keeps the 6 incorrect items; a search narrows them; sorting by id
    descending puts item 9 first; a row opens its detail with gold and predicted SQL side by
    side and the verdict under each semantics."""
    open_page(chromium, sql_page)
    chromium.find_element("id", "tab-items").click()
    assert text(chromium, "count") == "12 of 12 items"
    choose(chromium, "filter-2", "=incorrect")  # column 2 is the verdict
    assert text(chromium, "count") == "6 of 12 items"
    assert {row[2] for row in rows(chromium)} == {"incorrect"}
    search = chromium.find_element("id", "search")
    search.send_keys("pets")
    assert text(chromium, "count") == "1 of 12 items"
    assert rows(chromium)[0][:3] == ["11", "pets_1", "incorrect"]
    search.send_keys("\ue003" * 4)  # four backspaces (clear() fires no input event)
    chromium.find_elements("css selector", "#items thead th")[0].click()
    chromium.find_elements("css selector", "#items thead th")[0].click()
    assert [row[0] for row in rows(chromium)] == ["9", "8", "7", "6", "4", "11"]  # ids are text
    chromium.find_elements("css selector", "#items tbody tr")[2].click()
    detail = chromium.find_element("id", "detail-view")
    assert detail.is_displayed()
    assert not chromium.find_element("id", "items-view").is_displayed()
    pre = [element.text for element in detail.find_elements("css selector", ".pair pre")]
    gold = (SPIDER / "gold.sql").read_text().splitlines()[7].split("\t")[0]
    assert pre[0] == gold
    assert detail.find_element("tag name", "h2").text == "Item 7"
    chromium.find_element("id", "back").click()
    assert text(chromium, "count") == "6 of 12 items"
    assert console(chromium) == []


def test_tags_filter_by_each_tag(chromium, tmp_path):
    """A tags cell "a, b" is kept by the filter for tag a and for tag b."""
    result = ManyItems(3)
    result.tags = ["join, nested", "join", ""]
    path = tmp_path / "tags.html"
    write_reports(result, ReportPaths(html=str(path)))
    open_page(chromium, path)
    chromium.find_element("id", "tab-items").click()
    choose(chromium, "filter-3", "=join")
    assert [row[0] for row in rows(chromium)] == ["q00000", "q00001"]
    choose(chromium, "filter-3", "=nested")
    assert [row[0] for row in rows(chromium)] == ["q00000"]
    choose(chromium, "filter-3", "empty")
    assert [row[0] for row in rows(chromium)] == ["q00002"]
    assert console(chromium) == []


def test_hostile_text_stays_text(chromium, tmp_path):
    """A gold holding <script> and <img onerror> is shown as those characters, in the table
    and the detail view; no alert opens and the console stays empty."""
    result = ToyResult()
    result.items[0]["id"] = HOSTILE
    result.items[0]["query"] = HOSTILE + "\n</script><!--"
    result.warnings = [HOSTILE]
    path = tmp_path / "hostile.html"
    write_reports(result, ReportPaths(html=str(path)))
    open_page(chromium, path)
    no_alert(chromium)
    assert HOSTILE in chromium.find_element("id", "overview-view").text
    chromium.find_element("id", "tab-items").click()
    assert rows(chromium)[0][0] == HOSTILE
    chromium.find_elements("css selector", "#items tbody tr")[0].click()
    detail = chromium.find_element("id", "detail-view")
    assert detail.find_element("tag name", "pre").text == HOSTILE + "\n</script><!--"
    assert chromium.find_elements("css selector", "main img, main script") == []
    no_alert(chromium)
    assert console(chromium) == []


class ManyItems:
    """A result of ``count`` items, every seventh incorrect."""

    def __init__(self, count):
        self.count = count
        self.tags = [""] * count
        self.signature = ToyResult().signature
        self.warnings = []

    def document(self):
        return {"summary": {"correct": self.count - self.count // 7 - 1, "evaluated": self.count, "accuracy": 0.857}}

    def workbook(self):
        columns = [Column("id", 10, "text"), Column("verdict", 10, "text"), Column("gold", 30, "text")]
        columns.append(Column("tags", 10, "text"))
        overview = Sheet(
            "Overview",
            columns,
            [
                [f"q{n:05}", "incorrect" if n % 7 == 0 else "correct", f"SELECT {n}", self.tags[n] or None]
                for n in range(self.count)
            ],
        )
        return Workbook(overview, Sheet("Statistics", [Column("group", 10, "text")], [["all"]]))


def test_fifty_thousand_items_are_shown_page_by_page(chromium, tmp_path):
    """50,000 items: 100 rows per page, 500 pages; the verdict filter and the next page work."""
    path = tmp_path / "many.html"
    write_reports(ManyItems(50_000), ReportPaths(html=str(path)))
    open_page(chromium, path)
    chromium.find_element("id", "tab-items").click()
    assert text(chromium, "count") == "50000 of 50000 items"
    assert text(chromium, "page") == "page 1 of 500"
    assert len(rows(chromium)) == 100
    choose(chromium, "filter-1", "=incorrect")
    assert text(chromium, "count") == "7143 of 50000 items"
    chromium.find_element("id", "next").click()
    assert text(chromium, "page") == "page 2 of 72"
    assert rows(chromium)[0][0] == "q00700"
    assert console(chromium) == []


def test_a_gold_warning_shows_in_its_item(chromium, tmp_path, run_cli):
    """`sql --probe-gold --html`: the item's detail lists the warning that names it."""
    gold = tmp_path / "gold.sql"
    gold.write_text("SELECT name FROM singer LIMIT 1\tconcert_singer\nSELECT count(*) FROM singer\tconcert_singer\n")
    predictions = tmp_path / "pred.sql"
    predictions.write_text("SELECT name FROM singer LIMIT 1\nSELECT count(*) FROM singer\n")
    page = tmp_path / "report.html"
    args = ["sql", gold, predictions, "--db", SPIDER / "database", "--probe-gold", "--html", page, "-q"]
    assert run_cli(*args).exit_code == 0
    open_page(chromium, page)
    chromium.find_element("id", "tab-items").click()
    chromium.find_elements("css selector", "#items tbody tr")[0].click()
    warnings = chromium.find_element("id", "item-warnings").text
    assert warnings.splitlines() == [
        f"{gold}:1: item 0: gold limit-without-order: LIMIT 1 without ORDER BY",
        f"{gold}:1: item 0: gold storage-order: with the tables read in reverse: "
        '1 row only as stored (first: "Joe Sharp"), 1 row only in reverse (first: "Ann Lee")',
    ]
    chromium.find_element("id", "back").click()
    chromium.find_elements("css selector", "#items tbody tr")[1].click()
    assert chromium.find_elements("id", "item-warnings") == []
    chromium.find_element("id", "back").click()
    choose(chromium, "filter-warnings", "with")
    assert [row[0] for row in rows(chromium)] == ["0"]
    choose(chromium, "filter-warnings", "without")
    assert [row[0] for row in rows(chromium)] == ["1"]
    assert console(chromium) == []


def test_result_rows_side_by_side(chromium, tmp_path, run_cli):
    """`sql --show-rows 2 --html`: an item's detail shows the gold's and the prediction's first
    rows side by side, under the two queries, saying how many rows were left out."""
    gold = tmp_path / "gold.sql"
    gold.write_text("SELECT name FROM singer ORDER BY name\tconcert_singer\n")
    predictions = tmp_path / "pred.sql"
    predictions.write_text("SELECT name, age FROM singer WHERE age > 40 ORDER BY name\n")
    page = tmp_path / "report.html"
    args = ["sql", gold, predictions, "--db", SPIDER / "database", "--show-rows", "2", "--html", page, "-q"]
    assert run_cli(*args).exit_code == 0
    open_page(chromium, page)
    chromium.find_element("id", "tab-items").click()
    chromium.find_elements("css selector", "#items tbody tr")[0].click()
    pairs = chromium.find_elements("css selector", "#detail-view .pair")
    headings = [[h3.text for h3 in pair.find_elements("tag name", "h3")] for pair in pairs]
    assert headings[:2] == [["gold SQL", "predicted SQL"], ["gold rows", "predicted rows"]]
    shown = [pre.text for pre in pairs[1].find_elements("tag name", "pre")]
    assert shown == [
        'name\n"Ann Lee"\n"Joe Sharp"\n... and 6 more rows (--show-rows shows 2)',
        'name | age\n"Joe Sharp" | 52\n"John Nizinik" | 43\n... and 1 more row (--show-rows shows 2)',
    ]
    assert console(chromium) == []
