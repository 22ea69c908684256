"""App configuration for the spans app: installs the writer of imported span sets."""

from django.apps import AppConfig

from annotation.imports.hooks import SPAN_SETS, part_writer_register


class SpansConfig(AppConfig):
    name = "annotation.spans"
    label = "spans"
    verbose_name = "Error spans"

    def ready(self) -> None:
        """Let dataset imports that bring span sets write them through this app."""
        from .services_import import SPAN_SETS_WRITER

        part_writer_register(SPAN_SETS, SPAN_SETS_WRITER)
