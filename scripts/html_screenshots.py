#!/usr/bin/env python3
"""Take the docs' pictures of the HTML report (docs/img/html/*.png) in headless Chromium.

A developer's tool, run by hand from the repository root when the page changes; the pictures
it writes are committed. It needs Debian's chromium and chromium-driver and Selenium (in the
dev extras), and runs the bundled Spider example:

    .venv/bin/python scripts/html_screenshots.py

Each picture is one element of the page (the overview, the two charts of how the semantics
agree, the items table, an item's detail, an item's results aligned), in a window 1000 pixels
wide, so none is wider than the docs' column shows whole (1,000 px). The run keeps five rows of
each result (``--show-rows 5``), so that the detail view aligns them.

Two more pages, made in a temporary folder beside a link to the Spider databases:

- ``answerkey compare old.json new.json --html``: two ``sql`` runs of the Spider items, the
  second fixing four and breaking one (NEW_PREDICTIONS); the Statistics table (wider than the
  column: its top-left part links to the whole, taken in a wider window) and the items table.
- ``answerkey sql --probe-gold --html``: the Spider items and two more whose golds are suspect
  (SUSPECT_ITEMS: a LIMIT through tied years, ``random()``); the overview's warnings, the items
  that have one, and the detail of the item whose gold cuts through ties.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPIDER = ROOT / "examples" / "sql" / "spider"
OUT = ROOT / "docs" / "img" / "html"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--window-size=1000,1000",
)
# The Spider example's predictions with items 4, 8, 9 and 11 fixed and item 3 broken.
NEW_PREDICTIONS = {
    3: "SELECT avg(net_worth) FROM singer",
    4: "SELECT name, net_worth FROM singer WHERE country = 'France' ORDER BY net_worth",
    8: "SELECT name FROM singer WHERE singer_id = 1",
    9: "SELECT count(*) FROM concert",
    11: "SELECT avg(pet_age) FROM pets",
}
# (gold, db_id, prediction): two concerts of 2014 tie for the first year; a random singer. The
# first prediction breaks the tie the other way, so it fails against a gold that is as right.
SUSPECT_ITEMS = (
    (
        "SELECT concert_name FROM concert ORDER BY year LIMIT 1",
        "concert_singer",
        "SELECT concert_name FROM concert ORDER BY year, concert_id DESC LIMIT 1",
    ),
    ("SELECT name FROM singer ORDER BY random() LIMIT 1", "concert_singer", "SELECT name FROM singer LIMIT 1"),
)


def answerkey(folder: Path, *args: str) -> None:
    """Run the command in ``folder``, so that the page shows it with short relative paths."""
    subprocess.run([sys.executable, "-m", "answerkey", *args, "-q"], cwd=folder, check=True)


def compare_page(work: Path) -> Path:
    """The HTML report of ``compare`` on two ``sql`` runs of the Spider items."""
    folder = work / "compare"
    folder.mkdir()
    (folder / "database").symlink_to(SPIDER / "database")
    shutil.copyfile(SPIDER / "gold.sql", folder / "gold.sql")
    predictions = (SPIDER / "pred.sql").read_text(encoding="utf-8").splitlines()
    shutil.copyfile(SPIDER / "pred.sql", folder / "old.sql")
    for index, sql in NEW_PREDICTIONS.items():
        predictions[index] = sql
    (folder / "new.sql").write_text("\n".join(predictions) + "\n", encoding="utf-8")
    for name in ("old", "new"):
        answerkey(folder, "sql", "gold.sql", f"{name}.sql", "--db", "database", "--json", f"{name}.json")
    answerkey(folder, "compare", "old.json", "new.json", "--html", "compare.html")
    return folder / "compare.html"


def probe_page(work: Path) -> Path:
    """The HTML report of ``sql --probe-gold`` on the Spider items and SUSPECT_ITEMS."""
    folder = work / "probe"
    folder.mkdir()
    (folder / "database").symlink_to(SPIDER / "database")
    gold = (SPIDER / "gold.sql").read_text(encoding="utf-8") + "".join(f"{sql}\t{db}\n" for sql, db, _ in SUSPECT_ITEMS)
    predictions = (SPIDER / "pred.sql").read_text(encoding="utf-8") + "".join(f"{sql}\n" for _, _, sql in SUSPECT_ITEMS)
    (folder / "gold.sql").write_text(gold, encoding="utf-8")
    (folder / "pred.sql").write_text(predictions, encoding="utf-8")
    answerkey(
        folder,
        "sql",
        "gold.sql",
        "pred.sql",
        "--db",
        "database",
        "--probe-gold",
        "--show-rows",
        "5",
        "--html",
        "probe.html",
    )
    return folder / "probe.html"


def clip(driver, first, last, path: Path) -> None:
    """Take the part of the page from the top of ``first`` to the bottom of ``last``, as wide as
    their parent: two neighbours that no single element holds alone."""
    box = driver.execute_script(
        "const [a, b] = [arguments[0].getBoundingClientRect(), arguments[1].getBoundingClientRect()];"
        "const p = arguments[0].parentElement.getBoundingClientRect();"
        "return {x: p.left + scrollX, y: a.top + scrollY, width: p.width, height: b.bottom - a.top, scale: 1};",
        first,
        last,
    )
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"clip": box, "captureBeyondViewport": True})
    path.write_bytes(base64.b64decode(shot["data"]))


def main() -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.select import Select

    work = Path(tempfile.mkdtemp(prefix="answerkey-shots-"))
    page = work / "sql.html"
    command = [sys.executable, "-m", "answerkey", "sql", "examples/sql/spider/gold.sql", "examples/sql/spider/pred.sql"]
    options = ["--db", "examples/sql/spider/database", "--show-rows", "5", "--html", str(page), "-q"]
    subprocess.run([*command, *options], cwd=ROOT, check=True)
    comparison, probed = compare_page(work), probe_page(work)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*FLAGS, f"--user-data-dir={work / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        driver.get(page.as_uri())
        driver.find_element("tag name", "body").screenshot(str(OUT / "overview.png"))
        for chart in ("agreement-chart", "rules-chart"):
            element = driver.find_element("id", chart)
            driver.execute_script("arguments[0].scrollIntoView()", element)  # a picture shows what is in view
            element.screenshot(str(OUT / f"{chart.removesuffix('-chart')}.png"))
        driver.find_element("id", "tab-items").click()
        Select(driver.find_element("id", "filter-2")).select_by_value("=incorrect")
        driver.find_element("tag name", "body").screenshot(str(OUT / "items.png"))
        driver.find_elements("css selector", "#items tbody tr")[2].click()  # item 7
        driver.find_element("id", "detail-view").screenshot(str(OUT / "detail.png"))
        driver.find_element("id", "back").click()
        driver.find_elements("css selector", "#items tbody tr")[5].click()  # item 11
        driver.find_element("css selector", "#detail-view .aligned").screenshot(str(OUT / "aligned.png"))

        driver.get(comparison.as_uri())
        driver.find_element("id", "tab-sheets").click()
        # The Statistics table scrolls in the column: its part as the column shows it, the whole
        # in a window wide enough for every column.
        driver.find_element("id", "sheets-view").screenshot(str(OUT / "compare-statistics.part.png"))
        driver.set_window_size(1400, 1000)
        driver.find_element("css selector", "#sheets-view").screenshot(str(OUT / "compare-statistics.png"))
        driver.set_window_size(1000, 1000)
        driver.find_element("id", "tab-items").click()
        driver.find_element("id", "items-view").screenshot(str(OUT / "compare-items.png"))

        driver.get(probed.as_uri())
        heading = driver.find_element("xpath", "//section[@id='overview-view']/h2[starts-with(., 'Warnings')]")
        clip(driver, heading, heading.find_element("xpath", "following-sibling::ul"), OUT / "probe-warnings.png")
        driver.find_element("id", "tab-items").click()
        Select(driver.find_element("id", "filter-warnings")).select_by_value("with")
        driver.find_element("tag name", "body").screenshot(str(OUT / "probe-items.png"))
        driver.find_elements("css selector", "#items tbody tr")[1].click()  # item 12, the tie
        # From the top of the detail to its warnings: the item's fields below them are left out.
        clip(
            driver,
            driver.find_element("id", "back"),
            driver.find_element("id", "item-warnings"),
            OUT / "probe-detail.png",
        )
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    for picture in sorted(OUT.glob("*.png")):
        print(f"{picture.relative_to(ROOT)}: {picture.stat().st_size} bytes")


if __name__ == "__main__":
    main()
