"""The HTML report's aligned results and its charts of counts, in a real browser (headless
Chromium, the ``chromium`` fixture): missing, extra and out-of-tolerance rows and cells carry
their classes, the column mapping is listed, the SVG charts show the expected counts, and
hostile text in results stays text (docs: Reading a report)."""

import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_html_browser import HOSTILE, SPIDER, console, no_alert, open_page


def show_item(driver, position):
    """Open the detail of the item on row ``position`` of the items table."""
    driver.find_element("id", "tab-items").click()
    driver.find_elements("css selector", "#items tbody tr")[position].click()


def aligned_lines(driver):
    """The aligned table's body: (class, cell texts, texts of the cells marked 'off') per line."""
    lines = []
    for line in driver.find_elements("css selector", "#aligned tbody tr"):
        cells = line.find_elements("tag name", "td")
        marked = [cell.text for cell in cells if "off" in cell.get_attribute("class").split()]
        lines.append((line.get_attribute("class"), [cell.text for cell in cells], marked))
    return lines


@pytest.fixture
def shop(tmp_path):
    """A Spider-layout root with one database, `shop`: t(name, score), 4 rows."""
    directory = tmp_path / "database" / "shop"
    directory.mkdir(parents=True)
    connection = sqlite3.connect(directory / "shop.sqlite")
    connection.execute("CREATE TABLE t (name TEXT, score REAL)")
    rows = [("Ann", 1.5), ("Bob", 2.0), ("Cy", 3.0), ("Di", 4.0), (HOSTILE, 9.0)]
    connection.executemany("INSERT INTO t VALUES (?, ?)", rows)
    connection.commit()
    connection.close()
    return tmp_path / "database"


def sql_page(run_cli, tmp_path, root, gold_sql, predicted_sql, *more):
    gold = tmp_path / "gold.sql"
    gold.write_text(f"{gold_sql}\tshop\n")
    predictions = tmp_path / "pred.sql"
    predictions.write_text(f"{predicted_sql}\n")
    page = tmp_path / "report.html"
    args = ["sql", gold, predictions, "--db", root, "--html", page, "-q", *more]
    assert run_cli(*args).exit_code == 0  # sql's exit status is 0 whatever the verdicts
    return page


def test_aligned_rows_mark_missing_extra_and_out_of_tolerance(chromium, tmp_path, run_cli, shop):
    """Gold (name, score) against predicted (points, name): the mapping crosses the columns;
    Ann matches, Bob's score is off by 1 (both cells marked), Cy is missing, Di extra."""
    page = sql_page(
        run_cli,
        tmp_path,
        shop,
        "SELECT name, score FROM t WHERE name IN ('Ann', 'Bob', 'Cy')",
        "SELECT score + (name = 'Bob') AS points, name FROM t WHERE name IN ('Ann', 'Bob', 'Di')",
        "--show-rows",
        "10",
    )
    open_page(chromium, page)
    show_item(chromium, 0)
    mapping = [item.text for item in chromium.find_elements("css selector", "#mapping li")]
    assert mapping == [
        "gold column 1 (name) → predicted column 2 (name)",
        "gold column 2 (score) → predicted column 1 (points)",
    ]
    assert aligned_lines(chromium) == [
        ("line-matched", ['"Ann"', "1.5", "matched", "1.5", '"Ann"'], []),
        ("line-different", ['"Bob"', "2.0", "out of tolerance", "3.0", '"Bob"'], ["2.0", "3.0"]),
        ("line-missing", ['"Cy"', "3.0", "missing", "", ""], []),
        ("line-extra", ["", "", "extra", "4.0", '"Di"'], []),
    ]
    counts = chromium.find_element("css selector", ".aligned-counts").text
    assert counts == "gold: 3 rows; predicted: 3 rows; lines: 1 matched, 1 missing, 1 extra, 1 out of tolerance."
    assert console(chromium) == []


def test_aligned_rows_are_cut_at_show_rows_saying_so(chromium, tmp_path, run_cli, shop):
    """--show-rows 2 keeps two lines of four and says how many more there are."""
    page = sql_page(
        run_cli, tmp_path, shop, "SELECT name FROM t", "SELECT name FROM t WHERE score < 3", "--show-rows", "2"
    )
    open_page(chromium, page)
    show_item(chromium, 0)
    assert [line[0] for line in aligned_lines(chromium)] == ["line-matched", "line-matched"]
    note = chromium.find_element("css selector", ".aligned .cut-note").text
    assert note == "… and 3 more lines (the view shows the first 2)"
    assert console(chromium) == []


def test_hostile_values_and_column_names_in_results_stay_text(chromium, tmp_path, run_cli, shop):
    """A value and a column alias holding <script> and <img onerror> are shown as written in
    the aligned table and the mapping; no element is made of them, no alert opens."""
    alias = HOSTILE.replace('"', "'")
    page = sql_page(
        run_cli,
        tmp_path,
        shop,
        "SELECT name FROM t WHERE score > 8",
        f'SELECT name AS "{alias}", score FROM t WHERE score > 3',
        "--show-rows",
        "10",
    )
    open_page(chromium, page)
    no_alert(chromium)
    show_item(chromium, 0)
    cell = '"' + HOSTILE.replace('"', '\\"') + '"'  # as CAS text: quoted, inner quotes escaped
    assert aligned_lines(chromium) == [
        ("line-matched", [cell, "matched", cell, "9.0"], []),
        ("line-extra", ["", "extra", '"Di"', "4.0"], []),
    ]
    assert (
        chromium.find_elements("css selector", "#mapping li")[0].text
        == f"gold column 1 (name) → predicted column 1 ({alias})"
    )
    assert chromium.find_elements("css selector", "main img, main script") == []
    no_alert(chromium)
    assert console(chromium) == []


def test_judge_shows_both_answers_aligned(chromium, tmp_path, run_cli):
    """`judge --explain --html`: the canonical and the system answer aligned, columns numbered."""
    canonical = tmp_path / "canonical.cas"
    canonical.write_text('((53200.0 "x") (1 "a") (3 "c"))\n')
    system = tmp_path / "system.cas"
    system.write_text('(("x" 53198.8) ("b" 2) ("c" 3))\n')
    page = tmp_path / "judge.html"
    assert run_cli("judge", "--explain", canonical, system, "--html", page, "-q").exit_code == 1
    open_page(chromium, page)
    show_item(chromium, 0)
    assert [item.text for item in chromium.find_elements("css selector", "#mapping li")] == [
        "canonical column 1 (1) → system column 2 (2)",
        "canonical column 2 (2) → system column 1 (1)",
    ]
    assert [(line[0], line[1]) for line in aligned_lines(chromium)] == [
        ("line-matched", ["53200.0", '"x"', "matched", '"x"', "53198.8"]),
        ("line-missing", ["1", '"a"', "missing", "", ""]),
        ("line-matched", ["3", '"c"', "matched", '"c"', "3"]),
        ("line-extra", ["", "", "extra", '"b"', "2"]),
    ]
    assert console(chromium) == []


def chart_bars(driver, name):
    """An SVG chart's bars as (label, count text), in order, and its title and description."""
    figure = driver.find_element("id", name)
    svg = figure.find_element("tag name", "svg")
    title = svg.find_element("tag name", "title").get_attribute("textContent")
    description = svg.find_element("tag name", "desc").get_attribute("textContent")
    bars = [
        (
            bar.find_element("css selector", ".label").get_attribute("textContent"),
            bar.find_element("css selector", ".count").get_attribute("textContent"),
        )
        for bar in svg.find_elements("css selector", "g.bar-item")
    ]
    return title, description, bars


def test_charts_count_agreement_and_deciding_rules(chromium, tmp_path, run_cli):
    """The Spider example (12 items, the semantics disagree on 7): how often each pair agrees,
    and per semantics the kinds of reasons that decided the 7, as labelled SVG."""
    page = tmp_path / "spider.html"
    args = ["sql", SPIDER / "gold.sql", SPIDER / "pred.sql", "--db", SPIDER / "database", "--html", page, "-q"]
    assert run_cli(*args).exit_code == 0
    open_page(chromium, page)
    title, description, bars = chart_bars(chromium, "agreement-chart")
    assert title == "How often the semantics agree"
    assert description.startswith("For each pair of semantics, the items (of 12 with a verdict under each)")
    assert bars == [
        ("answerkey = test-suite", "9 / 12"),
        ("answerkey = bird", "8 / 12"),
        ("answerkey = spider2", "9 / 12"),
        ("test-suite = bird", "9 / 12"),
        ("test-suite = spider2", "8 / 12"),
        ("bird = spider2", "5 / 12"),
        ("all agree", "5 / 12"),
    ]
    svg = chromium.find_element("css selector", "#agreement-chart svg")
    assert svg.get_attribute("role") == "img"
    assert svg.get_attribute("aria-labelledby") == "agreement-chart-title agreement-chart-desc"
    title, _, bars = chart_bars(chromium, "rules-chart")
    assert title == "Which rule decided what"
    groups = [
        group.get_attribute("textContent") for group in chromium.find_elements("css selector", "#rules-chart .group")
    ]
    assert groups == ["answerkey", "test-suite", "bird", "spider2"]
    assert bars[:4] == [
        ("correct: the tuples match as sets", "4 / 7"),
        ("correct: the tuples match in key order (BY N; ties as sets)", "1 / 7"),
        ("incorrect: no mapping of canonical columns onto system columns gives the canonical tuples as a set", "1 / 7"),
        (
            "incorrect: no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY N)",
            "1 / 7",
        ),
    ]
    assert ("incorrect: same bag of rows in another order (the gold's text has 'order by')", "2 / 7") in bars
    assert sum(int(count.split(" / ")[0]) for _, count in bars) == 7 * 4  # each semantics decided each item
    assert console(chromium) == []


def test_score_shows_each_items_answers_aligned(chromium, tmp_path, run_cli):
    """`score --html` (the personnel example): q11's canonical 71500.0 beside the system's
    48250.0, both cells out of tolerance; a correct item's rows matched under its mapping."""
    examples = SPIDER.parents[1] / "personnel"
    page = tmp_path / "score.html"
    run_cli("score", examples / "corpus.yaml", examples / "answers.jsonl", "--html", page, "-q")
    open_page(chromium, page)
    chromium.find_element("id", "tab-items").click()
    chromium.find_element("id", "search").send_keys("q11")
    chromium.find_elements("css selector", "#items tbody tr")[0].click()
    assert aligned_lines(chromium) == [
        ("line-different", ["71500.0", "out of tolerance", "48250.0"], ["71500.0", "48250.0"])
    ]
    chromium.find_element("id", "back").click()
    chromium.find_element("id", "search").send_keys("\ue003" * 3 + "q05")
    chromium.find_elements("css selector", "#items tbody tr")[0].click()
    assert [item.text for item in chromium.find_elements("css selector", "#mapping li")] == [
        "canonical column 1 (1) → system column 2 (2)",
        "canonical column 2 (2) → system column 1 (1)",
    ]
    assert aligned_lines(chromium) == [("line-matched", ["4322", '"TAI"', "matched", '"TAI"', "4322", '"PAUL"'], [])]
    assert console(chromium) == []


def test_without_html_score_aligns_nothing(tmp_path, run_cli):
    """The aligned answers are made only for the page: a JSON-only run's workbook has none."""
    from answerkey.score.load import load_answers, load_corpus
    from answerkey.score.run import run_score

    examples = SPIDER.parents[1] / "personnel"
    run = run_score(load_corpus(str(examples / "corpus.yaml")), load_answers(str(examples / "answers.jsonl")))
    assert run.workbook().details == ()


def test_a_comparison_page_heads_with_the_difference_and_names_each_series(chromium, tmp_path, run_cli):
    """`compare --html`: the overview's figure is the difference with its bootstrap interval,
    and the chart of the two means names each bar's run and series (baseline, system)."""
    reports = []
    for name, predictions in (("old", SPIDER / "pred.sql"), ("new", SPIDER / "gold.sql")):
        report = tmp_path / f"{name}.json"
        args = ["sql", SPIDER / "gold.sql", predictions, "--db", SPIDER / "database", "--json", report, "-q"]
        assert run_cli(*args).exit_code == 0
        reports.append(report)
    page = tmp_path / "compare.html"
    assert run_cli("compare", *reports, "--html", page, "-q").exit_code == 0
    open_page(chromium, page)
    figure = chromium.find_element("css selector", ".figures .figure")
    assert figure.find_element("css selector", ".name").text == f"{reports[1]} - {reports[0]}"
    assert figure.find_element("css selector", ".value").text == "0.5000"
    assert figure.find_element("css selector", ".how").text == "paired bootstrap interval, n = 12"
    labels = [label.text for label in chromium.find_elements("css selector", ".chart .bar-label")]
    assert labels == [f"{reports[1]}: baseline mean", f"{reports[1]}: system mean"]
    assert console(chromium) == []
