"""Background analyses (bias, APES, AutoFAR-L, cross-dataset tests) wait behind scoring."""

import re
import time
import uuid

import pytest
from celery import signature
from django.conf import settings

from annotation.jobs.kernel import CHUNK
from scoring.apes.services import APES
from scoring.autofar.services.runs import AUTOFAR
from scoring.bias.services import BIAS
from scoring.crossdataset.services import CROSSDATASET
from scoring.scores.services.kind import SCORING

RECEIVED = re.compile(r"Task (loupe\.[\w.]+)\[([^\]]+)\] received")


def test_background_tasks_carry_the_low_priority_and_scoring_does_not():
    assert BIAS.priority == 9 and BIAS.options()["priority"] == 9
    assert APES.priority == 9
    assert AUTOFAR.priority == 9
    assert CROSSDATASET.priority == 9
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
    bias = [
        signature(CHUNK, args=("bias", 0, n), **BIAS.options()).apply_async(queue=queue).id
        for n in range(3)
    ]
    scoring = signature(CHUNK, args=("scoring", 0, 0), **SCORING.options())
    scoring = scoring.apply_async(queue=queue).id
    worker_factory(queue)  # answers a ping (priority 0) before it is used
    log = tmp_path / "worker-0.log"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        received = RECEIVED.findall(log.read_text(errors="replace"))
        work = [task_id for name, task_id in received if name == "loupe.jobs.chunk"]
        if len(work) == 4:
            break
        time.sleep(0.2)
    assert work == [scoring, *bias], received
