"""The JSON API behind the page (documented in docs/control-page.md).

Reads are open; every POST needs the CSRF token (header ``X-CSRFToken``)
and, except ``/api/pin``, the table PIN in the session. Errors are
``{"error", "field"}`` with a 4xx status (``access.py``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from flask_wtf.csrf import generate_csrf

from companion.errors import RequestError, UnknownStoredGameError
from companion.games import game_class
from companion.jsonin import INT_LIMIT, short
from companion.web import access
from companion.web.control import Control, current_control
from companion.web.optionform import option_fields
from companion.web.status import device_status, level_status, settings_status

bp = Blueprint("api", __name__, url_prefix="/api")


def _control() -> Control:
    return current_control()


def _body() -> Any:
    return access.request_json()


def _rulings(rulings: list[Any]) -> list[dict[str, Any]]:
    return [r.to_dict() for r in rulings]


@bp.get("/session")
def session_info() -> ResponseReturnValue:
    """This phone's CSRF token and whether it holds the PIN."""
    return jsonify({"csrf_token": generate_csrf(), "pin_ok": access.has_pin()})


@bp.post("/pin")
def enter_pin() -> ResponseReturnValue:
    """``{"pin"}``: remember the table PIN for this phone's session."""
    body = _body()
    if not isinstance(body, dict) or "pin" not in body:
        raise RequestError("missing field 'pin'", field="pin")
    guard = current_app.extensions["companion.pin_guard"]
    guard.check(request.remote_addr or "?", body["pin"])
    return jsonify({"pin_ok": True})


@bp.get("/state")
def state() -> ResponseReturnValue:
    """The table now: view, whose turn, who is winning, recent rulings."""
    control = _control()
    snap = control.snapshot()
    snap.pop("board")
    snap.pop("log_html")
    table = control.hub.table
    snap["log"] = control.log(table) if table is not None else []
    snap["buttons"] = control.button_map()
    return jsonify(snap)


@bp.get("/games")
def games() -> ResponseReturnValue:
    """Stored games, newest first."""
    rows = _control().hub.store.games()
    return jsonify([{"id": g.id, "game": g.game, "players": g.players, "created": g.created,
                     "events": g.events, "winner": g.winner} for g in rows])


@bp.get("/games/available")
def available() -> ResponseReturnValue:
    """The games on offer, each with its setup fields and their defaults."""
    out = []
    for game in _control().games_on_offer():
        fields = option_fields(game_class(game["name"]).options_type)
        out.append({**game, "options": [f.__dict__ for f in fields]})
    return jsonify(out)


@bp.post("/games")
@access.needs_pin
def new_game() -> ResponseReturnValue:
    """``{"game", "players", "options"?, "buttons"?}``: start a game."""
    table = _control().new_game(_body())
    return jsonify({"game_id": table.game_id, "game": table.game.name}), 201


@bp.post("/games/<int:game_id>/resume")
@access.needs_pin
def resume(game_id: int) -> ResponseReturnValue:
    """Make a stored game the table in play again."""
    if game_id >= INT_LIMIT:  # SQLite's integers are 64-bit
        raise UnknownStoredGameError(f"no stored game has id {short(game_id)}")
    table = _control().resume(game_id)
    return jsonify({"game_id": table.game_id, "game": table.game.name})


@bp.post("/events")
@access.needs_pin
def events() -> ResponseReturnValue:
    """Any event the game accepts, as JSON; ``t`` defaults to the table clock."""
    event, rulings = _control().event(_body())
    return jsonify({"event": event.to_dict(), "rulings": _rulings(rulings)})


@bp.post("/undo")
@access.needs_pin
def undo() -> ResponseReturnValue:
    """Undo the last event that had an effect."""
    return jsonify({"rulings": _rulings(_control().undo())})


@bp.post("/press")
@access.needs_pin
def press() -> ResponseReturnValue:
    """``{"player"}``: a virtual button press."""
    return jsonify({"rulings": _rulings(_control().press(_body()))})


@bp.get("/settings")
def settings() -> ResponseReturnValue:
    """Audio devices, the voice, the recognizer and the speech model status."""
    control = _control()
    return jsonify({**settings_status(control), "devices": device_status(control)})


@bp.post("/settings")
@access.needs_pin
def change_settings() -> ResponseReturnValue:
    """``{"input_device": index}``: choose the microphone."""
    body = _body()
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object", field="body")
    control = _control()
    unknown = set(body) - {"input_device"}
    if unknown:
        name = sorted(unknown)[0]
        raise RequestError(f"unknown setting {short(name)}", field=name)
    if "input_device" in body:
        device = body["input_device"]
        if not isinstance(device, int) or isinstance(device, bool) or device < 0:
            raise RequestError(f"input_device must be a device index, not {short(device)}",
                               field="input_device")
        known = {d["index"] for d in device_status(control) if d["inputs"] > 0}
        if device not in known:
            raise RequestError(f"no input device has index {device!r}", field="input_device")
        choose = getattr(getattr(control.hub, "microphone", None), "use_device", None)
        if callable(choose):
            choose(device)
        control.settings["input_device"] = device
    return jsonify(settings_status(control))


@bp.get("/level")
def level() -> ResponseReturnValue:
    """The live microphone's input level (dBFS), or null without one."""
    return jsonify(level_status(_control()))
