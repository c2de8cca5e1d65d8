"""PostgreSQL databases on a server, read-only, into typed rows (the optional ``answerkey[postgresql]``).

The location is a connection URL, ``postgresql://USER[:PASSWORD]@HOST[:PORT][/DATABASE][?...]``
(or ``postgres://``; libpq's parameters, such as ``host=/run/postgresql`` for a Unix socket
or ``sslmode``, go after ``?``). Without a database, each db_id is a database of that name on
the server (Spider or BIRD loaded one database per db_id); with one, each db_id is a schema
in that database (the query runs with ``search_path`` set to it). A password is kept by the
engine for connecting and never shown: ``Engine.location``, ``Database.location``, reprs
and messages show the URL without it (libpq's ``PGPASSWORD`` and ``~/.pgpass`` work too,
and are better on workers).

What a query may do: read. Each query runs alone in a ``READ ONLY`` transaction that is
rolled back after it, with the session's ``statement_timeout`` at the time limit and a
``lock_timeout`` as long; ``idle_in_transaction_session_timeout`` ends a session that a
stuck client leaves in a transaction. Only one statement runs (psycopg sends the query with
the extended protocol, which refuses several), and it must begin with ``SELECT``, ``WITH``,
``VALUES`` or ``TABLE``: ``COPY``, ``DO``, ``CALL``, ``SET``/``RESET``, ``LISTEN``/
``NOTIFY``, ``PREPARE``, ``EXPLAIN`` and every statement that writes are refused before they
are sent ("only a query that reads may run, not a COPY statement"). Functions that would
outlive the transaction or get around these rules are refused by name wherever the query
calls them: ``set_config`` (it could switch the role back), session-level advisory locks,
``pg_terminate_backend``/``pg_cancel_backend`` (the other workers' sessions), and functions
that run SQL given as text (``query_to_xml`` and its kin, ``ts_stat``, ``ts_rewrite``,
``dblink*``, ``crosstab*``, ``connectby``). Catalogs that hold secrets are refused wherever
a query names them (``SECRET_RELATIONS``: ``pg_authid`` and ``pg_shadow`` with the roles'
password verifiers, ``pg_user_mapping(s)``, ``pg_subscription``, ``pg_largeobject``, the
configuration files' views; and ``lo_get``, ``loread``, ``lo_open``): ``pg_read_all_data``
may read them, and a failing cast would carry a value into the error message and the report.

Roles. When the connecting role may act as ``pg_read_all_data`` (PostgreSQL 14 and later;
a superuser always may), each query runs as that role (``SET LOCAL ROLE``): it reads every
table and can do nothing else, so a superuser's powers (``pg_read_file``, ``COPY ... TO
PROGRAM``, signalling other sessions) are out of reach of the query. A superuser on an older
server is refused. ``pg_read_all_data`` reads the system catalogs too, ``pg_authid`` among
them (refused by name above); a role that cannot read them at all is safer. Recommended: a
dedicated login role granted SELECT on the benchmark's schemas and nothing else::

    CREATE ROLE answerkey_reader LOGIN PASSWORD '...';
    GRANT CONNECT ON DATABASE spider TO answerkey_reader;
    GRANT USAGE ON SCHEMA concert_singer TO answerkey_reader;                 -- each schema
    GRANT SELECT ON ALL TABLES IN SCHEMA concert_singer TO answerkey_reader;
    ALTER ROLE answerkey_reader SET default_transaction_read_only = on;

Values: integers, ``numeric`` (exact, with the server's digits; ``NaN`` nil, infinities
``Inf``/``-Inf``), ``real``/``double precision``, ``boolean``, text types, ``date``,
``timestamp``/``timestamptz`` (the session's time zone is UTC), ``time``/``timetz`` (through
``model.value_of``; one outside Python's years, ``infinity`` included, is the server's text
of it), ``bytea`` (``X'..'``); every other type (``interval`` in ISO 8601, ``json``,
``jsonb``, ``uuid``, arrays, ranges, enums, ``money``, geometric types, ...) is the text
PostgreSQL prints for it, with ``DateStyle=ISO`` and ``IntervalStyle=iso_8601``.

Fingerprint: a SHA-256 digest of the catalog (each table's, view's and materialized view's
schema, name, kind, file node, size on disk, column names and types, a view's definition)
and of the server's statistics counters of rows inserted, updated and deleted per table. It
changes with the schema, with ``TRUNCATE`` and with every committed write, once the writing
session has sent its statistics (at its end, or within about a second of a commit while it
stays open; up to a minute on a busy server); ``pg_stat_reset`` changes it too (a cache miss,
never a stale hit).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import re
import threading
import time
import urllib.parse
from functools import cache, partial
from itertools import islice
from typing import Any

from answerkey.adapters._engines import Connections, Database, LimitedRows, NoDatabase, checked_limits
from answerkey.adapters.sql import (
    QueryResult,
    arm_alarm,
    db_id_problem,
    disarm_alarm,
    past_time_limit,
    query_problem,
)
from answerkey.gc_pause import gc_paused
from answerkey.limits import SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT

NOT_INSTALLED = "psycopg is not installed (pip install 'answerkey[postgresql]')"

# What a query's first word may be: the statements that only read.
_READING = frozenset({"select", "with", "values", "table"})
# Functions refused wherever a query calls them, by name (and the prefixes of families).
REFUSED_FUNCTIONS = frozenset(
    {
        "set_config",
        "pg_advisory_lock",
        "pg_advisory_lock_shared",
        "pg_try_advisory_lock",
        "pg_try_advisory_lock_shared",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "query_to_xml",
        "query_to_xmlschema",
        "query_to_xml_and_xmlschema",
        "cursor_to_xml",
        "cursor_to_xmlschema",
        "ts_stat",
        "ts_rewrite",
        "connectby",
    }
)
_REFUSED_PREFIXES = ("dblink", "crosstab")
# Catalogs that hold secrets (password verifiers, user mappings' and subscriptions' connection
# options, large objects' contents, the server's configuration files), refused wherever a
# query names them: pg_read_all_data may read them, and an error message can carry a value
# out ("invalid input syntax for type integer: "SCRAM-SHA-256$...").
SECRET_RELATIONS = frozenset(
    {
        "pg_authid",
        "pg_shadow",
        "pg_user_mapping",
        "pg_user_mappings",
        "pg_subscription",
        "pg_largeobject",
        "pg_file_settings",
        "pg_hba_file_rules",
        "pg_ident_file_mappings",
    }
)
# Functions that read large objects' contents (kept in pg_largeobject).
_SECRET_FUNCTIONS = frozenset({"lo_get", "loread", "lo_open"})

# Whether the login role is a superuser, and whether it may act as pg_read_all_data.
_ROLE_SQL = (
    "SELECT r.rolsuper, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pg_read_all_data') "
    "AND pg_has_role(current_user, 'pg_read_all_data', 'MEMBER') FROM pg_roles r WHERE r.rolname = current_user"
)
# How each query's transaction begins: read-only, and as pg_read_all_data when the role may.
_BEGIN = b"BEGIN READ ONLY"
_BEGIN_AS_READER = b"BEGIN READ ONLY; SET LOCAL ROLE pg_read_all_data"
# Rows fetched from the server at a time (libpq 17 and later; one at a time before).
_CHUNK = 1024
# A client-side cancel this long past the deadline, should the server's statement_timeout not act.
_CANCEL_GRACE = 1.0
# A session the client leaves idle inside a transaction is ended after this long (at least).
_IDLE_IN_TRANSACTION = 60.0

# PostgreSQL's tokens, as far as the checks need them: comments, literals, identifiers.
# Compiled on first use (``_token_pattern``): its classes span all of Unicode, which takes
# ``re`` about 10 ms, and every ``answerkey sql`` imports this module, most runs for SQLite.
_TOKEN = (
    r"""
      (?P<space>\s+|--[^\n]*)
    | (?P<comment>/\*)
    | (?P<string>[Ee]'(?:[^'\\]|\\.|'')*'|[BbXxNn]?'(?:[^']|'')*'|[Uu]&'(?:[^']|'')*')
    | (?P<dollar>\$(?:[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_\x80-\U0010ffff]*)?\$)
    | (?P<quoted>(?:[Uu]&)?"(?:[^"]|"")*")
    | (?P<word>[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_$\x80-\U0010ffff]*)
    | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@cache
def _token_pattern() -> re.Pattern[str]:
    return re.compile(*_TOKEN)


_HEX = re.compile(r"[0-9A-Fa-f]+")
_UESCAPE = re.compile(r"\s*UESCAPE\s*'(.)'", re.IGNORECASE | re.DOTALL)

# The catalog and statistics that the fingerprint digests, in a stable order.
_FINGERPRINT_SQL = """
SELECT txid_current_snapshot()::text, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
UNION ALL (
SELECT n.nspname, c.relname, c.relkind::text, c.relfilenode::text, pg_relation_size(c.oid)::text,
       coalesce(s.n_tup_ins, 0)::text, coalesce(s.n_tup_upd, 0)::text, coalesce(s.n_tup_del, 0)::text,
       (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
          FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
       CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid
 WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
   AND n.nspname NOT IN ('pg_catalog', 'information_schema')
   AND n.nspname NOT LIKE 'pg\\_toast%%' AND n.nspname NOT LIKE 'pg\\_temp\\_%%'
   AND (%(schema)s::text IS NULL OR n.nspname = %(schema)s::text)
 ORDER BY 1, 2)
"""


def is_postgresql_url(location: str) -> bool:
    """Whether ``location`` is a PostgreSQL URL (``postgresql://`` or ``postgres://``).

    >>> is_postgresql_url("postgres://db.example/spider"), is_postgresql_url("/data/spider")
    (True, False)
    """
    return location.lower().startswith(("postgresql://", "postgres://"))


def url_without_password(url: str) -> str:
    """``url`` with its password (in the user part, or a ``password`` parameter) removed.

    >>> url_without_password("postgresql://reader:s3cret@db.example:5432/spider?sslmode=require&password=x")
    'postgresql://reader@db.example:5432/spider?sslmode=require'
    """
    return _split_password(url)[0]


def _split_password(url: str) -> tuple[str, str | None]:
    """The URL without its password, and the password (None if it has none)."""
    parts = urllib.parse.urlsplit(url)
    password = None
    netloc = parts.netloc
    who, at, where = netloc.rpartition("@")
    if at and ":" in who:
        user, _, secret = who.partition(":")
        password = urllib.parse.unquote(secret)
        netloc = f"{user}@{where}"
    query = []
    for name, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
        if name == "password":
            password = value
        else:
            query.append((name, value))
    text = _url(parts._replace(netloc=netloc, query=_query_text(query)))
    return text, password


def _url(parts: urllib.parse.SplitResult) -> str:
    """A URL from its parts, keeping ``//`` when the host is empty (a Unix socket given by
    ``?host=``), which ``urlunsplit`` drops."""
    text = f"{parts.scheme}://{parts.netloc}{parts.path}"
    if parts.query:
        text += "?" + parts.query
    if parts.fragment:
        text += "#" + parts.fragment
    return text


def _query_text(pairs: list[tuple[str, str]]) -> str:
    """URL parameters as libpq reads them: spaces as ``%20``, never ``+``."""
    return urllib.parse.urlencode(pairs, quote_via=urllib.parse.quote)


def refusal(query: str) -> str | None:
    """Why ``query`` may not run on PostgreSQL (a statement that does not only read, a refused
    function), or None. Comments, string literals and quoted names are read as PostgreSQL
    reads them, so a word inside them is not a call.

    >>> refusal("SELECT name FROM item -- DROP TABLE item") is None
    True
    >>> refusal("COPY (SELECT 1) TO PROGRAM 'id'")
    'only a query that reads may run, not a COPY statement'
    >>> refusal("SELECT pg_catalog.set_config('role', 'postgres', true)")
    'the function set_config may not run: it could change the session or run other SQL'
    >>> refusal("SELECT rolpassword::int FROM pg_catalog.pg_authid")
    'pg_authid may not be read: it holds passwords or other secrets'
    """
    words = _words(query)
    if not words:
        return "the query is empty"
    first, _, quoted = words[0]
    if quoted or first not in _READING:
        shown = first.upper() if not quoted and first.isascii() and first.isidentifier() else repr(first)
        return f"only a query that reads may run, not {'an' if shown[0] in 'AEIOU' else 'a'} {shown} statement"
    for word, called, _ in words:
        if called and (word in REFUSED_FUNCTIONS or word.startswith(_REFUSED_PREFIXES)):
            return f"the function {word} may not run: it could change the session or run other SQL"
        if word in SECRET_RELATIONS or (called and word in _SECRET_FUNCTIONS):
            return f"{word} may not be read: it holds passwords or other secrets"
    return None


def _words(query: str) -> list[tuple[str, bool, bool]]:
    """The names in ``query`` as PostgreSQL folds them, each with whether a ``(`` follows it
    (a call) and whether it was quoted (never a keyword); literals and comments skipped."""
    words: list[tuple[str, bool, bool]] = []
    position, end = 0, len(query)
    pending: tuple[str, bool] | None = None
    token_at = _token_pattern().match
    while position < end:
        match = token_at(query, position)
        if match is None:  # never: "other" takes any character
            break
        kind, token = match.lastgroup, match.group()
        position = match.end()
        if kind == "space":
            continue
        if kind == "comment":
            position = _comment_end(query, match.start())
            continue
        if kind == "dollar":
            close = query.find(token, position)
            position = end if close < 0 else close + len(token)
        if pending is not None:
            words.append((pending[0], token == "(", pending[1]))
            pending = None
        if kind == "word":
            pending = (token.lower(), False)
        elif kind == "quoted" and token[0] in "Uu":
            escape = "\\"
            clause = _UESCAPE.match(query, position)
            if clause:
                escape, position = clause.group(1), clause.end()
            pending = (_unicode_escapes(token[3:-1].replace('""', '"'), escape), True)
        elif kind == "quoted":
            pending = (token[1:-1].replace('""', '"'), True)
    if pending is not None:
        words.append((pending[0], False, pending[1]))
    return words


def _comment_end(query: str, start: int) -> int:
    """Where the (nested) block comment that opens at ``start`` ends."""
    depth, position = 0, start
    while position < len(query):
        if query.startswith("/*", position):
            depth += 1
            position += 2
        elif query.startswith("*/", position):
            depth -= 1
            position += 2
            if depth == 0:
                return position
        else:
            position += 1
    return len(query)


def _unicode_escapes(body: str, escape: str) -> str:
    out, position = [], 0
    while position < len(body):
        char = body[position]
        if char == escape:
            if body.startswith(escape, position + 1):
                out.append(escape)
                position += 2
                continue
            long_form, short_form = body[position + 2 : position + 8], body[position + 1 : position + 5]
            if body.startswith("+", position + 1) and _HEX.fullmatch(long_form):
                code, width = int(long_form, 16), 8
            elif _HEX.fullmatch(short_form):
                code, width = int(short_form, 16), 5
            else:
                out.append(char)
                position += 1
                continue
            out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
            position += width
            continue
        out.append(char)
        position += 1
    return "".join(out)


class PostgreSQLEngine:
    """Databases (or schemas) on a PostgreSQL server named by a URL; see the module's docs.

    >>> engine = PostgreSQLEngine("postgresql://reader:s3cret@db.example/")
    >>> engine.location, engine
    ('postgresql://reader@db.example/', PostgreSQLEngine('postgresql://reader@db.example/', timeout=30, ...))
    >>> engine.databases("../etc")
    Traceback (most recent call last):
      ...
    answerkey.adapters._engines.NoDatabase: not a database name: '../etc'
    """

    name = "postgresql"

    def __init__(
        self,
        url: str,
        *,
        timeout: float = SQL_TIMEOUT,
        max_rows: int = SQL_MAX_ROWS,
        max_result_bytes: int = SQL_MAX_RESULT_BYTES,
    ) -> None:
        self.timeout, self.max_rows, self.max_result_bytes = checked_limits(timeout, max_rows, max_result_bytes)
        if not is_postgresql_url(url):
            raise ValueError(f"not a PostgreSQL URL: {url_without_password(url)!r} (postgresql://...)")
        self.location, self._password = _split_password(url)
        parts = urllib.parse.urlsplit(self.location)
        # The database the URL names (each db_id a schema in it), or None (each db_id a database).
        self.database = urllib.parse.unquote(parts.path.lstrip("/")) or None
        self.connections: Connections[Any] = Connections(_close)
        # Per process: the db_ids found, and how a transaction begins at each location (as
        # pg_read_all_data when the login role may act as it).
        self._known: dict[str, str] = {}
        self._begin: dict[str, bytes] = {}

    def databases(self, db_id: str) -> tuple[Database, ...]:
        """The database ``db_id`` on the server (or the schema ``db_id`` in the URL's
        database); ``NoDatabase`` if it cannot be reached or does not exist."""
        problem = db_id_problem(db_id)
        if problem is not None:
            raise NoDatabase(problem)
        if db_id in self._known:
            return (Database(self.name, db_id, db_id, self._known[db_id]),)
        database = Database(self.name, db_id, db_id, self._location_of(db_id))
        try:
            import psycopg
        except ImportError:
            raise NoDatabase(NOT_INSTALLED) from None
        try:
            connection = self.connections.take(database.location, lambda: self._connect(psycopg, database.location))
        except psycopg.Error as error:
            message = _message(error)
            if f'database "{db_id}" does not exist' in message and self.database is None:
                raise NoDatabase(f"no database {db_id!r} on the server {self.location!r}") from None
            raise NoDatabase(f"cannot connect to the database {db_id!r}: {message}") from None
        try:
            if self.database is not None:
                found = connection.execute(
                    "SELECT 1 FROM pg_namespace WHERE nspname = %s", (db_id,), prepare=False
                ).fetchone()
                if found is None:
                    raise NoDatabase(f"no schema {db_id!r} in the database {self.database!r} of {self.location!r}")
        except psycopg.Error as error:
            self.connections.discard(connection)
            raise NoDatabase(f"cannot read the database {db_id!r}: {_message(error)}") from None
        except BaseException:
            self.connections.discard(connection)
            raise
        self.connections.give_back(database.location, connection)
        self._known[db_id] = database.location
        return (database,)

    def _location_of(self, db_id: str) -> str:
        """The URL (without password) that connects to ``db_id``: the database replaced, or
        the schema set by the ``options`` parameter."""
        parts = urllib.parse.urlsplit(self.location)
        if self.database is None:
            return _url(parts._replace(path="/" + urllib.parse.quote(db_id, safe="")))
        query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        schema = '"' + db_id.replace('"', '""') + '"'
        options = [value for name, value in query if name == "options"]
        extra = f"-c search_path={_escape_option(schema)}"
        query = [(name, value) for name, value in query if name != "options"]
        query.append(("options", " ".join([*options, extra])))
        return _url(parts._replace(query=_query_text(query)))

    def run(self, database: Database, query: str) -> QueryResult:
        """Run ``query`` on ``database`` in a read-only transaction within the limits."""
        if database.engine != self.name:
            return QueryResult(error=f"the database {database.label} is not a PostgreSQL database")
        problem = query_problem(query)
        if problem is None and "\0" in query:
            problem = "the query holds a NUL character, which PostgreSQL does not take"
        if problem is None:
            problem = refusal(query)
        if problem is not None:
            return QueryResult(error=problem)
        try:
            import psycopg
        except ImportError:
            return QueryResult(error=NOT_INSTALLED)
        for attempt in range(2):
            opened: list[bool] = []
            try:
                connection = self.connections.take(
                    database.location, partial(self._connect, psycopg, database.location, opened)
                )
            except psycopg.Error as error:
                return QueryResult(error=f"cannot connect to the database {database.label}: {_message(error)}")
            try:
                result = self._run(psycopg, connection, database.location, query)
            except psycopg.OperationalError as error:
                self.connections.discard(connection)
                if attempt == 0 and not opened:
                    continue  # a kept session had ended (a server restart, an idle timeout): a new one
                return QueryResult(error=f"the connection to the database {database.label} failed: {_message(error)}")
            except BaseException:
                self.connections.discard(connection)
                raise
            if connection.closed or connection.info.transaction_status != 0:  # not idle: never reuse it
                self.connections.discard(connection)
            else:
                self.connections.give_back(database.location, connection)
            return result
        raise AssertionError("unreachable: the second attempt returns")

    def fingerprint(self, database: Database) -> str:
        """A digest of the catalog and of the write counters (see the module's docs); ``absent``
        when the database cannot be read."""
        try:
            import psycopg
        except ImportError:
            return "absent"
        schema = database.db_id if self.database is not None else None
        try:
            connection = self.connections.take(database.location, lambda: self._connect(psycopg, database.location))
        except psycopg.Error:
            return "absent"
        digest = hashlib.sha256()
        try:
            connection.execute("BEGIN READ ONLY")
            try:
                for row in connection.execute(_FINGERPRINT_SQL, {"schema": schema}, prepare=False):
                    digest.update(repr(row).encode("utf-8", "surrogatepass"))
            finally:
                connection.execute("ROLLBACK")
        except psycopg.Error:
            self.connections.discard(connection)
            return "absent"
        except BaseException:
            self.connections.discard(connection)
            raise
        self.connections.give_back(database.location, connection)
        return "postgresql:" + digest.hexdigest()

    def close(self) -> None:
        """Close this process's open connections."""
        self.connections.close()

    def _connect(self, psycopg: Any, location: str, opened: list[bool] | None = None) -> Any:
        """A new session to ``location``: autocommit (each query opens its own transaction),
        UTC, ISO dates and intervals, the time limits, values loaded as ``_context`` says.
        Appends True to ``opened``, if given."""
        if opened is not None:
            opened.append(True)
        parameters = psycopg.conninfo.conninfo_to_dict(location)
        if self._password is not None and "password" not in parameters:
            parameters["password"] = self._password
        milliseconds = _milliseconds(self.timeout)
        settings = {
            "TimeZone": "UTC",
            "DateStyle": "ISO",
            "IntervalStyle": "iso_8601",
            "statement_timeout": milliseconds,
            "lock_timeout": milliseconds,
            "idle_in_transaction_session_timeout": max(milliseconds, _milliseconds(_IDLE_IN_TRANSACTION)),
            "default_transaction_read_only": "on",
        }
        extra = " ".join(f"-c {name}={value}" for name, value in settings.items())
        parameters["options"] = f"{parameters['options']} {extra}" if parameters.get("options") else extra
        parameters.setdefault("application_name", "answerkey")
        parameters.setdefault("connect_timeout", "10")
        connection = psycopg.connect(autocommit=True, context=_context(psycopg), **parameters)
        try:
            drop = connection.execute(_ROLE_SQL, prepare=False).fetchone()
            superuser, can_drop = drop if drop is not None else (False, False)
            if superuser and not can_drop:
                raise psycopg.OperationalError(
                    "the role is a superuser and the server has no pg_read_all_data role to run queries as "
                    "(PostgreSQL 14 and later): connect as a role that can only read"
                )
            self._begin[location] = _BEGIN_AS_READER if can_drop else _BEGIN
        except BaseException:
            connection.close()
            raise
        return connection

    def _run(self, psycopg: Any, connection: Any, location: str, query: str) -> QueryResult:
        """Run ``query`` with psycopg's fast loaders; if one cannot hold a value (a date past
        9999, ``infinity``), once more with loaders that give such values as text."""
        result = self._attempt(psycopg, connection, location, query, tolerant=False)
        if result is None:
            result = self._attempt(psycopg, connection, location, query, tolerant=True)
        return result or QueryResult(error="a value of the result cannot be read")

    def _attempt(
        self, psycopg: Any, connection: Any, location: str, query: str, *, tolerant: bool
    ) -> QueryResult | None:
        """One run of ``query`` in its own read-only transaction; None when a value could not
        be loaded and ``tolerant`` was False."""
        expired = threading.Event()

        def cancel() -> None:
            expired.set()
            # Quick: one message on a new socket. The session may have ended meanwhile.
            with contextlib.suppress(Exception):
                connection.pgconn.get_cancel().cancel()

        chunk = _CHUNK if psycopg.capabilities.has_stream_chunked() else 1
        connection.execute(self._begin.get(location, _BEGIN))
        alarm = (
            arm_alarm(time.monotonic() + self.timeout + _CANCEL_GRACE, cancel) if math.isfinite(self.timeout) else None
        )
        try:
            started = time.perf_counter()
            cursor = connection.cursor()
            if tolerant:
                for name, loader in _tolerant_loaders(psycopg):
                    cursor.adapters.register_loader(name, loader)
            kept = LimitedRows(self.max_rows, self.max_result_bytes)
            try:
                # Millions of values, none garbage: the cyclic collector would walk all kept
                # so far again and again (for a 1,000,000-row result, most of the time).
                # closing: a stream left at a limit is ended before the transaction is.
                with gc_paused(), contextlib.closing(cursor.stream(query.encode("utf-8"), size=chunk)) as stream:
                    # The rows of each chunk the server sends, kept (or converted) together.
                    while batch := list(islice(stream, kept.batch_size(chunk))):
                        problem = kept.add(batch)
                        if problem is not None:
                            return QueryResult(error=problem)
                seconds = time.perf_counter() - started - kept.converting
                columns = tuple(column.name for column in cursor.description or ())
            except psycopg.errors.QueryCanceled as error:
                if expired.is_set() or "statement timeout" in str(error):
                    return QueryResult(error=past_time_limit(self.timeout))
                return QueryResult(error=_message(error))
            except psycopg.errors.LockNotAvailable:
                return QueryResult(error=past_time_limit(self.timeout))
            except psycopg.OperationalError:
                raise
            except psycopg.DataError as error:
                if error.sqlstate is None and not tolerant:  # psycopg's loader, not the server
                    return None
                return QueryResult(error=_message(error))
            except psycopg.Error as error:
                message = _message(error)
                if "multiple commands" in message:
                    return QueryResult(error="one statement may run, and the query has several")
                if "didn't produce a result" in message:
                    return QueryResult(error="only a query that returns rows may run")
                return QueryResult(error=message)
            except MemoryError:
                return QueryResult(error="the query's result does not fit in memory")
            except (ValueError, OverflowError, TypeError) as error:
                return QueryResult(error=str(error) or "a value of the result cannot be read")
        finally:
            if alarm is not None:
                disarm_alarm(alarm)
            if not connection.closed:
                try:
                    connection.execute("ROLLBACK")
                except psycopg.Error:
                    connection.close()
        return kept.result(columns, seconds)

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_known"], state["_begin"] = {}, {}
        return state

    def __repr__(self) -> str:
        return (
            f"PostgreSQLEngine({self.location!r}, timeout={self.timeout:g}, max_rows={self.max_rows}, "
            f"max_result_bytes={self.max_result_bytes})"
        )


def _milliseconds(seconds: float) -> int:
    """A time limit in milliseconds, as PostgreSQL's settings take it (0 is none; at most 2^31-1)."""
    if not math.isfinite(seconds):
        return 0
    return max(1, min(math.ceil(seconds * 1000), 2**31 - 1))


def _escape_option(value: str) -> str:
    """A value inside libpq's ``options`` (spaces and backslashes escaped with a backslash)."""
    return value.replace("\\", "\\\\").replace(" ", "\\ ")


def _close(connection: Any) -> None:
    connection.close()


def _message(error: BaseException) -> str:
    """The server's (or libpq's) message, first line, without Python's decoration."""
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0].strip()


_CONTEXTS: dict[int, Any] = {}
_CONTEXT_LOCK = threading.Lock()

# The types loaded as Python values; every other type is the text PostgreSQL prints.
_TYPED = frozenset(
    {
        "int2",
        "int4",
        "int8",
        "oid",
        "float4",
        "float8",
        "numeric",
        "bool",
        "text",
        "varchar",
        "bpchar",
        "name",
        "char",
        "bytea",
        "date",
        "timestamp",
        "timestamptz",
        "time",
        "timetz",
    }
)


def _context(psycopg: Any) -> Any:
    """The adaptation context of every connection: psycopg's own loaders for ``_TYPED`` types,
    the server's text for every other type. Built once per process."""
    with _CONTEXT_LOCK:
        context = _CONTEXTS.get(id(psycopg))
        if context is not None:
            return context
        from psycopg import postgres
        from psycopg.adapt import AdaptersMap
        from psycopg.types.string import TextLoader

        adapters = AdaptersMap(psycopg.adapters)
        for info in postgres.types:
            if info.name not in _TYPED:
                adapters.register_loader(info.oid, TextLoader)
            if info.array_oid:
                adapters.register_loader(info.array_oid, TextLoader)

        class Context:
            def __init__(self) -> None:
                self.adapters = adapters
                self.connection = None

        context = _CONTEXTS[id(psycopg)] = Context()
        return context


def _tolerant_loaders(psycopg: Any) -> list[tuple[str, Any]]:
    """Loaders of dates and times that give the server's text for a value Python cannot hold
    (``infinity``, a year before 1 or after 9999): slower than psycopg's own (which are C
    classes, not to be subclassed), so used only for a result that needs them."""
    from psycopg.types import datetime as pg_datetime

    return [
        (name, _text_when_out_of_range(psycopg, loader))
        for name, loader in (
            ("date", pg_datetime.DateLoader),
            ("timestamp", pg_datetime.TimestampLoader),
            ("timestamptz", pg_datetime.TimestamptzLoader),
            ("time", pg_datetime.TimeLoader),
            ("timetz", pg_datetime.TimetzLoader),
        )
    ]


def _text_when_out_of_range(psycopg: Any, loader: Any) -> Any:
    """``loader`` that gives the server's text for a value Python cannot hold (``infinity``,
    a year before 1 or after 9999)."""

    class Loader(loader):
        def load(self, data: Any) -> Any:
            try:
                return super().load(data)
            except (psycopg.DataError, ValueError, OverflowError):
                return bytes(data).decode("utf-8", "replace")

    Loader.__name__ = Loader.__qualname__ = f"Textual{loader.__name__}"
    return Loader
