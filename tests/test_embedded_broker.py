"""The embedded broker loses no message and delivers none twice between real processes."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest
from kombu import Exchange, Queue
from kombu.exceptions import ChannelError

from config.broker import Channel
from tests.broker_helpers import bind, connection, consume, publish, queue

# The settings' polling interval of the embedded broker (config/settings.py).
POLLING_INTERVAL = 0.2
# Processes are spawned, not forked: the test process holds threads and database connections.
SPAWN = multiprocessing.get_context("spawn")


def _other_file_system(path: Path) -> str | None:
    """A writable folder on another file system than ``path`` (a tmpfs), if the machine has
    one: kombu's transport moved each message it took there, a copy and a delete."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shm.stat().st_dev != path.stat().st_dev:
        return str(shm)
    return None


@contextlib.contextmanager
def _processes(processes):
    """Start ``processes`` (daemons); stop any still running when the block ends."""
    for process in processes:
        process.daemon = True
        process.start()
    try:
        yield processes
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
            process.join(10)


def _joined(processes, timeout: float = 180.0) -> None:
    for process in processes:
        process.join(timeout)
        assert process.exitcode == 0, f"{process.name} ended with {process.exitcode}"


def test_two_publishers_and_two_busy_consumers_lose_and_repeat_nothing(tmp_path):
    # kombu's own transport lost messages here: a consumer polling without pause took a
    # message file before its publisher had written it (16 of 3,000 with one consumer). Its
    # consumers also took a message by moving it to the temporary folder, a copy and a delete
    # where that is another file system, as it is here when the machine has a tmpfs.
    name, per_producer = "race", 1500
    with connection(tmp_path) as conn:
        queue(name)(conn.channel()).declare()
    results, ready = SPAWN.Queue(), SPAWN.Barrier(3)
    tmpdir = _other_file_system(tmp_path)
    consumers = [
        SPAWN.Process(target=consume, args=(tmp_path, name, ready, results, tmpdir))
        for _ in range(2)
    ]
    producers = [
        SPAWN.Process(target=publish, args=(tmp_path, name, p, per_producer)) for p in range(2)
    ]
    with _processes(consumers):
        ready.wait(60)  # both consumers poll before the first message is written
        with _processes(producers):
            _joined(producers)
        with connection(tmp_path) as conn:
            target = queue(name)
            for _ in consumers:
                conn.Producer(serializer="json").publish(
                    "stop", exchange=target.exchange, routing_key=name
                )
        outcomes = [results.get(timeout=180) for _ in consumers]
        _joined(consumers, 30)
    errors = [error for _, found in outcomes for error in found]
    received = [item for got, _ in outcomes for item in got]
    assert errors == []
    assert len(received) == 2 * per_producer  # none twice
    assert set(received) == {(p, i) for p in range(2) for i in range(per_producer)}  # none lost
    assert all(outcome[0] for outcome in outcomes)  # both consumers took a share
    assert list((tmp_path / "messages").iterdir()) == []  # no partial or claimed file


def test_bindings_made_at_once_by_several_processes_are_all_kept(tmp_path):
    # kombu's own transport emptied a new exchange's table (open "wb") before it took the
    # lock, so a process could erase a binding another had just written, or read half a table.
    names = [f"listener-{i}" for i in range(6)]
    exchanges = [f"news-{i}" for i in range(20)]
    results, ready = SPAWN.Queue(), SPAWN.Barrier(len(names))
    binders = [
        SPAWN.Process(target=bind, args=(tmp_path, exchanges, n, ready, results)) for n in names
    ]
    with _processes(binders):
        errors = [results.get(timeout=180) for _ in names]
        _joined(binders)
    assert errors == [[]] * len(names)
    for exchange in exchanges:
        table = json.loads((tmp_path / "control" / f"{exchange}.exchange").read_text())
        assert sorted(queue for _, _, queue in table) == names, exchange
    with connection(tmp_path) as conn:
        news = Exchange(exchanges[-1], type="fanout")
        conn.Producer(serializer="json").publish("hello", exchange=news, declare=[news])
        channel = conn.channel()
        for listener in names:
            assert channel.basic_get(listener, no_ack=True).decode() == "hello"


def test_a_table_its_creator_has_not_written_yet_holds_no_binding(tmp_path):
    with connection(tmp_path) as conn:
        channel = conn.channel()
        (tmp_path / "control" / "fresh.exchange").write_bytes(b"")
        assert channel.get_table("fresh") == []
        channel.queue_delete("nobody")  # deleting from an empty table is no error either
        channel._delete("nobody", "fresh", "", "")
        assert channel.get_table("fresh") == []


def test_a_deleted_queue_leaves_the_others_bound(tmp_path):
    with connection(tmp_path) as conn:
        channel = conn.channel()
        news = Exchange("news", type="fanout")
        for name in ("a", "b"):
            Queue(name, news)(channel).declare()
        channel.queue_delete("a")
        assert [q for _, _, q in channel.get_table("news")] == ["b"]


def test_a_message_that_cannot_be_read_stays_in_its_queue(tmp_path, monkeypatch):
    with connection(tmp_path) as conn:
        channel = conn.channel()
        queue(name := "kept")(channel).declare()
        conn.Producer(serializer="json").publish({"n": 1}, exchange=name, routing_key=name)
        real_open = open

        def refuse_claimed(path, *args, **kwargs):
            if str(path).endswith(".claimed"):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, *args, **kwargs)

        with monkeypatch.context() as patch:
            patch.setattr("builtins.open", refuse_claimed)
            with pytest.raises(ChannelError, match="Cannot read"):
                channel.basic_get(name, no_ack=True)
        assert isinstance(channel, Channel)
        assert channel.basic_get(name, no_ack=True).decode() == {"n": 1}


def _drain(conn, name: str, timeout: float) -> tuple[list, float]:
    """Drain ``conn`` for a message of queue ``name``: (the bodies delivered, seconds taken)."""
    got = []
    with conn.Consumer(queue(name), callbacks=[lambda body, message: got.append(body)]):
        started = time.monotonic()
        with contextlib.suppress(TimeoutError):
            conn.drain_events(timeout=timeout)
        return got, time.monotonic() - started


def test_a_client_waits_its_whole_timeout_and_gets_a_message_that_comes_meanwhile(tmp_path):
    # A client waiting for replies (inspect, a ping) must not be cut short.
    with connection(tmp_path, polling_interval=POLLING_INTERVAL) as conn:
        got, waited = _drain(conn, "empty", timeout=1.0)
        assert got == [] and waited >= 1.0
        queue("later")(conn.channel()).declare()

        def publish():
            with connection(tmp_path, polling_interval=POLLING_INTERVAL) as other:
                other.Producer(serializer="json").publish(
                    {"n": 1}, exchange="later", routing_key="later"
                )

        timer = threading.Timer(0.6, publish)
        timer.start()
        try:
            got, _ = _drain(conn, "later", timeout=60)
        finally:
            timer.join()
        assert got == [{"n": 1}]


@pytest.mark.parametrize("flag", ["should_stop", "should_terminate"])
def test_a_worker_told_to_stop_stops_waiting_for_messages(tmp_path, monkeypatch, flag):
    # Celery's worker drains once more after its stop flag is set: with kombu's transport the
    # drain waited its whole timeout on an empty queue (2 s, twice, in each shutdown).
    from celery.worker import state

    with connection(tmp_path, polling_interval=POLLING_INTERVAL) as conn:
        monkeypatch.setattr(state, flag, 0)  # EX_OK: a warm (or cold) shutdown that exits 0
        got, waited = _drain(conn, "empty", timeout=60)
        assert got == [] and waited < 10
        monkeypatch.setattr(state, flag, None)
        got, waited = _drain(conn, "empty", timeout=1.0)
        assert got == [] and waited >= 1.0
