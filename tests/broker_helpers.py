"""Test helper: processes that publish, consume and bind on the embedded broker's folders."""

from __future__ import annotations

import time
from pathlib import Path

TRANSPORT = "config.broker:Transport"


def options(root: Path) -> dict:
    """Transport options of a broker whose folders (made here) are under ``root``, polled
    without pause."""
    for folder in ("messages", "control", "processed"):
        (root / folder).mkdir(exist_ok=True)
    return {
        "data_folder_in": str(root / "messages"),
        "data_folder_out": str(root / "messages"),
        "control_folder": str(root / "control"),
        "processed_folder": str(root / "processed"),
        "store_processed": False,
        "polling_interval": 0,
    }


def connection(root: Path):
    """A kombu connection to the broker under ``root`` through Loupe's transport."""
    from kombu import Connection

    return Connection("filesystem://", transport=TRANSPORT, transport_options=options(root))


def queue(name: str):
    """The direct queue ``name``, bound to an exchange of its name."""
    from kombu import Exchange, Queue

    return Queue(name, Exchange(name), name)


def publish(root: Path, name: str, producer: int, count: int) -> None:
    """Publish ``count`` messages ``{"producer", "i"}`` to queue ``name``."""
    with connection(root) as conn:
        target = queue(name)
        publisher = conn.Producer(serializer="json")
        for i in range(count):
            body = {"producer": producer, "i": i}
            publisher.publish(body, exchange=target.exchange, routing_key=name, declare=[target])


def consume(root: Path, name: str, results, timeout: float = 120.0) -> None:
    """Take messages from ``name`` as fast as possible until a ``stop`` message; put what was
    received and the errors raised (as text) on ``results``."""
    received, errors = [], []
    with connection(root) as conn:
        channel = conn.channel()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = channel.basic_get(name, no_ack=True)
            except Exception as error:  # noqa: BLE001 - every error is the finding
                errors.append(f"{type(error).__name__}: {error}")
                continue
            if message is None:
                continue
            body = message.decode()
            if body == "stop":
                break
            received.append((body["producer"], body["i"]))
    results.put((received, errors))


def bind(root: Path, exchange: str, name: str, barrier, results) -> None:
    """Bind queue ``name`` to the fanout ``exchange`` once every process of ``barrier`` is
    ready; put the error raised (as text), or None, on ``results``."""
    from kombu import Exchange, Queue

    with connection(root) as conn:
        channel = conn.channel()
        barrier.wait()
        try:
            Queue(name, Exchange(exchange, type="fanout"), name)(channel).declare()
        except Exception as error:  # noqa: BLE001 - every error is the finding
            results.put(f"{type(error).__name__}: {error}")
            return
    results.put(None)
