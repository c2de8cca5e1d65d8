"""Result CSV files (``gold_results``, Spider 2.0-lite's result files): read with the csv
module, typed as pandas' ``read_csv`` types them, every problem at FILE:LINE:COL."""

from __future__ import annotations

import io
import math

import pytest

from answerkey.errors import InputError
from answerkey.execution.result_csv import read_result_csv
from answerkey.limits import MAX_COLUMNS
from answerkey.metrics.driver_values import driver_rows

# Each text as pandas reads it (pandas 3.1, read_csv's defaults): checked against pandas below.
TYPED = {
    "integers": ("n\n1\n-2\n", [(1,), (-2,)]),
    "integers and a missing value are reals": ("n,t\n1,a\n,b\n3,c\n", [(1.0, "a"), (None, "b"), (3.0, "c")]),
    "reals": ("x\n1.5\n2\n", [(1.5,), (2.0,)]),
    "booleans": ("b\nTrue\nfalse\n", [(True,), (False,)]),
    "a text makes the column text": ("t\n007\nx\n", [("007",), ("x",)]),
    "digits alone are a number": ("t\n007\n", [(7,)]),
    "pandas' missing spellings": ("t\nNA\nnull\nz\n", [(None,), (None,), ("z",)]),
    "quoted cells": ('a,b\n"1,5","say ""hi"""\n', [("1,5", 'say "hi"')]),
    "a lone quoted empty cell is a missing value": ('t\n""\nz\n', [(None,), ("z",)]),
    "a line of spaces and tabs is blank": ("t\n1\n  \t\n2\n", [(1,), (2,)]),
    "a cell of spaces beside others is text": ("t,u\n1, \n", [(1, " ")]),
    "Windows line ends": ("t,u\r\n1,x\r\n", [(1, "x")]),
    "a short row ends in missing values": ("a,b\n1,2\n3\n", [(1, 2.0), (3, None)]),
}


@pytest.mark.parametrize("name", TYPED)
def test_values_are_typed_as_pandas_reads_them(tmp_path, name):
    """Integers, reals, booleans, texts and missing values, column by column."""
    text, rows = TYPED[name]
    (tmp_path / "r.csv").write_text(text, encoding="utf-8")
    result = read_result_csv(tmp_path / "r.csv").query_result()
    assert [tuple(row) for row in driver_rows(result)] == rows


@pytest.mark.parametrize("name", TYPED)
def test_the_table_agrees_with_pandas(name):
    """TYPED holds what pandas' read_csv gives for each text (NaN as None)."""
    pandas = pytest.importorskip("pandas")
    text, rows = TYPED[name]
    frame = pandas.read_csv(io.StringIO(text))
    read = [
        tuple(None if isinstance(value, float) and math.isnan(value) else value for value in row)
        for row in frame.astype(object).itertuples(index=False)
    ]
    assert read == rows


def test_blank_lines_are_skipped_and_the_header_names_the_columns(tmp_path):
    """A blank line is skipped (as read_csv skips it); a header alone is a result without rows."""
    (tmp_path / "r.csv").write_text("\nname,n\n\nAnn,3\n", encoding="utf-8")
    result = read_result_csv(tmp_path / "r.csv")
    assert (result.columns, len(result.rows)) == (("name", "n"), 1)
    (tmp_path / "h.csv").write_text("name,n\n", encoding="utf-8")
    assert read_result_csv(tmp_path / "h.csv").query_result().row_count == 0


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("a,b\n1,2,3\n", "2:1", "the row has 3 cells but the header has 2 columns"),
        ("", "1:1", "no header row: a result file starts with its column names"),
        ('a\n"x"y\n', "2:1", "invalid CSV: ',' expected after '\"'"),
        (
            ",".join(["c"] * (MAX_COLUMNS + 1)) + "\n",
            "1:1",
            f"{MAX_COLUMNS + 1:,} columns, more than the limit of 2,000",
        ),
    ],
)
def test_a_bad_file_is_one_located_error(tmp_path, text, where, message):
    """A row longer than the header, no header, a stray quote, too many columns: FILE:LINE:COL: message."""
    (tmp_path / "r.csv").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        read_result_csv(tmp_path / "r.csv", source="r.csv")
    assert str(raised.value) == f"r.csv:{where}: {message}"


def test_a_file_that_is_not_text_is_refused(tmp_path):
    """Bytes that are not UTF-8: the place of the first, no traceback."""
    (tmp_path / "r.csv").write_bytes(b"a\n\xff\n")
    with pytest.raises(InputError) as raised:
        read_result_csv(tmp_path / "r.csv", source="r.csv")
    assert str(raised.value) == "r.csv:2:1: not valid UTF-8 (byte 0xff)"
