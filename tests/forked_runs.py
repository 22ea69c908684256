"""Run several ``python -c CODE`` / ``python manage.py ...`` commands from one interpreter.

One subprocess imports what costs seconds and touches no setting (Django's modules, SciPy,
the pure ``scoring.metrics``), then forks once per command: each child applies its own
environment and runs the command as a fresh interpreter would (the settings module is first
imported in the child), with its own exit code and output. Run directly, it reads the
commands as JSON on stdin and writes the results as JSON on stdout.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Imported before forking: none reads a setting when imported (main() checks that the
# settings module is still unimported after them).
WARM = (
    "django.core.management",
    "django.urls",
    "django.http",
    "celery",
    "sklearn",
    "scoring.metrics.adjudication",
    "scoring.metrics.agreement",
    "scoring.metrics.leaderboard",
    "scoring.metrics.spans",
    "scoring.metrics.suggest",
)


def run_forked(commands: dict[str, tuple[list[str], dict[str, str]]]) -> dict[str, dict]:
    """Run each command in a process of its own, forked from one warm interpreter.

    Args:
        commands: name -> (argv after ``python``: ``["-c", code]`` or ``["manage.py", ...]``,
            the whole environment of the command).

    Returns:
        name -> ``{"returncode", "stdout", "stderr"}``, as ``subprocess.run`` would give them.

    Raises:
        RuntimeError: the forking interpreter itself failed.
    """
    spec = {name: {"argv": argv, "env": env} for name, (argv, env) in commands.items()}
    done = subprocess.run(  # noqa: S603 - fixed argv
        [sys.executable, str(Path(__file__))],
        cwd=ROOT,
        input=json.dumps(spec),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the forking interpreter failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout)


def _child(argv: list[str], env: dict[str, str], out: int, err: int) -> int:
    """In the forked child: the command with its environment; its exit code."""
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = list(argv)
    try:
        if argv[0] == "-c":
            sys.argv = ["-c", *argv[2:]]
            exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102
        else:
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as stop:
        code = stop.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def _run_one(argv: list[str], env: dict[str, str]) -> dict:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child never returns into the parent's code
            code = 1
            try:
                code = _child(argv, env, out.fileno(), err.fileno())
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        return {
            "returncode": os.waitstatus_to_exitcode(status),
            "stdout": out.read().decode(errors="replace"),
            "stderr": err.read().decode(errors="replace"),
        }


def main() -> None:
    """Read the commands (JSON on stdin), run each forked, write the results (JSON)."""
    spec = json.load(sys.stdin)
    sys.path[0] = str(ROOT)  # not tests/, whose packages (tests/scoring) would shadow the app's
    os.chdir(ROOT)
    for module in WARM:
        __import__(module)
    if "config.settings" in sys.modules:
        raise RuntimeError("warming up imported the settings: each command must import them")
    results = {name: _run_one(item["argv"], item["env"]) for name, item in spec.items()}
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    main()
