"""Events of the AutoFAR app that apps above it subscribe to (``scoring.leaderboards`` does).

Sent by the workers after the run's rows are committed; receivers queue their own Celery work.
"""

from django.dispatch import Signal

# An AutoFAR-L run finished and its scores are stored. Keyword arguments: ``dataset_id``,
# ``k`` (the FAR cut-off the run's fit is for) and ``run``.
autofar_run_finished = Signal()
