"""Admin views of APES runs and cached questions (read-mostly)."""

from django.contrib import admin

from .models import ApesQuestionSet, ApesRun


@admin.register(ApesRun)
class ApesRunAdmin(admin.ModelAdmin):
    list_display = ("id", "dataset", "status", "chunks_done", "chunks_total", "created_at")
    list_filter = ("status",)
    readonly_fields = [f.name for f in ApesRun._meta.fields]


@admin.register(ApesQuestionSet)
class ApesQuestionSetAdmin(admin.ModelAdmin):
    list_display = ("reference", "n_questions", "recognizer", "computed_at")
    readonly_fields = [f.name for f in ApesQuestionSet._meta.fields]
