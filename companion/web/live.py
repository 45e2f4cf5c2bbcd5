"""Live updates for the page: one hub listener fanning out to per-client queues.

``Broadcaster`` subscribes to the hub once. After every event applied (and
every game started) it builds one snapshot of the table, encodes it once as a
server-sent-events message, and puts it on the queue of every connected page.
Each message is a whole snapshot, so a slow page whose queue is full only
loses stale snapshots: the oldest is dropped, never the newest.

A page's stream (``Client``) blocks on its queue with a timeout and sends an
SSE comment as a keep-alive when nothing happened; the keep-alive is also how
a vanished phone is noticed (waitress raises on the write and closes the
stream, which unregisters the client).
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger(__name__)

Snapshot = Callable[[], dict[str, Any]]
"""Builds the message body (JSON-able) for the table as it is now."""

_CLOSED = b""


class TooManyClients(Exception):
    """Raised by ``Broadcaster.connect`` when ``max_clients`` pages are connected."""


def sse_message(data: Any, *, event: str | None = None, ident: int | None = None) -> bytes:
    """One server-sent-events message: optional ``event:`` and ``id:`` lines,
    then the JSON ``data:`` line, then the blank line that ends it."""
    lines = []
    if event:
        lines.append(f"event: {event}")
    if ident is not None:
        lines.append(f"id: {ident}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


class Client:
    """One connected page: an iterator of SSE byte chunks for the WSGI server.

    ``keepalive``: seconds of silence before an SSE comment is sent.
    ``close()`` (called by the WSGI server when the response ends or the
    phone goes away) unregisters it."""

    def __init__(self, owner: Broadcaster, first: bytes, *, keepalive: float,
                 depth: int) -> None:
        self._owner = owner
        self.address: str | None = None
        """The client's network address, when the stream was opened with one."""
        self._queue: queue.Queue[bytes] = queue.Queue(maxsize=depth)
        self._keepalive = keepalive
        self._pending: list[bytes] = [b"retry: 3000\n\n" + first]
        self.closed = False

    def offer(self, message: bytes) -> None:
        """Queue a message; when the queue is full drop its oldest snapshot."""
        while True:
            try:
                self._queue.put_nowait(message)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        if self._pending:
            return self._pending.pop(0)
        if self.closed:
            raise StopIteration
        try:
            message = self._queue.get(timeout=self._keepalive)
        except queue.Empty:
            return b": keep-alive\n\n"
        if message == _CLOSED:
            self.close()
            raise StopIteration
        return message

    def close(self) -> None:
        """Unregister from the broadcaster (idempotent)."""
        if not self.closed:
            self.closed = True
            self._owner._forget(self)


class Broadcaster:
    """Fans table updates out to connected pages.

    ``snapshot``: builds the message for the table as it is now.
    ``max_clients``: pages that may stream at once (each holds a server
    thread); ``per_address``: streams one client address may hold (a
    phone with a tab or two open; so no one address takes every slot);
    ``keepalive``: seconds between keep-alive comments; ``depth``:
    snapshots queued per page before the oldest is dropped."""

    def __init__(self, snapshot: Snapshot, *, max_clients: int = 40, keepalive: float = 15.0,
                 depth: int = 8, per_address: int = 4) -> None:
        self._snapshot = snapshot
        self.max_clients = max_clients
        self.per_address = per_address
        self.keepalive = keepalive
        self.depth = depth
        self._clients: set[Client] = set()
        self._lock = threading.Lock()
        self._publishing = threading.Lock()  # snapshots go out in the order they were taken
        self._seq = 0
        self._closed = False

    @property
    def client_count(self) -> int:
        """How many pages are connected now."""
        with self._lock:
            return len(self._clients)

    def _message(self) -> bytes:
        with self._lock:
            self._seq += 1
            seq = self._seq
        body = self._snapshot()
        body["seq"] = seq
        return sse_message(body, event="table", ident=seq)

    def connect(self, address: str | None = None) -> Client:
        """A new page's stream, starting with a snapshot of the table now.
        ``address``: the client's address (None: not counted per address).

        Raises ``TooManyClients`` when ``max_clients`` are connected or
        ``address`` already holds ``per_address`` streams, and
        ``RuntimeError`` after ``close``."""
        first = self._message()
        client = Client(self, first, keepalive=self.keepalive, depth=self.depth)
        client.address = address
        with self._lock:
            if self._closed:
                raise RuntimeError("the page's live updates are shut down")
            if len(self._clients) >= self.max_clients:
                raise TooManyClients(f"{len(self._clients)} pages are already watching")
            if address is not None and sum(
                    1 for c in self._clients if c.address == address) >= self.per_address:
                raise TooManyClients(f"this device already watches in {self.per_address} pages")
            self._clients.add(client)
        return client

    def _forget(self, client: Client) -> None:
        with self._lock:
            self._clients.discard(client)

    def publish(self) -> None:
        """Send a snapshot of the table now to every connected page."""
        with self._lock:
            if not self._clients:
                return
        with self._publishing:
            message = self._message()
            with self._lock:
                clients = list(self._clients)
            for client in clients:
                client.offer(message)

    def hub_listener(self, *_args: Any) -> None:
        """The ``Hub.subscribe`` listener: publish, and never raise into the table."""
        try:
            self.publish()
        except Exception:  # the table must go on even if the page cannot render
            log.exception("cannot publish the table to the page")

    def close(self) -> None:
        """End every stream (their iterators stop) and refuse new ones."""
        with self._lock:
            self._closed = True
            clients = list(self._clients)
        for client in clients:
            client.offer(_CLOSED)
