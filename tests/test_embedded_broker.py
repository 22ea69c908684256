"""The embedded broker loses no message and delivers none twice between real processes."""

from __future__ import annotations

import json
import multiprocessing

from kombu import Exchange

from tests.broker_helpers import bind, connection, consume, publish, queue

# Processes are spawned, not forked: the test process holds threads and database connections.
SPAWN = multiprocessing.get_context("spawn")


def _run(processes, timeout: float = 180.0) -> None:
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout)
        assert process.exitcode == 0, f"{process.name} ended with {process.exitcode}"


def test_two_publishers_and_two_busy_consumers_lose_and_repeat_nothing(tmp_path):
    # kombu's own transport lost messages here: a consumer polling without pause took a
    # message file before its publisher had written it (16 of 3,000 with one consumer).
    name, per_producer = "race", 1500
    with connection(tmp_path) as conn:
        queue(name)(conn.channel()).declare()
    results = SPAWN.Queue()
    consumers = [SPAWN.Process(target=consume, args=(tmp_path, name, results)) for _ in range(2)]
    producers = [
        SPAWN.Process(target=publish, args=(tmp_path, name, p, per_producer)) for p in range(2)
    ]
    for consumer in consumers:
        consumer.start()
    _run(producers)
    with connection(tmp_path) as conn:
        target = queue(name)
        for _ in consumers:
            conn.Producer(serializer="json").publish(
                "stop", exchange=target.exchange, routing_key=name
            )
    outcomes = [results.get(timeout=180) for _ in consumers]
    for consumer in consumers:
        consumer.join(30)
    errors = [error for _, found in outcomes for error in found]
    received = [item for got, _ in outcomes for item in got]
    assert errors == []
    assert len(received) == 2 * per_producer  # none twice
    assert set(received) == {(p, i) for p in range(2) for i in range(per_producer)}  # none lost
    assert all(outcome[0] for outcome in outcomes)  # both consumers took a share
    assert [f for f in (tmp_path / "messages").iterdir()] == []  # no partial or claimed file


def test_bindings_made_at_once_by_several_processes_are_all_kept(tmp_path):
    # kombu's own transport emptied a new exchange's table (open "wb") before it took the
    # lock, so a process could erase a binding another had just written.
    names = [f"listener-{i}" for i in range(6)]
    results, ready = SPAWN.Queue(), SPAWN.Barrier(len(names))
    _run([SPAWN.Process(target=bind, args=(tmp_path, "news", n, ready, results)) for n in names])
    assert [results.get(timeout=10) for _ in names] == [None] * len(names)
    table = json.loads((tmp_path / "control" / "news.exchange").read_text())
    assert sorted(queue for _, _, queue in table) == names
    with connection(tmp_path) as conn:
        news = Exchange("news", type="fanout")
        conn.Producer(serializer="json").publish("hello", exchange=news, declare=[news])
        channel = conn.channel()
        for listener in names:
            assert channel.basic_get(listener, no_ack=True).decode() == "hello"


def test_a_table_its_creator_has_not_written_yet_holds_no_binding(tmp_path):
    with connection(tmp_path) as conn:
        (tmp_path / "control" / "fresh.exchange").write_bytes(b"")
        assert conn.channel().get_table("fresh") == []
