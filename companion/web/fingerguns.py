"""Finger Guns on each player's own phone: one seat per phone, private picks.

The table page shows only *whether* each player has picked (the engine's
``view``). A phone claims one seat (``POST /api/finger-guns/seat``, with the
table PIN); from then on that session is that player:

* ``GET /finger-guns``: the phone's pick page;
* ``GET /api/finger-guns/me``: the engine's ``private_view`` for that seat
  only (the public view when no seat is held);
* ``POST /api/finger-guns/choose`` ``{"target"?, "card"?}``: that player's
  picks; refused once the step is locked (400 naming the field);
* ``POST /api/finger-guns/discard`` ``{"cards": [...]}``: with the
  ``pick_discards`` option, the life cards that player loses.

A seat belongs to the first phone that claims it in a game (409 naming
``player`` for any other), so no phone can read another's picks before the
lock. Refusals are ``{"error", "field"}`` with a 4xx status, state untouched.
"""

from __future__ import annotations

import secrets
import threading
from typing import Any

from flask import Blueprint, current_app, jsonify, render_template, session
from flask.typing import ResponseReturnValue

from companion.errors import RequestError
from companion.games.finger_guns import Choose, Discard, FingerGuns
from companion.jsonin import short
from companion.table import Table
from companion.voice.phrases import sentence
from companion.web import access
from companion.web.control import current_control, json_body

bp = Blueprint("fingerguns", __name__)

_SEATS = "companion.finger_guns_seats"
_lock = threading.Lock()


def _seats() -> dict[tuple[int, str], str]:
    """(game id, player) -> the token of the session holding that seat."""
    seats: dict[tuple[int, str], str] = current_app.extensions.setdefault(_SEATS, {})
    return seats


def _table() -> tuple[Table, FingerGuns]:
    table = current_control().table()
    if not isinstance(table.game, FingerGuns):
        raise RequestError(f"the game in play is {table.game.title}, not Finger Guns",
                           field="game", status=409)
    return table, table.game


def _token() -> str:
    token = session.get("fg_token")
    if not isinstance(token, str):
        token = secrets.token_hex(16)
        session["fg_token"] = token
    return token


def seat_of_session(table: Table) -> str | None:
    """The player this phone's session sits as in ``table``'s game, if any."""
    token = session.get("fg_token")
    if not isinstance(token, str):
        return None
    for (game_id, player), holder in _seats().items():
        if game_id == table.game_id and holder == token:
            return player
    return None


def _seated() -> tuple[Table, FingerGuns, str]:
    table, game = _table()
    player = seat_of_session(table)
    if player is None:
        raise RequestError("this phone has no seat yet: claim one first", field="player",
                           status=403)
    return table, game, player


def _t(table: Table) -> float:
    return max(current_control().now(), table.match.clock)


def _only(body: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise RequestError(f"unknown field {short(unknown[0])}", field=unknown[0])


@bp.get("/finger-guns")
def phone() -> ResponseReturnValue:
    """The pick page for one player's phone."""
    table = current_control().hub.table
    players = list(table.game.players) if table is not None else []
    return render_template("fingerguns_phone.html", players=players,
                           pin_ok=access.has_pin())


@bp.get("/api/finger-guns/me")
def me() -> ResponseReturnValue:
    """This phone's seat and what it may see: its own picks, nobody else's."""
    table, game = _table()
    player = seat_of_session(table)
    claimed = sorted(p for (gid, p) in _seats() if gid == table.game_id)
    view = game.private_view(table.state, player) if player else game.view(table.state)
    return jsonify({"game_id": table.game_id, "players": list(game.players), "seat": player,
                    "claimed": claimed, "view": view,
                    "last_round": last_round(table, player) if player else None})


def last_round(table: Table, player: str) -> dict[str, Any] | None:
    """What the last resolved round did to ``player`` and what they did, as
    the page's sentences: ``{"round": n, "lines": [...]}`` (None before the
    first round is resolved). A round is resolved by the lock of its second
    step; its rulings run from there to the next countdown."""
    rulings = list(table.rulings)
    ends = [i for i, r in enumerate(rulings)
            if r.type == "locked" and getattr(r, "step", 0) == 2]
    if not ends:
        return None
    start = ends[-1]
    pack = current_control().hub.pack
    lines = []
    for ruling in rulings[start + 1:]:
        if ruling.type == "countdown":
            break
        data = ruling.to_dict()
        named = [data.get("player"), data.get("target"), *data.get("players", [])]
        if player in named or ruling.type in ("scores", "winner", "shared_win"):
            text = sentence(ruling, pack, shown=True)
            if text:
                lines.append(text)
    return {"round": getattr(rulings[start], "round", None), "lines": lines}


@bp.post("/api/finger-guns/seat")
@access.needs_pin
def claim_seat() -> ResponseReturnValue:
    """``{"player"}``: this phone plays as ``player`` for the rest of the game."""
    body = json_body(access.request_json())
    _only(body, {"player"})
    name = body.get("player")
    if not isinstance(name, str):
        raise RequestError("player must be a player's name", field="player")
    table, game = _table()
    player = game.players[game.player_index(name)]
    token = _token()
    with _lock:
        seats = _seats()
        held = seats.get((table.game_id, player))
        if held is not None and held != token:
            raise RequestError(f"{player!r} is already taken by another phone",
                               field="player", status=409)
        mine = seat_of_session(table)
        if mine is not None and mine != player:
            raise RequestError(f"this phone already plays as {mine!r}", field="player",
                               status=409)
        seats[(table.game_id, player)] = token
    current_app.extensions["companion.live"].hub_listener()  # other phones grey it out
    return jsonify({"seat": player})


@bp.post("/api/finger-guns/choose")
@access.needs_pin
def choose() -> ResponseReturnValue:
    """``{"target"?, "card"?}``: this phone's player's picks."""
    body = json_body(access.request_json())
    _only(body, {"target", "card"})
    for key in ("target", "card"):
        if key in body and not isinstance(body[key], str):
            raise RequestError(f"{key} must be a string, not {short(body[key])}", field=key)
    table, game, player = _seated()
    event = Choose(t=_t(table), player=player, target=body.get("target"),
                   card=body.get("card"))
    current_control().hub.submit(event)
    return jsonify({"you": game.private_view(table.state, player)["you"]})


@bp.post("/api/finger-guns/discard")
@access.needs_pin
def discard() -> ResponseReturnValue:
    """``{"cards": [ids]}``: the life cards this phone's player loses."""
    body = json_body(access.request_json())
    _only(body, {"cards"})
    cards = body.get("cards")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise RequestError("cards must be a list of card ids", field="cards")
    table, _, player = _seated()
    rulings = current_control().hub.submit(Discard(t=_t(table), player=player, cards=cards))
    return jsonify({"rulings": [r.to_dict() for r in rulings]})
