"""URLs of the FAMs API."""

from django.urls import path

from .apis import AnnotationSetListApi, FamListApi

urlpatterns = [
    path(
        "datasets/<slug:slug>/annotation-sets/",
        AnnotationSetListApi.as_view(),
        name="annotation-set-list",
    ),
    path("annotation-sets/<int:pk>/fams/", FamListApi.as_view(), name="fam-list"),
]
