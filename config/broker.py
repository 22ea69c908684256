"""The embedded broker: kombu's file-system transport, with every file a reader sees whole.

kombu's ``filesystem://`` transport (kombu 5.7) has three races between processes, each of
which loses work on the embedded defaults (``make run``, ``make test`` without a broker URL):

- A message file is created empty and written after: a consumer polling in between takes the
  empty file, fails to decode it and drops the message (16 of 3,000 messages with one busy
  consumer, on kombu's own channel).
- A consumer claims a message with ``shutil.move`` into the system's temporary folder: where
  that is another file system (a tmpfs ``/tmp``), the move is a copy and a delete, and two
  consumers of one queue can both copy a message.
- An exchange's binding table is created with ``open("wb")``, which empties a file another
  process just wrote, before the lock is taken: a publisher reading it then fails, or a binding
  is lost.

Here a message is written under a hidden name and renamed into place, a consumer claims it by
renaming it within the same folder (one rename wins), and a binding table is never emptied
before its lock is held; an empty table (its creator has not written it yet) holds no binding.
Settings select this transport with ``CELERY_BROKER_TRANSPORT`` whenever the embedded broker
is used; the URL stays ``filesystem://``.

As with kombu's transport there are no acknowledgements: a publisher killed mid-write leaves a
hidden ``.partial`` file and a consumer killed between its claim and its read a hidden
``.claimed`` file (that message is lost); neither is ever taken for a message.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import uuid
from queue import Empty
from time import monotonic, sleep

from celery.worker import state as worker_state
from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

log = logging.getLogger(__name__)

# Files are written and read as bytes on every platform (Windows' os.open defaults to text).
_BINARY = getattr(os, "O_BINARY", 0)


def _bindings(text: str) -> list:
    """The bindings of a table file's ``text``; an empty file holds none."""
    return [filesystem.exchange_queue_t(*q) for q in loads(text)] if text else []


class Channel(filesystem.Channel):
    """kombu's file-system channel, whose readers only ever see whole files."""

    def _put(self, queue, payload, **kwargs):
        """Write the message under a hidden name, then rename it into ``queue``.

        Raises:
            ChannelError: the folder cannot be written.
        """
        folder = self.data_folder_out
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        partial = os.path.join(folder, f".{uuid.uuid4().hex}.partial")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)
            try:
                with os.fdopen(fd, "wb") as file:
                    file.write(str_to_bytes(dumps(payload)))
                os.replace(partial, os.path.join(folder, name))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(partial)
                raise
        except OSError as exc:
            raise ChannelError(f"Cannot add file {name!r} to directory") from exc

    def _get(self, queue):
        """Take the oldest message of ``queue``: the consumer whose rename succeeds has it.

        Raises:
            Empty: no message waits.
            ChannelError: a message could not be claimed or read (it stays in the queue).
        """
        folder = self.data_folder_in
        wanted = f"{queue}.msg"
        for filename in sorted(os.listdir(folder)):
            if filename.partition(".")[2] != wanted:
                continue
            source = os.path.join(folder, filename)
            claimed = os.path.join(folder, f".{uuid.uuid4().hex}.claimed")
            try:
                os.rename(source, claimed)
            except FileNotFoundError:  # another consumer took it first
                continue
            except OSError as exc:
                raise ChannelError(f"Cannot take file {filename!r} from queue.") from exc
            try:
                with open(claimed, "rb") as file:
                    payload = file.read()
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.rename(claimed, source)  # back in the queue for the next poll
                raise ChannelError(f"Cannot read file {filename!r} from queue.") from exc
            self._set_aside(claimed, filename)
            return loads(bytes_to_str(payload))
        raise Empty()

    def _set_aside(self, claimed: str, filename: str) -> None:
        """Remove a message that was read, or keep it in ``processed_folder`` if so configured;
        a failure is logged (the message was delivered)."""
        try:
            if self.store_processed:
                shutil.move(claimed, os.path.join(self.processed_folder, filename))
            else:
                os.remove(claimed)
        except OSError as error:
            log.warning("embedded broker: could not set aside %s: %s", filename, error)

    def get_table(self, exchange):
        """The exchange's bindings.

        Raises:
            ChannelError: the table cannot be read.
        """
        file = self._exchange_file(exchange)
        try:
            with file.open("rb") as f_obj:
                filesystem.lock(f_obj, filesystem.LOCK_SH)
                try:
                    text = bytes_to_str(f_obj.read())
                finally:
                    filesystem.unlock(f_obj)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ChannelError(f"Cannot open {file}") from exc
        return _bindings(text)

    def _change_table(self, exchange, change, *, create: bool) -> None:
        """Apply ``change`` (bindings -> new bindings, or None for no change) to the
        exchange's table under its lock; the file is emptied only while locked."""
        file = self._exchange_file(exchange)
        flags = os.O_RDWR | _BINARY | (os.O_CREAT if create else 0)
        try:
            fd = os.open(file, flags, 0o666)
        except FileNotFoundError:  # no table, nothing to remove
            return
        except OSError as exc:
            raise ChannelError(f"Cannot open {file}") from exc
        try:
            with os.fdopen(fd, "rb+", buffering=0) as f_obj:
                filesystem.lock(f_obj, filesystem.LOCK_EX)
                try:
                    changed = change(_bindings(bytes_to_str(f_obj.read())))
                    if changed is not None:
                        f_obj.seek(0)
                        f_obj.write(str_to_bytes(dumps(changed)))
                        f_obj.truncate()
                finally:
                    filesystem.unlock(f_obj)
        except OSError as exc:
            raise ChannelError(f"Cannot write {file}") from exc

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        """Add a binding to the exchange's table (made if missing)."""
        self.control_folder.mkdir(exist_ok=True)
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")

        def add(bindings):
            return None if binding in bindings else [binding, *bindings]

        self._change_table(exchange, add, create=True)

    def _delete(self, queue, exchange, routing_key, pattern, *args, **kwargs):
        """Purge ``queue`` and remove its binding from the exchange's table."""
        # kombu's virtual channel purges; its file-system channel's table update is replaced.
        super(filesystem.Channel, self)._delete(
            queue, exchange, routing_key, pattern, *args, **kwargs
        )
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")

        def remove(bindings):
            return [b for b in bindings if b != binding] if binding in bindings else None

        self._change_table(exchange, remove, create=False)


def _worker_stopping() -> bool:
    """Whether the Celery worker in this process was told to stop (warm or cold)."""
    return any(
        flag is not None and flag is not False
        for flag in (worker_state.should_stop, worker_state.should_terminate)
    )


class Transport(filesystem.Transport):
    """kombu's file-system transport with :class:`Channel`, whose worker stops promptly."""

    Channel = Channel

    def drain_events(self, connection, timeout=None):
        """Deliver the next message, waiting up to ``timeout`` seconds, as kombu's virtual
        transport does; but a worker told to stop stops waiting after the poll at hand.

        Celery's worker on a polled transport drains with a 2 s timeout, looks at its stop
        flag only between two drains, and drains once more after the flag is set: a worker
        sent SIGTERM spent 4 of its 5 s of shutdown waiting on an empty queue here. This is
        kombu's loop (poll, sleep ``polling_interval``, poll again until the timeout) with one
        more way out: it ends at an empty poll when this process's worker is stopping, so a
        client waiting for replies (``inspect``, a ping) still waits its whole timeout, and
        the queue is polled no more often than before.

        Args:
            connection: the kombu connection.
            timeout: seconds to wait for a message; ``None`` waits without end.

        Raises:
            TimeoutError: (``socket.timeout``) no message came within ``timeout``, or the
                worker is stopping.
        """
        started = monotonic()
        interval = self.polling_interval
        if timeout and interval and interval > timeout:
            interval = timeout
        while True:
            try:
                self.cycle.get(self._deliver, timeout=timeout)
                return
            except Empty:
                if timeout is not None and (monotonic() - started >= timeout or _worker_stopping()):
                    raise TimeoutError() from None
                if interval is not None:
                    sleep(interval)
