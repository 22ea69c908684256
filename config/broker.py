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
  process just wrote, before the lock is taken: a publisher reading it then fails.

Here a message is written under a hidden name and renamed into place, a consumer claims it by
renaming it within the same folder (one rename wins), and a binding table is never emptied
before its lock is held. Settings select this transport with ``CELERY_BROKER_TRANSPORT``
whenever the embedded broker is used; the URL stays ``filesystem://``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from queue import Empty
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads


class Channel(filesystem.Channel):
    """kombu's file-system channel, whose readers only ever see whole files."""

    def _put(self, queue, payload, **kwargs):
        """Write the message under a hidden name, then rename it into ``queue``."""
        folder = self.data_folder_out
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        partial = os.path.join(folder, f".{uuid.uuid4().hex}.partial")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
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
        """Take the oldest message of ``queue``: the consumer whose rename succeeds has it."""
        folder = self.data_folder_in
        wanted = f"{queue}.msg"
        for filename in sorted(os.listdir(folder)):
            if filename.partition(".")[2] != wanted:
                continue
            claimed = os.path.join(folder, f".{filename}.{uuid.uuid4().hex}.claimed")
            try:
                os.rename(os.path.join(folder, filename), claimed)
            except OSError:  # another consumer took it first
                continue
            try:
                with open(claimed, "rb") as file:
                    payload = file.read()
                if self.store_processed:
                    shutil.move(claimed, os.path.join(self.processed_folder, filename))
                else:
                    os.remove(claimed)
            except OSError as exc:
                raise ChannelError(f"Cannot read file {filename!r} from queue.") from exc
            return loads(bytes_to_str(payload))
        raise Empty()

    def get_table(self, exchange):
        """The exchange's bindings; a table its creator has not written yet holds none."""
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
        return [filesystem.exchange_queue_t(*q) for q in loads(text)] if text else []

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        """Add a binding under the table's lock; the table is emptied only while locked."""
        file = self._exchange_file(exchange)
        self.control_folder.mkdir(exist_ok=True)
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        try:
            fd = os.open(file, os.O_RDWR | os.O_CREAT, 0o666)
            with os.fdopen(fd, "rb+", buffering=0) as f_obj:
                filesystem.lock(f_obj, filesystem.LOCK_EX)
                try:
                    text = bytes_to_str(f_obj.read())
                    bindings = (
                        [filesystem.exchange_queue_t(*q) for q in loads(text)] if text else []
                    )
                    if binding not in bindings:
                        bindings.insert(0, binding)
                        f_obj.seek(0)
                        f_obj.write(str_to_bytes(dumps(bindings)))
                        f_obj.truncate()
                finally:
                    filesystem.unlock(f_obj)
        except OSError as exc:
            raise ChannelError(f"Cannot open {file}") from exc


class Transport(filesystem.Transport):
    """kombu's file-system transport with :class:`Channel`."""

    Channel = Channel
