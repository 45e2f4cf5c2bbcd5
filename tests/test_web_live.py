"""Live updates over a real waitress server on 127.0.0.1: server-sent events
reach every page, a vanished page is let go, the stream cap holds, and the
server stops cleanly. Nothing is mocked."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.games.nasty7 import Flip
from companion.hub import Hub
from companion.store import Store
from companion.web import create_app, live_of
from companion.web.live import Broadcaster, sse_message
from companion.web.server import PageServer, start_server

PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Hub, PageServer]]:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    app = create_app(hub, pin="1234", test_config={"SSE_KEEPALIVE": 0.2, "SSE_MAX_CLIENTS": 3})
    server = start_server(app, "127.0.0.1", 0, spare_threads=4)
    yield hub, server
    server.stop()


class Stream:
    """One page's live stream, read line by line on the test's thread."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.conn.request("GET", "/api/events/stream")
        self.reply = self.conn.getresponse()

    def next_table(self) -> dict[str, Any]:
        """The next ``table`` message's JSON (keep-alive comments skipped)."""
        event = None
        while True:
            line = self.reply.fp.readline()
            if not line:
                raise EOFError("the stream ended")
            text = line.decode().rstrip("\r\n")
            if text.startswith("event: "):
                event = text[7:]
            elif text.startswith("data: ") and event == "table":
                out = json.loads(text[6:])
                assert isinstance(out, dict)
                return out

    def close(self) -> None:
        self.reply.close()
        self.conn.close()


def wait_until(condition: Any, seconds: float = 10.0) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` pass (no timing is asserted)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())


def test_every_page_gets_every_change(served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    pages = [Stream(server.port), Stream(server.port)]
    assert pages[0].reply.status == 200
    assert pages[0].reply.getheader("Content-Type", "").startswith("text/event-stream")
    for page in pages:
        assert page.next_table()["game"] is None
    table = hub.new_game("nasty7", PLAYERS)
    for page in pages:
        first = page.next_table()
        assert first["game"] == "nasty7" and first["view"]["state"]["count"] == 0
    hub.submit(Flip(t=1.0, player="Abby", card="racketeer"))
    for page in pages:
        snap = page.next_table()
        assert snap["view"]["state"]["count"] == 1
        assert snap["turn"] == "Beth"
        assert 'data-stack="26"' in snap["board"]
        assert snap["game_id"] == table.game_id
    for page in pages:
        page.close()


def test_a_page_that_goes_away_is_let_go(served: tuple[Hub, PageServer]) -> None:
    _, server = served
    live = live_of(server.app)
    page = Stream(server.port)
    page.next_table()
    assert live.client_count == 1
    page.close()
    # waitress notices on the next keep-alive write and closes the stream.
    assert wait_until(lambda: live.client_count == 0)


def test_the_stream_cap_answers_503_and_api_still_answers(served: tuple[Hub, PageServer]
                                                          ) -> None:
    _, server = served
    pages = [Stream(server.port) for _ in range(3)]
    for page in pages:
        page.next_table()
    extra = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    extra.request("GET", "/api/events/stream")
    reply = extra.getresponse()
    assert reply.status == 503
    assert json.loads(reply.read())["error"].startswith("too many pages")
    extra.close()
    state = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    state.request("GET", "/api/state")
    assert state.getresponse().status == 200
    state.close()
    for page in pages:
        page.close()


def test_stop_ends_streams_and_the_server_thread(tmp_path: Path) -> None:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    app = create_app(hub, pin="1234")
    server = start_server(app, "127.0.0.1", 0)
    page = Stream(server.port)
    page.next_table()
    server.stop()
    assert not server.thread.is_alive()
    with pytest.raises((EOFError, OSError, http.client.HTTPException)):
        while True:
            page.next_table()
    page.close()
    with pytest.raises(OSError):
        http.client.HTTPConnection("127.0.0.1", server.port, timeout=2).request("GET", "/")


def test_a_full_queue_keeps_the_newest_snapshot() -> None:
    counter = iter(range(1000))
    live = Broadcaster(lambda: {"n": next(counter)}, depth=2, keepalive=0.01)
    client = live.connect()
    assert b'"n":0' in next(client)
    for _ in range(5):
        live.publish()
    got = [next(client), next(client)]
    assert b'"n":4' in got[0] and b'"n":5' in got[1]
    assert next(client) == b": keep-alive\n\n"
    client.close()
    assert live.client_count == 0


def test_listener_faults_never_reach_the_table(tmp_path: Path) -> None:
    hub = Hub(Store(tmp_path / "log.sqlite3"))

    def broken() -> dict[str, Any]:
        raise RuntimeError("template exploded")

    live = Broadcaster(broken)
    hub.subscribe(live.hub_listener)
    live._clients.add(object())  # type: ignore[arg-type]  # one page "connected"
    table = hub.new_game("nasty7", PLAYERS)
    assert hub.submit(Flip(t=1.0, player="Abby", card="gun")) == []
    assert table.view()["state"]["pile"] == 1


def test_sse_message_format() -> None:
    message = sse_message({"a": 1}, event="table", ident=7)
    assert message == b'event: table\nid: 7\ndata: {"a":1}\n\n'


def test_publishing_from_many_threads_keeps_order() -> None:
    lock = threading.Lock()
    state = {"n": 0}

    def snap() -> dict[str, Any]:
        with lock:
            return {"n": state["n"]}

    live = Broadcaster(snap, depth=500)
    client = live.connect()
    next(client)

    def bump() -> None:
        for _ in range(50):
            with lock:
                state["n"] += 1
            live.publish()

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    seen = []
    for _ in range(200):
        body = next(client).decode().split("data: ", 1)[1]
        seen.append(json.loads(body)["n"])
    assert seen == sorted(seen)
    assert seen[-1] == 200
