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
"""

from __future__ import annotations

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


def main() -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.select import Select

    work = Path(tempfile.mkdtemp(prefix="answerkey-shots-"))
    page = work / "sql.html"
    command = [sys.executable, "-m", "answerkey", "sql", "examples/sql/spider/gold.sql", "examples/sql/spider/pred.sql"]
    options = ["--db", "examples/sql/spider/database", "--show-rows", "5", "--html", str(page), "-q"]
    subprocess.run([*command, *options], cwd=ROOT, check=True)
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
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    for picture in sorted(OUT.glob("*.png")):
        print(f"{picture.relative_to(ROOT)}: {picture.stat().st_size} bytes")


if __name__ == "__main__":
    main()
