"""The annotator's queue: the task after a just-submitted one is the one after it, not the first."""

from annotation.accounts.services import user_create
from annotation.campaigns.models import TaskStatus
from annotation.campaigns.selectors import task_list, task_next
from annotation.campaigns.services import campaign_create, tasks_assign_manual
from annotation.corpus.models import Dataset


def test_next_keeps_the_queue_order_after_a_submit(demo):
    user = user_create(username="queue-annotator", password="pw-q", role="Annotator")
    dataset = Dataset.objects.get(slug="demo")
    campaign = campaign_create(dataset=dataset, slug="queue", name="Queue", scorers=[])
    documents = ["demo-001", "demo-002", "demo-003", "demo-004"]
    tasks_assign_manual(campaign=campaign, assignments=[(d, user.username) for d in documents])
    first, second, third, fourth = task_list(user=user)
    assert task_next(user=user, after=second) == third
    # Submitting the second task does not move the queue back to its start.
    type(second).objects.filter(pk=second.pk).update(status=TaskStatus.SUBMITTED)
    second.refresh_from_db()
    assert task_next(user=user, after=second) == third
    # The queue wraps around, and skips what is submitted (the current task included).
    type(third).objects.filter(pk__in=[third.pk, fourth.pk]).update(status=TaskStatus.SUBMITTED)
    assert task_next(user=user, after=fourth) == first
    assert task_next(user=user, after=first) is None
    assert task_next(user=user) == first
