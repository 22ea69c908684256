"""Events of the APES app that apps above it subscribe to (``scoring.leaderboards`` does).

Sent by the workers after the run's rows are committed; receivers queue their own Celery work.
"""

from django.dispatch import Signal

# An APES run finished and its scores are stored. Keyword arguments: ``dataset_id`` and ``run``.
apes_run_finished = Signal()
