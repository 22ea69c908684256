"""Live-server harness of the benchmarks: a fresh PostgreSQL database, migrations, gunicorn."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from _client import request
from _common import PG, ROOT  # puts the repository on sys.path
from _stats import load_average, machine, revision


def bench_env(database_url: str, var_dir: Path) -> dict[str, str]:
    """The environment of ``manage.py``, the loader and gunicorn: production settings on HTTP.

    Args:
        database_url: the benchmark database.
        var_dir: a temporary ``LOUPE_VAR_DIR`` (embedded broker folders, static files).

    Returns:
        A copy of ``os.environ`` with Loupe's settings replaced.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND", "STATIC_ROOT"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url,
        LOUPE_VAR_DIR=str(var_dir),
        DEBUG="0",
        SECRET_KEY="bench-" + "k" * 50,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0",
        LOG_LEVEL="WARNING",
        # Every simulated user asks for a token from 127.0.0.1 (the save benchmark: 50).
        LOUPE_TOKEN_RATE="10000/min",
        PYTHONPATH=str(ROOT),
    )
    return env


@contextlib.contextmanager
def bench_database(prefix: str = "loupe_bench") -> Iterator[str]:
    """Create a fresh PostgreSQL database and drop it afterwards, also on failure.

    Args:
        prefix: the database name is ``<prefix>_<pid>``.

    Yields:
        Its ``DATABASE_URL``.
    """
    import psycopg2

    name = f"{prefix}_{os.getpid()}"

    def admin(sql: str) -> None:
        connection = psycopg2.connect(dbname="postgres", **PG)
        try:
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute(sql)
        finally:
            connection.close()

    admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgres://{PG['user']}@{PG['host']}:{PG['port']}/{name}"
    finally:
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        print(f"dropped database {name}")


def postgres_missing(script: str) -> bool:
    """Print that ``script`` is skipped when PostgreSQL does not answer at ``PG``.

    Args:
        script: the benchmark's name, for the message.

    Returns:
        True (after printing the message) when no connection can be made, else False.
    """
    import psycopg2

    try:
        psycopg2.connect(dbname="postgres", connect_timeout=5, **PG).close()
    except psycopg2.OperationalError as error:
        print(
            f"{script}: skipped, PostgreSQL does not answer at {PG['host']}:{PG['port']} "
            f"(user {PG['user']}): {str(error).strip()}"
        )
        return True
    return False


def sigterm_as_exit() -> None:
    """Turn SIGTERM into SystemExit so that the clean-up in ``finally`` blocks runs."""

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """Run ``manage.py`` with ``env``; raise with its output if it fails.

    Args:
        env: the environment from :func:`bench_env`.
        *args: the command and its arguments.

    Returns:
        The completed process.
    """
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def run_loader(env: dict[str, str], script: Path, *args: str) -> dict:
    """Run ``script --load ...`` (Django set up in a child process); return its JSON answer.

    Args:
        env: the environment from :func:`bench_env`.
        script: the benchmark script, which handles ``--load``.
        *args: more arguments for the loader.

    Returns:
        The JSON object printed on the child's last line of output.
    """
    done = subprocess.run(
        [sys.executable, str(script), "--load", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,  # stderr passes through (warnings, --show-queries)
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"loading the data failed (exit {done.returncode}):\n{done.stdout}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Gunicorn:
    """A gunicorn serving ``config.wsgi`` on loopback, with an access log of server times."""

    env: dict[str, str]
    log_dir: Path
    workers: int = 2
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def access_log(self) -> Path:
        return self.log_dir / "access.log"

    @property
    def error_log(self) -> Path:
        return self.log_dir / "error.log"

    def __enter__(self) -> Gunicorn:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "-b",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(self.workers),
                "--access-logfile",
                str(self.access_log),
                # method, path, status, request time in microseconds
                "--access-logformat",
                "%(m)s %(U)s %(s)s %(D)s",
                "--error-logfile",
                str(self.error_log),
            ],
            env=self.env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.error_tail()}")
            try:
                if request(self.port, "GET", "/api/me/").status == 401:
                    return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError(f"gunicorn did not answer within 60 s:\n{self.error_tail()}")
            time.sleep(0.2)

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: graceful stop of the arbiter and its workers
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def error_tail(self, lines: int = 30) -> str:
        if not self.error_log.exists():
            return "(no error log)"
        return "\n".join(self.error_log.read_text(errors="replace").splitlines()[-lines:])

    def log_offset(self) -> int:
        """The access log's current size: pass it to :meth:`server_times` to read what follows."""
        return self.access_log.stat().st_size if self.access_log.exists() else 0

    def server_times(self, offset: int, settle: float = 0.3) -> list[tuple[str, str, int, float]]:
        """The access-log entries written after ``offset``.

        Args:
            offset: a value of :meth:`log_offset`.
            settle: seconds to wait first (gunicorn logs just after sending the response).

        Returns:
            ``(method, path, status, milliseconds)`` per request, in log order.
        """
        time.sleep(settle)
        with self.access_log.open("rb") as log:
            log.seek(offset)
            text = log.read().decode(errors="replace")
        entries = []
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2].isdigit() and parts[3].isdigit():
                entries.append((parts[0], parts[1], int(parts[2]), int(parts[3]) / 1000))
        return entries


def bench_start(script: str) -> bool:
    """The start every live-server benchmark shares: PostgreSQL there, SIGTERM handled, and the
    machine line printed. False (after saying why) when PostgreSQL cannot be reached."""
    if postgres_missing(script):
        return False
    sigterm_as_exit()
    print(f"machine: {machine()}; {revision()}; load average {load_average()}")
    return True


@contextlib.contextmanager
def bench_workdir() -> Iterator[tuple[Path, dict[str, str]]]:
    """A temporary folder and a fresh database, with the environment that points at both;
    both are removed at the end, also on failure."""
    with tempfile.TemporaryDirectory(prefix="loupe-bench-") as tmp, bench_database() as url:
        folder = Path(tmp)
        yield folder, bench_env(url, folder / "var")
