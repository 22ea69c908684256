"""The quickstart's run path: migrate, demo, then `manage.py serve` with its own worker."""

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EMBEDDED_ONLY = {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=15) as response:  # noqa: S310 - loopback only
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_serve_runs_the_web_server_and_a_worker_on_embedded_defaults(tmp_path):
    """Also checks that SIGTERM to `serve` stops its worker too (no orphaned process)."""
    env = {k: v for k, v in os.environ.items() if k not in EMBEDDED_ONLY}
    env.update(DEBUG="1", LOUPE_VAR_DIR=str(tmp_path / "var"), CELERY_QUEUE="loupe-serve-test")
    manage = [sys.executable, "manage.py"]
    for command in (["migrate", "--noinput", "-v0"], ["demo"]):
        subprocess.run(manage + command, cwd=ROOT, env=env, check=True, capture_output=True)
    port = _free_port()
    server = subprocess.Popen(  # noqa: S603 - fixed argv
        manage + ["serve", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        status, body = 0, ""
        while time.monotonic() < deadline:
            try:
                status, body = _get(f"http://127.0.0.1:{port}/healthz")
            except OSError:
                status = 0
            if status == 200:
                break
            time.sleep(1)
        assert status == 200, body
        assert '"worker": {"ok": true' in body and '"embedded": true' in body
        status, page = _get(f"http://127.0.0.1:{port}/login/")
        assert status == 200 and 'name="password"' in page
    finally:
        server.send_signal(signal.SIGTERM)  # to `serve` only, not its process group
        orphaned = False
        try:
            output = server.communicate(timeout=30)[0].decode()
        except subprocess.TimeoutExpired:
            # The pipe stays open while an orphaned worker holds it: clean up, then fail below.
            orphaned = True
            os.killpg(server.pid, signal.SIGKILL)
            output = server.communicate()[0].decode()
    assert not orphaned, "the worker outlived `serve` after SIGTERM"
    worker_pid = int(re.search(r"Started Celery worker \(pid (\d+)\)", output).group(1))
    deadline = time.monotonic() + 20
    while _alive(worker_pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _alive(worker_pid), "the worker outlived `serve`"
    assert "loupe.health.ping" in output  # the worker logged the task it ran
