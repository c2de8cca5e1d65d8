"""Reading untrusted input files and writing outputs safely.

**Reading.** ``read_text`` reads UTF-8 (``-`` is standard input) within a size limit;
``load_document`` reads a JSON, JSON Lines or YAML document (chosen by the file name's
suffix, else by its first character) into plain values and can say where each value stands
(``Document.locate``), so that every problem is reported as ``FILE:LINE:COL``. The same
rules hold for every format: a key given twice in one object is an error; so are JSON's
``NaN``/``Infinity``, an integer of more than 4,300 digits, a lone UTF-16 surrogate escape
(``"\\ud800"``: not text, it could not be written out again) and values nested deeper than
``MAX_JSON_DEPTH``. YAML is read safely, mapping keys are read as text (``yes:`` is the key
``"yes"``), and aliases may not expand a document past a multiple of its size.
``regular_files`` lists a directory's regular files and names what it skipped.

**Writing.** ``check_outputs`` refuses, before a run starts, an output that is one of the
inputs, an output in a missing directory, two outputs to one file; it warns when a file name's
suffix does not fit the format. ``write_output`` and ``output_stream`` replace a regular file
atomically (a temporary file beside it, renamed over it, keeping the old file's mode), write
directly to anything else (``/dev/null``, a FIFO, a terminal, ``-`` for standard output) and
follow symbolic links; a temporary file left by a killed run is removed by the next write to
the same path. ``json_text`` writes JSON as answerkey's reports do: objects indented, each
element of a list on a line of its own.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "items.json")
>>> write_output(path, '[{"id": "q1", "answer": 5},\\n {"id": "q2", "answer": "x", "answer": 6}]')
>>> load_document(path)
Traceback (most recent call last):
...
answerkey.errors.InputError: ...items.json:2:30: the key 'answer' is given twice
"""

from __future__ import annotations

from answerkey.files._cache import CACHE_FORMAT as CACHE_FORMAT, EntryCache as EntryCache
from answerkey.files._document import Document as Document
from answerkey.files._json import (
    JsonLine as JsonLine,
    decode_json as decode_json,
    json_positions as json_positions,
    read_jsonl as read_jsonl,
)
from answerkey.files._json_text import json_pieces as json_pieces, json_text as json_text
from answerkey.files._reading import (
    DOCUMENT_SUFFIXES as DOCUMENT_SUFFIXES,
    STDIN as STDIN,
    document_format as document_format,
    load_document as load_document,
    read_text as read_text,
    regular_files as regular_files,
    source_name as source_name,
)
from answerkey.files._validation import id_text as id_text, read_id as read_id, validation_errors as validation_errors
from answerkey.files._writing import (
    OUTPUT_SUFFIXES as OUTPUT_SUFFIXES,
    OutputError as OutputError,
    check_outputs as check_outputs,
    output_stream as output_stream,
    read_entry as read_entry,
    write_entry as write_entry,
    write_output as write_output,
)
from answerkey.files._yaml import load_yaml as load_yaml
