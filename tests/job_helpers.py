"""Test helper: hold the job kernel's sends of one job type instead of publishing them."""

from __future__ import annotations

from collections.abc import Callable


def hold_job_sends(monkeypatch, name: str, run: Callable[[int], None] | None = None) -> list[int]:
    """Record (and optionally run here) the jobs of type ``name`` the kernel would send.

    Other types are sent as usual.

    Args:
        monkeypatch: pytest's monkeypatch fixture.
        name: the job type's name (``"bias"``, ``"release"``, ...).
        run: called with each held job's id (say, to run it in this process).

    Returns:
        The held jobs' ids, in order (a live list).
    """
    from annotation.jobs import kernel

    held: list[int] = []
    real = kernel.job_send

    def send(kind, job_id, **options):
        if kind.name != name:
            return real(kind, job_id, **options)
        held.append(job_id)
        if run is not None:
            run(job_id)
        return True

    monkeypatch.setattr(kernel, "job_send", send)
    return held
