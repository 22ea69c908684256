"""Test helper: processes that publish, consume and bind on the embedded broker's folders."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

TRANSPORT = "config.broker:Transport"
# A consumer gives up after this many errors (each is the finding; the count stays readable).
MAX_ERRORS = 20


def options(root: Path, *, polling_interval: float = 0) -> dict:
    """Transport options of a broker whose folders are under ``root``, polled without pause
    unless ``polling_interval`` says otherwise.

    Args:
        root: the folder that holds the broker's folders (made here).
        polling_interval: seconds between two polls of an empty queue.

    Returns:
        kombu's ``transport_options``.
    """
    for folder in ("messages", "control", "processed"):
        (root / folder).mkdir(exist_ok=True)
    return {
        "data_folder_in": str(root / "messages"),
        "data_folder_out": str(root / "messages"),
        "control_folder": str(root / "control"),
        "processed_folder": str(root / "processed"),
        "store_processed": False,
        "polling_interval": polling_interval,
    }


def connection(root: Path, *, polling_interval: float = 0):
    """A kombu connection to the broker under ``root`` through Loupe's transport.

    Args:
        root: see :func:`options`.
        polling_interval: see :func:`options`.

    Returns:
        A ``kombu.Connection`` (not yet connected).
    """
    from kombu import Connection

    return Connection(
        "filesystem://",
        transport=TRANSPORT,
        transport_options=options(root, polling_interval=polling_interval),
    )


def queue(name: str):
    """The direct queue ``name``, bound to an exchange of its name.

    Args:
        name: the queue's and the exchange's name.

    Returns:
        A ``kombu.Queue``.
    """
    from kombu import Exchange, Queue

    return Queue(name, Exchange(name), name)


def publish(root: Path, name: str, producer: int, count: int) -> None:
    """Publish ``count`` messages ``{"producer", "i"}`` to queue ``name``.

    Args:
        root: see :func:`options`.
        name: the queue.
        producer: this publisher's number, in every message.
        count: how many messages.
    """
    with connection(root) as conn:
        target = queue(name)
        publisher = conn.Producer(serializer="json")
        for i in range(count):
            body = {"producer": producer, "i": i}
            publisher.publish(body, exchange=target.exchange, routing_key=name, declare=[target])


def consume(root: Path, name: str, ready, results, tmpdir: str | None = None) -> None:
    """Take messages from ``name`` as fast as possible until a ``stop`` message, then put what
    was received and the errors raised (as text) on ``results``.

    Args:
        root: see :func:`options`.
        name: the queue.
        ready: a barrier to wait at once the channel is open.
        results: a multiprocessing queue for ``(received, errors)``.
        tmpdir: the process's temporary folder (kombu's transport moved claimed messages
            there).
    """
    if tmpdir:
        tempfile.tempdir = tmpdir
    received, errors = [], []
    with connection(root) as conn:
        channel = conn.channel()
        ready.wait(60)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(errors) < MAX_ERRORS:
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


def bind(root: Path, exchanges: list[str], name: str, ready, results) -> None:
    """Bind queue ``name`` to each fanout exchange of ``exchanges``, each time once every
    process of ``ready`` is at the barrier; put the errors raised (as text) on ``results``.

    Args:
        root: see :func:`options`.
        exchanges: the exchanges, bound in this order.
        name: the queue.
        ready: a barrier shared by every binding process.
        results: a multiprocessing queue for the list of errors.
    """
    from kombu import Exchange, Queue

    errors = []
    with connection(root) as conn:
        channel = conn.channel()
        for exchange in exchanges:
            ready.wait(60)
            try:
                Queue(name, Exchange(exchange, type="fanout"), name)(channel).declare()
            except Exception as error:  # noqa: BLE001 - every error is the finding
                errors.append(f"{exchange}: {type(error).__name__}: {error}")
    results.put(errors)
