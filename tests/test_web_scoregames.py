"""The control page for Finger Guns, Cheap Shot and Rummy Battle, through
Flask's test client: setup from the Options struct, score entry, private
Finger Guns picks per phone, refusals naming the field with the state untouched.

Real parts: the Flask app, Flask-WTF's CSRF check, the hub, the engines and a
real SQLite log in a temporary file. Nothing is mocked.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.hub import Hub

PIN = "2468"
Phone = tuple[FlaskClient, dict[str, str]]


def phone(app: Flask) -> Phone:
    """A phone (its own session) that holds the PIN, and its CSRF header."""
    client = app.test_client()
    headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"]}
    assert client.post("/api/pin", json={"pin": PIN}, headers=headers).status_code == 200
    return client, headers


def start(app: Flask, game: str, players: list[str], options: dict[str, Any]) -> Phone:
    table = phone(app)
    client, headers = table
    reply = client.post("/api/games", json={"game": game, "players": players,
                                            "options": options}, headers=headers)
    assert reply.status_code == 201, reply.get_json()
    return table


def post(p: Phone, url: str, body: Any) -> Any:
    client, headers = p
    return client.post(url, json=body, headers=headers)


def refused(reply: Any, status: int, field: str) -> None:
    assert reply.status_code == status, reply.get_data(as_text=True)
    assert reply.get_json()["field"] == field


@pytest.mark.parametrize(("game", "options"), [
    ("finger_guns", ["mode", "cards", "hands", "gun_gang", "gun_gang_point_back",
                     "flipping_fingers", "pick_discards", "face_down_seed"]),
    ("cheap_shot", ["target_points", "three_hands"]),
    ("rummy_battle", ["rounds"]),
])
def test_the_setup_form_offers_every_option_of_the_game(app: Flask, game: str,
                                                        options: list[str]) -> None:
    offer = {g["name"]: g for g in app.test_client().get("/api/games/available").get_json()}
    fields = {f["name"]: f for f in offer[game]["options"]}
    assert list(fields) == options
    assert all(f["help"] for f in fields.values())
    html = app.test_client().get(f"/setup?game={game}").get_data(as_text=True)
    picked_by_the_companion = {"face_down_seed"}  # a secret: never on the page
    for name in options:
        shown = f'data-opt="{name}"' in html
        assert shown == (name not in picked_by_the_companion), name


def test_finger_guns_picks_stay_on_each_phone_until_the_lock(app: Flask, hub: Hub) -> None:
    table = start(app, "finger_guns", ["Abby", "Beth", "Carter"],
                  {"cards": ["A1", "A2", "A3", "S1", "S2"]})
    html = table[0].get("/").get_data(as_text=True)
    assert "Start the countdown" in html and "/finger-guns" in html
    abby, beth = phone(app), phone(app)
    assert post(abby, "/api/finger-guns/seat", {"player": "Abby"}).status_code == 200
    refused(post(beth, "/api/finger-guns/seat", {"player": "Abby"}), 409, "player")
    refused(post(beth, "/api/finger-guns/choose", {"target": "Carter"}), 403, "player")
    assert post(beth, "/api/finger-guns/seat", {"player": "Beth"}).status_code == 200
    refused(post(beth, "/api/finger-guns/seat", {"player": "Carter"}), 409, "player")

    assert post(table, "/api/events", {"type": "countdown_start"}).status_code == 200
    assert post(abby, "/api/finger-guns/choose", {"target": "Beth"}).status_code == 200
    assert post(beth, "/api/finger-guns/choose", {"target": "Abby"}).status_code == 200
    refused(post(abby, "/api/finger-guns/choose", {"target": "Abby"}), 400, "target")
    refused(post(abby, "/api/finger-guns/choose", {"target": 3}), 400, "target")
    refused(post(abby, "/api/finger-guns/choose", {"aim": "Beth"}), 400, "aim")

    mine = abby[0].get("/api/finger-guns/me").get_json()
    assert mine["seat"] == "Abby" and mine["view"]["you"]["target"] == "Beth"
    theirs = beth[0].get("/api/finger-guns/me").get_json()
    assert theirs["view"]["you"]["target"] == "Abby"
    assert "target" not in theirs["view"]["players"][0]  # Abby's pick is hidden from Beth
    watcher = app.test_client().get("/api/finger-guns/me").get_json()
    assert watcher["seat"] is None and "you" not in watcher["view"]
    public = json.dumps(table[0].get("/api/state").get_json())
    assert '"target": "Beth"' not in public and '"target":"Beth"' not in public

    assert post(table, "/api/events", {"type": "lock"}).status_code == 200
    refused(post(abby, "/api/finger-guns/choose", {"target": "Carter"}), 400, "target")
    row = beth[0].get("/api/finger-guns/me").get_json()["view"]["players"][0]
    assert row["target"] == "Beth"  # public once locked

    post(table, "/api/events", {"type": "countdown_start"})
    assert post(abby, "/api/finger-guns/choose", {"card": "Abby-3"}).status_code == 200
    refused(post(abby, "/api/finger-guns/choose", {"card": "Beth-1"}), 400, "card")
    post(beth, "/api/finger-guns/choose", {"card": "Beth-4"})
    reply = post(table, "/api/events", {"type": "lock"})
    assert reply.status_code == 200
    assert hub.table is not None
    view = hub.table.view()["state"]
    assert {p["name"]: p["lives"] for p in view["players"]} == {"Abby": 5, "Beth": 2,
                                                                "Carter": 5}
    page = table[0].get("/").get_data(as_text=True)
    assert 'data-lives="2"' in page
    assert "Lives: Abby 5, Beth 2, Carter 5." in page  # the spoken totals in the log
    assert abby[0].get("/finger-guns").status_code == 200


def test_cheap_shot_score_entry_from_the_page(app: Flask, hub: Hub) -> None:
    table = start(app, "cheap_shot", ["Lauren", "Steve", "Sandy"], {"three_hands": True})
    page = table[0].get("/").get_data(as_text=True)
    assert 'data-sg-event=\'{"type":"insult"}\'' in page and 'data-sg="cards_left.Sandy"' in page
    assert hub.table is not None
    before = (hub.table.view(), len(hub.table.rulings))
    refused(post(table, "/api/events", {"type": "insult", "player": "Lauren",
                                        "target": "Steve", "cards": 7}), 400, "cards")
    refused(post(table, "/api/events", {"type": "insult", "player": "Lauren",
                                        "target": "Steve", "cards": 4, "subjects": 2}),
            400, "subjects")
    assert (hub.table.view(), len(hub.table.rulings)) == before
    reply = post(table, "/api/events", {"type": "insult", "player": "Lauren",
                                        "target": "Steve", "cards": 4, "connectors": 1})
    assert reply.get_json()["rulings"][0]["points"] == 10
    page = table[0].get("/").get_data(as_text=True)
    assert 'data-event=\'{"player": "Steve", "type": "block"}\'' in page
    post(table, "/api/events", {"type": "block", "player": "Steve"})
    post(table, "/api/events", {"type": "block", "player": "Lauren"})
    reply = post(table, "/api/events", {"type": "end_hand",
                                        "cards_left": {"Steve": 3, "Sandy": 1}})
    assert reply.status_code == 200
    assert hub.table.view()["state"]["totals"] == {"Lauren": 11, "Steve": 0, "Sandy": 0}
    assert "Scores: Lauren 11, Steve 0, Sandy 0." in table[0].get("/").get_data(as_text=True)
    refused(post(table, "/api/events", {"type": "end_hand", "cards_left": {"Zed": 1}}),
            400, "cards_left")


def test_rummy_battle_score_entry_from_the_page(app: Flask, hub: Hub) -> None:
    table = start(app, "rummy_battle", ["Abby", "Beth"], {"rounds": 1})
    page = table[0].get("/").get_data(as_text=True)
    assert 'data-sg="played.Abby.aces"' in page and 'data-sg="out"' in page
    assert hub.table is not None
    refused(post(table, "/api/events", {"type": "round_end", "out": ["Abby"],
                                        "marker_revealed": True,
                                        "played": {"Abby": {"kings": 2}}}), 400, "played")
    refused(post(table, "/api/events", {"type": "round_end", "out": [],
                                        "marker_revealed": True}), 400, "out")
    assert hub.table.view()["state"]["scores"] == []
    # What the page's form sends: counts per category, empty ones left out.
    reply = post(table, "/api/events", {
        "type": "round_end", "marker_revealed": False, "out": ["Beth"],
        "played": {"Abby": {"aces": 2, "jokers": 1}, "Beth": {"tens_to_kings": 3}},
        "in_hand": {"Abby": {"twos_to_nines": 2}}})
    assert reply.status_code == 200, reply.get_json()
    types = [r["type"] for r in reply.get_json()["rulings"]]
    assert types == ["round_scores", "scores", "winner"]
    assert hub.table.view()["state"]["totals"] == {"Abby": 40, "Beth": -70}
    page = table[0].get("/").get_data(as_text=True)
    assert "Abby wins!" in page and "Round 1: Abby 40, Beth -70." in page
    assert hub.store.games()[0].winner == "Abby"
