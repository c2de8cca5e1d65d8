"""A throwaway PostgreSQL server for tests: initdb and pg_ctl on a Unix socket in a temporary
directory, no TCP port, fsync off, stopped and removed at the end.

``find_binaries()`` is the directory holding ``initdb`` and ``pg_ctl`` (on PATH, or Debian's
``/usr/lib/postgresql/<version>/bin``), or None. ``PostgresServer.start()`` starts one; as
root (initdb refuses root) it runs as the ``postgres`` user if there is one, else as
``nobody``, with the directory owned by that user. ``server.url(database, user=...)`` is a
``postgresql://`` URL over the socket; ``server.execute(database, sql)`` runs SQL as the
superuser ``answerkey`` (autocommit, several statements allowed); ``server.create_database(
name, sql)`` makes a database and fills it.

``postgres_server`` is the session-scoped pytest fixture: a ``conftest.py`` imports it
(``from postgres_server import postgres_server``) to offer it to the tests below it. In CI
(``CI`` set) a missing server fails the tests loudly; elsewhere they are skipped, with the
reason, only when the PostgreSQL binaries are absent.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import urllib.parse
from pathlib import Path

import pytest

SUPERUSER = "answerkey"
PORT = 5432


def find_binaries() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``: on PATH, else the newest Debian version's."""
    found = shutil.which("initdb")
    if found is not None:
        directory = Path(os.path.realpath(found)).parent
        if (directory / "pg_ctl").exists():
            return directory
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(Path(path).parts[-3].split(".")[0])
    )
    return Path(candidates[-1]).parent if candidates else None


class PostgresServer:
    """One running server: its socket directory, data directory and the user it runs as."""

    def __init__(self, base: Path, binaries: Path, user: pwd.struct_passwd | None) -> None:
        self.base = base
        self.binaries = binaries
        self.user = user
        self.data = base / "data"
        self.socket = base / "socket"
        self.log = base / "server.log"

    @classmethod
    def start(cls, binaries: Path) -> PostgresServer:
        """Initialise and start a server in a new temporary directory (under /tmp, which every
        user can reach)."""
        base = Path(tempfile.mkdtemp(prefix="answerkey-pg-", dir="/tmp"))
        user = None
        if os.geteuid() == 0:
            for name in ("postgres", "nobody"):
                with contextlib.suppress(KeyError):
                    user = pwd.getpwnam(name)
                    break
        server = cls(base, binaries, user)
        try:
            server.socket.mkdir()
            if user is not None:
                for path in (base, server.socket):
                    os.chown(path, user.pw_uid, user.pw_gid)
            server._run(
                "initdb",
                "-D",
                str(server.data),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            )
            options = f"-c listen_addresses='' -k {server.socket} -p {PORT} -c fsync=off -c full_page_writes=off"
            server._run(
                "pg_ctl", "-D", str(server.data), "-o", options, "-l", str(server.log), "-w", "-t", "60", "start"
            )
        except BaseException:
            log = server.log.read_text(errors="replace") if server.log.exists() else ""
            shutil.rmtree(base, ignore_errors=True)
            if log:
                raise RuntimeError(f"the PostgreSQL server did not start:\n{log}") from None
            raise
        return server

    def stop(self) -> None:
        """Stop the server at once and remove its directory."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.base, ignore_errors=True)

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.binaries / program), *args]
        if self.user is not None:
            if shutil.which("runuser"):
                command = ["runuser", "-u", self.user.pw_name, "--", *command]
            else:
                command = [
                    "setpriv",
                    f"--reuid={self.user.pw_uid}",
                    f"--regid={self.user.pw_gid}",
                    "--clear-groups",
                    *command,
                ]
        result = subprocess.run(command, cwd=self.base, capture_output=True, text=True, check=False, timeout=120)
        if result.returncode != 0:
            raise subprocess.CalledProcessError(result.returncode, command, result.stdout, result.stderr)

    def url(self, database: str = "postgres", *, user: str = SUPERUSER, password: str | None = None) -> str:
        """A ``postgresql://`` URL of ``database`` over the server's socket."""
        who = urllib.parse.quote(user, safe="")
        if password is not None:
            who += ":" + urllib.parse.quote(password, safe="")
        host = urllib.parse.quote(str(self.socket), safe="")
        return f"postgresql://{who}@/{urllib.parse.quote(database, safe='')}?host={host}&port={PORT}"

    def execute(self, database: str, sql: str) -> list[tuple]:
        """Run ``sql`` (one or more statements) on ``database`` as the superuser, autocommit;
        the rows of the last statement, if it returned any."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as connection:
            cursor = connection.execute(sql.encode())
            return cursor.fetchall() if cursor.description is not None else []

    def create_database(self, name: str, sql: str = "") -> None:
        """Create the database ``name`` (dropping one of that name first) and run ``sql`` in it."""
        quoted = '"' + name.replace('"', '""') + '"'
        self.execute("postgres", f"DROP DATABASE IF EXISTS {quoted} WITH (FORCE)")
        self.execute("postgres", f"CREATE DATABASE {quoted}")
        if sql:
            self.execute(name, sql)


@pytest.fixture(scope="session")
def postgres_server():
    """A running PostgreSQL server on a Unix socket, stopped when the session ends."""
    binaries = find_binaries()
    if binaries is None:
        reason = "PostgreSQL is not installed (no initdb on PATH nor under /usr/lib/postgresql)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: CI must have it (.ci/run installs it)")
        pytest.skip(reason)
    server = PostgresServer.start(binaries)
    yield server
    server.stop()
