"""The control page's JSON API and pages through Flask's test client.

Real parts: the Flask app, Flask-WTF's CSRF check, the hub, the Nasty 7 and
Cheat engines and a real SQLite log in a temporary file. Nothing is mocked;
the live table's optional hub parts (a pending press, ``Hub.press``) are
given by a small ``Hub`` subclass where a test needs them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.events import Say
from companion.games import available_games, game_class
from companion.games.nasty7 import Nasty7Options
from companion.hub import Hub
from companion.store import Store
from companion.web import create_app
from companion.web.optionform import option_fields

PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]
PIN = "4321"
Phone = tuple[FlaskClient, dict[str, str]]
"""A test client holding a session, and its CSRF header."""


def csrf_of(client: FlaskClient) -> dict[str, str]:
    token = client.get("/api/session").get_json()["csrf_token"]
    return {"X-CSRFToken": token}


@pytest.fixture
def player(app: Flask) -> Phone:
    """A phone that holds the PIN, and its CSRF header."""
    client = app.test_client()
    headers = csrf_of(client)
    assert client.post("/api/pin", json={"pin": PIN}, headers=headers).status_code == 200
    return client, headers


@pytest.fixture
def game(hub: Hub, player: Phone) -> Phone:
    client, headers = player
    reply = client.post("/api/games", json={"game": "nasty7", "players": PLAYERS},
                        headers=headers)
    assert reply.status_code == 201, reply.get_json()
    return client, headers


def snapshot(hub: Hub) -> Any:
    """What must not change after a refused request: the view and the log."""
    table = hub.table
    games = [(g.id, g.events, g.winner) for g in hub.store.games()]
    if table is None:
        return None, games
    return table.view(), len(table.rulings), games


def refused(reply: Any, status: int, field: str | None) -> None:
    assert reply.status_code == status, reply.get_data(as_text=True)
    body = reply.get_json()
    assert body["field"] == field, body
    assert body["error"]


# --- watching ----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/setup", "/games", "/settings", "/api/state",
                                  "/api/games", "/api/games/available", "/api/session",
                                  "/api/level", "/api/settings", "/voices", "/api/voices",
                                  "/seats", "/api/seats"])
def test_anyone_may_watch(app: Flask, path: str) -> None:
    reply = app.test_client().get(path)
    assert reply.status_code == 200


def test_state_shows_the_table(hub: Hub, game: Phone) -> None:
    client, headers = game
    client.post("/api/events", json={"type": "flip", "card": "racketeer"}, headers=headers)
    state = client.get("/api/state").get_json()
    assert state["game"] == "nasty7"
    assert state["turn"] == "Beth"
    assert state["view"]["state"]["count"] == 1
    stacks = {p["name"]: p["stack"] for p in state["view"]["state"]["players"]}
    assert stacks["Abby"] == stacks["Beth"] - 1
    assert state["leaders"] == ["Abby"]


def test_table_page_renders_board_pad_buttons_and_log(hub: Hub, game: Phone
                                                      ) -> None:
    client, headers = game
    client.post("/api/events", json={"type": "flip", "card": "gun"}, headers=headers)
    assert hub.table is not None  # the ear hears the call (the page may not post words)
    hub.submit(Say(t=hub.table.match.clock + 0.5, text="one"))
    html = client.get("/").get_data(as_text=True)
    for name in PLAYERS:
        assert f'data-press="{name}"' in html
    assert 'data-event=\'{"type":"flip","card":"twin_phone"}\'' in html
    assert 'id="count"' in html
    assert "data-undo" in html
    assert "ruling r-" in html  # the gun card's call was a mistake: the log shows it


def test_setup_form_has_every_option_with_its_default(app: Flask) -> None:
    html = app.test_client().get("/setup?game=nasty7").get_data(as_text=True)
    defaults = msgspec.to_builtins(Nasty7Options())
    fields = option_fields(Nasty7Options)
    assert {f.name for f in fields} >= {"hesitation", "nasty", "even_more_nasty", "younger",
                                        "composition.gun", "virtual_deck", "min_confidence"}
    for f in fields:
        assert f'data-opt="{f.name}"' in html
        top, _, sub = f.name.partition(".")
        expected = defaults[top][sub] if sub else defaults[top]
        assert f.default == expected
    assert 'data-opt="hesitation" data-kind="float" value="3.0"' in html
    assert "The rulebook says 3." in html  # plain help, the default in the box


def test_past_games_page_lists_stored_games(hub: Hub, game: Phone
                                            ) -> None:
    client, _ = game
    html = client.get("/games").get_data(as_text=True)
    assert "#1 The Nasty 7" in html and "Abby, Beth, Carter, Debbie" in html
    rows = client.get("/api/games").get_json()
    assert rows[0]["players"] == PLAYERS and rows[0]["winner"] is None


# --- acting ------------------------------------------------------------------------


def test_a_tap_is_a_flip_by_the_current_player_with_t_from_the_clock(
        hub: Hub, game: Phone) -> None:
    client, headers = game
    reply = client.post("/api/events", json={"type": "flip", "card": "racketeer"},
                        headers=headers)
    assert reply.status_code == 200
    event = reply.get_json()["event"]
    assert event["player"] == "Abby" and event["t"] > 0
    reply = client.post("/api/events", json={"type": "flip", "card": "phone"}, headers=headers)
    assert reply.get_json()["event"]["player"] == "Beth"


class PressingHub(Hub):
    """A hub with the live table's optional parts: a pending press and ``press``."""

    pending_press: str | None = None
    presses: list[tuple[str, float]]

    def press(self, player: str, t: float) -> list[Any]:
        self.presses.append((player, t))
        return []


def test_a_tap_after_a_button_press_is_that_players_flip(tmp_path: Path) -> None:
    hub = PressingHub(Store(tmp_path / "log.sqlite3"))
    hub.presses = []
    app = create_app(hub, pin=PIN, test_config={"TRUSTED_HOSTS": ["localhost"]})
    client = app.test_client()
    headers = csrf_of(client)
    client.post("/api/pin", json={"pin": PIN}, headers=headers)
    client.post("/api/games", json={"game": "nasty7", "players": PLAYERS}, headers=headers)
    assert client.get("/api/state").get_json()["actor"] == "Abby"
    hub.pending_press = "Carter"
    assert client.get("/api/state").get_json()["actor"] == "Carter"
    reply = client.post("/api/events", json={"type": "flip", "card": "gun"}, headers=headers)
    assert reply.get_json()["event"]["player"] == "Carter"
    # A virtual button goes to the live table's own judgement of a press.
    assert client.post("/api/press", json={"player": "debbie"}, headers=headers).status_code == 200
    assert [p for p, _ in hub.presses] == ["Debbie"]


def test_virtual_buttons_without_a_board_flip_or_accuse(
        hub: Hub, player: Phone) -> None:
    client, headers = player
    client.post("/api/games", json={"game": "nasty7", "players": PLAYERS,
                                    "options": {"virtual_deck": True}}, headers=headers)
    reply = client.post("/api/press", json={"player": "Abby"}, headers=headers)
    assert reply.status_code == 200, reply.get_json()
    assert hub.table is not None
    assert hub.table.view()["state"]["pile"] == 1
    reply = client.post("/api/press", json={"player": "Carter"}, headers=headers)
    assert reply.status_code == 200
    assert any(r["type"] in ("accusation_unheard", "mistake", "pile")
               for r in reply.get_json()["rulings"])


def test_undo_takes_back_the_last_flip(hub: Hub, game: Phone
                                       ) -> None:
    client, headers = game
    before = hub.table.view()["state"] if hub.table else None
    client.post("/api/events", json={"type": "flip", "card": "racketeer"}, headers=headers)
    reply = client.post("/api/undo", headers=headers)
    assert reply.status_code == 200
    assert reply.get_json()["rulings"][0]["type"] == "undone"
    assert hub.table is not None and hub.table.view()["state"] == before


def test_setup_with_options_and_buttons(hub: Hub, player: Phone
                                        ) -> None:
    client, headers = player
    reply = client.post("/api/games", json={
        "game": "nasty7", "players": PLAYERS, "buttons": {"Abby": 3, "Beth": 1},
        "options": {"hesitation": 2.5, "composition": {"gun": 10}, "first_player": "Beth"}},
        headers=headers)
    assert reply.status_code == 201
    state = client.get("/api/state").get_json()
    assert state["buttons"] == {"Abby": 3, "Beth": 1}
    assert state["turn"] == "Beth"
    assert state["view"]["state"]["hesitation"] == 2.5


def test_resume_a_stored_game(hub: Hub, game: Phone) -> None:
    client, headers = game
    client.post("/api/events", json={"type": "flip", "card": "racketeer"}, headers=headers)
    client.post("/api/games", json={"game": "cheat", "players": PLAYERS}, headers=headers)
    assert hub.table is not None and hub.table.game.name == "cheat"
    reply = client.post("/api/games/1/resume", headers=headers)
    assert reply.status_code == 200
    assert hub.table.game.name == "nasty7" and hub.table.view()["state"]["pile"] == 1


def start_cheat(hub: Hub, player: Phone, **options: Any) -> tuple[str, float]:
    """A Cheat game started from the page with ``options``: the page's HTML
    and a time 5 s before the table clock now (seconds), so the test's
    scripted events at that time plus 1..4 s lie in the recent past, as the
    page accepts them."""
    client, headers = player
    body: dict[str, Any] = {"game": "cheat", "players": PLAYERS}
    if options:
        body["options"] = options
    client.post("/api/games", json=body, headers=headers)
    return client.get("/").get_data(as_text=True), max(hub.now() - 5.0, 0.0)


def test_cheat_reveal_entry(hub: Hub, player: Phone) -> None:
    client, headers = player
    html, t = start_cheat(hub, player, challenge_window=5.0)
    assert 'data-event=\'{"type":"reveal"}\'' in html
    reply = client.post("/api/events", json={"type": "claim", "count": 2, "rank": "4",
                                             "t": t + 1}, headers=headers)
    assert reply.status_code == 200, reply.get_json()
    assert reply.get_json()["event"]["player"] == "Abby"
    client.post("/api/events", json={"type": "challenge", "player": "Beth", "t": t + 2},
                headers=headers)
    reply = client.post("/api/events", json={"type": "reveal", "cards": ["4", "9"],
                                             "t": t + 3}, headers=headers)
    assert reply.status_code == 200, reply.get_json()
    types = [r["type"] for r in reply.get_json()["rulings"]]
    assert "challenge_won" in types
    # The page shows each player's figures: Abby bluffed, Beth caught it.
    html = client.get("/").get_data(as_text=True)
    rows = re.findall(r'<tr data-player="(\w+)">(.*?)</tr>', html)
    figures = {name: re.findall(r"<td>(\d+)</td>", cells) for name, cells in rows}
    # claims, bluffs, bluffs caught, challenges won, challenges lost
    assert figures["Abby"] == ["1", "1", "0", "0", "0"]
    assert figures["Beth"] == ["0", "0", "1", "1", "0"]


def test_cheat_fix_a_misheard_claim_before_the_reveal(hub: Hub, player: Phone) -> None:
    client, headers = player
    html, t = start_cheat(hub, player)
    assert 'data-event=\'{"type":"fix_claim"}\' data-fields="count rank"' in html
    hub.submit(Say(t=t + 1, text="one king"))  # Abby said "one seven"; the ear heard this
    client.post("/api/events", json={"type": "challenge", "player": "Beth", "t": t + 2},
                headers=headers)
    before = snapshot(hub)
    # A rank that was never legal there, and a count out of range: 400, nothing changes.
    for body, field in (({"count": 1, "rank": "X"}, "rank"), ({"count": 5, "rank": "7"}, "count")):
        refused(client.post("/api/events", json={"type": "fix_claim", "t": t + 3, **body},
                            headers=headers), 400, field)
    assert snapshot(hub) == before
    reply = client.post("/api/events", json={"type": "fix_claim", "count": 1, "rank": "7",
                                             "t": t + 3}, headers=headers)
    assert reply.status_code == 200, reply.get_json()
    assert [r["type"] for r in reply.get_json()["rulings"]] == ["claim_fixed"]
    reply = client.post("/api/events", json={"type": "reveal", "cards": ["7"], "t": t + 4},
                        headers=headers)
    assert "challenge_lost" in [r["type"] for r in reply.get_json()["rulings"]]
    log = client.get("/api/state", headers=headers).get_json()
    texts = [entry["text"] for entry in log.get("log", [])]
    assert "Fixed: Abby's claim is one seven." in texts, texts


def test_cheat_set_a_hand_count_from_the_page(hub: Hub, player: Phone) -> None:
    client, headers = player
    html, t = start_cheat(hub, player)
    assert 'data-event=\'{"type":"set_hand"}\' data-fields="player cards"' in html
    client.post("/api/events", json={"type": "claim", "count": 3, "rank": "4", "t": t + 1},
                headers=headers)
    before = snapshot(hub)
    for body, field in (({"player": "Beth", "cards": None}, "cards"),
                        ({"player": "Beth", "cards": -1}, "cards"),
                        ({"player": "Beth", "cards": 20}, "cards"),
                        ({"player": "Zed", "cards": 12}, "player")):
        refused(client.post("/api/events", json={"type": "set_hand", "t": t + 2, **body},
                            headers=headers), 400, field)
    assert snapshot(hub) == before
    reply = client.post("/api/events", json={"type": "set_hand", "player": "Beth", "cards": 12,
                                             "t": t + 2}, headers=headers)
    assert reply.status_code == 200, reply.get_json()
    assert hub.table is not None
    state = hub.table.view()["state"]
    assert [p["hand"] for p in state["players"]] == [10, 12, 13, 13] and state["pile"] == 4
    texts = [entry["text"] for entry in
             client.get("/api/state", headers=headers).get_json().get("log", [])]
    assert "Counted: Beth holds 12 cards." in texts, texts


# --- refusals: every route, state untouched ----------------------------------------------

POST_ROUTES: list[tuple[str, dict[str, Any]]] = [
    ("/api/games", {"game": "nasty7", "players": PLAYERS}),
    ("/api/games/1/resume", {}),
    ("/api/events", {"type": "flip", "card": "racketeer"}),
    ("/api/undo", {}),
    ("/api/press", {"player": "Abby"}),
    ("/api/settings", {}),
]


@pytest.mark.parametrize(("path", "body"), POST_ROUTES)
def test_every_change_needs_the_pin(hub: Hub, app: Flask, game: Any, path: str,
                                    body: dict[str, Any]) -> None:
    watcher = app.test_client()
    before = snapshot(hub)
    refused(watcher.post(path, json=body, headers=csrf_of(watcher)), 403, "pin")
    assert snapshot(hub) == before


@pytest.mark.parametrize(("path", "body"), [*POST_ROUTES, ("/api/pin", {"pin": PIN})])
def test_every_post_needs_the_csrf_token(hub: Hub, game: Phone,
                                         path: str, body: dict[str, Any]) -> None:
    client, _ = game
    before = snapshot(hub)
    refused(client.post(path, json=body), 400, "csrf_token")
    refused(client.post(path, json=body, headers={"X-CSRFToken": "forged"}), 400, "csrf_token")
    assert snapshot(hub) == before


@pytest.mark.parametrize(("path", "body"), [*POST_ROUTES, ("/api/pin", {"pin": PIN})])
def test_a_foreign_host_is_refused(hub: Hub, game: Phone,
                                   path: str, body: dict[str, Any]) -> None:
    client, headers = game
    before = snapshot(hub)
    refused(client.post(path, json=body, headers={**headers, "Host": "evil.example"}),
            400, "Host")
    refused(client.get("/api/state", headers={"Host": "evil.example:8080"}), 400, "Host")
    assert snapshot(hub) == before


def test_a_wrong_pin_is_refused_and_too_many_are_locked_out(app: Flask) -> None:
    client = app.test_client()
    headers = csrf_of(client)
    refused(client.post("/api/pin", json={"pin": "0000"}, headers=headers), 403, "pin")
    refused(client.post("/api/pin", json={"pin": 4321.5}, headers=headers), 400, "pin")
    refused(client.post("/api/pin", json={"pin": ["4321"]}, headers=headers), 400, "pin")
    refused(client.post("/api/pin", json={}, headers=headers), 400, "pin")
    for _ in range(4):  # five wrong PINs in all
        refused(client.post("/api/pin", json={"pin": "1111"}, headers=headers), 403, "pin")
    refused(client.post("/api/pin", json={"pin": PIN}, headers=headers), 429, "pin")
    assert client.get("/api/session").get_json()["pin_ok"] is False


BAD_GAMES: list[tuple[Any, str]] = [
    ({"players": PLAYERS}, "game"),
    ({"game": 7, "players": PLAYERS}, "game"),
    ({"game": "poker", "players": PLAYERS}, "game"),
    ({"game": "nasty7"}, "players"),
    ({"game": "nasty7", "players": "Abby, Beth"}, "players"),
    ({"game": "nasty7", "players": ["Abby", 2]}, "players"),
    ({"game": "nasty7", "players": ["Abby"]}, "players"),
    ({"game": "nasty7", "players": ["Abby", "abby", "Beth"]}, "players"),
    ({"game": "nasty7", "players": PLAYERS, "options": []}, "options"),
    ({"game": "nasty7", "players": PLAYERS, "options": {"hesitation": "slow"}},
     "options.hesitation"),
    ({"game": "nasty7", "players": PLAYERS, "options": {"speed": 2}}, "options.speed"),
    ({"game": "nasty7", "players": PLAYERS, "options": {"composition": {"gun": "x"}}},
     "options.composition"),
    ({"game": "nasty7", "players": PLAYERS, "buttons": {"Zed": 1}}, "buttons"),
    ({"game": "nasty7", "players": PLAYERS, "buttons": {"Abby": "one"}}, "buttons"),
    ({"game": "nasty7", "players": PLAYERS, "buttons": {"Abby": 1, "Beth": 1}}, "buttons"),
    ({"game": "nasty7", "players": PLAYERS, "colour": "red"}, "colour"),
    (["nasty7"], "body"),
]


@pytest.mark.parametrize(("body", "field"), BAD_GAMES)
def test_bad_setup_is_refused_naming_the_field(hub: Hub, game: Phone,
                                               body: Any, field: str) -> None:
    client, headers = game
    before = snapshot(hub)
    refused(client.post("/api/games", json=body, headers=headers), 400, field)
    assert snapshot(hub) == before


BAD_EVENTS: list[tuple[Any, str]] = [
    ({"card": "racketeer"}, "type"),
    ({"type": "shuffle"}, "type"),
    ({"type": "flip", "card": 5}, "card"),
    ({"type": "flip", "card": "joker"}, "card"),
    ({"type": "flip", "player": "Zed", "card": "gun"}, "player"),
    ({"type": "flip", "player": 3, "card": "gun"}, "player"),
    ({"type": "flip", "card": "gun", "t": "soon"}, "t"),
    ({"type": "flip", "card": "gun", "t": -1}, "t"),
    ({"type": "flip", "card": "gun", "t": 0.0}, "t"),  # earlier than the last event
    ({"type": "accuse", "by": ["Nobody"]}, "by"),
    ({"type": "accuse"}, "by"),
    ({"type": "phone_word", "text": 5}, "text"),
    ({"type": "flip", "card": "gun", "extra": 1}, "extra"),
    ("flip", "body"),
]


@pytest.mark.parametrize(("body", "field"), BAD_EVENTS)
def test_bad_events_are_refused_naming_the_field(hub: Hub, game: Phone,
                                                 body: Any, field: str) -> None:
    client, headers = game
    client.post("/api/events", json={"type": "flip", "card": "racketeer"}, headers=headers)
    before = snapshot(hub)
    refused(client.post("/api/events", json=body, headers=headers), 400, field)
    assert snapshot(hub) == before


def test_events_need_a_game_and_a_json_body(hub: Hub, player: Phone
                                            ) -> None:
    client, headers = player
    refused(client.post("/api/events", json={"type": "tick"}, headers=headers), 409, "game")
    refused(client.post("/api/undo", headers=headers), 409, "game")
    refused(client.post("/api/press", json={"player": "Abby"}, headers=headers), 409, "game")
    refused(client.post("/api/events", data="not json", headers=headers), 400, "body")
    assert hub.table is None


def test_nothing_to_undo(hub: Hub, game: Phone) -> None:
    client, headers = game
    before = snapshot(hub)
    refused(client.post("/api/undo", headers=headers), 400, "event")
    assert snapshot(hub) == before


@pytest.mark.parametrize(("body", "field"), [
    ({}, "player"), ({"player": 1}, "player"), ({"player": "Zed"}, "player"),
    ([], "body")])
def test_bad_presses_are_refused(hub: Hub, game: Phone, body: Any,
                                 field: str) -> None:
    client, headers = game
    before = snapshot(hub)
    refused(client.post("/api/press", json=body, headers=headers), 400, field)
    assert snapshot(hub) == before


def test_resume_of_an_unknown_game(hub: Hub, game: Phone) -> None:
    client, headers = game
    before = snapshot(hub)
    refused(client.post("/api/games/99/resume", headers=headers), 404, "game_id")
    assert snapshot(hub) == before


@pytest.mark.parametrize(("body", "field"), [
    ({"input_device": "mic"}, "input_device"), ({"input_device": -1}, "input_device"),
    ({"input_device": 10_000}, "input_device"), ({"volume": 3}, "volume"), ([1], "body")])
def test_bad_settings_are_refused(player: Phone, body: Any,
                                  field: str) -> None:
    client, headers = player
    before = client.get("/api/settings").get_json()["input_device"]
    refused(client.post("/api/settings", json=body, headers=headers), 400, field)
    assert client.get("/api/settings").get_json()["input_device"] == before


def test_unknown_api_path_is_json_404(app: Flask) -> None:
    refused(app.test_client().get("/api/nothing"), 404, None)


def test_settings_report_voice_and_no_level_without_a_microphone(app: Flask) -> None:
    client = app.test_client()
    status = client.get("/api/settings").get_json()
    assert status["voice_pack"]["language"] == "en"
    assert isinstance(status["devices"], list)
    assert client.get("/api/level").get_json() == {"level_db": None, "device": None}
    assert "Level: none" in client.get("/settings").get_data(as_text=True)


class HeardMicrophone:
    """Stands in for ``companion.audio.microphone.Microphone`` after it has read
    a block: its ``level_db`` and ``device``, and ``use_device`` (recorded). The
    real one needs an audio device open, which this test must not do."""

    level_db = -23.5
    device = 0

    def __init__(self) -> None:
        self.chosen: list[int] = []

    def use_device(self, device: int) -> None:
        self.chosen.append(device)


def test_level_and_device_come_from_the_live_microphone(hub: Hub, app: Flask) -> None:
    mic = HeardMicrophone()
    hub.microphone = mic  # type: ignore[attr-defined]
    client = app.test_client()
    assert client.get("/api/level").get_json() == {"level_db": -23.5, "device": 0}
    status = client.get("/api/settings").get_json()
    assert status["input_device"] == 0
    assert status["microphone"]["name"] == "HeardMicrophone"
    assert status["speech_models"]["backend"] in ("vosk", "pocketsphinx")


def test_pin_must_be_digits(hub: Hub) -> None:
    with pytest.raises(ValueError, match="digits"):
        create_app(hub, pin="abcd")
    assert str(create_app(hub).config["TABLE_PIN"]).isdigit()


@pytest.mark.parametrize("name", available_games())
def test_every_installed_game_can_be_set_up_and_shown(hub: Hub, player: Phone, name: str) -> None:
    client, headers = player
    cls = game_class(name)
    assert client.get(f"/setup?game={name}").status_code == 200
    players = PLAYERS[:max(cls.min_players, min(4, cls.max_players))]
    reply = client.post("/api/games", json={"game": name, "players": players}, headers=headers)
    assert reply.status_code == 201, reply.get_json()
    page = client.get("/")
    assert page.status_code == 200
    assert 'id="board"' in page.get_data(as_text=True)
    assert client.get("/api/state").get_json()["game"] == name


def test_oversized_and_wrong_method_requests_get_json_errors(game: Phone) -> None:
    client, headers = game
    huge = {"type": "phone_word", "text": "one " * 40_000}
    refused(client.post("/api/events", json=huge, headers=headers), 413, None)
    refused(client.get("/api/undo"), 405, None)
