"""Reading graphrag-eval's answer-correctness TSV: its quoting, and every refusal located."""

import pytest

from answerkey.answers.load import AnswerRow, load_table, read_table
from answerkey.errors import InputError, InputErrors

HEADER = "Question\tReference answer\tActual answer\n"


def messages(error):
    """Each error of ``error`` as printed: FILE:LINE:COL: message."""
    return [str(each) for each in (error.errors if isinstance(error, InputErrors) else [error])]


def test_the_bundled_example(repo_root):
    """examples/answers/questions.tsv: four rows, the last with a quoted answer of four lines."""
    table = load_table(repo_root / "examples" / "answers" / "questions.tsv")
    assert table.header == ["Question", "Reference answer", "Actual answer"]
    assert [row.line for row in table.rows] == [2, 3, 4, 5]
    assert table.rows[3] == AnswerRow(
        5,
        ("List the first three prime numbers.", "2, 3 and 5.", "The first three primes are:\n- 2\n- 3\n- 5"),
        "List the first three prime numbers.",
        "2, 3 and 5.",
        "The first three primes are:\n- 2\n- 3\n- 5",
    )


def test_columns_by_name_in_any_order_with_others_kept():
    """Columns are found by graphrag-eval's names wherever they stand; other columns are kept in the cells."""
    table = read_table("Id\tActual answer\tQuestion\tReference answer\nq7\tA\tQ\tR\n", "in.tsv")
    assert table.rows == [AnswerRow(2, ("q7", "A", "Q", "R"), "Q", "R", "A")]


def test_quoting_as_python_csv_writes_it():
    """Quoted cells hold tabs, CRLF line breaks and doubled quotes; blank lines are skipped, CRLF ends lines."""
    text = (
        "\r\n"
        'Question\tReference answer\t"Actual answer"\r\n'
        '"Q\twith a tab"\t"R ""quoted"""\t"line 1\r\nline 2"\r\n'
        "\r\n"
        "\r\n"
        "Q2\tR2\tA2"  # no line break at the end
    )
    table = read_table(text, "in.tsv")
    assert [(row.line, row.question, row.reference_answer, row.actual_answer) for row in table.rows] == [
        (3, "Q\twith a tab", 'R "quoted"', "line 1\r\nline 2"),
        (7, "Q2", "R2", "A2"),
    ]


def test_a_quote_inside_a_cell_is_text():
    """A quote that does not open a cell is an ordinary character (as csv reads it)."""
    table = read_table(HEADER + 'Who said "hi"?\tShe did.\tHe said "hi".\n', "in.tsv")
    assert table.rows[0].question == 'Who said "hi"?'


def test_a_byte_order_mark_is_dropped(tmp_path):
    """A UTF-8 file saved with a byte-order mark has its first column named 'Question', not '\\ufeffQuestion'."""
    path = tmp_path / "in.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + (HEADER + "Q\tR\tA\n").encode())
    assert load_table(path).rows[0].question == "Q"


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Question\tReference Answer\tActual answer\nQ\tR\tA\n",
            ["in.tsv:1:10: the header has no column 'Reference answer' (did you mean 'Reference Answer'?)"],
        ),
        (
            "Id\tquestion\tReference answer\tActualAnswer\nq\tQ\tR\tA\n",
            [
                "in.tsv:1:4: the header has no column 'Question' (did you mean 'question'?)",
                "in.tsv:1:30: the header has no column 'Actual answer' (did you mean 'ActualAnswer'?)",
            ],
        ),
        # Without a header: the first row is read as one, and said to be none.
        (
            "What is 2+2?\t4\tFour\n",
            [
                "in.tsv:1:1: the header has none of the columns 'Question', 'Reference answer', 'Actual answer' "
                "(the first non-blank line is the header, with tab-separated column names)"
            ],
        ),
        (
            "Question,Reference answer,Actual answer\nQ,R,A\n",
            [
                "in.tsv:1:1: the header has none of the columns 'Question', 'Reference answer', 'Actual answer': "
                "this looks like comma-separated values, and answerkey answers reads tab-separated ones"
            ],
        ),
        (
            "Question\tReference answer\tActual answer\tQuestion\nQ\tR\tA\tQ\n",
            ["in.tsv:1:41: the column 'Question' is given twice in the header (first at column 1)"],
        ),
        # A quoted header has no character columns to point at: the line is given.
        (
            '"Question"\t"Reference answer"\t"Actual"\nQ\tR\tA\n',
            ["in.tsv:1: the header has no column 'Actual answer' (did you mean 'Actual'?)"],
        ),
        (
            "\n\nQuestion\tReference answer\tActual answer\t#Reference\nQ\tR\tA\t2\n",
            [
                "in.tsv:3:41: the header already has the output column '#Reference': is this the output of an "
                "earlier run? Judge the original file, or write only graphrag-eval's columns (--columns graphrag-eval)"
            ],
        ),
    ],
)
def test_header_problems_are_located_with_did_you_mean(text, expected):
    """Each header problem names the column and points at the cell it concerns (FILE:LINE:COL)."""
    with pytest.raises(InputError) as caught:
        read_table(text, "in.tsv")
    assert messages(caught.value) == expected


def test_output_columns_may_be_in_the_input_when_only_graphrag_evals_are_written():
    """With --columns graphrag-eval the input's columns are not copied, so no output column can clash."""
    table = read_table(
        "Question\tReference answer\tActual answer\tError\nQ\tR\tA\t\n", "in.tsv", output_layout="graphrag-eval"
    )
    assert table.rows[0].cells == ("Q", "R", "A", "")


def test_every_bad_row_is_listed_by_its_line():
    """Rows with too few or too many cells, a stray quote: all of them, each at the line where its row starts."""
    text = (
        HEADER
        + "Q1\tR1\n"  # line 2: too few
        + "Q2\tR2\tA2\textra\n"  # line 3: too many
        + '"Q3\nstill Q3"\tR3\n'  # lines 4-5: too few, from its first line
        + '"Paris" is\tR4\tA4\n'  # line 6: a quote that closes before the cell ends
        + "Q5\tR5\tA5\n"  # fine
    )
    with pytest.raises(InputErrors) as caught:
        read_table(text, "in.tsv")
    assert messages(caught.value) == [
        "in.tsv:2: the row has 2 cells but the header has 3 columns",
        "in.tsv:3: the row has 4 cells but the header has 3 columns",
        "in.tsv:4: the row has 2 cells but the header has 3 columns",
        "in.tsv:6: a quoted cell goes on after its closing quote: a cell that starts with a quote must be quoted as "
        'a whole, with its quotes doubled ("Paris" is -> """Paris"" is")',
    ]


def test_a_quote_left_open_is_refused_at_its_row():
    """An unclosed quote would swallow the rest of the file: refused, at the line of its row."""
    with pytest.raises(InputError) as caught:
        read_table(HEADER + 'Q1\tR1\tA1\nQ2\tR2\t"open\nQ3\tR3\tA3\n', "in.tsv")
    assert messages(caught.value) == ["in.tsv:3: a quoted cell is not closed before the end of the file"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "in.tsv: no header and no rows (an empty input is refused)"),
        ("\n\r\n\n", "in.tsv: no header and no rows (an empty input is refused)"),
        (HEADER, "in.tsv: no rows under the header (an empty input is refused)"),
        (HEADER + "\n\n", "in.tsv: no rows under the header (an empty input is refused)"),
    ],
)
def test_an_empty_input_is_refused(text, message):
    """No rows to judge is an error, as for every input of answerkey."""
    with pytest.raises(InputError) as caught:
        read_table(text, "in.tsv")
    assert messages(caught.value) == [message]


def test_a_long_cell_is_read_whole():
    """A cell longer than csv's default field limit (131,072 characters) is read: the file's size bounds it."""
    answer = "x" * 300_000
    assert read_table(HEADER + f"Q\tR\t{answer}\n", "in.tsv").rows[0].actual_answer == answer


def test_invalid_utf8_is_located(tmp_path):
    """Bytes that are not UTF-8: refused at their line and column."""
    path = tmp_path / "in.tsv"
    path.write_bytes(HEADER.encode() + b"Q\tR\tcaf\xe9\n")
    with pytest.raises(InputError) as caught:
        load_table(path)
    assert str(caught.value) == f"{path}:2:8: not valid UTF-8 (byte 0xe9)"


def test_an_unknown_layout_is_refused():
    """The layout names the output's columns: an unknown one is a programming error, said at once."""
    with pytest.raises(ValueError, match="unknown column layout 'some'; known: all, graphrag-eval"):
        read_table(HEADER + "Q\tR\tA\n", "in.tsv", output_layout="some")
