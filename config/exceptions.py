"""One API exception handler: turns service-layer errors into consistent JSON responses."""

from abc import ABCMeta

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


class IssuesError(Exception, metaclass=ABCMeta):
    """Invalid input with a list of issues (HTTP 400); nothing was written.

    Each issue has a ``message`` and a ``location`` with ``file``, ``line`` and ``field``. The
    import kernel's ``ImportValidationError`` is one: it stays plain Python (importing ``config``
    loads Django), so its app registers it with ``IssuesError.register`` in ``ready()``. Being a
    virtual subclass, it is matched by ``isinstance`` (as the handler does), not by ``except``.
    """

    issues: list


class ApplicationError(Exception):
    """A domain error raised by a service; maps to HTTP 400 (or ``status_code``) with a message."""

    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, message: str, extra: dict | None = None, status_code: int | None = None):
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        if status_code is not None:
            self.status_code = status_code


class ConflictError(ApplicationError):
    """A write based on stale data (HTTP 409)."""

    status_code = status.HTTP_409_CONFLICT


def api_exception_handler(exc, context):
    """Render every error as ``{"message": ..., "extra": {...}}`` with the right status code.

    Args:
        exc: the raised exception.
        context: DRF's handler context.

    Returns:
        A DRF ``Response``, or ``None`` for exceptions DRF should let propagate.
    """
    if isinstance(exc, IssuesError):
        issues = [
            {
                "file": i.location.file,
                "line": i.location.line,
                "field": i.location.field,
                "message": i.message,
            }
            for i in exc.issues
        ]
        return Response(
            {"message": "The import is invalid; nothing was written.", "extra": {"issues": issues}},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, ApplicationError):
        return Response({"message": exc.message, "extra": exc.extra}, status=exc.status_code)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(detail=_django_validation_detail(exc))
    elif isinstance(exc, (Http404, ObjectDoesNotExist)):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc.detail, (list, dict)):
        response.data = {"message": "Validation error", "extra": {"fields": response.data}}
    else:
        response.data = {"message": str(exc.detail), "extra": {}}
    return response


def _django_validation_detail(exc: DjangoValidationError):
    if hasattr(exc, "message_dict"):
        return exc.message_dict
    return exc.messages
