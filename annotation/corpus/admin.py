"""Admin pages for datasets, documents and references; frozen sentences are read-only."""

from django.contrib import admin, messages

from config.exceptions import ApplicationError

from .models import Dataset, Document, Reference
from .selectors import document_is_frozen
from .services import document_update_sentences


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

    def save_model(self, request, obj, form, change):
        # Sentence edits go through the service, which re-checks the freeze under a row lock
        # (the document may have been frozen after this form was opened).
        if change and "sentences" in form.changed_data:
            sentences = obj.sentences
            obj.sentences = Document.objects.get(pk=obj.pk).sentences
            obj.save()
            try:
                document_update_sentences(document=obj, sentences=sentences)
            except ApplicationError as error:
                messages.error(request, f"Sentences not changed: {error.message}")
            return
        super().save_model(request, obj, form, change)


@admin.register(Reference)
class ReferenceAdmin(admin.ModelAdmin):
    list_display = ("document", "position", "label", "facet_count")
    search_fields = ("document__external_id",)
    raw_id_fields = ("document",)

    def get_readonly_fields(self, request, obj=None):
        # FAM facets are indexed by these sentences: frozen with the document.
        if obj is not None and document_is_frozen(document=obj.document):
            return ("document", "position", "sentences")
        return ()

    def has_delete_permission(self, request, obj=None):
        return obj is None or not document_is_frozen(document=obj.document)
