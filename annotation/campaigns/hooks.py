"""Hooks that apps above campaigns register: reopen guards, and the adjudicators' store.

Campaigns sit below adjudication (adjudication reads campaigns, tasks and FAMs), so campaigns
never import it: adjudication registers its functions here in ``AppConfig.ready()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

ReopenGuard = Callable[[object], str | None]
# (campaign, usernames, user) -> the grants; raises ApplicationError (nothing changed).
AdjudicatorsSetter = Callable[..., object]

_REOPEN_GUARDS: list[ReopenGuard] = []
_ADJUDICATORS: list[AdjudicatorsSetter] = []


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


def adjudicators_setter_register(setter: AdjudicatorsSetter) -> None:
    """Install the function that stores a campaign's adjudicators (``annotation.adjudication``'s).

    Args:
        setter: called as ``setter(campaign=..., usernames=[...], user=...)``; raises
            ``ApplicationError`` for an unknown or role-less username. Replaces any earlier one.
    """
    _ADJUDICATORS[:] = [setter]


def adjudicators_set(*, campaign, usernames: Sequence[str], user=None) -> bool:
    """Store the campaign's adjudicators through the installed setter.

    Args:
        campaign: the campaign.
        usernames: who may adjudicate it.
        user: who grants.

    Returns:
        True when a setter stored them, False when no adjudication app is installed.

    Raises:
        ApplicationError: from the setter (nothing changed).
    """
    if not _ADJUDICATORS:
        return False
    _ADJUDICATORS[0](campaign=campaign, usernames=list(usernames), user=user)
    return True
