"""URLs of the spans API (error annotations, workbook import and export)."""

from django.urls import path

from .apis import AnnotationSetExportApi, PolytopeWorkbookImportApi

urlpatterns = [
    path(
        "datasets/<slug:slug>/polytope-workbooks/",
        PolytopeWorkbookImportApi.as_view(),
        name="polytope-workbook-import",
    ),
    path(
        "annotation-sets/<int:pk>/export/",
        AnnotationSetExportApi.as_view(),
        name="annotation-set-export",
    ),
]
