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

Slow and idle clients (issue 20): waitress closes a connection only after
``channel_timeout`` seconds with no byte in either direction, and stops
accepting altogether at ``connection_limit`` open connections, so 100 idle
sockets, or one byte every 10 s on each, took the page down for everyone.
``GuardedServer`` adds, in waitress's own maintenance pass (every
``cleanup_interval`` seconds, on the server's loop thread):

* a bound of ``per_address`` open connections per client address (a
  phone's browser opens about six); a connection over it is closed at once;
* ``request_timeout``: a request whose head and body have not all arrived
  this many seconds after its first byte is dropped, however slowly it
  trickles;
* ``send_timeout``: a response (a live stream too) that has had bytes
  waiting for this many seconds without the client taking any is dropped,
  which frees its thread and its stream slot;
* a short ``channel_timeout`` for connections that sit idle between requests.

The live streams keep their own bound (``SSE_MAX_CLIENTS``, 40).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
import threading
import time
from dataclasses import dataclass, field

from flask import Flask
from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, MultiSocketServer, TcpWSGIServer

from companion.web import live_of

log = logging.getLogger(__name__)


SEND_BUFFER = 64 * 1024
"""Bytes of kernel send buffer per connection (Linux doubles it): bounds the
memory a client that never reads can hold, and lets ``send_timeout`` see it
stall in seconds rather than after megabytes."""


class GuardedChannel(HTTPChannel):
    """waitress's channel, noting since when a request has been arriving
    (``partial_since``, wall-clock seconds as waitress keeps them)."""

    partial_since: float | None = None
    _partial: object = None

    def received(self, data: bytes) -> bool:
        result = super().received(data)
        request = self.request
        if request is None:
            self.partial_since, self._partial = None, None
        elif request is not self._partial:
            self.partial_since, self._partial = time.time(), request
        return bool(result)


def _close(channel: HTTPChannel) -> None:
    """Close ``channel`` (on the server's loop, from its trigger) unless it is
    closed already; wakes a stream thread waiting to write."""
    if channel.socket is not None and channel._fileno is not None:
        channel.handle_close()


def _close_all(socket_map: dict[int, wasyncore.dispatcher]) -> None:
    """Close every socket of ``socket_map`` (on the server's loop): each
    connection as waitress closes one a client left (``handle_close``, which
    also closes its output buffers: a file still being sent), then the
    rest (the listening socket, the trigger)."""
    for dispatcher in list(socket_map.values()):
        if isinstance(dispatcher, HTTPChannel):
            _close(dispatcher)
    wasyncore.close_all(socket_map)


class GuardedServer(TcpWSGIServer):
    """waitress's TCP server with the guards of the module docstring.
    ``guards``: ``per_address``, ``request_timeout``, ``send_timeout``."""

    channel_class = GuardedChannel

    def __init__(self, application: object, *, guards: dict[str, float], **kw: object) -> None:
        self.guards = guards
        self.refused_connections = 0
        """Connections closed at once for being over ``per_address``."""
        self.dropped_connections = 0
        """Connections dropped by ``request_timeout`` (a request too slow to arrive)."""
        self.stalled_connections = 0
        """Connections dropped by ``send_timeout`` (a client that takes nothing)."""
        super().__init__(application, **kw)

    def handle_accept(self) -> None:
        before = set(self.active_channels)
        super().handle_accept()
        for fileno in set(self.active_channels) - before:
            channel = self.active_channels[fileno]
            host = channel.addr[0] if isinstance(channel.addr, tuple) else channel.addr
            held = sum(1 for c in self.active_channels.values()
                       if c is not channel and isinstance(c.addr, tuple) and c.addr[0] == host)
            if held >= self.guards["per_address"]:
                self.refused_connections += 1
                channel.handle_close()

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # idle connections past channel_timeout
        for channel in list(self.active_channels.values()):
            if not isinstance(channel, GuardedChannel):
                continue
            # last_activity: the last byte received or sent (a running
            # request is not read from, so only sending moves it then).
            if channel.total_outbufs_len and now - channel.last_activity > \
                    self.guards["send_timeout"] and not channel.will_close:
                # Closed from the loop's trigger, never from here: maintenance
                # runs while the loop builds its select lists, and a socket
                # closed then would be a bad descriptor in the select. A stuck
                # socket never turns writable, so will_close alone would wait.
                self.stalled_connections += 1
                channel.will_close = True
                self.trigger.pull_trigger(functools.partial(_close, channel))
                continue
            started = channel.partial_since
            if started is not None and now - started > self.guards["request_timeout"]:
                self.dropped_connections += 1
                channel.will_close = True


@dataclass
class PageServer:
    """A running waitress server. ``host``/``port``: where it listens."""

    app: Flask
    server: BaseWSGIServer | MultiSocketServer  # a GuardedServer from start_server
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
            trigger.pull_trigger(functools.partial(_close_all, socket_map))
        self.thread.join(timeout)
        server.task_dispatcher.shutdown(timeout=timeout)
        if self.thread.is_alive():
            log.warning("the page's server thread did not stop within %.1f s", timeout)


def start_server(app: Flask, host: str = "0.0.0.0", port: int = 8080, *,
                 spare_threads: int = 8, channel_timeout: int = 30,
                 request_timeout: float = 10.0, send_timeout: float = 30.0,
                 per_address: int = 12, connection_limit: int = 250,
                 cleanup_interval: int = 2) -> PageServer:
    """Serve ``app`` with waitress on a daemon thread; return at once.

    ``port`` 0 picks a free port (read it from ``PageServer.port``).
    ``channel_timeout``: seconds a connection may sit idle between requests
    before it is closed. ``request_timeout``: seconds a request may take to
    arrive in full. ``send_timeout``: seconds a response may wait for the
    client to take any of it (streams send a keep-alive every
    ``SSE_KEEPALIVE`` seconds, 15, so a phone that listens keeps its
    stream). ``per_address``: open connections one client address may hold.
    ``connection_limit``: open connections in all (waitress stops accepting
    there). ``cleanup_interval``: seconds between checks of these limits.
    A specific ``host`` is added to the app's trusted Host names. Raises
    ``OSError`` if the address cannot be bound."""
    threads = int(app.config["SSE_MAX_CLIENTS"]) + spare_threads
    if host not in ("0.0.0.0", "", "::"):
        trusted = list(app.config.get("TRUSTED_HOSTS") or [])
        if trusted and host not in trusted:
            app.config["TRUSTED_HOSTS"] = [*trusted, host]
    if host in ("", "::"):
        host = "0.0.0.0" if host == "" else host
    from waitress.adjustments import Adjustments
    from waitress.task import ThreadedTaskDispatcher

    adj = Adjustments(host=host, port=port, threads=threads, ident="companion",
                      channel_timeout=channel_timeout, cleanup_interval=cleanup_interval,
                      connection_limit=connection_limit,
                      max_request_header_size=16 * 1024,
                      max_request_body_size=int(app.config["MAX_CONTENT_LENGTH"]) + 1024,
                      outbuf_high_watermark=256 * 1024)
    # Not a keyword of Adjustments: set on the instance, applied to each accepted socket.
    adj.socket_options = [(socket.SOL_TCP, socket.TCP_NODELAY, 1),
                          (socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)]
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(threads)
    guards = {"per_address": per_address, "request_timeout": request_timeout,
              "send_timeout": send_timeout}
    server = GuardedServer(app, guards=guards, map={}, dispatcher=dispatcher, adj=adj,
                           sockinfo=adj.listen[0])
    bound = server.effective_port
    thread = threading.Thread(target=server.run, name="companion-page", daemon=True)
    thread.start()
    log.info("control page on http://%s:%s/ (%d threads)", host, bound, threads)
    return PageServer(app=app, server=server, thread=thread, host=host, port=int(bound))
