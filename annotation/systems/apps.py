"""App configuration for the systems app: installs the writer of imported system outputs."""

from django.apps import AppConfig


class SystemsConfig(AppConfig):
    name = "annotation.systems"
    label = "systems"
    verbose_name = "Systems"

    def ready(self) -> None:
        """Let dataset imports that bring system outputs write them through this app."""
        from annotation.imports.hooks import outputs_writer_register

        from .services.outputs_writer import OUTPUTS_WRITER

        outputs_writer_register(OUTPUTS_WRITER)
