"""App configuration for the corpus app."""

from django.apps import AppConfig

from annotation.imports.bundle import ImportValidationError
from config.exceptions import IssuesError


class CorpusConfig(AppConfig):
    name = "annotation.corpus"
    label = "corpus"
    verbose_name = "Corpus"

    def ready(self):
        """Let the API's exception handler render the import kernel's errors with their issues."""
        IssuesError.register(ImportValidationError)
