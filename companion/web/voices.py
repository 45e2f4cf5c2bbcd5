"""The voices page: each player teaches the companion how they say the numbers.

* ``GET /voices``: the count words, the one to say lit; a progress bar per
  player; Start, Skip, Stop, and Redo beside each player.
* ``GET /api/voices``: ``{"hearing": bool, "players": [...], "words":
  [...], "rounds": int, "needed": int, "held": {player: int}, "prompt":
  {"player", "word", "take", "again"} or null, "queue": [...]}``.
* ``POST /api/voices/start`` ``{"players": [name, ...]}`` (PIN; absent: every
  player in seat order): take them in turn, each from the first take they
  lack (``companion.voice_setup.VoiceSetup.start``).
* ``POST /api/voices/redo`` ``{"player": name}`` (PIN): forget that
  player's takes and take them again now.
* ``POST /api/voices/skip`` and ``/api/voices/stop`` ``{}`` (PIN): leave
  the player being asked; stop listening. Takes kept stay kept.

With no game in play the API answers 409 naming ``game``; starting or
redoing while the companion hears nothing (no microphone, or it is
unplugged) answers 409 naming ``microphone``. The takes are kept by player
name in the state directory and recorded with the game in play
(``companion.voice_setup``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, render_template
from flask.typing import ResponseReturnValue

from companion.errors import RequestError
from companion.voice_setup import VoiceSetup
from companion.web import access
from companion.web.control import current_control, json_body, players_in_play, seated

bp = Blueprint("voices", __name__)

WHY = "each of its players teaches the companion their voice"


def _setup() -> VoiceSetup:
    setup = getattr(current_control().hub, "voice_setup", None)
    if not isinstance(setup, VoiceSetup):
        raise RequestError("the companion has no microphone: voices cannot be learnt",
                           field="microphone", status=409)
    return setup


def _hearing() -> bool:
    """Whether the live table hears (a working microphone)."""
    live = getattr(current_control().hub, "live", None)
    return bool(getattr(live, "speech_checking", False))


def _must_hear() -> None:
    if not _hearing():
        raise RequestError("the microphone is not working: voices cannot be learnt now",
                           field="microphone", status=409)


def _view() -> dict[str, Any]:
    setup = getattr(current_control().hub, "voice_setup", None)
    table = current_control().hub.table
    players = list(table.game.players) if table is not None else []
    if not isinstance(setup, VoiceSetup):
        return {"hearing": False, "players": players, "words": [], "rounds": 0,
                "needed": 0, "held": {}, "prompt": None, "queue": []}
    prompt = setup.prompt
    return {"hearing": _hearing(), "players": players, "words": list(setup.words),
            "rounds": setup.rounds, "needed": setup.needed,
            "held": {p: setup.held(p) for p in players},
            "prompt": None if prompt is None else {
                "player": prompt.player, "word": prompt.word, "take": prompt.take,
                "again": prompt.again},
            "queue": list(setup.queue)}


@bp.get("/voices")
def voices_page() -> str:
    """The voices page."""
    return render_template("voices.html", pin_ok=access.has_pin())


@bp.get("/api/voices")
def voices() -> ResponseReturnValue:
    """Each player's takes held, and the take awaited."""
    return jsonify(_view())


@bp.post("/api/voices/start")
@access.needs_pin
def start() -> ResponseReturnValue:
    """Take ``players`` (default: everyone) in turn."""
    body = json_body(access.request_json())
    setup, players = _setup(), players_in_play(WHY)
    chosen = body.get("players", players)
    if not isinstance(chosen, list) or not chosen:
        raise RequestError("players must be a list of the players to take in turn",
                           field="players")
    names = [seated(p, players, "players") for p in chosen]
    _must_hear()
    setup.start(names)
    return jsonify(_view())


@bp.post("/api/voices/redo")
@access.needs_pin
def redo() -> ResponseReturnValue:
    """Forget one player's takes (``player``) and take them again now."""
    body = json_body(access.request_json())
    setup, players = _setup(), players_in_play(WHY)
    player = seated(body.get("player"), players)
    _must_hear()
    setup.redo(player)
    return jsonify(_view())


@bp.post("/api/voices/skip")
@access.needs_pin
def skip() -> ResponseReturnValue:
    """Leave the player being asked; go to the next."""
    json_body(access.request_json())
    _setup().skip()
    return jsonify(_view())


@bp.post("/api/voices/stop")
@access.needs_pin
def stop() -> ResponseReturnValue:
    """Stop listening for takes."""
    json_body(access.request_json())
    _setup().stop()
    return jsonify(_view())
