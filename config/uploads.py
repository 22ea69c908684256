"""Upload size limit (settings.LOUPE_UPLOAD_MAX_BYTES), checked the same way by every upload."""

from django.conf import settings
from rest_framework import status

from .exceptions import ApplicationError


class UploadTooLargeError(ApplicationError):
    """An upload over ``settings.LOUPE_UPLOAD_MAX_BYTES`` (HTTP 413)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE


def human_size(n_bytes: int) -> str:
    """A byte count for messages: ``812 bytes``, ``3.4 KB`` or ``61.2 MB`` (1 MB = 1024 KB).

    Args:
        n_bytes: the size.

    Returns:
        The size with one decimal and its unit.
    """
    if n_bytes >= 1024 * 1024:
        return f"{n_bytes / (1024 * 1024):.1f} MB"
    if n_bytes >= 1024:
        return f"{n_bytes / 1024:.1f} KB"
    return f"{n_bytes} bytes"


def upload_size_check(*, size: int, name: str, allowance: int = 0) -> None:
    """Refuse an upload over the limit, naming its size and the limit.

    Args:
        size: the upload's size in bytes.
        name: the file name (or "The upload") for the message.
        allowance: bytes tolerated beyond the limit (a request's multipart envelope).

    Raises:
        UploadTooLargeError: ``size`` is over ``settings.LOUPE_UPLOAD_MAX_BYTES`` (HTTP 413).
    """
    limit = settings.LOUPE_UPLOAD_MAX_BYTES
    if size > limit + allowance:
        raise UploadTooLargeError(
            f"{name} is {human_size(size)}; the limit is {human_size(limit)} "
            "(LOUPE_UPLOAD_MAX_BYTES)",
            extra={"size": size, "limit": limit},
        )
