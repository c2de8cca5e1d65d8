"""Reading input files (``answerkey.files``): UTF-8 text within a size limit, a JSON, JSON
Lines or YAML document chosen by its name or first character, a directory's regular files.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

from answerkey.errors import InputError
from answerkey.files._document import Document
from answerkey.files._json import decode_json, read_jsonl
from answerkey.files._yaml import load_yaml
from answerkey.limits import (
    MAX_INPUT_BYTES,
)

STDIN = "<stdin>"


def source_name(path: str | os.PathLike[str]) -> str:
    """The name errors give a path: ``<stdin>`` for ``-``."""
    name = os.fspath(path)
    return STDIN if name == "-" else name


def read_text(path: str | os.PathLike[str], *, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Read a UTF-8 text file (``-`` is standard input), with errors as ``InputError``.

    A leading byte-order mark is dropped. A FIFO or a device is read like a file (process
    substitution gives one).
    """
    name = os.fspath(path)
    source = source_name(name)
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open(name, "rb") as handle:
                raw = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=source) from None
    except FileNotFoundError:
        raise InputError("no such file", source=source) from None
    except OSError as error:
        raise InputError(error.strerror or str(error), source=source) from None
    if len(raw) > max_bytes:
        raise InputError(f"larger than the limit of {max_bytes:,} bytes", source=source)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{raw[error.start]:02x})", source=source, line=line, column=column
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


# File name suffix -> document format.
DOCUMENT_SUFFIXES = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml", ".yml": "yaml"}


def document_format(source: str, text: str) -> str:
    """``json``, ``jsonl`` or ``yaml`` by the file name's suffix; for other names (and
    standard input) JSON Lines when the first line is a whole JSON object, JSON when the text
    starts with ``{`` or ``[``, else YAML.

    >>> document_format("-", '{"id": 1}\\n'), document_format("-", '{\\n "q1": "1"\\n}'), document_format("x", "a: 1")
    ('jsonl', 'json', 'yaml')
    """
    suffix = os.path.splitext(source)[1].lower()
    if suffix in DOCUMENT_SUFFIXES:
        return DOCUMENT_SUFFIXES[suffix]
    start = text.lstrip()
    if start.startswith("{"):
        first = start.split("\n", 1)[0]
        try:
            whole = isinstance(json.loads(first), dict)
        except (ValueError, RecursionError):
            whole = False
        return "jsonl" if whole else "json"
    return "json" if start.startswith("[") else "yaml"


# What a delimited table given as a document says (read as YAML it would be one long string).
NOT_DELIMITED = "CSV/TSV is not read here; use JSONL or YAML"
DELIMITED_SUFFIXES = (".csv", ".tsv")


def _looks_delimited(text: str) -> bool:
    """True for text whose first two lines hold a comma or a tab: a CSV or TSV table."""
    lines = [line for line in text.splitlines()[:20] if line.strip()][:2]
    return len(lines) == 2 and all("\t" in line or "," in line for line in lines)


def load_document(path: str | os.PathLike[str], *, format: str | None = None, text: str | None = None) -> Document:
    """Read ``path`` (``-``: standard input) as a JSON, JSON Lines or YAML document.

    The format is ``format``, else chosen by ``document_format``. Bad JSON Lines lines are
    collected in ``Document.problems`` (the other lines load); any other problem raises
    ``InputError`` at its place. A ``.csv`` or ``.tsv`` file (given a ``format``, one that
    looks like a table), or a table that YAML reads as one string, is ``InputError``
    ``NOT_DELIMITED``.
    """
    source = source_name(path)
    if text is None:
        text = read_text(path)
    if os.path.splitext(source)[1].lower() in DELIMITED_SUFFIXES and (format is None or _looks_delimited(text)):
        raise InputError(NOT_DELIMITED, source=source)
    chosen = format or document_format(source, text)
    if chosen == "yaml":
        document = load_yaml(text, source=source)
        if isinstance(document.data, str) and _looks_delimited(text):
            raise InputError(NOT_DELIMITED, source=source, line=1, column=1)
        return document
    if chosen == "json":
        return Document(decode_json(text, source=source), source, "json", text=text)
    if chosen == "jsonl":
        document = Document([], source, "jsonl", text=text)
        for entry in read_jsonl(text, source=source):
            if entry.error is not None:
                document.problems.append(entry.error)
            else:
                document.data.append(entry.value)
                document.lines.append(entry.line)
        return document
    raise ValueError(f"unknown document format {chosen!r}; known: json, jsonl, yaml")


def _kind_of_file(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def regular_files(
    root: str | os.PathLike[str], suffixes: Iterable[str], *, hidden: bool = False, recursive: bool = True
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The regular files under ``root`` whose names end in one of ``suffixes`` (sorted), and
    (path, why) for each entry skipped because it is not a regular file (a FIFO, a device, a
    broken or looping link; with ``recursive=False``, a directory): those would hang or fail a
    read. Hidden entries are passed over unless ``hidden``; linked directories are not followed.

    >>> import os, tempfile
    >>> root = tempfile.mkdtemp(); os.mkfifo(os.path.join(root, "b.yaml"))
    >>> _ = open(os.path.join(root, "a.yaml"), "w").close(); os.symlink("loop", os.path.join(root, "loop"))
    >>> found, skipped = regular_files(root, [""])
    >>> [path.name for path in found], [(path.name, why) for path, why in skipped]
    (['a.yaml'], [('b.yaml', 'a FIFO'), ('loop', 'Too many levels of symbolic links')])
    """
    wanted = tuple(suffix.lower() for suffix in suffixes)
    found: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(name for name in subdirectories if hidden or not name.startswith("."))
        if not recursive:
            names = [*names, *subdirectories]
            subdirectories[:] = []
        for name in sorted(names):
            if not hidden and name.startswith("."):
                continue
            if not name.lower().endswith(wanted):
                continue
            path = Path(directory, name)
            try:
                mode = os.stat(path).st_mode
            except OSError as error:
                skipped.append((path, error.strerror or str(error)))
                continue
            if stat.S_ISREG(mode):
                found.append(path)
            else:
                skipped.append((path, _kind_of_file(mode)))
    return sorted(found), skipped
