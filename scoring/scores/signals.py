"""Events of the scores app that higher apps (leaderboards) subscribe to."""

from django.dispatch import Signal

# Sent inside the transaction that marks a scoring job succeeded, after the job's score arrays
# were built; kwargs: ``job``. Leaderboards stores the page's first view here, so whoever sees
# "succeeded" reads it. A receiver must not raise (use a savepoint and log).
scoring_job_finishing = Signal()
# Sent after that transaction; kwargs: ``job``. Leaderboards warms its other views.
scoring_job_succeeded = Signal()
