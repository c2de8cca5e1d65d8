"""The JSON score report's layout: one line per item, whatever the items' strings hold."""

import json

from answerkey.report.score_report import report_document, to_json
from answerkey.scoring import GroupSummary, ItemResult, ScoreOptions, ScoreRun

# Text that, unescaped, would look like the boundary between two items of the list.
BOUNDARY = '}, {"id": '


def run_of(items: list[ItemResult]) -> ScoreRun:
    options = ScoreOptions()
    return ScoreRun(options.signature, options, items, GroupSummary.of(items, ()), {}, {}, [BOUNDARY])


def item_lines(text: str) -> list[str]:
    start = text.index('  "items": [\n') + len('  "items": [\n')
    end = text.index("\n  ],\n", start)
    return text[start:end].split("\n")


def test_one_line_per_item_even_when_strings_look_like_item_boundaries():
    items = [
        ItemResult(BOUNDARY, "incorrect", f"reason {BOUNDARY}x", "0", (BOUNDARY, "t"), {}),
        ItemResult("id", "correct", "", "1", (), {}),
        ItemResult('q"3', "no_answer", "line\nbreak", "0", ("id",), {}),
    ]
    run = run_of(items)
    text = to_json(run)
    assert json.loads(text) == report_document(run)
    lines = item_lines(text)
    assert len(lines) == 3
    assert [json.loads(line.strip().rstrip(",")) for line in lines] == report_document(run)["items"]
    assert all(line.startswith("    {") for line in lines)


def test_no_items_is_an_empty_list():
    text = to_json(run_of([]))
    assert '  "items": [],\n' in text and json.loads(text)["items"] == []
