"""App configuration for the human judgments app: installs the writer of a release's judgments."""

from django.apps import AppConfig

from annotation.imports.hooks import JUDGMENTS, part_writer_register


class JudgmentsConfig(AppConfig):
    name = "scoring.judgments"
    label = "judgments"
    verbose_name = "Human judgments"

    def ready(self) -> None:
        """Let dataset imports that bring judgment studies or released scores write them here."""
        from .services import JUDGMENTS_WRITER

        part_writer_register(JUDGMENTS, JUDGMENTS_WRITER)
