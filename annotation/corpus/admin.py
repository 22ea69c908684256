"""Admin pages for datasets, documents and references; frozen sentences are read-only."""

from django.contrib import admin

from .models import Dataset, Document, Reference
from .selectors import document_is_frozen


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "source", "license", "created_at")
    search_fields = ("slug", "name", "source")


class ReferenceInline(admin.StackedInline):
    model = Reference
    extra = 0

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and document_is_frozen(document=obj):
            return ("position", "label", "sentences")
        return ()

    def has_delete_permission(self, request, obj=None):
        return obj is None or not document_is_frozen(document=obj)


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("external_id", "dataset", "position", "category", "sentence_count")
    list_filter = ("dataset", "category")
    search_fields = ("external_id",)
    inlines = [ReferenceInline]

    def get_readonly_fields(self, request, obj=None):
        # The freeze rule: indices of FAMs and outputs refer to these sentences.
        if obj is not None and document_is_frozen(document=obj):
            return ("dataset", "external_id", "sentences")
        return ()


@admin.register(Reference)
class ReferenceAdmin(admin.ModelAdmin):
    list_display = ("document", "position", "label", "facet_count")
    search_fields = ("document__external_id",)
