"""Pagination helper for APIView-based endpoints (limit/offset)."""

from rest_framework.pagination import LimitOffsetPagination


class DefaultPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500


def paginated_response(request, view, queryset, serializer_class):
    """Paginate ``queryset`` and return DRF's paginated response.

    Args:
        request: the DRF request.
        view: the API view (used by the paginator).
        queryset: what to page through.
        serializer_class: the output serializer for one item.

    Returns:
        A ``Response`` with ``count``, ``next``, ``previous`` and ``results``.
    """
    paginator = DefaultPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)
