"""App configuration for the FAMs app: installs the writer of imported annotation sets."""

from django.apps import AppConfig

from annotation.imports.hooks import ANNOTATION_SETS, part_writer_register


class FamsConfig(AppConfig):
    name = "annotation.fams"
    label = "fams"
    verbose_name = "Facet-aware mappings"

    def ready(self) -> None:
        """Let dataset imports that bring FAM annotation sets write them through this app."""
        from .services_import import ANNOTATION_SETS_WRITER

        part_writer_register(ANNOTATION_SETS, ANNOTATION_SETS_WRITER)
