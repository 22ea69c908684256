"""Events of the uploads app that other scoring apps subscribe to (in their ``ready()``).

Sent inside the upload's transaction, so what a receiver writes (a run's row) commits or rolls
back with the outputs; receivers queue their Celery work on commit.
"""

from django.dispatch import Signal

# A system's outputs were uploaded (not a dry run). Keyword arguments: ``dataset``,
# ``versions`` (the OutputVersion rows written) and ``user``.
outputs_uploaded = Signal()
