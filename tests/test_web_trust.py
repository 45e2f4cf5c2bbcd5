"""What a phone may do, and what survives a restart (issue 20, items 5-7).

Real parts: the Flask app with its CSRF check, the hub, the Nasty 7 and
Finger Guns engines, a SQLite log and the state directory in a temporary
folder, the ``companion pin`` command. Each test here failed before issue 20:
the page took ``audio``/``hearing``/``say``/``tick`` from any PIN holder, a
phone could pick for another seat, and every restart made a new secret key
and PIN.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from companion.cli import main
from companion.hub import Hub
from companion.store import Store
from companion.web import create_app

PIN = "4321"
TRUSTED_HOSTS = ["localhost"]
"""The control page answers localhost only (the conftest ``app`` fixture)."""
Phone = tuple[FlaskClient, dict[str, str]]


def phone_of(app: Flask, pin: str = PIN) -> Phone:
    client = app.test_client()
    headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"]}
    assert client.post("/api/pin", json={"pin": pin}, headers=headers).status_code == 200
    return client, headers


def snapshot(hub: Hub) -> Any:
    table = hub.table
    assert table is not None
    return table.view(), len(table.rulings), [(g.id, g.events) for g in hub.store.games()]


# --- item 5: only the events a person at the table makes ----------------------------


@pytest.mark.parametrize("event", [
    {"type": "audio", "path": "/etc/passwd"},
    {"type": "hearing", "on": True},
    {"type": "hearing", "on": False},
    {"type": "say", "text": "one"},
    {"type": "tick"},
])
def test_ear_and_clock_events_are_refused_from_the_page(hub: Hub, app: Flask,
                                                        event: dict[str, Any]) -> None:
    client, headers = phone_of(app)
    assert client.post("/api/games", json={"game": "nasty7", "players": ["Abby", "Beth"]},
                       headers=headers).status_code == 201
    client.post("/api/events", json={"type": "flip", "card": "racketeer"}, headers=headers)
    before = snapshot(hub)
    reply = client.post("/api/events", json=event, headers=headers)
    assert reply.status_code == 403, reply.get_json()
    assert reply.get_json()["field"] == "type"
    assert snapshot(hub) == before


def test_flips_after_a_refused_hearing_event_are_still_judged(hub: Hub, app: Flask) -> None:
    # Before issue 20, {"type": "hearing", "on": true} with no microphone
    # turned every later silent flip into a hesitation.
    client, headers = phone_of(app)
    client.post("/api/games", json={"game": "nasty7", "players": ["Abby", "Beth"]},
                headers=headers)
    client.post("/api/events", json={"type": "hearing", "on": False, "t": 1.0},
                headers=headers)
    assert hub.table is not None
    assert [e.type for e in hub.table.match.effective] == []


# --- item 6: a phone acts only for the seat it took -------------------------------


@pytest.fixture
def finger_guns(hub: Hub, app: Flask) -> tuple[Phone, Phone]:
    abby, beth = phone_of(app), phone_of(app)
    reply = abby[0].post("/api/games", json={"game": "finger_guns",
                                             "players": ["Abby", "Beth", "Carter"]},
                         headers=abby[1])
    assert reply.status_code == 201
    for (client, headers), name in ((abby, "Abby"), (beth, "Beth")):
        assert client.post("/api/finger-guns/seat", json={"player": name},
                           headers=headers).status_code == 200
    return abby, beth


def picks(hub: Hub, player: str) -> Any:
    assert hub.table is not None
    game = hub.table.game
    return game.private_view(hub.table.state, player)["you"]  # type: ignore[attr-defined]


def test_a_phone_cannot_pick_for_another_seat(hub: Hub, finger_guns: tuple[Phone, Phone]
                                              ) -> None:
    (abby, headers), _ = finger_guns
    before = snapshot(hub), picks(hub, "Beth")
    for route, body in (("/api/events", {"type": "choose", "player": "Beth",
                                         "target": "Carter"}),
                        ("/api/events", {"type": "discard", "player": "Beth", "cards": []})):
        reply = abby.post(route, json=body, headers=headers)
        assert reply.status_code == 403, reply.get_json()
        assert reply.get_json()["field"] == "player"
    assert (snapshot(hub), picks(hub, "Beth")) == before


def test_a_phone_picks_for_its_own_seat_through_the_events_route(
        hub: Hub, finger_guns: tuple[Phone, Phone]) -> None:
    (abby, headers), _ = finger_guns
    reply = abby.post("/api/events", json={"type": "choose", "target": "Carter"},
                      headers=headers)
    assert reply.status_code == 200, reply.get_json()
    assert picks(hub, "Abby")["target"] == "Carter"
    assert picks(hub, "Beth")["target"] is None


def test_an_unseated_phone_cannot_pick(hub: Hub, app: Flask,
                                       finger_guns: tuple[Phone, Phone]) -> None:
    client, headers = phone_of(app)
    before = snapshot(hub)
    reply = client.post("/api/events", json={"type": "choose", "player": "Carter",
                                             "target": "Abby"}, headers=headers)
    assert reply.status_code == 403
    assert snapshot(hub) == before


# --- item 7: restarts keep the secret key and the PIN ------------------------------


def restart(tmp_path: Path) -> Flask:
    """The page of a freshly started companion on the same state directory."""
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    return create_app(hub, state=tmp_path / "state",
                      test_config={"TESTING": True, "TRUSTED_HOSTS": ["localhost"]})


def test_a_restart_logs_no_phone_out_and_keeps_the_pin(tmp_path: Path) -> None:
    first = restart(tmp_path)
    pin = str(first.config["TABLE_PIN"])
    client, headers = phone_of(first, pin)
    cookie = client.get_cookie("session")
    assert cookie is not None

    second = restart(tmp_path)
    assert second.config["TABLE_PIN"] == pin
    assert second.config["SECRET_KEY"] == first.config["SECRET_KEY"]
    again = second.test_client()
    again.set_cookie("session", cookie.value)
    assert again.get("/api/session").get_json()["pin_ok"] is True
    # The CSRF token the phone got before the restart is still good.
    reply = again.post("/api/games", json={"game": "nasty7", "players": ["Abby", "Beth"]},
                       headers=headers)
    assert reply.status_code == 201, reply.get_json()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_pin_secret_key_and_log_are_readable_by_the_owner_only(tmp_path: Path) -> None:
    os.umask(0o022)
    restart(tmp_path)
    assert mode(tmp_path / "state" / "table_pin") == 0o600
    assert mode(tmp_path / "state" / "secret_key") == 0o600
    assert mode(tmp_path / "log.sqlite3") == 0o600


def test_companion_pin_shows_and_changes_the_pin_the_page_uses(tmp_path: Path) -> None:
    app = restart(tmp_path)
    db = str(tmp_path / "state" / "log.sqlite3")  # its folder is the state directory
    runner = CliRunner()
    shown = runner.invoke(main, ["pin", "--db", db], env={"STATE_DIRECTORY": ""})
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.strip() == app.config["TABLE_PIN"]

    changed = runner.invoke(main, ["pin", "--db", db, "--set", "97531"],
                            env={"STATE_DIRECTORY": ""})
    assert changed.exit_code == 0 and changed.stdout.strip() == "97531"
    # The running page takes the new PIN at once; the old one no longer works.
    client = app.test_client()
    headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"]}
    assert client.post("/api/pin", json={"pin": shown.stdout.strip()},
                       headers=headers).status_code == 403
    assert client.post("/api/pin", json={"pin": "97531"}, headers=headers).status_code == 200

    bad = runner.invoke(main, ["pin", "--db", db, "--set", "12ab"],
                        env={"STATE_DIRECTORY": ""})
    assert bad.exit_code == 2 and "4 to 12 digits" in bad.stderr
    assert (tmp_path / "state" / "table_pin").read_text() == "97531"


def test_face_down_card_ids_do_not_give_away_the_card(hub: Hub, app: Flask) -> None:
    # Before issue 20 a face-down card's id was its place in the deal ("Beth-5"),
    # and the deal is the public `cards` list, so the id named the card.
    client, headers = phone_of(app)
    cards = ["A1", "A2", "A3", "S1", "S2", "A4"]
    seen = []
    for _ in range(2):
        reply = client.post("/api/games", json={
            "game": "finger_guns", "players": ["Abby", "Beth", "Carter"],
            "options": {"flipping_fingers": True, "cards": cards}}, headers=headers)
        assert reply.status_code == 201
        view = client.get("/api/state").get_json()["view"]["state"]
        beth = next(p for p in view["players"] if p["name"] == "Beth")
        down = [c["id"] for c in beth["cards"] if c["code"] == "?"]
        assert len(down) == 3
        assert not {f"Beth-{i}" for i in range(1, 7)} & set(down)
        assert down == sorted(down)  # listed by id, not in the order dealt
        seen.append(down)
    assert seen[0] != seen[1]  # drawn afresh for every game


def test_face_down_ids_come_from_the_stored_seed() -> None:
    from companion.games import make_game
    from companion.games.base import Match

    options = {"flipping_fingers": True, "face_down_seed": 7}
    one = Match(make_game("finger_guns", ["Abby", "Beth"], options)).state
    two = Match(make_game("finger_guns", ["Abby", "Beth"], options)).state
    assert one == two  # a replay of the log deals the same ids
    old = Match(make_game("finger_guns", ["Abby", "Beth"],
                          {"flipping_fingers": True, "cards": ["A1", "A2", "S1", "S2"]})).state
    assert [c.id for c in old.lives[0]] == ["Abby-1", "Abby-2", "Abby-3", "Abby-4"]
    assert [c.id for c in one.lives[0]][-1].startswith("Abby-d")
