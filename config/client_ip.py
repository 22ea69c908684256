"""The client's address for login throttling, trusting X-Forwarded-For only from our proxies."""

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """The client's address for the login lockout (django-axes) and the token endpoint's rate.

    Without proxies it is ``REMOTE_ADDR``: an X-Forwarded-For header then comes from the client
    and is ignored. Behind ``n`` proxies (``LOUPE_PROXY_COUNT``), each appending the address it
    saw, it is the ``n``-th entry from the end of X-Forwarded-For (DRF's ``get_ident`` rule);
    the entries before it are whatever the client sent. An entry that is no address
    ("unknown", empty, or mangled by a proxy) falls back to ``REMOTE_ADDR``, and an IPv4
    ``address:port`` loses its port: axes stores the address in an ``inet`` column on
    PostgreSQL, which refuses anything else.

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
    return _address(addresses[-min(proxies, len(addresses))].strip()) or remote_addr


def _address(entry: str) -> str | None:
    """``entry`` as an IP address (an IPv4 ``address:port`` loses its port), else ``None``."""
    if entry.count(":") == 1:  # IPv4 with a port; an IPv6 address has at least two colons
        entry = entry.partition(":")[0]
    try:
        return str(ipaddress.ip_address(entry))
    except ValueError:
        return None
