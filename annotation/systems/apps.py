"""App configuration for the systems app: installs the writer of imported system outputs."""

from django.apps import AppConfig

from annotation.imports.hooks import OUTPUTS, part_writer_register


class SystemsConfig(AppConfig):
    name = "annotation.systems"
    label = "systems"
    verbose_name = "Systems"

    def ready(self) -> None:
        """Let dataset imports that bring system outputs write them through this app."""
        from .services.outputs_writer import OUTPUTS_WRITER

        part_writer_register(OUTPUTS, OUTPUTS_WRITER)
