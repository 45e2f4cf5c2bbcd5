"""The page with the live table's hub (``companion.live``): a virtual button
press by the player whose turn it is is their flip (physical deck: its card
inferred from the call), and the next tap on the pad names that card. Real parts: ``LiveHub``
and ``LiveTable`` on their own thread (no pins, no microphone: this machine
has neither, and the live table runs without them), the Flask app, SQLite."""

from __future__ import annotations

import time
from pathlib import Path

from companion.live import LiveHub, LiveTable
from companion.store import Store
from companion.web import create_app

PIN = "8642"
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]


def test_a_press_is_the_flip_and_a_tap_names_its_card(tmp_path: Path) -> None:
    hub = LiveHub(Store(tmp_path / "log.sqlite3"))
    table_loop = LiveTable(hub)
    app = create_app(hub, pin=PIN, test_config={"TRUSTED_HOSTS": ["localhost"]})
    client = app.test_client()
    headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"]}
    assert client.post("/api/pin", json={"pin": PIN}, headers=headers).status_code == 200
    reply = client.post("/api/games", json={"game": "nasty7", "players": PLAYERS,
                                            "buttons": {"Abby": 2, "Beth": 1}}, headers=headers)
    assert reply.status_code == 201
    assert hub.buttons == {"Abby": 2, "Beth": 1}
    table_loop.start()
    try:
        assert client.post("/api/press", json={"player": "Abby"}, headers=headers
                           ).status_code == 200
        deadline = time.monotonic() + 10
        while hub.pending_press is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert hub.pending_press is not None and hub.pending_press[0] == "Abby"
        pressed_at = hub.pending_press[1]
        reply = client.post("/api/events", json={"type": "flip", "card": "gun"},
                            headers=headers)
        assert reply.status_code == 200, reply.get_json()
        assert reply.get_json()["event"]["player"] == "Abby"
        assert hub.table is not None
        named = hub.table.match.effective[-1]
        assert (named.type, named.player) == ("card", "Abby")
        assert hub.table.view()["state"]["call"]["card"] == "gun"
        assert hub.table.view()["state"]["pile"] == 1
        assert hub.table.view()["state"]["call"]["flip_t"] == pressed_at
        assert hub.pending_press is None
    finally:
        table_loop.stop()
