"""Release APIs: list a dataset's releases, export a new one, read one, download its archive.

Admins and researchers may read every dataset's releases; anyone, even without an account,
may read and download those of a public dataset (``Dataset.public``). Only admins export.
"""

from __future__ import annotations

from django.http import FileResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsAdmin
from annotation.corpus.models import Dataset

from .models import ArchiveFormat, Release
from .selectors import (
    release_archive_get,
    release_as_dict,
    release_get,
    release_list,
    release_read_allowed,
)
from .services import release_create

CONTENT_TYPES = {ArchiveFormat.ZIP: "application/zip", ArchiveFormat.TAR_GZ: "application/gzip"}


class CanReadReleases(BasePermission):
    """Anyone for a public dataset; admins and researchers for the others."""

    message = "Only admins and researchers may read the releases of a dataset that is not public."

    def has_permission(self, request, view) -> bool:
        dataset = Dataset.objects.filter(slug=view.kwargs.get("slug")).first()
        if dataset is None:
            return True  # the view answers 404
        return release_read_allowed(user=request.user, dataset=dataset)


class ReleaseSerializer(serializers.Serializer):
    class ProgressSerializer(serializers.Serializer):
        done = serializers.IntegerField()
        total = serializers.IntegerField()
        stage = serializers.CharField()

    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["queued", "running", "succeeded", "failed"])
    progress = ProgressSerializer()
    archive = serializers.ChoiceField(choices=ArchiveFormat.values)
    include_annotators = serializers.BooleanField()
    notes = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    created_by = serializers.CharField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    size = serializers.IntegerField(allow_null=True)
    sha256 = serializers.CharField(allow_null=True)
    manifest = serializers.JSONField(allow_null=True)
    diff = serializers.JSONField(allow_null=True)
    download_url = serializers.CharField(allow_null=True)
    error = serializers.CharField(allow_blank=True)


class ReleaseListApi(APIView):
    """GET: a dataset's releases, newest first. POST (admins): export a new version (202)."""

    permission_classes = [CanReadReleases]

    class InputSerializer(serializers.Serializer):
        archive = serializers.ChoiceField(choices=ArchiveFormat.values, default=ArchiveFormat.ZIP)
        include_annotators = serializers.BooleanField(default=False)
        notes = serializers.CharField(allow_blank=True, default="", max_length=5000)

    def get_permissions(self):
        if self.request is not None and self.request.method == "POST":
            return [IsAdmin()]
        return super().get_permissions()

    @extend_schema(responses=ReleaseSerializer(many=True))
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        return Response(
            [release_as_dict(r, user=request.user) for r in release_list(dataset=dataset)]
        )

    @extend_schema(request=InputSerializer, responses={202: ReleaseSerializer})
    def post(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        release = release_create(dataset=dataset, user=request.user, **serializer.validated_data)
        release = release_get(dataset=dataset, version=release.version)
        return Response(
            release_as_dict(release, user=request.user), status=status.HTTP_202_ACCEPTED
        )


def _release(slug: str, version: int) -> Release:
    dataset = get_object_or_404(Dataset, slug=slug)
    return get_object_or_404(release_list(dataset=dataset), version=version)


class ReleaseDetailApi(APIView):
    """One release: its status and progress, manifest, diff summary and download link."""

    permission_classes = [CanReadReleases]

    @extend_schema(responses=ReleaseSerializer)
    def get(self, request, slug: str, version: int):
        return Response(release_as_dict(_release(slug, version), user=request.user))


class _AnyAccept(DefaultContentNegotiation):
    """A download answers with its file whatever the client accepts; errors stay JSON."""

    def select_renderer(self, request, renderers, format_suffix=None):
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type


class ReleaseDownloadApi(APIView):
    """The release's archive (streamed from disk), named ``<dataset>-v<version>.<ext>``."""

    permission_classes = [CanReadReleases]
    content_negotiation_class = _AnyAccept

    @extend_schema(
        responses={
            (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="zip"),
            (200, "application/gzip"): OpenApiResponse(OpenApiTypes.BINARY, description="tar.gz"),
        }
    )
    def get(self, request, slug: str, version: int):
        release = _release(slug, version)
        path = release_archive_get(release=release)
        response = FileResponse(
            path.open("rb"),
            as_attachment=True,
            filename=release.archive_name,
            content_type=CONTENT_TYPES[release.archive],
        )
        response["X-Content-SHA256"] = release.sha256
        return response
