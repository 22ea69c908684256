"""One API exception handler: turns service-layer errors into consistent JSON responses."""

import logging
import sys
from abc import ABCMeta

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
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


log = logging.getLogger(__name__)

#: Seconds a client is asked to wait (Retry-After) when the database cannot be reached.
DATABASE_RETRY_AFTER = 30
#: What a client is told then (never the driver's message: it names hosts and ports).
DATABASE_DOWN = "The database is unreachable; nothing was changed. Try again shortly."
# A lost or refused connection (psycopg's OperationalError, or InterfaceError on a closed one).
DATABASE_ERRORS = (OperationalError, InterfaceError)


def database_down_response() -> JsonResponse:
    """The API's answer while the database is unreachable: 503 JSON with Retry-After.

    Returns:
        The response.
    """
    response = JsonResponse(
        {"message": DATABASE_DOWN, "extra": {"retry_after": DATABASE_RETRY_AFTER}}, status=503
    )
    response["Retry-After"] = str(DATABASE_RETRY_AFTER)
    return response


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 handler: JSON under ``/api/``, the usual page elsewhere.

    Args:
        request: the request no URL matched (or whose view raised Http404).
        exception: the Http404.

    Returns:
        The 404 response.
    """
    if _is_api(request):
        return JsonResponse(
            {"message": f"No API endpoint at {request.path}.", "extra": {}}, status=404
        )
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler: 503 with Retry-After when the database is unreachable, JSON under
    ``/api/`` (whatever failed, in a view or in a middleware), the usual page elsewhere.

    Args:
        request: the request that failed.

    Returns:
        The 503 or 500 response.
    """
    error = sys.exc_info()[1]
    if isinstance(error, DATABASE_ERRORS):
        if _is_api(request):
            return database_down_response()
        response = HttpResponse(
            "<!doctype html><title>Loupe: database unreachable</title>"
            "<h1>Loupe cannot reach its database</h1>"
            "<p>Nothing was changed. Try again shortly.</p>",
            status=503,
        )
        response["Retry-After"] = str(DATABASE_RETRY_AFTER)
        return response
    if _is_api(request):
        return JsonResponse({"message": "Server error.", "extra": {}}, status=500)
    return defaults.server_error(request)


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
    if isinstance(exc, DATABASE_ERRORS):
        log.error("database unreachable: %s: %s", type(exc).__name__, exc)
        return Response(
            {"message": DATABASE_DOWN, "extra": {"retry_after": DATABASE_RETRY_AFTER}},
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(DATABASE_RETRY_AFTER)},
        )
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
        # A DRF error may carry its own extra (config.parsers.JsonNestingError: path, depth).
        response.data = {"message": str(exc.detail), "extra": getattr(exc, "extra", {})}
    return response


def _django_validation_detail(exc: DjangoValidationError):
    if hasattr(exc, "message_dict"):
        return exc.message_dict
    return exc.messages
