"""The client's address for login throttling, trusting X-Forwarded-For only from our proxies."""

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """The address that django-axes counts failed logins against.

    The rule is DRF's ``get_ident`` with ``NUM_PROXIES = LOUPE_PROXY_COUNT``, so the login lockout
    and the token endpoint's rate see the same client. Without proxies it is ``REMOTE_ADDR``: an
    X-Forwarded-For header then comes from the client and is ignored. Behind ``n`` proxies, each
    appending the address it saw, it is the ``n``-th entry from the end of X-Forwarded-For; the
    entries before it are whatever the client sent.

    Args:
        request: the login request (Django's or DRF's).

    Returns:
        The client's address, or ``None`` if the request has none.
    """
    remote_addr = request.META.get("REMOTE_ADDR")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    proxies = settings.LOUPE_PROXY_COUNT
    if not proxies or not forwarded:
        return remote_addr
    addresses = forwarded.split(",")
    return addresses[-min(proxies, len(addresses))].strip()
