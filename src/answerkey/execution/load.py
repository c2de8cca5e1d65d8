"""Gold and predicted SQL, in the layouts the benchmarks ship them: errors at ``FILE:LINE:COL``.

Four layouts, named by ``--layout`` or detected from the gold file:

- **spider** (test-suite-sql-eval): the gold is text, one ``SQL<TAB>db_id`` per line; the
  predictions one SQL query per line, in the same order (anything after a tab on a
  prediction line is ignored, as test-suite-sql-eval ignores it). Lines are stripped of
  surrounding whitespace; blank lines separate sessions (SParC and CoSQL interactions), as
  test-suite-sql-eval reads them: both files must have the same sessions, each with as many
  queries. Item ids are positions, from 0. Detected by a ``.sql``, ``.txt`` or ``.tsv`` gold
  file, or a first line holding a tab.
- **bird**: the gold is BIRD's ``dev.json`` (a JSON list of questions with ``db_id``,
  ``SQL``, ``difficulty``, ...: ``BirdQuestion``); the predictions a JSON object keyed by
  each question's position, from 0, whose values are ``SQL<TAB>----- bird -----<TAB>db_id``
  (or plain SQL; the gold question's database is the one used, as BIRD's script does).
  Item ids are the positions. Detected by a JSON list whose first question has ``SQL``.
- **answerkey**: the gold is answerkey's SQL corpus (JSON Lines, or a YAML or JSON list of
  ``SqlItemSchema`` items: ``id``, ``db_id``, ``sql``, optional ``question``,
  ``difficulty``, ``tags``, ``order_by``, ``condition_cols``, ``ignore_order``); the
  predictions JSON Lines (or a JSON/YAML list) of ``{"id": ..., "sql": ...}`` records, or a
  mapping id: SQL. Every other gold file. An item may give ``gold_results`` (CSV files,
  ``answerkey.execution.result_csv``) in place of ``sql``.
- **spider2-lite**: Spider 2.0-lite's gold folder (``spider2lite_eval.jsonl`` and
  ``exec_result/``) and a folder of ``<id>.sql`` or ``<id>.csv`` predictions, read by
  ``answerkey.execution.spider2_lite``. Detected by a gold folder holding that file.

Problems are collected and raised together (``InputErrors``), each located: a malformed
line, an invalid item, a duplicate id, predictions that do not line up with the gold (Spider:
counts per session). A prediction for an id or position the gold does not have is a warning;
an item without a prediction is incorrect (a warning counts them). An empty file is refused,
as for every input.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "gold.sql").write_text("SELECT count(*) FROM singer\\tconcert_singer\\n")
>>> _ = (root / "pred.sql").write_text("SELECT count(*) FROM singer\\n")
>>> inputs = load_inputs(root / "gold.sql", root / "pred.sql")
>>> inputs.layout, [(item.id, item.db_id, item.predicted) for item in inputs.items]
('spider', [('0', 'concert_singer', 'SELECT count(*) FROM singer')])
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from answerkey.adapters.sql import db_id_problem
from answerkey.errors import InputError, InputErrors, RunWarning, kind_of, plural
from answerkey.execution.result_csv import ResultFile, read_result_csv
from answerkey.execution.spider2_lite import is_spider2_lite, read_spider2_lite
from answerkey.files import STDIN, Document, load_document, read_text, source_name, validation_errors

LAYOUTS = ("spider", "bird", "answerkey", "spider2-lite")
# What BIRD's predictions put between the SQL and the db_id.
BIRD_SEPARATOR = "\t----- bird -----\t"
# Gold files read as Spider text by their suffix.
SPIDER_SUFFIXES = frozenset({".sql", ".txt", ".tsv"})
_DOCUMENT_SUFFIXES = frozenset({".json", ".jsonl", ".ndjson", ".yaml", ".yml"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # universal newlines, as Python's text files read them
_POSITION = re.compile(r"0|[1-9][0-9]*")


@dataclass(frozen=True)
class SqlItem:
    """One question: its gold SQL, its database and the predicted SQL (None: no prediction).

    ``order_by`` (columns from 1) orders the gold result by those columns in place of what its
    ``ORDER BY`` resolves to; ``condition_cols`` (indexes from 0) and ``ignore_order`` are
    Spider 2.0's. ``source`` and ``line`` say where the gold item is.
    """

    id: str
    db_id: str
    gold: str
    predicted: str | None = None
    question: str = ""
    difficulty: str | None = None
    tags: tuple[str, ...] = ()
    order_by: tuple[int, ...] | None = None
    condition_cols: tuple[int, ...] | None = None
    ignore_order: bool | None = None
    source: str = ""
    line: int | None = None
    # The item's other golds (an answerkey corpus's ``sql`` list after its first): the
    # prediction is correct when it matches ``gold`` or one of them.
    other_golds: tuple[str, ...] = ()
    # Golds given as results (CSV files) in place of SQL (``gold`` is then empty), and a
    # prediction given as a result in place of SQL (``predicted`` is then None).
    gold_results: tuple[ResultFile, ...] = ()
    predicted_result: ResultFile | None = None
    # A Spider-layout file's session (from 0) and the item's turn in it (from 0); where an
    # item sits, not what it is, so equality leaves them out.
    session: int | None = field(default=None, compare=False)
    turn: int | None = field(default=None, compare=False)

    @property
    def origin(self) -> str:
        """Where the gold item is: ``FILE:LINE`` (``FILE`` when the line is unknown)."""
        return _origin(self.source, self.line)

    @property
    def needs_database(self) -> bool:
        """Whether evaluating the item runs a query (False when both sides are results)."""
        return not (self.gold_results and self.predicted_result is not None)


@dataclass
class SqlInputs:
    """The items of a run, in gold order, with the layout they were read in and the warnings
    of reading them."""

    layout: str
    gold_source: str
    predictions_source: str
    items: list[SqlItem]
    warnings: list[RunWarning] = field(default_factory=list)


def _origin(source: str, line: int | None) -> str:
    return f"{source}:{line}" if line is not None else source


def _lines(text: str) -> list[str]:
    return _LINE_BREAK.split(text)


def detect_layout(source: str, text: str, data: Any = None) -> str:
    """The layout of a gold file named ``source`` holding ``text`` (``data``: its decoded
    JSON or YAML, when it is one): ``spider`` for a ``.sql``, ``.txt`` or ``.tsv`` file or
    text whose first line holds a tab; ``bird`` for a list whose first element has ``SQL``;
    else ``answerkey``.

    >>> detect_layout("dev_gold.sql", ""), detect_layout("-", "SELECT 1\\tdb\\n")
    ('spider', 'spider')
    >>> detect_layout("dev.json", "", [{"db_id": "x", "SQL": "SELECT 1"}]), detect_layout("c.yaml", "- id: 1")
    ('bird', 'answerkey')
    """
    suffix = os.path.splitext(source)[1].lower()
    if suffix in SPIDER_SUFFIXES:
        return "spider"
    if suffix not in _DOCUMENT_SUFFIXES:
        first = next((line for line in _lines(text) if line.strip()), "")
        if "\t" in first.strip() and not first.lstrip().startswith(("{", "[")):
            return "spider"
    if isinstance(data, list) and data and isinstance(data[0], dict) and "SQL" in data[0] and "sql" not in data[0]:
        return "bird"
    return "answerkey"


# ---------------------------------------------------------------- Spider


@dataclass(frozen=True)
class _Line:
    """A non-blank line of a Spider file: its number and its stripped text."""

    number: int
    text: str


@dataclass
class _Sessions:
    """The non-blank lines of a Spider file in sessions (blank lines separate them), and the
    line that ends each session (its blank line, or the line after the file's last)."""

    sessions: list[list[_Line]] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)

    @classmethod
    def read(cls, text: str) -> _Sessions:
        found = cls()
        current: list[_Line] = []
        lines = _lines(text)
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            if stripped:
                current.append(_Line(number, stripped))
            elif current:
                found.sessions.append(current)
                found.ends.append(number)
                current = []
        if current:
            found.sessions.append(current)
            found.ends.append(len(lines) + (1 if lines[-1] else 0))
        return found

    @property
    def count(self) -> int:
        return sum(map(len, self.sessions))


_NO_TAB = "a gold line is SQL<TAB>db_id, and this one has no tab"


def _spider_gold(text: str, source: str, problems: list[InputError]) -> tuple[_Sessions, list[SqlItem]]:
    sessions = _Sessions.read(text)
    items: list[SqlItem] = []
    lines = _lines(text)
    for session_number, session in enumerate(sessions.sessions):
        for turn, line in enumerate(session):
            sql, tab, db_id = line.text.rpartition("\t")
            raw = lines[line.number - 1].rstrip()
            if not tab:
                problems.append(
                    InputError(
                        _NO_TAB,
                        source=source,
                        line=line.number,
                        column=1,
                    )
                )
                continue
            sql, db_id = sql.strip(), db_id.strip()
            problem = db_id_problem(db_id)
            if problem is not None:
                column = raw.rfind("\t") + 2
                problems.append(InputError(f"db_id: {problem}", source=source, line=line.number, column=column))
                continue
            items.append(
                SqlItem(str(len(items)), db_id, sql, source=source, line=line.number, session=session_number, turn=turn)
            )
    return sessions, items


def _session_counts(gold: _Sessions, predictions: _Sessions, gold_source: str, source: str) -> InputError | None:
    """The first place where the predictions' sessions do not line up with the gold's."""
    single = len(gold.sessions) == 1 and len(predictions.sessions) == 1
    for number, (golds, predicted, end) in enumerate(zip(gold.sessions, predictions.sessions, predictions.ends), 1):
        if len(golds) == len(predicted):
            continue
        where = "" if single else f"session {number} (blank lines separate sessions): "
        counts = f"{plural(len(predicted), 'prediction')} for {plural(len(golds), 'gold query', 'gold queries')}"
        if len(predicted) > len(golds):
            line = predicted[len(golds)].number
            return InputError(f"{where}{counts}: this prediction has no gold query", source=source, line=line, column=1)
        missing = golds[len(predicted)].number
        return InputError(
            f"{where}{counts}: the gold query on line {missing} of {gold_source} has no prediction",
            source=source,
            line=end,
            column=1,
        )
    gold_count, predicted_count = len(gold.sessions), len(predictions.sessions)
    if gold_count == predicted_count:
        return None
    counts = f"{plural(predicted_count, 'session')} of predictions for {plural(gold_count, 'gold session')}"
    if predicted_count > gold_count:
        line = predictions.sessions[gold_count][0].number
        return InputError(
            f"{counts} (blank lines separate sessions): this session has no gold session",
            source=source,
            line=line,
            column=1,
        )
    missing = gold.sessions[predicted_count][0].number
    return InputError(
        f"{counts} (blank lines separate sessions): the gold session from line {missing} of {gold_source} "
        "has no predictions",
        source=source,
        line=predictions.ends[-1],
        column=1,
    )


def _load_spider(gold_text: str, gold_source: str, predictions: str | os.PathLike[str]) -> SqlInputs:
    problems: list[InputError] = []
    sessions, items = _spider_gold(gold_text, gold_source, problems)
    if not sessions.count:
        raise InputError("the gold has no queries (an empty input is refused)", source=gold_source)
    source = source_name(predictions)
    try:
        text = read_text(predictions)
    except InputError as error:
        raise InputErrors([*problems, error]) from None
    if problems and len(problems) == sessions.count and all(problem.message == _NO_TAB for problem in problems):
        # No gold line has a tab: not a Spider gold at all, one error rather than one per line.
        raise InputError(
            "no line is SQL<TAB>db_id, as a Spider gold's lines are (--layout names another layout)",
            source=gold_source,
            line=problems[0].line,
            column=1,
        )
    if text.lstrip().startswith(("{", "[")):
        problems.append(
            InputError(
                "the gold is in the Spider layout (SQL<TAB>db_id lines), so the predictions are one SQL query per "
                "line, not JSON (--layout names the layout)",
                source=source,
                line=1,
                column=1,
            )
        )
        raise InputErrors(problems)
    predicted = _Sessions.read(text)
    if not predicted.count:
        problems.append(InputError("the predictions have no queries (an empty input is refused)", source=source))
    else:
        mismatch = _session_counts(sessions, predicted, gold_source, source)
        if mismatch is not None:
            problems.append(mismatch)
    if problems:
        raise InputErrors(problems)
    # Anything after a tab (a db_id some systems print) is not part of the query.
    queries = [line.text.split("\t", 1)[0].strip() for session in predicted.sessions for line in session]
    return SqlInputs(
        "spider",
        gold_source,
        source,
        [replace(item, predicted=query) for item, query in zip(items, queries)],
    )


# ---------------------------------------------------------------- BIRD


def _bird_gold(document: Document, problems: list[InputError]) -> list[SqlItem]:
    data = document.data
    if not isinstance(data, list):
        raise document.error(f"BIRD's gold is a list of questions, not {kind_of(data)}")
    if not data:
        raise document.error("the gold has no questions (an empty input is refused)")
    # The models need pydantic (~0.1 s to import): imported by the layouts they validate, so
    # that Spider's text layout never loads it (as the report package imports its Excel writer).
    from answerkey.execution.schema import BirdQuestion, ValidationError

    items = []
    for index, value in enumerate(data):
        if not isinstance(value, dict):
            problems.append(document.error(f"a question is a mapping, not {kind_of(value)}", (index,)))
            continue
        try:
            question = BirdQuestion.model_validate(value)
        except ValidationError as error:
            problems.extend(
                validation_errors(
                    error, source=document.source, locate=document.locate, model=BirdQuestion, prefix=(index,)
                )
            )
            continue
        items.append(
            SqlItem(
                str(index),
                question.db_id,
                question.SQL,
                question=question.question,
                difficulty=question.difficulty,
                source=document.source,
                line=document.locate((index,))[0],
            )
        )
    return items


def _bird_predictions(
    document: Document, items: list[SqlItem], problems: list[InputError], warnings: list[RunWarning]
) -> dict[int, str | None]:
    """The SQL (None: no prediction) of each position the predictions give, in file order."""
    data = document.data
    if not isinstance(data, dict):
        raise document.error(
            f'BIRD\'s predictions are a JSON object {{"0": "SQL\\t----- bird -----\\tdb_id", ...}}, not {kind_of(data)}'
        )
    if not data:
        raise document.error("no predictions in this file (an empty input is refused)")
    count = len(items)
    predicted: dict[int, str | None] = {}
    for key, value in data.items():
        origin = _origin(document.source, document.locate((key,))[0])
        if not _POSITION.fullmatch(key):
            problems.append(
                document.error(f'{key!r}: a key is the position of a gold question, from 0 ("0", "1", ...)', (key,))
            )
            continue
        if value is not None and not isinstance(value, str):
            problems.append(document.error(f"{key}: a prediction is SQL text or null, not {kind_of(value)}", (key,)))
            continue
        position = int(key)
        if position >= count:
            warnings.append(
                RunWarning(
                    f"{origin}: a prediction for position {position:,}, but the gold has "
                    f"{plural(count, 'question')} (positions 0 to {count - 1:,})",
                    "unknown-id",
                )
            )
            continue
        if value is None:
            predicted[position] = None
            continue
        parts = value.split(BIRD_SEPARATOR)
        # As BIRD's script: exactly one separator splits SQL from db_id; else it is all SQL.
        if len(parts) != 2:
            predicted[position] = value.strip()
            continue
        predicted[position] = parts[0]
        db_id = parts[1].strip()
        gold_db_id = items[position].db_id if position < len(items) else db_id
        if db_id != gold_db_id:
            warnings.append(
                RunWarning(
                    f"{origin}: prediction {position} names the database {db_id!r}, but its gold question is on "
                    f"{gold_db_id!r} (the gold's database is used)",
                    "bird-db-id",
                )
            )
    return predicted


def _load_bird(gold: Document, predictions: str | os.PathLike[str]) -> SqlInputs:
    problems: list[InputError] = []
    items = _bird_gold(gold, problems)
    warnings: list[RunWarning] = []
    try:
        document = load_document(predictions, format="json")
        predicted = _bird_predictions(document, items, problems, warnings)
    except InputError as error:
        raise InputErrors([*problems, error]) from None
    if problems:
        raise InputErrors(sorted(problems, key=InputError.sort_key))
    items = [replace(item, predicted=predicted.get(int(item.id))) for item in items]
    return SqlInputs("bird", gold.source, document.source, items, [*warnings, *_missing(items, document.source)])


def _missing(items: list[SqlItem], source: str) -> list[RunWarning]:
    """One warning counting the items without a prediction (each is incorrect)."""
    missing = [item for item in items if item.predicted is None]
    if not missing:
        return []
    return [
        RunWarning(
            f"{plural(len(missing), 'item')} of {len(items):,} have no prediction in {source} (each is incorrect), "
            f"e.g. {missing[0].id!r}",
            "no-prediction",
        )
    ]


# ---------------------------------------------------------------- answerkey's corpus


def _corpus(document: Document, problems: list[InputError]) -> list[SqlItem]:
    data = document.data
    if document.format != "jsonl" and data is not None and not isinstance(data, list):
        raise document.error(f"a corpus is a list of items, not {kind_of(data)}")
    if not data:
        if problems:
            raise InputErrors(problems)
        raise InputError("the corpus has no items (an empty input is refused)", source=document.source)
    # pydantic's model, imported here as in _bird_gold (the Spider layout never loads pydantic).
    from answerkey.execution.schema import SqlItemSchema, ValidationError

    items: list[SqlItem] = []
    first_seen: dict[str, int | None] = {}
    for index, value in enumerate(data):
        if not isinstance(value, dict):
            problems.append(document.error(f"a corpus item is a mapping, not {kind_of(value)}", (index,)))
            continue
        try:
            model = SqlItemSchema.model_validate(value)
        except ValidationError as error:
            problems.extend(
                validation_errors(
                    error, source=document.source, locate=document.locate, model=SqlItemSchema, prefix=(index,)
                )
            )
            continue
        if model.id in first_seen:
            problems.append(
                document.error(f"duplicate id {model.id!r} (first on line {first_seen[model.id]})", (index, "id"))
            )
            continue
        line = document.locate((index,))[0]
        first_seen[model.id] = document.locate((index, "id"))[0]
        golds = [] if model.sql is None else [model.sql] if isinstance(model.sql, str) else model.sql
        results = _gold_results(document, index, model.gold_results or (), problems)
        if results is None:
            continue
        items.append(
            SqlItem(
                model.id,
                model.db_id,
                golds[0] if golds else "",
                other_golds=tuple(golds[1:]),
                gold_results=results,
                question=model.question,
                difficulty=model.difficulty,
                tags=tuple(model.tags),
                order_by=model.order_by,
                condition_cols=model.condition_cols,
                ignore_order=model.ignore_order,
                source=document.source,
                line=line,
            )
        )
    return items


def _gold_results(
    document: Document, index: int, paths: tuple[str, ...], problems: list[InputError]
) -> tuple[ResultFile, ...] | None:
    """The gold results of corpus item ``index`` (CSV files relative to the corpus file), or
    None after recording why one cannot be read."""
    folder = os.path.dirname(document.source) if document.source != STDIN else ""
    results = []
    for number, path in enumerate(paths):
        location = os.path.join(folder, path)
        if not os.path.isfile(location):
            what = "is not a file" if os.path.exists(location) else "no such file"
            where = (
                (index, "gold_results", number)
                if isinstance(document.data[index]["gold_results"], list)
                else (index, "gold_results")
            )
            problems.append(document.error(f"gold result {path!r}: {what} ({location})", where))
            return None
        try:
            results.append(read_result_csv(location))
        except InputError as error:
            problems.append(error)
            return None
    return tuple(results)


def _prediction_records(document: Document, problems: list[InputError]) -> Iterator[tuple[str, str | None, tuple]]:
    """(id, SQL or None, path of the id) of each prediction: records, or a mapping id: SQL."""
    data = document.data
    if isinstance(data, dict):
        for key, value in data.items():
            if value is not None and not isinstance(value, str):
                problems.append(
                    document.error(f"{key}: a prediction is SQL text or null, not {kind_of(value)}", (key,))
                )
                continue
            yield str(key), value, (key,)
        return
    if not isinstance(data, list):
        raise document.error(f"predictions are a list of {{id, sql}} records or a mapping id: SQL, not {kind_of(data)}")
    # pydantic's model, imported here as in _bird_gold (the Spider layout never loads pydantic).
    from answerkey.execution.schema import SqlPredictionRecord, ValidationError

    for index, value in enumerate(data):
        if not isinstance(value, dict):
            problems.append(document.error(f"a prediction is a mapping, not {kind_of(value)}", (index,)))
            continue
        try:
            record = SqlPredictionRecord.model_validate(value)
        except ValidationError as error:
            problems.extend(
                validation_errors(
                    error, source=document.source, locate=document.locate, model=SqlPredictionRecord, prefix=(index,)
                )
            )
            continue
        yield record.id, record.sql, (index, "id")


def _load_corpus(gold: Document, predictions: str | os.PathLike[str]) -> SqlInputs:
    problems: list[InputError] = list(gold.problems)
    items = _corpus(gold, problems)
    warnings: list[RunWarning] = []
    try:
        document = load_document(predictions)
    except InputError as error:
        raise InputErrors([*problems, error]) from None
    problems.extend(document.problems)
    if not document.data:
        if not document.problems:
            problems.append(
                InputError("no predictions in this file (an empty input is refused)", source=document.source)
            )
        raise InputErrors(problems)
    known = {item.id: index for index, item in enumerate(items)}
    predicted: dict[str, str | None] = {}
    first_line: dict[str, int | None] = {}
    for item_id, sql, id_path in _prediction_records(document, problems):
        line = document.locate(id_path)[0]
        if item_id in predicted:
            problems.append(
                document.error(f"a second prediction for id {item_id!r} (first on line {first_line[item_id]})", id_path)
            )
            continue
        predicted[item_id] = sql
        first_line[item_id] = line
        if item_id not in known:
            warnings.append(
                RunWarning(
                    f"{_origin(document.source, line)}: a prediction for id {item_id!r}, which is not in the corpus",
                    "unknown-id",
                )
            )
    if problems:
        raise InputErrors(sorted(problems, key=InputError.sort_key))
    items = [replace(item, predicted=predicted.get(item.id)) for item in items]
    if predicted and not set(predicted) & set(known):
        warnings.append(
            RunWarning(
                f"no prediction in {document.source} has an id of the corpus {gold.source}: "
                "are these the predictions for this corpus?",
                "unknown-id-all",
            )
        )
    return SqlInputs("answerkey", gold.source, document.source, items, [*warnings, *_missing(items, document.source)])


# ---------------------------------------------------------------- any layout


def _reads_as_gold(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` looks like a gold file of some layout: every line SQL<TAB>db_id, or
    records that each name a db_id (BIRD's dev.json, answerkey's corpus)."""
    try:
        text = read_text(path)
        lines = [line for line in _lines(text) if line.strip()]
        if lines and all("\t" in line for line in lines):
            return True
        data = load_document(path, text=text).data
    except (InputError, InputErrors, ValueError):
        return False
    return isinstance(data, list) and bool(data) and all(isinstance(item, dict) and "db_id" in item for item in data)


def load_inputs(
    gold: str | os.PathLike[str], predictions: str | os.PathLike[str], *, layout: str | None = None
) -> SqlInputs:
    """Read the gold and the predictions in ``layout`` (one of ``LAYOUTS``; None: detected
    from the gold, see ``detect_layout``); ``-`` reads standard input. Every problem of both
    files is raised together as ``InputErrors`` (one as ``InputError``). When the gold cannot
    be read, does not look like a gold file and the predictions do, the first problem alone is
    raised, saying the two may be swapped."""
    if layout is not None and layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; known: {', '.join(LAYOUTS)}")
    try:
        return _load_inputs(gold, predictions, layout)
    except (InputError, InputErrors) as error:
        first = error.errors[0] if isinstance(error, InputErrors) else error
        from_files = "-" not in (os.fspath(gold), os.fspath(predictions))
        if (
            first.source != source_name(gold)
            or not from_files
            or _reads_as_gold(gold)
            or not _reads_as_gold(predictions)
        ):
            raise
        raise InputError(
            f"{first.message}; {source_name(predictions)} reads as a gold file: GOLD and PREDICTIONS may be "
            "swapped (GOLD comes first)",
            source=first.source,
            line=first.line,
            column=first.column,
        ) from None


def _load_spider2_lite(gold: str | os.PathLike[str], predictions: str | os.PathLike[str]) -> SqlInputs:
    found = read_spider2_lite(gold, predictions)
    items = [
        SqlItem(
            item.id,
            item.db_id,
            "",
            item.predicted,
            gold_results=item.golds,
            predicted_result=item.predicted_result,
            ignore_order=item.ignore_order,
            source=item.source,
            line=item.line,
        )
        for item in found.items
    ]
    return SqlInputs("spider2-lite", source_name(gold), source_name(predictions), items, found.warnings)


def _load_inputs(gold: str | os.PathLike[str], predictions: str | os.PathLike[str], layout: str | None) -> SqlInputs:
    if layout == "spider2-lite" or (layout is None and is_spider2_lite(gold)):
        return _load_spider2_lite(gold, predictions)
    source = source_name(gold)
    text = read_text(gold)
    if layout == "spider" or (layout is None and detect_layout(source, text) == "spider"):
        return _load_spider(text, source, predictions)
    document = load_document(gold, text=text)
    chosen = layout or detect_layout(source, text, document.data)
    if chosen == "bird":
        if document.problems:
            raise InputErrors(document.problems)
        return _load_bird(document, predictions)
    return _load_corpus(document, predictions)
