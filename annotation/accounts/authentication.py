"""Token authentication with an expiry: a token older than ``LOUPE_TOKEN_DAYS`` is refused."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from .tokens import token_expired


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's ``Token`` header auth, refusing expired tokens with 401 (and inactive users)."""

    def authenticate_credentials(self, key):
        """The token's user, unless the token has expired.

        Args:
            key: the token given in the ``Authorization: Token <key>`` header.

        Returns:
            ``(user, token)``.

        Raises:
            AuthenticationFailed: unknown or expired token, or an inactive user (401).
        """
        user, token = super().authenticate_credentials(key)
        if token_expired(token=token):
            raise exceptions.AuthenticationFailed(
                "The token has expired; get a new one from POST /api/auth/token/."
            )
        return user, token
