"""Events of the campaigns app that other apps subscribe to (agreement does, in ``ready()``).

Sent inside the sender's transaction, so what a receiver writes commits or rolls back with the
task; receivers queue their Celery work on commit.
"""

from django.dispatch import Signal

# A task was submitted (a new submission, not a repeated one). Keyword arguments: ``task`` (the
# row) and ``campaign`` (its campaign).
task_submitted = Signal()
