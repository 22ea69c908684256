"""Events of the spans app that higher layers subscribe to (``scoring`` does, in ``ready()``).

Sent inside the sender's transaction, so what a receiver writes commits or rolls back with the
annotations; receivers queue their Celery work on commit.
"""

from django.dispatch import Signal

# Span annotations that scores are computed against changed (a save, an import, a deletion).
# Keyword arguments: ``dataset`` (the row), ``annotation_set`` (the row) and ``user`` (or None).
scored_spans_changed = Signal()
