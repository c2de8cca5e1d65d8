"""LineIndex: the line and column of many offsets from one index of line starts, exactly as
line_column counts them."""

from hypothesis import given, strategies as st

from answerkey.errors import LineIndex, line_column


@given(st.text(alphabet="ab\n\r\u2028", max_size=80), st.data())
def test_line_index_agrees_with_line_column(text, data):
    """For any text and offset (the end included) the index gives line_column's answer."""
    offset = data.draw(st.integers(0, len(text)))
    assert LineIndex(text).line_column(offset) == line_column(text, offset)


def test_line_index_examples():
    """Offsets at a line's start, inside it and on a newline itself."""
    index = LineIndex("one\ntwo\n\nfour")
    assert [index.line_column(offset) for offset in (0, 3, 4, 7, 8, 9, 13)] == [
        (1, 1),
        (1, 4),
        (2, 1),
        (2, 4),
        (3, 1),
        (4, 1),
        (4, 5),
    ]
