"""Reading reference corpora, responses and results files (answerkey.steps.load): every problem
at FILE:LINE:COL in answerkey's words, empty and wrong-kind files refused, hostile values located."""

import json

import pytest

from answerkey.errors import InputError
from answerkey.signature import Signature
from answerkey.steps.load import document_kind, read_reference, read_responses, read_results

REFERENCE = (
    "- template_id: t\n"
    "  questions:\n"
    "  - id: q1\n"
    "    question_text: Q\n"
    "    reference_steps: [[{name: calc, output: '1'}]]\n"
)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(tmp_path, read, name, text):
    """What reading ``text`` as ``name`` raises, one line per problem, without the folder."""
    with pytest.raises(InputError) as raised:
        read(write(tmp_path, name, text))
    return str(raised.value).replace(f"{tmp_path}/", "")


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "reference.yaml",
            REFERENCE.replace(
                "[[{name: calc, output: '1'}]]",
                "\n    - - name: sparql_query\n"
                "        output: '{\"head\": {}}'\n"
                "        output_media_type: application/sparql-results+json",
            ),
            "reference.yaml:6:9: questions.0.reference_steps.0.0: output: SPARQL results JSON needs "
            '"results": {"bindings": [...]} or "boolean"',
        ),
        (
            "reference.yaml",
            REFERENCE + "  - id: q1\n    question_text: R\n",
            "reference.yaml:6:9: question id 'q1' appears twice (first at line 3)",
        ),
        (
            "reference.yaml",
            "template_id: t\n",
            "reference.yaml:1:1: a reference corpus is a list of templates (each with template_id and questions), "
            "not a mapping",
        ),
        ("reference.yaml", "", "reference.yaml: the reference corpus has no templates (an empty input is refused)"),
        ("reference.json", "[]", "reference.json: the reference corpus has no templates (an empty input is refused)"),
        (
            "reference.yaml",
            "- template_id: t\n  questions: []\n",
            "reference.yaml: the reference corpus has no questions (an empty input is refused)",
        ),
        (
            "reference.yaml",
            "- just text\n",
            "reference.yaml:1:3: a template is a mapping with template_id and questions, not a string",
        ),
        (
            "reference.yaml",
            REFERENCE.replace("id: q1", "id: 1.5"),
            "reference.yaml:3:9: questions.0.id: an id is a string or an integer, not a number with a fraction",
        ),
        (
            "reference.yaml",
            REFERENCE.replace("output_: '1'", "").replace("output: '1'", "outptu: '1'"),
            "reference.yaml:5:24: questions.0.reference_steps.0.0.output: missing; this field is required "
            "(the record has 'outptu': did you mean 'output'?)",
        ),
        (
            "reference.jsonl",
            '{"question_id": "q1"}\n',
            "reference.jsonl:1:1: this is an agent's responses, not a reference corpus (templates with questions)",
        ),
        (
            "reference.yaml",
            REFERENCE + "- template_id: u\n  questions:\n  - {id: q2}\n  - {id: q1, question_text: 5}\n",
            "reference.yaml:8:5: questions.0.question_text: missing; this field is required\n"
            "reference.yaml:9:10: question id 'q1' appears twice (first at line 3)\n"
            "reference.yaml:9:29: questions.1.question_text: should be a string, not an integer",
        ),
    ],
)
def test_bad_reference(tmp_path, name, text, message):
    """A bad reference corpus names every problem at its place (several: all of them, in file order)."""
    assert problems(tmp_path, read_reference, name, text) == message


def test_reference_is_read(tmp_path):
    """A good corpus gives the models and the templates as written (a YAML integer id is its text)."""
    reference = read_reference(write(tmp_path, "reference.yaml", REFERENCE.replace("id: q1", "id: 12")))
    assert reference.corpus.question_ids() == ["12"]
    assert reference.templates == [
        {
            "template_id": "t",
            "questions": [{"id": 12, "question_text": "Q", "reference_steps": [[{"name": "calc", "output": "1"}]]}],
        }
    ]


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "responses.jsonl",
            '{"question_id": "q1"}\n{"question_id": 5, "steps": 3}\n',
            "responses.jsonl:2:20: steps: should be a list, not an integer",
        ),
        (
            "responses.jsonl",
            '{"question_id": "q1"}\n{"question_id": "q1"}\n',
            "responses.jsonl:2:2: a second response to question 'q1' (first at responses.jsonl:1)",
        ),
        (
            "responses.json",
            '{"q1": {"question_id": "q2"}}',
            "responses.json:1:9: keyed by 'q1' but its question_id is 'q2'",
        ),
        (
            "responses.json",
            '{"q1": {"question_id": "q1"},\n  "q2": }',
            "responses.json:2:9: invalid JSON: Expecting value",
        ),
        ("responses.json", "", "responses.json: no responses in this file (an empty input is refused)"),
        ("responses.json", " {} ", "responses.json: no responses in this file (an empty input is refused)"),
        ("responses.jsonl", "\n\n", "responses.jsonl: no responses in this file (an empty input is refused)"),
        (
            "responses.json",
            "7",
            "responses.json:1:1: responses are an object keyed by question id, a list of "
            "responses or JSON Lines, not an integer",
        ),
        (
            "responses.yaml",
            REFERENCE,
            "responses.yaml:1:1: this is a reference corpus (templates with questions), not an agent's responses",
        ),
        (
            "responses.json",
            '[{"question_id": "q1"}, "q2"]',
            "responses.json:1:25: a response is a mapping with question_id, not a string",
        ),
        (
            "responses.json",
            '[{"question_id": "q1", "actual_steps": [{"name": "x"}]}]',
            "responses.json:1:41: actual_steps.0.status: missing; this field is required",
        ),
        (
            "responses.yaml",
            "- question_id: q1\n  elapsed_sec: .nan\n",
            "responses.yaml:2:16: .nan is not a finite number",
        ),
        (
            "responses.jsonl",
            '{"question_id": "q1"}\n{"question_id": \n{"question_id": true}\n',
            "responses.jsonl:2:17: invalid JSON: Expecting value\n"
            "responses.jsonl:3:2: question_id: an id is a string or an integer, not a boolean",
        ),
    ],
)
def test_bad_responses(tmp_path, name, text, message):
    """A bad responses file names every problem at its place, in answerkey's words."""
    assert problems(tmp_path, read_responses, name, text) == message


@pytest.mark.parametrize(
    "name, text",
    [
        ("responses.json", '{"q1": {"question_id": "q1", "steps": []}, "q2": {"question_id": "q2"}}'),
        ("responses.json", '[{"question_id": "q1", "steps": []}, {"question_id": "q2"}]'),
        ("responses.jsonl", '{"question_id": "q1", "steps": []}\n\n{"question_id": "q2"}\n'),
        ("responses.yaml", "q1: {question_id: q1, steps: []}\nq2:\n  question_id: q2\n"),
        ("responses", '{"q1": {"question_id": "q1", "steps": []}, "q2": {"question_id": "q2"}}\n'),
    ],
)
def test_responses_shapes(tmp_path, name, text):
    """Keyed by id, a list, JSON Lines or YAML (a one-line keyed object, sniffed as JSON Lines, too):
    the same responses, each with its line."""
    responses = read_responses(write(tmp_path, name, text))
    assert list(responses.by_id) == ["q1", "q2"]
    assert responses.by_id["q1"][0].actual_steps == []
    assert responses.origin("q1") == f"{tmp_path}/{name}:1"


def test_single_response_object(tmp_path):
    """A JSON file holding one response is one response."""
    responses = read_responses(write(tmp_path, "one.json", '{"question_id": "q1", "status": "error"}'))
    assert list(responses.by_id) == ["q1"] and responses.by_id["q1"][0].is_error


def test_response_nesting_leaves_room_for_the_results(tmp_path):
    """A response may nest 98 levels, so that its results (2 levels deeper) can be read again."""

    def response(levels):
        return json.dumps({"question_id": "q1", "extra": json.loads("[" * (levels - 1) + "]" * (levels - 1))})

    assert read_responses(write(tmp_path, "ok.jsonl", response(98) + "\n")).by_id
    assert problems(tmp_path, read_responses, "deep.jsonl", response(99) + "\n") == (
        "deep.jsonl:1:1: a response may nest at most 98 levels: the results hold it 2 levels deeper, "
        "and a file may nest at most 100"
    )


ENVELOPE = {
    "signature": "eps:0.001|answers:off|v:0.1.0",
    "summary": {"questions": 1, "success": 1, "error": 0, "mean_steps_score": 1.0},
    "results": [{"template_id": "t", "question_id": "q1", "status": "success", "steps_score": 1.0}],
    "warnings": [],
}


def test_results_envelope_and_bare_lists(tmp_path):
    """steps evaluate's report carries its signature; a bare list (graphrag-eval's) has none;
    an old answerkey YAML list has it in its first comment."""
    loaded = read_results(write(tmp_path, "r.json", json.dumps(ENVELOPE, indent=1)))
    assert loaded.signature == Signature.parse("eps:0.001|answers:off|v:0.1.0")
    assert loaded.results == ENVELOPE["results"]
    assert loaded.origin(0) == f"{tmp_path}/r.json:10"
    bare = read_results(write(tmp_path, "r.jsonl", json.dumps(ENVELOPE["results"][0]) + "\n"))
    assert (bare.results, bare.signature) == (ENVELOPE["results"], None)
    old = read_results(
        write(
            tmp_path,
            "r.yaml",
            "# answerkey steps evaluate | eps:0.0001|scalars:atis|"
            "strings:exact|answers:off|v:0.1.0\n- {template_id: t, steps_score: 0}\n",
        )
    )
    assert old.signature.fields["epsilon"] == "0.0001"


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "r.yaml",
            "- {template_id: t, question_id: q, actual_steps: 5}\n",
            "r.yaml:1:50: actual_steps: should be a list, not an integer",
        ),
        (
            "r.yaml",
            "- {template_id: t, question_id: q1, steps_score: 1.5}\n"
            "- {template_id: t, question_id: q2, steps_score: -0.5}\n",
            "r.yaml:1:50: steps_score: should be a number from 0 to 1, not 1.5\n"
            "r.yaml:2:50: steps_score: should be a number from 0 to 1, not -0.5",
        ),
        (
            "r.yaml",
            "- {template_id: t, question_id: q1, steps_score: 1.0}\n- {template_id: t, question_id: q2, steps_score: -.inf}\n",
            "r.yaml:2:50: -.inf is not a finite number",
        ),
        ("r.json", '[{"template_id": "t", "steps_score": Infinity}]', "r.json:1:38: Infinity is not a JSON number"),
        ("r.json", '[{"template_id": "t", "steps_score": -Infinity}]', "r.json:1:38: -Infinity is not a JSON number"),
        (
            "r.json",
            '[{"template_id": "t", "input_tokens": ' + "9" * 4301 + "}]",
            "r.json:1:39: an integer of 4,301 digits (more than 4,300)",
        ),
        (
            "r.json",
            '[{"template_id": "t"}, 3]',
            "r.json:1:24: a per-question result is a mapping with template_id, not an integer",
        ),
        ("r.yaml", "- a: 1\n", "r.yaml:1:3: template_id: missing; this field is required"),
        (
            "r.yaml",
            "a: 1\n",
            "r.yaml:1:1: evaluation results are the report of `answerkey steps evaluate` "
            '(with "results") or a list of per-question results, not a mapping without "results"',
        ),
        ("r.json", "7", "r.json:1:1: evaluation results are a list of per-question results, not an integer"),
        ("r.jsonl", '{"template_id": "t"}\n{"template_id": \n', "r.jsonl:2:17: invalid JSON: Expecting value"),
        (
            "r.yaml",
            REFERENCE,
            "r.yaml:1:1: this is a reference corpus (templates with questions), not evaluation "
            "results (the report of steps evaluate): run `answerkey steps evaluate REFERENCE RESPONSES` first, and "
            "aggregate the results it writes",
        ),
        (
            "r.json",
            '{"per_template": {}, "micro": {}, "macro": {}, "signature": "x", "warnings": []}',
            "r.json:1:1: this is an aggregates report (the report of steps aggregate), not evaluation results "
            "(the report of steps evaluate)",
        ),
        (
            "r.json",
            '[{"question_id": "q1", "steps": []}]',
            "r.json:1:1: this is an agent's responses, not evaluation results (the report of steps evaluate)",
        ),
        ("r.json", "", "r.json: no results in this file (an empty input is refused)"),
        ("r.json", "[]", "r.json: no results in this file (an empty input is refused)"),
        (
            "r.json",
            json.dumps({**ENVELOPE, "results": []}),
            "r.json: no results in this file (an empty input is refused)",
        ),
        (
            "r.json",
            json.dumps({**ENVELOPE, "signature": "x", "extra": 1}),
            "r.json:1:2: signature: not an answerkey signature (name:value|...|v:VERSION): 'x'\n"
            "r.json:1:213: extra: unknown field",
        ),
    ],
)
def test_bad_results(tmp_path, name, text, message):
    """Results that are not results are located errors (issue 19 item 2; issue 15 defect 5)."""
    assert problems(tmp_path, read_results, name, text) == message


@pytest.mark.parametrize(
    "read, name, text, place",
    [
        (read_responses, "responses.json", '{"q1": {"question_id": "\\ud800"}}', "1:25"),
        (read_responses, "responses.jsonl", '{"question_id": "q1", "actual_answer": "\\udc00"}\n', "1:41"),
        (
            read_responses,
            "responses.yaml",
            '- {question_id: q1, steps: [{name: x, status: success, output: "\\ud800"}]}\n',
            "1:",
        ),
        (read_results, "results.json", '[{"template_id": "t", "question_id": "\\ud800"}]', "1:39"),
        (read_reference, "reference.yaml", REFERENCE.replace("question_text: Q", 'question_text: "\\ud800"'), "4:"),
    ],
)
def test_lone_surrogates_are_refused_at_loading(tmp_path, read, name, text, place):
    """A lone surrogate escape (not a character; it could not be written out) is one located
    error when the file is read (issue 19 item 1)."""
    message = problems(tmp_path, read, name, text)
    assert message.startswith(f"{name}:{place}") and "\n" not in message


def test_document_kinds():
    """Files are recognised by their keys, so a file given in the wrong place is named as what it is."""
    assert document_kind([{"template_id": "t", "questions": []}]) == "reference"
    assert document_kind([{"template_id": "t", "question_id": "q"}]) == "results"
    assert document_kind({"signature": "", "summary": {}, "results": []}) == "results"
    assert document_kind({"per_template": {}, "micro": {}, "macro": {}}) == "aggregates"
    assert document_kind([{"question_id": "q"}]) == "responses"
    assert document_kind({"question_id": "q"}) == "responses"
    assert document_kind([{"template_id": "t"}]) is None
    assert document_kind([]) is None


@pytest.mark.parametrize(
    "read, name, text, message",
    [
        (
            read_responses,
            "responses.yaml",
            "- question_id: q1\n  steps:\n  - {name: calc, status: success, output: .nan}\n",
            "responses.yaml:3:43: .nan is not a finite number",
        ),
        (
            read_reference,
            "reference.yaml",
            REFERENCE + "  extra: -.Inf\n",
            "reference.yaml:6:10: -.Inf is not a finite number",
        ),
        (
            read_results,
            "r.yaml",
            "- {template_id: t, steps_score: .inf, x: [.inf]}\n",
            "r.yaml:1:33: .inf is not a finite number",
        ),
        (
            read_responses,
            "responses.yaml",
            "- {question_id: q1, x: !!float nan}\n",
            "responses.yaml:1:24: nan is not a finite number",
        ),
        (
            read_responses,
            "responses.yaml",
            "- {question_id: q1, data: !!binary aGk=, tags: !!set {a}}\n",
            "responses.yaml:1:27: binary data cannot be written to the reports (JSON); give text instead\n"
            "responses.yaml:1:48: a set cannot be written to the reports (JSON); give text instead",
        ),
    ],
)
def test_yaml_values_the_reports_cannot_hold(tmp_path, read, name, text, message):
    """YAML's NaN, infinities, binary data and sets (copied to the reports, which are JSON too)
    are located errors, not a crash when the report is written."""
    assert problems(tmp_path, read, name, text) == message


def test_yaml_dates_become_text(tmp_path):
    """An unquoted YAML date or time is copied to the results as its ISO text."""
    text = "- question_id: q1\n  day: 2024-01-01\n  steps:\n  - {name: calc, status: success, output: 2024-02-29}\n"
    [(model, raw)] = read_responses(write(tmp_path, "responses.yaml", text)).by_id.values()
    assert raw["day"] == "2024-01-01" and raw["steps"][0]["output"] == "2024-02-29"
    assert model.actual_steps[0].output == "2024-02-29"


def test_any_media_type_loads_in_any_group(tmp_path):
    """output_media_type is any text: text/uri and text/plain steps load, in an earlier group
    and in the last one (graphrag-eval compares them as identical outputs)."""
    reference = read_reference(
        write(
            tmp_path,
            "reference.yaml",
            REFERENCE.replace(
                "[[{name: calc, output: '1'}]]",
                "\n    - - {name: iri_discovery, output: 'urn:x', output_media_type: text/uri}\n"
                "    - - {name: calc, output: '1', output_media_type: text/plain}\n",
            ),
        )
    )
    [question] = reference.corpus.root[0].questions
    assert [group[0].output_media_type for group in question.reference_steps] == ["text/uri", "text/plain"]
    assert reference.origin((0, "questions", 0, "reference_steps", 1, 0)) == f"{tmp_path}/reference.yaml:7"


@pytest.mark.parametrize("key", ["actual_steps", "steps"])
def test_step_origin_is_the_line_of_the_step_output(tmp_path, key):
    """Responses.step_origin places an actual step's output, under either steps key."""
    text = json.dumps({"question_id": "q1", key: [{"name": "a", "status": "success", "output": "1"}] * 2}, indent=1)
    responses = read_responses(write(tmp_path, "one.json", text))
    line = text.splitlines().index('   "output": "1"', 10) + 1
    assert responses.step_origin("q1", 1) == f"{tmp_path}/one.json:{line}"
    assert responses.step_origin("zz", 0) == f"{tmp_path}/one.json"
