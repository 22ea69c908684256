"""Events of the FAMs app that higher layers subscribe to (``scoring`` does, in ``ready()``).

Sent inside the sender's transaction, so what a receiver writes commits or rolls back with the
FAM; receivers queue their Celery work on commit.
"""

from django.dispatch import Signal

# FAMs that scores are computed against changed: a gold FAM was saved, or a gold or released
# annotation set (or one of its FAMs) was edited in the admin. Keyword arguments: ``dataset``
# (the row) and ``user`` (who changed it, or None).
scored_fams_changed = Signal()
