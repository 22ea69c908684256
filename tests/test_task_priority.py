"""Background analyses (bias, APES, AutoFAR-L, cross-dataset tests) wait behind scoring."""

import re
import time
import uuid

import pytest
from celery import signature
from django.conf import settings

from annotation.jobs.kernel import CHUNK
from config.celery import BACKGROUND
from scoring.apes.tasks import apes_chunk_task
from scoring.autofar.tasks import autofar_chunk_task
from scoring.bias.tasks import bias_chunk_task, bias_run_done
from scoring.crossdataset.tasks import crossdataset_pair_task
from scoring.scores.services.kind import SCORING

RECEIVED = re.compile(r"Task (loupe\.[\w.]+)\[[^\]]+\] received")


def test_background_tasks_carry_the_low_priority_and_scoring_does_not():
    for task in (bias_chunk_task, bias_run_done, apes_chunk_task, autofar_chunk_task):
        assert task.priority == BACKGROUND["priority"] == 9, task.name
    assert crossdataset_pair_task.priority == 9
    assert SCORING.priority == 0 and SCORING.options()["priority"] == 0


@pytest.mark.skipif(
    settings.CELERY_EMBEDDED_BROKER,
    reason="message priorities are the Redis transport's: set CELERY_BROKER_URL",
)
@pytest.mark.django_db(transaction=True)
def test_a_worker_takes_the_scoring_chunk_before_the_bias_chunk_queued_first(
    worker_factory, tmp_path
):
    queue = f"loupe-priority-{uuid.uuid4().hex[:8]}"
    # Queued while no worker listens: the bias chunks first, then a scoring chunk (ids that
    # do not exist: each task finds nothing to do and returns).
    for n in range(3):
        bias_chunk_task.apply_async(args=[0, n], queue=queue)
    signature(CHUNK, args=("scoring", 0, 0), **SCORING.options()).apply_async(queue=queue)
    worker_factory(queue)  # answers a ping (priority 0) before it is used
    log = tmp_path / "worker-0.log"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        names = RECEIVED.findall(log.read_text(errors="replace"))
        if names.count("loupe.bias.chunk") == 3:
            break
        time.sleep(0.2)
    work = [name for name in names if name != "loupe.health.ping"]
    assert work == ["loupe.jobs.chunk"] + ["loupe.bias.chunk"] * 3, names
