"""The page stays up under idle and slow clients (issue 20, item 2).

Real parts: the app, waitress (``start_server``) on 127.0.0.1 with an OS
port, real TCP sockets. The attacking sockets bind other loopback addresses
(127.0.0.2 and up: all of 127/8 is this machine on Linux), so the page sees
them as other clients, as it would see other phones. Everything is bounded:
at most 120 sockets, each test under about 20 s.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.events import Undo
from companion.games.nasty7 import Flip
from companion.hub import Hub
from companion.store import Store
from companion.web import create_app
from companion.web.server import PageServer, start_server


@pytest.fixture
def page(tmp_path: Path) -> Iterator[PageServer]:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    hub.new_game("nasty7", ["Abby", "Beth", "Carter"])
    app = create_app(hub, pin="2468")
    server = start_server(app, "127.0.0.1", 0, cleanup_interval=1, request_timeout=3.0,
                          channel_timeout=4, send_timeout=5.0)
    yield server
    server.stop()


def connect(port: int, source: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5,
                                    source_address=(source, 0))
    return sock


def get_state(port: int, timeout: float = 8.0) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/api/state")
        return conn.getresponse().status
    finally:
        conn.close()


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes ``sock`` within ``within`` seconds."""
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except TimeoutError:
        return False
    except OSError:  # reset by the server
        return True


def test_a_hundred_idle_connections_do_not_take_the_page_down(page: PageServer) -> None:
    # Before issue 20: waitress's connection_limit of 100 was reached and every
    # request waited 120 s.
    idle = []
    try:
        for _ in range(110):
            with contextlib.suppress(OSError):
                idle.append(connect(page.port, "127.0.0.2"))
        started = time.monotonic()
        assert get_state(page.port) == 200
        assert time.monotonic() - started < 8  # bounded by the client's own timeout
        held = [s for s in idle if not closed_by_server(s, 0.05)]
        assert len(held) <= 12  # the bound per client address
        assert page.server.refused_connections >= 100 - 12
    finally:
        for sock in idle:
            sock.close()


def test_a_trickled_request_is_dropped(page: PageServer) -> None:
    # One byte every second keeps waitress's idle timer from ever firing;
    # the request deadline (3 s here) ends it.
    sock = connect(page.port, "127.0.0.3")
    try:
        start = time.monotonic()
        dropped = False
        for byte in b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n":
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                dropped = True
                break
            if closed_by_server(sock, 1.0):
                dropped = True
                break
            if time.monotonic() - start > 15:
                break
        assert dropped
        assert time.monotonic() - start < 10
        assert get_state(page.port) == 200
    finally:
        sock.close()


def test_an_idle_connection_is_closed(page: PageServer) -> None:
    sock = connect(page.port, "127.0.0.4")
    try:
        assert closed_by_server(sock, 12.0)
    finally:
        sock.close()


def test_a_stream_that_is_never_read_frees_its_slot(page: PageServer) -> None:
    # A stream whose client never reads: its output backs up, and after
    # send_timeout (5 s here) the connection is dropped and its slot freed.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before the handshake
    sock.bind(("127.0.0.5", 0))
    sock.connect(("127.0.0.1", page.port))
    live = page.app.extensions["companion.live"]
    try:
        sock.sendall(b"GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        deadline = time.monotonic() + 5
        while live.client_count == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live.client_count == 1
        hub = page.app.extensions["companion.control"].hub
        deadline = time.monotonic() + 25
        t = 1.0
        while live.client_count and time.monotonic() < deadline:
            # Each flip and its undo push a snapshot of a few kB to the stream.
            hub.submit(Flip(t=t, player=hub.table.game.players[0], card="racketeer"))
            hub.submit(Undo(t=t))
            t += 0.01
            time.sleep(0.02)
        assert live.client_count == 0
        assert get_state(page.port) == 200
    finally:
        sock.close()


def test_stopping_the_server_closes_a_file_still_being_sent(tmp_path: Path) -> None:
    """A file the page was still sending when the server stopped (a phone
    that stopped reading, or the companion shutting down mid-download) is
    closed at the stop, not left to the garbage collector: waitress keeps
    such a file in the connection's output buffers, and a socket closed
    without them left it open (a ResourceWarning the suite then raised in
    whichever test came next). The file is a test route's, 4 MB, far more
    than the socket buffers take, so part of it is surely still waiting."""
    from flask import send_file

    hub = Hub(Store(tmp_path / "log.sqlite3"))
    app = create_app(hub, pin="2468")
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(4 * 1024 * 1024))
    opened: list[object] = []

    def download() -> object:
        f = big.open("rb")
        opened.append(f)
        return send_file(f, mimetype="application/octet-stream")

    app.add_url_rule("/test-download", "test_download", download)
    server = start_server(app, "127.0.0.1", 0)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(b"GET /test-download HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert sock.recv(1024).startswith(b"HTTP/1.1 200")  # sent, and then not read
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not server.server.active_channels:
            time.sleep(0.01)
        assert opened and not opened[0].closed  # type: ignore[attr-defined]
        server.stop()
        assert opened[0].closed  # type: ignore[attr-defined]
    finally:
        sock.close()
        server.stop()
