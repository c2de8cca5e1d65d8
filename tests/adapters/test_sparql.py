"""SPARQL results JSON ⇄ the typed model (answerkey.adapters.sparql)."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from answerkey import judge
from answerkey.adapters.sparql import (
    XSD,
    _rdf_term_text,
    read_sparql_results,
    relation_from_sparql_results,
    sparql_results_from_relation,
    term_value,
)
from answerkey.errors import InputError
from answerkey.model import NIL, Boolean, Date, DateTime, Number, Relation, String, Time
from answerkey.testing.strategies import relations


def lit(value, datatype=None):
    term = {"type": "literal", "value": value}
    if datatype:
        term["datatype"] = XSD + datatype
    return term


def select(variables, rows):
    return {
        "head": {"vars": variables},
        "results": {
            "bindings": [{name: term for name, term in zip(variables, row) if term is not None} for row in rows]
        },
    }


# Term typing table: module docstring of answerkey.adapters.sparql (issue #6, "Values are typed").
TERMS = [
    (lit("42", "integer"), Number(42, False, "42")),
    (lit(" 042 ", "int"), Number(42, False, "042")),
    (lit("-7", "long"), Number(-7, False, "-7")),
    (lit("3", "nonNegativeInteger"), Number(3, False, "3")),
    (lit("2.50", "decimal"), Number(Decimal("2.50"), True, "2.50")),
    (lit("35", "decimal"), Number(Decimal("35"), True, "35.")),
    (lit("1.0E3", "double"), Number(Decimal("1000"), True, "1.0E3")),
    (lit("0.00976", "float"), Number(Decimal("0.00976"), True, "0.00976")),
    (lit("true", "boolean"), Boolean(True)),
    (lit("0", "boolean"), Boolean(False)),
    (lit("2024-02-29", "date"), Date(dt.date(2024, 2, 29))),
    (lit("2024-01-01T12:00:00+01:00", "dateTime"), DateTime.parse("2024-01-01T11:00:00Z")),
    (lit("2024-01-01T12:00:00", "dateTime"), DateTime.parse("2024-01-01T12:00:00")),
    (lit(" 2024-01-01T12:00:00.250Z ", "dateTime"), DateTime.parse("2024-01-01T12:00:00.25Z")),
    (lit("2024-12-31T24:00:00-05:00", "dateTime"), DateTime.parse("2025-01-01T00:00:00-05:00")),  # XSD's end of day
    (lit("2024-12-31T24:00:00.000", "dateTime"), DateTime.parse("2025-01-01T00:00:00")),
    (lit("10:30:00+02:00", "time"), Time.parse("08:30:00Z")),
    (lit("10:30:00.5", "time"), Time.parse("10:30:00.5")),
    (lit("24:00:00Z", "time"), Time.parse("00:00:00Z")),
    (lit("OSLO T1"), String("OSLO T1")),
    ({"type": "literal", "value": "chat", "xml:lang": "fr"}, String("chat")),
    ({"type": "typed-literal", "value": "5", "datatype": XSD + "integer"}, Number(5, False, "5")),
    (lit("P1D", "duration"), String("P1D")),
    # Ill-typed literals keep their text.
    (lit("abc", "integer"), String("abc")),
    (lit("NaN", "double"), String("NaN")),
    (lit("1_000", "decimal"), String("1_000")),
    (lit("2024-02-30", "date"), String("2024-02-30")),
    (lit("yes", "boolean"), String("yes")),
    (lit("9" * 5000, "integer"), String("9" * 5000)),
    (lit("0001-01-01T00:00:00+01:00", "dateTime"), DateTime.parse("0001-01-01T00:00:00+01:00")),
    (lit("2024-01-01T12:00", "dateTime"), String("2024-01-01T12:00")),  # no seconds: not XSD
    (lit("2024-01-01T24:00:01", "dateTime"), String("2024-01-01T24:00:01")),
    (lit("9999-12-31T24:00:00", "dateTime"), String("9999-12-31T24:00:00")),  # beyond the year 9999
    (lit("2024-01-01T12:00:00.1234567891Z", "dateTime"), String("2024-01-01T12:00:00.1234567891Z")),
    (lit("-0044-03-15T12:00:00", "dateTime"), String("-0044-03-15T12:00:00")),
    (lit("10:30", "time"), String("10:30")),
    (lit("10:30:00+14:60", "time"), String("10:30:00+14:60")),
    # URIs and blank nodes can never equal a literal.
    ({"type": "uri", "value": "urn:uuid:1"}, String("<urn:uuid:1>")),
    ({"type": "bnode", "value": "b0"}, String("_:b0")),
    (lit("<urn:uuid:1>"), String("\\<urn:uuid:1>")),
    (lit("_:b0"), String("\\_:b0")),
    (lit("\\<x>"), String("\\\\<x>")),
    (lit("a <b> c"), String("a <b> c")),
]


@pytest.mark.parametrize("term, expected", TERMS, ids=[json.dumps(t) for t, _ in TERMS])
def test_term_typing(term, expected):
    """Each kind of RDF term becomes the documented typed value."""
    assert term_value(term) == expected


def test_date_times_compare_as_instants_and_write_back_with_their_offsets():
    """xsd:dateTime at two offsets is one instant; naive is another value; both write back as read."""
    noon_paris = term_value(lit("2024-07-01T12:00:00+02:00", "dateTime"))
    assert noon_paris == term_value(lit("2024-07-01T10:00:00Z", "dateTime"))
    assert noon_paris != term_value(lit("2024-07-01T10:00:00", "dateTime"))
    relation = Relation([[noon_paris, Time.parse("10:30:00.5-05:00")]])
    terms = sparql_results_from_relation(relation, ["at", "clock"])["results"]["bindings"][0]
    assert terms == {
        "at": {"type": "literal", "value": "2024-07-01T12:00:00+02:00", "datatype": XSD + "dateTime"},
        "clock": {"type": "literal", "value": "10:30:00.5-05:00", "datatype": XSD + "time"},
    }
    assert judge(relation, relation_from_sparql_results(sparql_results_from_relation(relation))).correct


def test_typed_values_compare_by_value():
    """xsd:long 8 equals xsd:integer 8; typed decimals "35" and "35.0" are equal numbers."""
    assert term_value(lit("8", "long")) == term_value(lit("8", "integer"))
    assert term_value(lit("35", "decimal")) == term_value(lit("35.0", "decimal"))
    assert term_value(lit("8", "integer")) != term_value(lit("8"))


def test_select_result_to_relation_with_unbound_and_projection():
    """Bindings become tuples in head order; unbound variables become NIL; variables project."""
    results = select(
        ["s", "n"], [[{"type": "uri", "value": "u:1"}, lit("1", "integer")], [{"type": "uri", "value": "u:2"}, None]]
    )
    relation = relation_from_sparql_results(json.dumps(results))
    assert relation.rows == ((String("<u:1>"), Number(1, False, "1")), (String("<u:2>"), NIL))
    projected = relation_from_sparql_results(results, ["n"], ordered=True)
    assert projected.rows == ((Number(1, False, "1"),), (NIL,)) and projected.ordered


def test_head_without_vars_uses_bound_variables_in_first_seen_order():
    """Without head.vars the variables are those bound anywhere, first seen first."""
    results = {"head": {}, "results": {"bindings": [{"b": lit("1")}, {"a": lit("2"), "b": lit("3")}]}}
    parsed = read_sparql_results(results)
    assert parsed.variables == ("b", "a")
    assert parsed.rows == [(String("1"), NIL), (String("3"), String("2"))]


def test_mixed_column_is_kept_as_rdf_terms():
    """A column mixing numbers and URIs is compared as N-Triples-like term text."""
    results = select(["x"], [[lit("35", "integer")], [{"type": "uri", "value": "u:1"}], [lit("35")]])
    relation = relation_from_sparql_results(results)
    assert [row[0] for row in relation.rows] == [
        String(f'"35"^^<{XSD}integer>'),
        String("<u:1>"),
        String("35"),
    ]


# Literals whose value is a JSON number or boolean (graphrag-eval 4.0's tests write them).
NON_TEXT_TERMS = [
    (lit(100), Number(100, False, "100")),
    (lit(-7), Number(-7, False, "-7")),
    (lit(40.5), Number(Decimal("40.5"), True, "40.5")),
    (lit(1e-7), Number(Decimal("1E-7"), True, "1e-07")),
    (lit(True), Boolean(True)),
    (lit(False), Boolean(False)),
    (lit(35, "decimal"), Number(Decimal("35"), True, "35.")),
    (lit(True, "integer"), String("true")),
    ({"type": "typed-literal", "value": 5, "datatype": XSD + "long"}, Number(5, False, "5")),
]


@pytest.mark.parametrize("term, expected", NON_TEXT_TERMS, ids=[json.dumps(t) for t, _ in NON_TEXT_TERMS])
def test_literal_values_that_are_json_numbers_or_booleans(term, expected):
    """A literal whose value is a JSON number or boolean reads as the typed value it spells (a
    datatype given with it applies to its text)."""
    assert term_value(term) == expected


def test_json_number_values_keep_their_digits_and_are_counted():
    """Numbers in JSON text keep every digit (no float rounding); the result counts the
    values that were not text and names the first."""
    text = (
        '{"head": {"vars": ["w", "n"]}, "results": {"bindings": ['
        '{"w": {"type": "literal", "value": 0.1000000000000000055511151231257827}, "n": {"type": "literal", "value": "a"}},'
        '{"w": {"type": "literal", "value": 2}, "n": {"type": "literal", "value": false}}]}}'
    )
    results = read_sparql_results(text)
    assert results.rows[0][0] == Number(
        Decimal("0.1000000000000000055511151231257827"), True, "0.1000000000000000055511151231257827"
    )
    assert (results.non_text_values, results.first_non_text_value) == (
        3,
        "binding 1, variable 'w': 0.1000000000000000055511151231257827",
    )
    assert results.note == (
        "3 term values are JSON numbers or booleans, not text (the first: binding 1, variable 'w': "
        "0.1000000000000000055511151231257827); read as typed values"
    )
    # The column n mixes text and a boolean: it is compared as term text, the boolean as its text.
    assert [row[1] for row in results.rows] == [String("a"), String(f'"false"^^<{XSD}boolean>')]
    assert read_sparql_results(select(["w"], [[lit("1", "integer")]])).note is None


@pytest.mark.parametrize(
    "term, message",
    [
        ({"type": "literal", "value": float("inf")}, 'a term\'s "value" must be text or a finite number, not infinity'),
        ({"type": "literal", "value": float("nan")}, 'a term\'s "value" must be text or a finite number, not NaN'),
        ({"type": "uri", "value": 5}, 'a term\'s "value" must be a string, not a number'),
        ({"type": "bnode", "value": True}, 'a term\'s "value" must be a string, not a boolean'),
        ({"type": "literal", "value": [1]}, 'a term\'s "value" must be a string, not an array'),
    ],
)
def test_other_non_text_values_are_refused(term, message):
    """A non-finite number, a URI or blank node whose value is not text, or a list: refused,
    located at its binding."""
    with pytest.raises(InputError) as raised:
        read_sparql_results({"head": {"vars": ["a"]}, "results": {"bindings": [{"a": term}]}})
    assert raised.value.message == f"binding 1, variable 'a': {message}"


def test_json_text_with_infinite_number_value_is_refused():
    """JSON text may spell Infinity; as a term value it is refused like any non-finite number."""
    with pytest.raises(InputError, match="must be text or a finite number, not -infinity"):
        read_sparql_results(
            '{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "literal", "value": -Infinity}}]}}'
        )


@pytest.mark.parametrize("value", [True, False])
def test_ask_result_is_a_bool(value):
    """An ASK result reads as its boolean and writes back as one."""
    assert relation_from_sparql_results(json.dumps({"head": {}, "boolean": value})) is value
    assert sparql_results_from_relation(value) == {"head": {}, "boolean": value}


def test_empty_result():
    """No bindings: an empty relation, whatever the variables."""
    relation = relation_from_sparql_results(select(["a", "b"], []))
    assert relation == Relation(()) and len(relation) == 0


BAD = [
    (
        "@prefix cim: <x> .\n<a> <b> <c> .",
        "1:1: not SPARQL results JSON (a DESCRIBE or CONSTRUCT result?): Expecting value",
    ),
    ('{"head": {"vars": ["a"]}', "1:25: not SPARQL results JSON: Expecting ',' delimiter"),
    ("[1, 2]", "SPARQL results JSON must be an object, not an array"),
    ('{"head": {}}', 'SPARQL results JSON needs "results": {"bindings": [...]} or "boolean"'),
    ('{"boolean": "yes"}', '"boolean" must be true or false, not a string'),
    ('{"head": {"vars": ["a", "a"]}, "results": {"bindings": []}}', '"head"."vars" names a variable twice'),
    ('{"head": {"vars": "a"}, "results": {"bindings": []}}', '"head"."vars" must be a list of variable names'),
    ('{"head": {"vars": ["a"]}, "results": {"bindings": [3]}}', "binding 1 must be an object, not a number"),
    (
        '{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "iri", "value": "x"}}]}}',
        "binding 1, variable 'a': unknown term type 'iri' (expected uri, literal, typed-literal or bnode)",
    ),
    (
        '{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "uri", "value": 5}}]}}',
        "binding 1, variable 'a': a term's \"value\" must be a string, not a number",
    ),
    (
        '{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": "x"}]}}',
        "binding 1, variable 'a': a term must be an object, not a string",
    ),
    (
        '{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": ["uri"], "value": "x"}}]}}',
        "binding 1, variable 'a': a term's \"type\" must be a string, not an array",
    ),
]


@pytest.mark.parametrize("text, message", BAD)
def test_bad_input_raises_located_input_error(text, message):
    """Anything but SPARQL results JSON is an InputError with a clear message."""
    with pytest.raises(InputError) as raised:
        relation_from_sparql_results(text, source="out.json")
    separator = "" if message[0].isdigit() else " "
    assert str(raised.value) == f"out.json:{separator}{message}"


def test_missing_variable_is_named():
    """Projecting on a variable the result lacks names it."""
    with pytest.raises(InputError, match="no variable z in the SPARQL results"):
        relation_from_sparql_results(select(["a"], []), ["a", "z"])


def test_writer_types_and_names():
    """The writer gives typed literals, URIs, blank nodes, and leaves NIL unbound."""
    relation = Relation(
        [
            (
                Number(1, False, "1"),
                Number(Decimal("2.5"), True, "2.5"),
                Boolean(True),
                Date(dt.date(2020, 1, 2)),
                String("<urn:x>"),
                String("_:b1"),
                String("\\<lit>"),
                NIL,
            ),
        ]
    )
    names = ["i", "r", "b", "d", "u", "n", "l", "nil"]
    written = sparql_results_from_relation(relation, names)
    assert written["head"] == {"vars": names}
    assert written["results"]["bindings"] == [
        {
            "i": lit("1", "integer"),
            "r": lit("2.5", "decimal"),
            "b": lit("true", "boolean"),
            "d": lit("2020-01-02", "date"),
            "u": {"type": "uri", "value": "urn:x"},
            "n": {"type": "bnode", "value": "b1"},
            "l": lit("<lit>"),
        }
    ]
    assert relation_from_sparql_results(written, names) == relation


def test_writer_rejects_wrong_names():
    """Variable names must match the arity and be distinct."""
    relation = Relation.from_rows([[1, 2]])
    with pytest.raises(ValueError, match="1 variable names for a relation of arity 2"):
        sparql_results_from_relation(relation, ["a"])
    with pytest.raises(ValueError, match="distinct"):
        sparql_results_from_relation(relation, ["a", "a"])
    assert sparql_results_from_relation(relation)["head"]["vars"] == ["x1", "x2"]


@given(relations(max_rows=6))
def test_round_trip(relation):
    """Writing a relation and reading it back gives an equal relation (every string included)."""
    written = json.dumps(sparql_results_from_relation(relation))
    back = relation_from_sparql_results(written, ordered=relation.ordered)
    assert back == relation
    assert judge(relation, back).correct


@given(relations(max_rows=6, types=("string",), nil=False))
def test_uris_never_equal_literals(relation):
    """Reading each string once as a URI and once as a literal never gives equal values."""
    for row in relation.rows:
        for value in row:
            assert term_value({"type": "uri", "value": value.text}) != term_value(lit(value.text))
            assert term_value({"type": "bnode", "value": value.text}) != term_value(lit(value.text))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["head", "vars", "results", "bindings", "boolean", "type", "value", "datatype", "x"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)
term_shapes = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["uri", "literal", "bnode", "typed-literal", "x"]),
        "value": st.text(max_size=8) | st.integers(),
    },
    optional={
        "datatype": st.sampled_from(
            [XSD + "integer", XSD + "decimal", XSD + "date", XSD + "boolean", XSD + "dateTime", XSD + "time", "urn:x"]
        )
    },
)


@given(json_values)
def test_any_json_is_read_or_rejected_cleanly(document):
    """Whatever JSON arrives, the reader returns a result or raises InputError, nothing else."""
    try:
        relation_from_sparql_results(json.dumps(document))
    except InputError:
        pass


@given(st.lists(st.dictionaries(st.sampled_from(["a", "b"]), term_shapes | json_values, max_size=2), max_size=4))
def test_any_bindings_are_read_or_rejected_cleanly(bindings):
    """Malformed or unusual terms give an InputError naming the binding, or the relation of
    a row per binding that reading each term alone gives (term_by_term, below)."""
    try:
        relation = relation_from_sparql_results({"head": {"vars": ["a", "b"]}, "results": {"bindings": bindings}})
    except InputError as error:
        assert error.message.startswith("binding ")
    else:
        assert (len(relation), relation.arity) == (len(bindings), 2 if bindings else 0)  # no rows: no columns
        expected = term_by_term(bindings, ["a", "b"])
        assert relation.rows == tuple(expected)
        assert [list(map(type, row)) for row in relation.rows] == [list(map(type, row)) for row in expected]


TEXTS = [
    "7",
    "+7",
    " 7 ",
    "-0",
    "1" * 4500,
    "2.50",
    " 2.5",
    "5.x",
    "1e3",
    ".5",
    "5.",
    "x",
    "",
    "2021-02-29",
    "2021-02-28",
    "2021-02-28T10:00:00+01:00",
    "2021-02-28T24:00:00",
    "10:00:00.5Z",
    "24:00:00",
    "true",
    "0",
    "<a>",
    "_:b",
    "\\<a>",
    "\u0661",
]
DATATYPES = [
    XSD + "integer",
    XSD + "int",
    XSD + "decimal",
    XSD + "double",
    XSD + "date",
    XSD + "boolean",
    XSD + "dateTime",
    XSD + "time",
    "urn:x",
    "",
]
well_formed_terms = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["uri", "literal", "typed-literal", "bnode"]),
        "value": st.sampled_from(TEXTS) | st.text(max_size=4),
    },
    optional={"datatype": st.sampled_from(DATATYPES)},
)


# The datatype a literal's JSON number or boolean value implies (module docstring).
IMPLIED_DATATYPES = {bool: XSD + "boolean", int: XSD + "integer", float: XSD + "double"}


def as_text(term):
    """A literal whose value is a JSON number or boolean, as the literal of its text (with
    the datatype that value implies unless it has one); any other term as it is."""
    value = term.get("value") if isinstance(term, dict) else None
    if type(value) not in IMPLIED_DATATYPES or term.get("type") not in ("literal", "typed-literal"):
        return term
    text = ("true" if value else "false") if isinstance(value, bool) else repr(value)
    return {**term, "value": text, "datatype": term.get("datatype") or IMPLIED_DATATYPES[type(value)]}


def term_by_term(bindings, variables):
    """The reading the module docstring describes, one term at a time: the oracle."""
    columns = []
    for name in variables:
        terms = [None if binding.get(name) is None else as_text(binding[name]) for binding in bindings]
        column = [NIL if term is None else term_value(term) for term in terms]
        if len({type(value) for value in column if value is not NIL}) > 1:
            column = [NIL if term is None else _rdf_term_text(term) for term in terms]
        columns.append(column)
    return list(zip(*columns))


@given(st.lists(st.dictionaries(st.sampled_from(["a", "b"]), well_formed_terms, max_size=2), max_size=6), st.booleans())
def test_columns_read_at_once_equal_term_by_term_reading(bindings, same_shape):
    """Whole columns are typed with C-level maps when their terms share a kind and datatype;
    the result is the one reading each term alone gives, whatever the mix."""
    if same_shape and bindings:  # make whole columns uniform, which takes the fast path
        first = {name: term for binding in bindings for name, term in binding.items()}
        bindings = [
            {name: {**term, "value": binding.get(name, term)["value"]} for name, term in first.items()}
            for binding in bindings
        ]
    results = read_sparql_results({"head": {"vars": ["a", "b"]}, "results": {"bindings": bindings}})
    expected = term_by_term(bindings, ["a", "b"])
    assert results.rows == expected
    assert [[type(value) for value in row] for row in results.rows] == [
        [type(value) for value in row] for row in expected
    ]


@pytest.mark.parametrize("datatype", DATATYPES)
def test_uniform_columns_of_every_datatype_equal_term_by_term_reading(datatype):
    for text in TEXTS:
        bindings = [{"a": {"type": "literal", "value": text, "datatype": datatype}}] * 2
        assert read_sparql_results({"head": {"vars": ["a"]}, "results": {"bindings": bindings}}).rows == term_by_term(
            bindings, ["a"]
        ), text


def test_uniform_integer_column_beyond_the_digit_limit_stays_text():
    big = "9" * 5000
    rows = relation_from_sparql_results(
        {
            "head": {"vars": ["n"]},
            "results": {
                "bindings": [
                    {"n": {"type": "literal", "value": big, "datatype": XSD + "integer"}},
                    {"n": {"type": "literal", "value": "5", "datatype": XSD + "integer"}},
                ]
            },
        }
    ).rows
    assert rows == ((String(f'"{big}"^^<{XSD}integer>'),), (String(f'"5"^^<{XSD}integer>'),))


def test_writer_keeps_huge_exponents_short():
    """A real like 1e999999 is written with its exponent (xsd:double), not a million digits."""
    relation = Relation([[Number.parse("1e999999")], [Number.parse("-0.000001")]])
    bindings = sparql_results_from_relation(relation)["results"]["bindings"]
    assert bindings == [{"x1": lit("1E+999999", "double")}, {"x1": lit("-0.000001", "decimal")}]
    assert relation_from_sparql_results(sparql_results_from_relation(relation)) == relation
