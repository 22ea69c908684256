"""Events of the corpus app that apps above it subscribe to (in their ``ready()``).

They are sent inside the sender's transaction, so what a receiver writes (a scoring job's row)
commits or rolls back with the data; receivers queue their Celery work on commit.
"""

from django.dispatch import Signal

# A dataset was imported. Keyword arguments: ``dataset`` (the row), ``summary`` (the
# ImportSummary, whose ``versions`` name the output versions written) and ``user``.
dataset_imported = Signal()

# The demo dataset was created. Keyword arguments: ``dataset`` and ``fixtures_dir`` (the demo's
# fixtures folder). A receiver returns the report lines of what it added (e.g. system outputs).
demo_dataset_loaded = Signal()

# The demo's users exist and its campaigns are asked for (``demo_load(with_campaign=True)``).
# Keyword arguments: ``dataset`` (the demo dataset) and ``fixtures_dir``. A receiver returns the
# report lines of what it added (``annotation.campaigns`` makes the FAM and PolyTope campaigns).
demo_campaigns_requested = Signal()
