"""Fuzzing answer formatters and answerkey's own parsers, deterministically for a seed.

Hypothesis draws the examples (``answerkey[fuzz]``); runs never touch a ``.hypothesis/``
example database, and the same seed gives the same examples with the same Hypothesis.

- ``generate_answers(n, seed=, format=)``: random answers as text, for feeding your tools;
- ``roundtrip(argv, ...)``: send relations to a command, judge the CAS it prints, shrink the
  first failure to a minimal relation;
- ``fuzz_parser(name, ...)``: throw valid, near-miss and random text at a parser of
  ``PARSERS`` and report any exception that is not a documented ``InputError``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from answerkey.errors import InputError
from answerkey.model import Answer, Relation

__all__ = [
    "generate_answers",
    "Call",
    "run_command",
    "RoundtripFailure",
    "RoundtripResult",
    "roundtrip",
    "PARSERS",
    "ParserReport",
    "fuzz_parser",
    "DEFAULT_TIMEOUT",
    "DEFAULT_SHRINK_CALLS",
]

DEFAULT_TIMEOUT = 10.0
# Calls of the command allowed for shrinking a failure, on top of the N examples.
DEFAULT_SHRINK_CALLS = 300
# Further calls allowed after Hypothesis's shrinking, to drop whole tuples and columns.
FINISHING_CALLS = 50
# A command printing more than this (on stdout or stderr) is killed; that is a failure.
MAX_OUTPUT_BYTES = 16 * 1024 * 1024


def _run_hypothesis(strategy, test: Callable[[Any], None], *, examples: int, seed: int, shrink: bool = True) -> None:
    """Call ``test`` on up to ``examples`` values drawn from ``strategy``, deterministically
    for ``seed``; on a failure, shrink it and raise the minimal example's exception."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as with_seed

    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]

    @with_seed(seed)
    @settings(
        database=None,  # never write into a .hypothesis/ directory
        max_examples=examples,
        deadline=None,
        derandomize=False,  # the CI profile derandomizes, which would ignore the seed
        phases=phases,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        print_blob=False,
    )
    @given(strategy)
    def run(example):
        test(example)

    run()


# --------------------------------------------------------------------------- generate


def _answer_strategy(format: str):
    from answerkey.testing import strategies

    if format == "cas":
        return strategies.answers()
    return strategies.relations(max_cols=4, max_rows=6)


def generate_answers(n: int, *, seed: int = 0, format: str = "cas") -> list[str]:
    """``n`` random answers written in ``format`` (see ``answerkey.adapters.rows.FORMATS``);
    the same ``seed`` gives the same answers.

    >>> texts = generate_answers(3, seed=1)
    >>> len(texts), texts == generate_answers(3, seed=1)
    (3, True)
    """
    from answerkey.adapters.rows import write_answer

    texts: list[str] = []
    strategy = _answer_strategy(format)

    def collect(answer: Answer) -> None:
        if len(texts) < n:
            texts.append(write_answer(answer, format))

    attempt = 0
    while len(texts) < n:
        before = len(texts)
        _run_hypothesis(strategy, collect, examples=n - len(texts), seed=seed + attempt, shrink=False)
        attempt += 1
        if len(texts) == before:  # Hypothesis found no new example; cannot happen with these strategies
            break
    return texts


# --------------------------------------------------------------------------- one call of a command


@dataclass(frozen=True)
class Call:
    """One run of the command: what it was sent, what it printed, how it ended.

    ``status`` is the exit status, or None when it was killed (after the timeout, or for
    printing more than the output limit: then ``overflow`` is True); ``error`` is set when it
    could not be started at all.
    """

    input: str
    stdout: bytes
    stderr: bytes
    status: int | None
    error: str | None = None
    overflow: bool = False


def _kill_group(process: subprocess.Popen) -> None:
    # The child leads its own session, so its group id is its pid; the group holds whatever it started.
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(process.pid, signal.SIGKILL)


def _exchange(process: subprocess.Popen, data: bytes, deadline: float, limit: int) -> tuple[bytes, bytes, str]:
    """Write ``data`` to the process's stdin while reading its stdout and stderr, until both
    close (``"done"``), the deadline passes (``"timeout"``) or either output passes ``limit``
    bytes (``"overflow"``). Unlike ``communicate`` it never holds more than ``limit`` bytes."""
    import selectors
    import time

    buffers = {process.stdout: bytearray(), process.stderr: bytearray()}
    selector = selectors.DefaultSelector()
    for stream in buffers:
        selector.register(stream, selectors.EVENT_READ)
    offset = 0
    if data:
        os.set_blocking(process.stdin.fileno(), False)
        selector.register(process.stdin, selectors.EVENT_WRITE)
    else:
        process.stdin.close()
    outcome = "done"
    try:
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome = "timeout"
                break
            for key, _ in selector.select(remaining):
                if key.fileobj is process.stdin:
                    try:
                        offset += os.write(process.stdin.fileno(), data[offset : offset + 65536])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # the command stopped reading: fine, it may answer anyway
                        offset = len(data)
                    if offset >= len(data):
                        selector.unregister(process.stdin)
                        process.stdin.close()
                    continue
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                buffer = buffers[key.fileobj]
                buffer += chunk
                if len(buffer) > limit:
                    del buffer[limit:]
                    outcome = "overflow"
            if outcome != "done":
                break
    finally:
        selector.close()
    return bytes(buffers[process.stdout]), bytes(buffers[process.stderr]), outcome


def run_command(
    argv: list[str], input_text: str, *, timeout: float = DEFAULT_TIMEOUT, max_output: int = MAX_OUTPUT_BYTES
) -> Call:
    """Run ``argv`` with ``input_text`` on its standard input, in a new session. After
    ``timeout`` seconds, or once it has printed more than ``max_output`` bytes, the whole
    process group is killed; whatever it left running is killed too when it exits. Never
    raises for the command's behaviour; a command that cannot start gives ``error``."""
    import time

    try:
        process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
    except OSError as error:
        return Call(input_text, b"", b"", None, f"cannot run {argv[0]!r}: {error.strerror or error}")
    deadline = time.monotonic() + timeout
    status: int | None = None
    try:
        stdout, stderr, outcome = _exchange(process, input_text.encode("utf-8"), deadline, max_output)
        if outcome == "done":
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = process.wait(timeout=max(deadline - time.monotonic(), 0.001))
    finally:
        _kill_group(process)  # on timeout or overflow, descendants left behind, and on KeyboardInterrupt
        for stream in (process.stdin, process.stdout, process.stderr):
            with contextlib.suppress(OSError):
                stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
    return Call(input_text, stdout, stderr, status, overflow=outcome == "overflow")


# --------------------------------------------------------------------------- roundtrip


@dataclass(frozen=True)
class RoundtripFailure:
    """The minimal relation the command got wrong, what it printed and why that is wrong."""

    relation: Relation
    call: Call
    reason: str


@dataclass
class RoundtripResult:
    """``examples`` relations tried (up to and including the first failure) in ``calls`` runs of
    the command (relations written alike are sent once); ``failure`` is None when all passed."""

    calls: int = 0
    examples: int = 0
    failure: RoundtripFailure | None = None
    trouble: str | None = None


class _Wrong(Exception):
    """Raised inside the Hypothesis test so that it shrinks the example."""

    def __init__(self, failure: RoundtripFailure) -> None:
        super().__init__(failure.reason)
        self.failure = failure


def _judge_call(expected: Relation, call: Call, epsilon: float, timeout: float) -> str | None:
    """Why the command's output is wrong for ``expected``, or None when it is right."""
    from answerkey.comparator import judge
    from answerkey.grammar import parse

    if call.overflow:
        return f"it printed more than {MAX_OUTPUT_BYTES} bytes (killed)"
    if call.status is None:
        return f"it did not finish within {timeout:g} s (killed)"
    if call.status != 0:
        return f"it exited with status {call.status}"
    try:
        text = call.stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"its output is not UTF-8 (byte 0x{call.stdout[error.start]:02x} at offset {error.start})"
    try:
        system = parse(text, source="<stdout>", allow_alternatives=False)
    except InputError as error:
        return f"its output is not a CAS answer:\n{error}"
    verdict = judge(expected, system, epsilon=epsilon)
    return None if verdict.correct else verdict.explain()


def roundtrip(
    argv: list[str],
    *,
    examples: int = 100,
    seed: int = 0,
    input_format: str = "jsonrows",
    timeout: float = DEFAULT_TIMEOUT,
    epsilon: float = 1e-4,
    shrink_calls: int = DEFAULT_SHRINK_CALLS,
    on_call: Callable[[int], None] | None = None,
) -> RoundtripResult:
    """Send random relations to ``argv`` in ``input_format``, judge the CAS it prints against
    each, and shrink the first failure to a minimal relation.

    The command is run at most ``examples + shrink_calls + min(shrink_calls, FINISHING_CALLS)``
    times, each for at most ``timeout`` seconds; ``shrink_calls=0`` reports the first failure
    as found. The relation it is judged against is the input read back in
    ``input_format`` (what the command was actually told).
    """
    from answerkey.testing import strategies
    from answerkey.adapters.rows import FORMATS

    answer_format = FORMATS[input_format]
    result = RoundtripResult()
    seen: dict[str, RoundtripFailure | None] = {}
    budget = [examples + shrink_calls]

    def evaluate(relation: Relation) -> RoundtripFailure | None:
        """The failure for ``relation``, from the cache or a new call; None if it passes or
        the budget is spent (an unseen candidate then counts as passing, so shrinking stops)."""
        text = answer_format.write(relation)
        if text in seen:
            return seen[text]
        if result.calls >= budget[0] or result.trouble:
            return None
        expected = answer_format.read(text)
        call = run_command(argv, text, timeout=timeout)
        result.calls += 1
        if on_call:
            on_call(result.calls)
        if call.error:
            result.trouble = call.error
            return None
        reason = _judge_call(expected, call, epsilon, timeout)
        seen[text] = RoundtripFailure(expected, call, reason) if reason else None
        return seen[text]

    def check(relation: Relation) -> None:
        if not any(seen.values()):
            result.examples += 1
        outcome = evaluate(relation)
        if outcome is not None:
            raise _Wrong(outcome)

    try:
        _run_hypothesis(strategies.relations(max_cols=4, max_rows=6), check, examples=examples, seed=seed)
    except _Wrong as wrong:
        result.failure = wrong.failure
    except BaseException as error:
        # Hypothesis reports a failure it could not reproduce as Flaky; report the smallest one seen.
        failures = [outcome for outcome in seen.values() if outcome is not None]
        if not failures or isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        result.failure = min(failures, key=lambda failure: len(failure.call.input))
    if result.failure is not None:
        budget[0] = result.calls + min(FINISHING_CALLS, shrink_calls)
        result.failure = _fewer_rows_and_columns(result.failure, evaluate)
    return result


def _smaller(relation: Relation):
    """The relation without one of its tuples, or without one of its columns."""
    rows = relation.rows
    if len(rows) > 1:
        for index in range(len(rows)):
            yield Relation(rows[:index] + rows[index + 1 :])
    if relation.arity > 1:
        for column in range(relation.arity):
            yield Relation([row[:column] + row[column + 1 :] for row in rows])


def _fewer_rows_and_columns(failure: RoundtripFailure, evaluate) -> RoundtripFailure:
    """Finish Hypothesis's shrinking: drop whole tuples and columns while the failure stays."""
    improved = True
    while improved:
        improved = False
        for candidate in _smaller(failure.relation):
            outcome = evaluate(candidate)
            if outcome is not None:
                failure, improved = outcome, True
                break
    return failure


# --------------------------------------------------------------------------- fuzzing our own parsers


@dataclass
class ParserReport:
    """The outcome of fuzzing one parser: examples run, or why it was skipped, or the bug."""

    name: str
    examples: int = 0
    skipped: str | None = None
    failing_input: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class _Target:
    """A parser to fuzz: ``check(text)`` returns or raises InputError; ``texts()`` feeds it."""

    description: str
    check: Callable[[str], None]
    texts: Callable[[], Any]
    requires: tuple[str, ...] = field(default=())


def _text_sources(valid, alphabet: str):
    from hypothesis import strategies as st

    from answerkey.testing.strategies import mutated_texts

    return st.one_of(
        valid,
        mutated_texts(valid, max_edits=6),
        st.text(st.sampled_from(alphabet), max_size=60),
        st.text(max_size=30),
    )


def _check_cas(text: str) -> None:
    from answerkey.grammar import parse
    from answerkey.grammar.render import render

    try:
        answer = parse(text)
    except InputError:
        return
    printed = render(answer)
    again = parse(printed)
    if again != answer or render(again) != printed:
        raise AssertionError(f"render/parse round trip changed the answer: {printed!r} -> {render(again)!r}")


def _cas_texts():
    from hypothesis import strategies as st

    from answerkey.testing.strategies import cas_texts, invalid_cas_texts

    return st.one_of(_text_sources(cas_texts(), '()";\\ \n0123456789.-+eEtrueORNIL_-JAN'), invalid_cas_texts())


def _relation_checker(format: str) -> Callable[[str], None]:
    def check(text: str) -> None:
        from answerkey.adapters.rows import FORMATS

        answer_format = FORMATS[format]
        try:
            relation = answer_format.read(text, source="<fuzz>")
        except InputError:
            return
        written = answer_format.write(relation)
        if answer_format.read(written) != relation:
            raise AssertionError(f"write/read round trip changed the relation: {written!r}")

    return check


def _relation_texts(format: str):
    def texts():
        from hypothesis import strategies as st

        from answerkey.adapters.rows import FORMATS
        from answerkey.testing.strategies import relations

        written = relations(max_rows=4).map(FORMATS[format].write)
        return st.one_of(_text_sources(written, '[]{}",:\\ \n0123456789.-+eEtruenull#'), _json_documents())

    return texts


def _json_documents():
    import json

    from hypothesis import strategies as st

    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
    documents = st.recursive(
        scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(
            st.sampled_from(["head", "vars", "results", "bindings", "type", "value", "datatype", "xml:lang",
                             "boolean", "link", "id", "answer", "x1"]) | st.text(max_size=4), inner, max_size=4)),
        max_leaves=12,
    )
    return documents.map(json.dumps)


def _with_temporary_file(text: str, suffix: str, load: Callable[[str], Any]) -> None:
    handle, path = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as written:
            written.write(text)
        load(path)
    finally:
        os.unlink(path)


def _file_checker(module: str, function: str, suffix: str, **options) -> Callable[[str], None]:
    """A check that writes the text to a temporary ``suffix`` file and loads it with
    ``module.function(path, **options)``."""

    def check(text: str) -> None:
        import importlib

        load = getattr(importlib.import_module(module), function)
        _with_temporary_file(text, suffix, lambda path: load(path, **options))

    return check


_YAML_SNIPPETS = (
    "- id: q1\n  answer: 5\n", "- {id: q2, answer: '((1 \"a\"))', tags: [x, y]}\n", "a: &x [1, 2]\nb: *x\n",
    "- !!python/object/apply:os.system ['true']\n", "? [a]\n: b\n", "q1: ((1))\nq1: ((2))\n", "---\n...\n",
    "- id: 3\n  answer: 2024-01-01\n  category: X\n", "- id: q\n  answer: yes\n  epsilon: .nan\n", "%YAML 1.1\n---\n[]",
    "- &a [*a]\n", "x: !!binary aGk=\n", "- id: q\n  answer: |\n    ((1)\n     (2))\n",
    "- id: q\n  answer: 2024-02-30\n", "- {id: t, answer: 2001-12-14t21:59:43.10-05:00}\n",
)


def _yaml_texts():
    from hypothesis import strategies as st

    joined = st.lists(st.sampled_from(_YAML_SNIPPETS), min_size=1, max_size=3).map("".join)
    return _text_sources(joined, "-:?[]{}&*!|>'\"#%@` \n\t0123456789abcidanswer")


_JSONL_LINES = (
    '{"id": "q1", "answer": "((1))"}', '{"id": 2, "answer": 5}', '{"id": "q3", "answer": null}', "[1, 2]",
    '{"id": "q1", "answer": "((2))"}', '{"id": "", "answer": "x"}', '{"id": "q4"}', '{"id": "q5", "answer": [1]}',
    "not json", "", '{"id": "q6", "answer": "1", "category": "X", "tags": ["a"]}', '{"id": "q7", "epsilon": -1}',
)


def _jsonl_texts():
    from hypothesis import strategies as st

    joined = st.lists(st.sampled_from(_JSONL_LINES), min_size=1, max_size=4).map("\n".join)
    return _text_sources(joined, '{}[]",:\\ \n0123456789idanswer')


def _sparql_check(text: str) -> None:
    from answerkey.adapters.sparql import relation_from_sparql_results, sparql_results_from_relation

    try:
        result = relation_from_sparql_results(text, source="<fuzz>")
    except InputError:
        return
    if isinstance(result, Relation) and relation_from_sparql_results(sparql_results_from_relation(result)) != result:
        raise AssertionError("sparql_results_from_relation/relation_from_sparql_results round trip changed the relation")


def _sparql_texts():
    from hypothesis import strategies as st

    return st.one_of(_relation_texts("sparql-json")(), _json_documents().map(
        lambda body: '{"head": {"vars": ["x1"]}, "results": {"bindings": [{"x1": ' + body + "}]}}"
    ))


# Every parser answerkey exposes to untrusted text. ``requires`` names the modules it needs:
# a parser whose module is missing is skipped with a message.
PARSERS: dict[str, _Target] = {
    "cas": _Target("CAS text (answerkey.grammar.parse, render round trip)", _check_cas, _cas_texts,
                   ("answerkey.grammar",)),
    "jsonrows": _Target("JSON rows (answerkey.adapters.rows)", _relation_checker("jsonrows"),
                        _relation_texts("jsonrows"), ("answerkey.adapters.rows",)),
    "csv": _Target("CSV (answerkey.adapters.rows)", _relation_checker("csv"), _relation_texts("csv"),
                   ("answerkey.adapters.rows",)),
    "sparql-json": _Target("SPARQL results JSON (answerkey.adapters.sparql)", _sparql_check, _sparql_texts,
                           ("answerkey.adapters.sparql",)),
    "corpus-yaml": _Target("corpus YAML (answerkey.score.load.load_corpus)",
                           _file_checker("answerkey.score.load", "load_corpus", ".yaml", format="yaml"),
                           _yaml_texts, ("answerkey.score.load",)),
    "corpus-jsonl": _Target("corpus JSONL (answerkey.score.load.load_corpus)",
                            _file_checker("answerkey.score.load", "load_corpus", ".jsonl", format="jsonl"),
                            _jsonl_texts, ("answerkey.score.load",)),
    "answers-jsonl": _Target("answer files, JSONL (answerkey.score.load.load_answers)",
                             _file_checker("answerkey.score.load", "load_answers", ".jsonl", format="jsonl"),
                             _jsonl_texts, ("answerkey.score.load",)),
    "answers-yaml": _Target("answer files, YAML (answerkey.score.load.load_answers)",
                            _file_checker("answerkey.score.load", "load_answers", ".yaml", format="yaml"),
                            _yaml_texts, ("answerkey.score.load",)),
    "sdmx-cases": _Target("SDMX test cases, YAML (answerkey.sdmx.load.load_cases)",
                          _file_checker("answerkey.sdmx.load", "load_cases", ".yaml"), _yaml_texts,
                          ("answerkey.sdmx.load",)),
    "steps-reference": _Target("graphrag-eval reference corpus (answerkey.steps.load.read_reference)",
                               _file_checker("answerkey.steps.load", "read_reference", ".yaml"), _yaml_texts,
                               ("answerkey.steps.load",)),
    "steps-responses": _Target("graphrag-eval responses (answerkey.steps.load.read_responses)",
                               _file_checker("answerkey.steps.load", "read_responses", ".json"), _jsonl_texts,
                               ("answerkey.steps.load",)),
    "qatch-tests": _Target("QATCH tests, JSONL (answerkey.qatch.load.load_tests)",
                           _file_checker("answerkey.qatch.load", "load_tests", ".jsonl", task="qa"), _jsonl_texts,
                           ("answerkey.qatch.load",)),
}


class _Undocumented(Exception):
    def __init__(self, text: str, detail: str) -> None:
        super().__init__(detail)
        self.text = text
        self.detail = detail


def _missing_module(target: _Target) -> str | None:
    import importlib

    for name in target.requires:
        try:
            importlib.import_module(name)
        except ImportError as error:
            return f"{name} is not available ({error})"
    return None


def fuzz_parser(name: str, *, examples: int = 1000, seed: int = 0,
                on_example: Callable[[int], None] | None = None) -> ParserReport:
    """Fuzz the parser ``name`` (a key of ``PARSERS``) with ``examples`` texts; the report
    names the minimal input that raised anything other than ``InputError``, with the traceback."""
    target = PARSERS[name]
    report = ParserReport(name)
    missing = _missing_module(target)
    if missing:
        report.skipped = missing
        return report

    found: list[_Undocumented] = []

    def check(text: str) -> None:
        report.examples += 1
        if on_example:
            on_example(report.examples)
        try:
            target.check(text)
        except InputError:
            pass
        except Exception:
            found.append(_Undocumented(text, traceback.format_exc()))
            raise found[-1] from None

    try:
        _run_hypothesis(target.texts(), check, examples=examples, seed=seed)
    except _Undocumented as bug:
        report.failing_input = bug.text
        report.error = bug.detail
    except Exception:
        # A failure Hypothesis could not reproduce (Flaky): report the shortest input that failed.
        if not found:
            raise
        bug = min(found, key=lambda undocumented: len(undocumented.text))
        report.failing_input, report.error = bug.text, bug.detail
    return report

