"""Staffing a running campaign from two admin requests at once: real threads and connections.

Two reassignments that would give one annotator the same document twice are serialised by the
campaign's row lock, so the second is refused with the clear message instead of failing on the
database's unique constraint (a 500).
"""

from __future__ import annotations

import threading

import pytest

from annotation.accounts.services import user_create
from annotation.campaigns.models import Task
from annotation.campaigns.services import campaign_create, task_reassign, tasks_assign_manual
from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_reassignments_to_one_annotator_give_one_move_and_one_refusal(demo):
    from django.db import connection, transaction

    for name in ("ann-a", "ann-b", "ann-c"):
        user_create(username=name, password="pw", role="Annotator")
    campaign = campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="race", name="Race", scorers=[]
    )
    first, second = tasks_assign_manual(
        campaign=campaign, assignments=[("demo-001", "ann-a"), ("demo-001", "ann-b")]
    )
    moved = threading.Event()  # the first reassignment is done but not committed yet
    outcomes: dict[str, str] = {}

    def reassign_first():
        try:
            with transaction.atomic():
                task_reassign(task=first, annotator="ann-c")
                moved.set()
                # Keep the transaction open while the second one runs into it.
                threading.Event().wait(1.0)
            outcomes["first"] = "moved"
        except Exception as error:  # noqa: BLE001 - the outcome is what the test checks
            outcomes["first"] = f"{type(error).__name__}: {error}"
        finally:
            moved.set()
            connection.close()

    def reassign_second():
        try:
            moved.wait(10)
            task_reassign(task=second, annotator="ann-c")
            outcomes["second"] = "moved"
        except ApplicationError as error:
            outcomes["second"] = error.message
        except Exception as error:  # noqa: BLE001 - e.g. IntegrityError without the lock
            outcomes["second"] = f"{type(error).__name__}: {error}"
        finally:
            connection.close()

    threads = [threading.Thread(target=reassign_first), threading.Thread(target=reassign_second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert outcomes == {
        "first": "moved",
        "second": "ann-c already has document 'demo-001' in this campaign.",
    }
    assert sorted(
        Task.objects.filter(campaign=campaign).values_list("annotator__username", flat=True)
    ) == ["ann-b", "ann-c"]
