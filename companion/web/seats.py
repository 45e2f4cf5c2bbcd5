"""The seat setup page: where each player sits around the microphone array.

* ``GET /seats``: the table as a circle, each player where the companion
  hears them; a player's dot can be dragged; "Find the seats" asks each
  player in turn to say their name or "here".
* ``GET /api/seats``: ``{"array": bool, "players": [...], "seats": {player:
  degrees or null}, "listening": player or null}``.
* ``POST /api/seats/listen`` ``{"player": name or null}`` (PIN): the next
  voice heard is that player's seat (null: stop listening).
* ``POST /api/seats`` ``{"player", "azimuth"}`` (PIN): put a player's seat
  at ``azimuth`` degrees (counter-clockwise from the array's x axis).

Without a microphone array (``companion run --array``) the API answers 409
naming ``array``; with no game in play, 409 naming ``game``. The seats are
stored with the game in play (``companion.seat_setup``).
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, jsonify, render_template
from flask.typing import ResponseReturnValue

from companion import jsonin
from companion.errors import RequestError
from companion.seat_setup import SeatSetup
from companion.web import access
from companion.web.control import current_control, json_body, players_in_play, seated

bp = Blueprint("seats", __name__)


def _setup() -> SeatSetup:
    setup = getattr(current_control().hub, "seat_setup", None)
    if not isinstance(setup, SeatSetup):
        raise RequestError("the companion has no microphone array", field="array", status=409)
    return setup


def _players() -> list[str]:
    return players_in_play("the seats are its players'")


def _view() -> dict[str, Any]:
    setup = getattr(current_control().hub, "seat_setup", None)
    table = current_control().hub.table
    players = list(table.game.players) if table is not None else []
    if not isinstance(setup, SeatSetup):
        return {"array": False, "players": players, "seats": {}, "listening": None}
    seats = dict(setup.seats)
    return {"array": True, "players": players,
            "seats": {p: seats.get(p) for p in players}, "listening": setup.listening}


@bp.get("/seats")
def seats_page() -> str:
    """The seat setup page."""
    return render_template("seats.html", pin_ok=access.has_pin())


@bp.get("/api/seats")
def seats() -> ResponseReturnValue:
    """The players' seats as the companion hears them."""
    return jsonify(_view())


@bp.post("/api/seats/listen")
@access.needs_pin
def listen() -> ResponseReturnValue:
    """Listen for one player's voice (``player``), or stop (null)."""
    body = json_body(access.request_json())
    setup, players = _setup(), _players()
    player = body.get("player")
    setup.listen(None if player is None else seated(player, players))
    return jsonify(_view())


@bp.post("/api/seats")
@access.needs_pin
def place() -> ResponseReturnValue:
    """Put ``player``'s seat at ``azimuth`` degrees (a drag on the page)."""
    body = json_body(access.request_json())
    setup, players = _setup(), _players()
    player = seated(body.get("player"), players)
    azimuth = body.get("azimuth")
    if (not isinstance(azimuth, int | float) or isinstance(azimuth, bool)
            or not math.isfinite(azimuth)):
        raise RequestError(f"azimuth must be degrees, not {jsonin.short(azimuth)}",
                           field="azimuth")
    setup.place(player, float(azimuth))
    return jsonify(_view())
