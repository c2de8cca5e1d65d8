#!/usr/bin/env python3
"""Take the docs' pictures of the HTML report (docs/img/html/*.png) in headless Chromium.

A developer's tool, run by hand from the repository root when the page changes; the pictures
it writes are committed. It needs Debian's chromium and chromium-driver and Selenium (in the
dev extras), and runs the bundled Spider example:

    .venv/bin/python scripts/html_screenshots.py

Each picture is one element of the page (the overview, the items table, an item's detail),
in a window 1000 pixels wide, so none is wider than the docs' column shows whole (1,000 px).
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
    subprocess.run([*command, "--db", "examples/sql/spider/database", "--html", str(page), "-q"], cwd=ROOT, check=True)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*FLAGS, f"--user-data-dir={work / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        driver.get(page.as_uri())
        driver.find_element("tag name", "body").screenshot(str(OUT / "overview.png"))
        driver.find_element("id", "tab-items").click()
        Select(driver.find_element("id", "filter-2")).select_by_value("=incorrect")
        driver.find_element("tag name", "body").screenshot(str(OUT / "items.png"))
        driver.find_elements("css selector", "#items tbody tr")[2].click()
        driver.find_element("id", "detail-view").screenshot(str(OUT / "detail.png"))
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    for picture in sorted(OUT.glob("*.png")):
        print(f"{picture.relative_to(ROOT)}: {picture.stat().st_size} bytes")


if __name__ == "__main__":
    main()
