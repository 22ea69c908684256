"""Hooks that apps above campaigns register: guards that may refuse to reopen a task."""

from __future__ import annotations

from collections.abc import Callable

ReopenGuard = Callable[[object], str | None]

_REOPEN_GUARDS: list[ReopenGuard] = []


def reopen_guard_register(guard: ReopenGuard) -> None:
    """Register a guard that ``task_reopen`` asks before it reopens a task.

    Args:
        guard: called with the locked task; returns the reason to refuse, or None to allow.
            Registering the same guard twice keeps one.
    """
    if guard not in _REOPEN_GUARDS:
        _REOPEN_GUARDS.append(guard)


def reopen_guards() -> tuple[ReopenGuard, ...]:
    """The registered reopen guards, in registration order.

    Returns:
        A tuple of guards.
    """
    return tuple(_REOPEN_GUARDS)
