"""Strategies for near-miss CAS text that the parser must reject (``answerkey.testing.strategies``)."""

from __future__ import annotations

from hypothesis import strategies as st

from answerkey.grammar.render import render, render_value
from answerkey.model import (
    NIL,
    Relation,
    String,
)
from answerkey.testing._spellings import MONTH_NAMES
from answerkey.testing._values import relations


def _structural_parens(text: str) -> list[int]:
    """Indexes of the parentheses of rendered CAS text that are not inside strings."""
    found, in_string, escaped = [], False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "()":
            found.append(index)
    return found


def _nonempty_relation(min_rows: int = 1, min_cols: int = 1, **options) -> st.SearchStrategy[Relation]:
    return relations(min_rows=min_rows, min_cols=min_cols, max_rows=4, max_cols=3, **options)


def _dropped_paren(draw) -> str:
    text = render(draw(_nonempty_relation()))
    index = draw(st.sampled_from(_structural_parens(text)))
    return text[:index] + text[index + 1 :]


def _extra_paren(draw) -> str:
    text = render(draw(_nonempty_relation()))
    index = draw(st.sampled_from(_structural_parens(text) + [0, len(text)]))
    return text[:index] + draw(st.sampled_from("()")) + text[index:]


def _unterminated_string(draw) -> str:
    prefix = render(draw(_nonempty_relation()))[:-2]
    body = render_value(String(draw(st.text(max_size=5))))[:-1]
    return prefix + " " + body + draw(st.sampled_from(["", '\n")', "\n"]))


def _raw_control_in_string(draw) -> str:
    char = draw(st.sampled_from([chr(c) for c in range(32)] + ["\x7f"]))
    return f'(("ab{char}cd"))'


def _quote_in_word(draw) -> str:
    word = draw(st.sampled_from(['ab"c', 'x"', '12"3"', 'true"']))
    return draw(st.sampled_from([word, f"(({word}))", f"((1 {word}))"]))


def _mixed_arity(draw) -> str:
    relation = draw(_nonempty_relation(min_rows=2))
    rows = [list(row) for row in relation.rows]
    index = draw(st.integers(0, len(rows) - 1))
    if relation.arity > 1 and draw(st.booleans()):
        del rows[index][draw(st.integers(0, relation.arity - 1))]
    else:
        rows[index].append(NIL)
    return "(" + " ".join("(" + " ".join(map(render_value, row)) + ")" for row in rows) + ")"


def _mixed_types(draw) -> str:
    first, second = draw(
        st.sampled_from(
            [
                ("1", '"one"'),
                ('"a"', "2"),
                ("true", "1"),
                ("2020-01-01", '"x"'),
                ("1.5", "false"),
                ("contingent-failure", "3"),
                ("04-JUL-89", "12"),
                ("1989-07-04T10:30:00", "1989-07-04"),
                ("10:30:00", "1989-07-04T10:30:00Z"),
                ('"10:30:00"', '"x"'),
            ]
        )
    )
    return draw(st.sampled_from([f"(({first}) ({second}))", f"((1 {first}) (NIL {second}))"]))


def _bad_date(draw) -> str:
    month = draw(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3))
    if month in MONTH_NAMES:
        month = "Q" + month[1:]  # no month starts with Q: drawn directly, never filtered
    token = draw(
        st.sampled_from(
            [
                f"01-{month}-89",
                f"15-{month.lower()}-1999",
                "31-FEB-2001",
                "00-JAN-99",
                "32-DEC-1980",
                "2001-13-01",
                "2001-02-30",
                "1999-00-10",
                "29-FEB-1900",
            ]
        )
    )
    return draw(st.sampled_from([token, f'"{token}"', f"(({token}))", f'((1 "{token}"))']))


def _bad_date_time(draw) -> str:
    token = draw(
        st.sampled_from(
            [
                "1989-13-04T10:30:00Z",
                "1989-02-30T10:30:00",
                "0000-01-01T00:00:00",
                "1989-07-04T24:00:00",
                "1989-07-04T10:60:00+02:00",
                "1989-07-04T10:30:60Z",
                "1989-07-04T10:30:00+24:00",
                "1989-07-04T10:30:00.1234567891",
                "24:00:01",
                "23:59:60",
                "10:30:00-02:60",
                "10:30:00.0000000001Z",
            ]
        )
    )
    return draw(st.sampled_from([token, f'"{token}"', f"(({token}))", f'((1 "{token}"))']))


def _control_character(draw) -> str:
    text = render(draw(_nonempty_relation()))
    char = draw(st.sampled_from([chr(c) for c in range(9)] + [chr(c) for c in range(14, 32)] + ["\x7f"]))
    index = draw(st.integers(0, len(text)))
    return text[:index] + char + text[index:]


def _misplaced_keyword(draw) -> str:
    return draw(
        st.sampled_from(
            [
                "(1 OR)",
                "(OR 1)",
                "1 OR 2",
                "((1) OR)",
                "(() OR)",
                "((1 OR 2))",
                "((NO_ANSWER))",
                "(NO_ANSWER OR 1)",
                "((ORDERED 1))",
                "(1 ORDERED)",
                "((1) ORDERED)",
                "(ORDERED ORDERED)",
                "ORDERED",
                "OR",
                "(OR)",
                "(1 OR (2 OR 3))",
            ]
        )
    )


def _empty_tuple(draw) -> str:
    return draw(st.sampled_from(["(())", "((1) ())", "(() (1))", "(ORDERED ())"]))


def _bad_sort_key(draw) -> str:
    return draw(
        st.sampled_from(
            [
                "(ORDERED BY)",
                "(ORDERED BY (1 2))",
                "(ORDERED BY 0 (1 2))",
                "(ORDERED BY 3 (1 2))",
                "(ORDERED BY 2 2 (1 2))",
                "(ORDERED BY 1.5 (1))",
                "(ORDERED BY -1 (1))",
                "(ORDERED BY +1 (1))",
                "(ORDERED BY 1e0 (1))",
                "(ORDERED BY x (1))",
                "(ORDERED BY 99999999999 (1))",
                "(ORDERED 1 (1))",
                "(BY 1 (1))",
                "((1 2) BY 1)",
                "(ORDERED BY 1 BY 2 (1 2))",
                "(ORDERED BY 1 (1) 2)",
                "(ORDERED (1) BY 1)",
            ]
        )
    )


def _two_answers(draw) -> str:
    return draw(st.sampled_from(["1 2", "((1)) ((2))", "NO_ANSWER NO_ANSWER", "() ()", "true false", ")("]))


def _nothing(draw) -> str:
    return draw(st.sampled_from(["", " ", "\n\t", "; only a comment", "; comment\n  ; another\n"]))


def _bad_escape(draw) -> str:
    escape = draw(
        st.sampled_from(
            ["\\q", "\\u12", "\\ud800", "\\UFFFFFFFF", "\\u", "\\x41", "\\a", "\\v", "\\udc00", "\\ud83d\\u0041"]
        )
    )
    return draw(st.sampled_from([f'"{escape}"', f'(("a{escape}b"))']))


def _oversized_number(draw) -> str:
    digits = "1" * draw(st.integers(1001, 1100))
    return draw(st.sampled_from([digits, f"(({digits}))", "1e1000001", "((1.5E-9999999))"]))


def _deep_nesting(draw) -> str:
    depth = draw(st.integers(3, 5000))
    return draw(st.sampled_from(["(" * depth, "(" * depth + "1" + ")" * depth, ")" * depth]))


# Each mutation builds a text that is invalid by construction (no check against the parser).
_MUTATIONS = {
    "dropped parenthesis": _dropped_paren,
    "extra parenthesis": _extra_paren,
    "unterminated string": _unterminated_string,
    "control character in a string": _raw_control_in_string,
    "quote inside a word": _quote_in_word,
    "mixed arity": _mixed_arity,
    "mixed column types": _mixed_types,
    "bad date": _bad_date,
    "bad date-time or time": _bad_date_time,
    "control character": _control_character,
    "misplaced keyword": _misplaced_keyword,
    "empty tuple": _empty_tuple,
    "bad sort key": _bad_sort_key,
    "two answers": _two_answers,
    "no answer at all": _nothing,
    "bad escape": _bad_escape,
    "oversized number": _oversized_number,
    "deep nesting": _deep_nesting,
}


@st.composite
def invalid_cas_texts(draw, kinds: tuple[str, ...] | None = None) -> str:
    """Near-miss CAS texts that ``parse`` must reject with a ``ParseError``: dropped or extra
    parentheses, broken strings, mixed arity or types, bad months and days, hours, seconds
    and offsets, control
    characters, misplaced keywords, bad sort keys, bad escapes, oversized numbers, deep nesting.

    ``kinds`` restricts the mutations (names as in ``INVALID_KINDS``).
    """
    name = draw(st.sampled_from(kinds or tuple(_MUTATIONS)))
    return _MUTATIONS[name](draw)


INVALID_KINDS = tuple(_MUTATIONS)
"""The kinds of invalid text ``invalid_cas_texts`` draws (its ``kinds`` argument)."""


_INTERESTING = "()\";\\ \n\t\r\x00\x1c\x7f\u00a0\ufeff0123456789.-+eE:TZabcORNILtrue{}[],'&*!|>-#"


@st.composite
def mutated_texts(draw, texts: st.SearchStrategy[str], alphabet: str = _INTERESTING, max_edits: int = 4) -> str:
    """``texts`` after a few random edits: characters deleted, inserted, duplicated or cut.

    For fuzzing parsers with inputs close to valid ones.
    """
    text = draw(texts)
    for _ in range(draw(st.integers(0, max_edits))):
        edit = draw(st.integers(0, 3))
        index = draw(st.integers(0, len(text)))
        if edit == 0 and text:
            end = draw(st.integers(index, min(len(text), index + 8)))
            text = text[:index] + text[end:]
        elif edit == 1:
            text = text[:index] + draw(st.text(st.sampled_from(alphabet), min_size=1, max_size=3)) + text[index:]
        elif edit == 2:
            end = draw(st.integers(index, min(len(text), index + 12)))
            text = text[:end] + text[index:end] + text[end:]
        else:
            text = text[:index]
    return text
