"""App configuration for the corpus app."""

from django.apps import AppConfig


class CorpusConfig(AppConfig):
    name = "annotation.corpus"
    label = "corpus"
    verbose_name = "Corpus"
