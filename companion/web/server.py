"""Serving the control page in the companion's process with waitress.

``start_server(app, host, port)`` runs waitress on a background thread and
returns a ``PageServer`` with the bound ``port`` and ``url``; ``stop()`` ends
every live stream, closes the listening socket and waits for the thread.

Threads: waitress serves each request on a worker thread, and a live
stream holds its thread for as long as the phone watches. The pool is the
app's ``SSE_MAX_CLIENTS`` (the most streams allowed at once, 40 by default)
plus ``spare_threads`` (8) for ordinary requests, so pages and API calls
are answered even with every stream slot taken. waitress writes each chunk
a stream yields at once (its ``send_bytes`` is 1 since 2.0) and raises
``ClientDisconnected`` when a phone has gone, which closes the stream.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass, field

from flask import Flask
from waitress import wasyncore
from waitress.server import BaseWSGIServer, MultiSocketServer, create_server

from companion.web import live_of

log = logging.getLogger(__name__)


@dataclass
class PageServer:
    """A running waitress server. ``host``/``port``: where it listens."""

    app: Flask
    server: BaseWSGIServer | MultiSocketServer
    thread: threading.Thread
    host: str
    port: int
    _stopped: bool = field(default=False, init=False)

    @property
    def url(self) -> str:
        """The page's address on this machine (``http://host:port/``)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    def stop(self, timeout: float = 5.0) -> None:
        """End the live streams and let them finish, stop accepting, and join
        the server thread (at most ``timeout`` seconds for each step). Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        live = live_of(self.app)
        live.close()
        server = self.server
        # Let the streams write their last chunk before the sockets close.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (
                live.client_count or server.task_dispatcher.active_count):
            time.sleep(0.01)
        socket_map = server.map if isinstance(server, MultiSocketServer) else server._map
        # Close every socket from inside the server's own loop: the loop ends
        # when its map is empty.
        trigger = getattr(server, "trigger", None)
        if trigger is None:
            trigger = next(s for s in socket_map.values() if hasattr(s, "pull_trigger"))
        # If the loop, woken by a stream ending, runs the closing thunk before
        # this thread writes to the trigger, the trigger is already closed.
        with contextlib.suppress(OSError):
            trigger.pull_trigger(lambda: wasyncore.close_all(socket_map))
        self.thread.join(timeout)
        server.task_dispatcher.shutdown(timeout=timeout)
        if self.thread.is_alive():
            log.warning("the page's server thread did not stop within %.1f s", timeout)


def start_server(app: Flask, host: str = "0.0.0.0", port: int = 8080, *,
                 spare_threads: int = 8, channel_timeout: int = 120) -> PageServer:
    """Serve ``app`` with waitress on a daemon thread; return at once.

    ``port`` 0 picks a free port (read it from ``PageServer.port``).
    ``channel_timeout``: seconds a connection may stay silent before waitress
    closes it (streams send a keep-alive every ``SSE_KEEPALIVE`` seconds,
    well within it). A specific ``host`` is added to the app's trusted Host
    names. Raises ``OSError`` if the address cannot be bound."""
    threads = int(app.config["SSE_MAX_CLIENTS"]) + spare_threads
    if host not in ("0.0.0.0", "", "::"):
        trusted = list(app.config.get("TRUSTED_HOSTS") or [])
        if trusted and host not in trusted:
            app.config["TRUSTED_HOSTS"] = [*trusted, host]
    server = create_server(app, host=host, port=port, threads=threads,
                           channel_timeout=channel_timeout, ident="companion")
    bound = server.effective_port if isinstance(server, BaseWSGIServer) else port
    thread = threading.Thread(target=server.run, name="companion-page", daemon=True)
    thread.start()
    log.info("control page on http://%s:%s/ (%d threads)", host, bound, threads)
    return PageServer(app=app, server=server, thread=thread, host=host, port=int(bound))
