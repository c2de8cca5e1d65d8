"""The JSON score report's layout: one line per item, whatever the items' strings hold, and
the same text when the items are encoded while the run is scored (``ItemLines``)."""

import json

import pytest

from answerkey.score.report import ItemLines, report_document, to_json
from answerkey.score.run import GroupSummary, ItemResult, ScoreOptions, ScoreRun

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


def test_items_encoded_as_they_come_give_the_same_report(monkeypatch):
    """ItemLines, fed one result at a time across several chunks (and a part chunk at the
    end), gives to_json the very text it writes from the finished run."""
    monkeypatch.setattr(ItemLines, "CHUNK", 2)
    items = [
        ItemResult(f"q{index}", "correct" if index % 2 else "incorrect", f"{BOUNDARY} {index}", "0",
                   ("t", BOUNDARY), {"cell_recall": index / 4, "tuple_order": float("nan")})
        for index in range(5)
    ]
    run = run_of(items)
    lines = ItemLines()
    for item in items:
        lines.add(item)
    text = to_json(run, lines)
    assert text == to_json(run)
    assert len(item_lines(text)) == 5
    assert json.loads(text)["items"][4]["metrics"] == {"cell_recall": 1.0, "tuple_order": None}


def test_item_lines_must_hold_every_item_of_the_run():
    """A report never goes out with items missing."""
    lines = ItemLines()
    lines.add(ItemResult("q1", "correct", "", "0", (), {}))
    run = run_of([ItemResult("q1", "correct", "", "0", (), {}), ItemResult("q2", "correct", "", "0", (), {})])
    with pytest.raises(ValueError, match="ItemLines holds 1 items; the run has 2"):
        to_json(run, lines)
