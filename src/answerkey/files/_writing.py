"""Writing outputs safely (``answerkey.files``): paths checked before a run, regular files
replaced atomically, anything else (standard output, a FIFO, ``/dev/null``) written directly.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from typing import BinaryIO

from answerkey.errors import InputError, RunWarning


class OutputError(InputError):
    """An output that cannot be written; names the user's path, never a temporary file."""


# What each report format's file names usually end in.
OUTPUT_SUFFIXES = {
    "json": (".json",),
    "yaml": (".yaml", ".yml"),
    "xlsx": (".xlsx",),
    "jsonl": (".jsonl",),
    "tsv": (".tsv",),
    "html": (".html", ".htm"),
}
_KNOWN_SUFFIXES = {suffix for suffixes in OUTPUT_SUFFIXES.values() for suffix in suffixes} | {
    ".csv",
    ".tsv",
    ".txt",
    ".cas",
    ".xls",
    ".ndjson",
}


def _same_file(path: str, other: str) -> bool:
    try:
        return os.path.samefile(path, other)
    except OSError:
        return os.path.realpath(path) == os.path.realpath(other)


def _inside(path: str, directory: str) -> bool:
    """Whether ``path`` (resolved: links followed, ``..`` removed) lies below ``directory``."""
    resolved, root = os.path.realpath(path), os.path.realpath(directory)
    return os.path.commonpath([resolved, root]) == root and resolved != root


# How many entries of an input directory are looked at for a hard link to an output.
_LINK_SEARCH_ENTRIES = 200_000


def _linked_inside(path: str, directory: str) -> bool:
    """Whether ``path`` is a hard link to a file below ``directory`` (looked for only when it
    has several links, among the first ``_LINK_SEARCH_ENTRIES`` entries, links not followed)."""
    try:
        status = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(status.st_mode) or status.st_nlink < 2:
        return False
    seen = 0
    for root, directories, files in os.walk(directory):
        for name in files:
            seen += 1
            if seen > _LINK_SEARCH_ENTRIES:
                return False
            try:
                other = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (status.st_dev, status.st_ino):
                return True
        seen += len(directories)
    return False


def check_outputs(
    outputs: Mapping[str, tuple[str | None, str]],
    inputs: Mapping[str, str | None] | None = None,
) -> list[RunWarning]:
    """Check report outputs before a run: ``outputs`` maps an option name (``--json``) to
    (path or None, format); ``inputs`` maps a name (``CORPUS``) to an input path.

    An input may be a directory (answer files, databases, a cache): no output may lie inside it.
    Raises ``OutputError`` for an output that is empty, an input, a directory (or a path ending
    in a separator), in a directory that does not exist, given twice, or ``-`` twice or for a
    workbook; returns a warning for a
    file name whose suffix belongs to another format.

    >>> check_outputs({"--json": ("report.xlsx", "json")})[0].message
    '--json report.xlsx: the file name ends in .xlsx, but a JSON report is written'
    """
    warnings: list[RunWarning] = []
    to_stdout = [option for option, (path, _) in outputs.items() if path == "-"]
    if len(to_stdout) > 1:
        raise OutputError(f"only one of {' and '.join(to_stdout)} can write to standard output ('-')")
    seen: dict[str, str] = {}
    for option, (path, format) in outputs.items():
        if path == "":
            raise OutputError(f"{option}: the path is empty; give a file name, or - for standard output")
        if path is not None and path.endswith(("/", os.sep)):
            raise OutputError(f"{option} {path}: a directory's path (it ends in {path[-1]}); give a file name")
        if not path or path == "-":
            if path == "-" and format in ("xlsx", "html"):
                what = "a workbook" if format == "xlsx" else "an HTML page"
                raise OutputError(f"{option} needs a file name: {what} cannot go to standard output")
            continue
        given = [(name, input_path) for name, input_path in (inputs or {}).items() if input_path and input_path != "-"]
        for input_name, input_path in given:
            if os.path.exists(path) and _same_file(path, input_path):
                raise OutputError(f"{option} {path}: this is the input {input_name}; refusing to overwrite it")
        for input_name, input_path in given:
            if os.path.isdir(input_path) and (_inside(path, input_path) or _linked_inside(path, input_path)):
                # A file of an input directory (an answer, a database, a cache entry), or one a
                # later run would read as one.
                raise OutputError(
                    f"{option} {path}: this is inside the input {input_name} ({input_path}); refusing to write there"
                )
        special = os.path.exists(path) and not os.path.isfile(path)
        for other_option, other in seen.items():
            if not special and (
                _same_file(path, other) if os.path.exists(path) else os.path.abspath(path) == os.path.abspath(other)
            ):
                raise OutputError(f"{option} and {other_option} both write to {path}")
        seen[option] = path
        if os.path.isdir(path):
            raise OutputError(f"{option} {path}: is a directory; give a file name")
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise OutputError(f"{option} {path}: no such directory {os.path.dirname(path) or '.'}")
        suffix = os.path.splitext(path)[1].lower()
        expected = OUTPUT_SUFFIXES.get(format, ())
        if not special and suffix in _KNOWN_SUFFIXES and suffix not in expected:
            what = {
                "json": "a JSON report",
                "yaml": "a YAML report",
                "xlsx": "an Excel workbook",
                "jsonl": "JSON Lines",
                "tsv": "a TSV file",
                "html": "an HTML report",
            }.get(format, format)
            warnings.append(
                RunWarning(f"{option} {path}: the file name ends in {suffix}, but {what} is written", "output-suffix")
            )
    return warnings


_TEMPORARY = ".answerkey-tmp"


def _remove_stale_temporaries(directory: str, name: str) -> None:
    """Temporary files of earlier writes to ``name`` whose process is gone (killed mid-write)."""
    prefix = f".{name}."
    with contextlib.suppress(OSError):
        for entry in os.listdir(directory):
            if not (entry.startswith(prefix) and entry.endswith(_TEMPORARY)):
                continue
            pid_text = entry[len(prefix) : -len(_TEMPORARY)].split("-")[0]
            if not pid_text.isdigit():
                continue
            try:
                os.kill(int(pid_text), 0)
                continue  # still running: another writer's file
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, entry))


def _open_temporary(directory: str, name: str) -> tuple[str, int]:
    for attempt in range(100):
        temporary = os.path.join(directory, f".{name}.{os.getpid()}-{attempt}{_TEMPORARY}")
        try:
            # 0o666 less the umask, as for any new file.
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {name}")


@contextlib.contextmanager
def output_stream(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary stream whose bytes end up at ``path``; raises ``OutputError`` naming ``path``.

    ``-`` is standard output. A regular file (or a new one) is written to a temporary file
    beside it that replaces it only when the block ends without error, keeping an existing
    file's mode; anything else (a device, a FIFO, a terminal) is written directly. A symbolic
    link is followed: the file it points to is replaced, the link stays.
    """
    name = os.fspath(path)
    if name == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    try:
        target = os.path.realpath(name)
        try:
            info: os.stat_result | None = os.stat(name)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "is a directory")
        if info is not None and not stat.S_ISREG(info.st_mode):
            with open(name, "wb") as direct:
                yield direct
            return
        directory, base = os.path.split(target)
        _remove_stale_temporaries(directory, base)
        temporary, descriptor = _open_temporary(directory, base)
    except OSError as error:
        raise OutputError(f"cannot write {name}: {error.strerror or error}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if info is not None:
            os.chmod(temporary, stat.S_IMODE(info.st_mode))
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                with contextlib.suppress(OSError):
                    os.chown(temporary, info.st_uid, info.st_gid)
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError) and not isinstance(error, OutputError):
            raise OutputError(f"cannot write {name}: {error.strerror or error}") from None
        raise


def write_output(path: str | os.PathLike[str], content: str | bytes) -> None:
    """Write ``content`` (text is UTF-8) to ``path`` as ``output_stream`` does."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with output_stream(path) as stream:
        stream.write(data)


# A cache entry's temporary file starts with a dot and ends so: never an entry's name, never read.
_ENTRY_TEMPORARY_SUFFIX = ".tmp"


def write_entry(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating its directory when missing: into a
    temporary file of a unique name beside it (``.<name>.<pid>-<random hex>.tmp``, unique
    across the machines sharing a directory), renamed over ``path``; the temporary is removed
    when anything fails, and the ``OSError`` raised. A reader sees the old entry, the new one
    or none, never part of one.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ab", "abc.json")
    >>> write_entry(path, b"{}"); open(path).read(), os.listdir(os.path.dirname(path))
    ('{}', ['abc.json'])
    """
    # No fsync, unlike write_output (whose outputs are the user's reports): a flush to the
    # disk costs a millisecond or more per entry, most of what filling a cache cost. Without
    # it, a process killed mid-write still leaves no partial entry (the rename is atomic);
    # only a crash of the machine may leave an entry empty or cut short, which the caches'
    # readers refuse (it must parse, be of their format and hold its own key) and compute
    # again: an entry lost is only recomputed.
    directory, name = os.path.split(path)
    temporary = os.path.join(directory, f".{name}.{os.getpid()}-{os.urandom(8).hex()}{_ENTRY_TEMPORARY_SUFFIX}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(temporary, flags, 0o666)  # 0o666 less the umask, as for any new file
    except FileNotFoundError:
        os.makedirs(directory, exist_ok=True)
        descriptor = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_entry(path: str, max_bytes: int) -> bytes:
    """The bytes of the cache entry at ``path``, which ``write_entry`` wrote: a regular file of
    at most ``max_bytes``. ``FileNotFoundError`` when there is none; ``ValueError`` saying why
    when it is something else (a FIFO would block the run, a device or a sparse file hold no end
    of bytes, a symbolic link points anywhere) or too large; ``OSError`` when it cannot be read.
    Checked before it is opened and again on the open file, which is opened without blocking
    and without following a link, so nothing swapped in between is read.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ab", "abc.json")
    >>> write_entry(path, b"{}"); read_entry(path, 2)
    b'{}'
    >>> read_entry(path, 1)
    Traceback (most recent call last):
    ...
    ValueError: it holds 2 bytes, more than the 1 an entry may
    >>> os.mkfifo(path + ".fifo"); read_entry(path + ".fifo", 2)
    Traceback (most recent call last):
    ...
    ValueError: it is not a regular file
    """
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise ValueError("it is not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:  # replaced by a link since lstat
            raise ValueError("it is not a regular file") from None
        raise
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise ValueError("it is not a regular file")
        if status.st_size > max_bytes:
            raise ValueError(f"it holds {status.st_size:,} bytes, more than the {max_bytes:,} an entry may")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise ValueError(f"it holds more than the {max_bytes:,} bytes an entry may")
    return data
