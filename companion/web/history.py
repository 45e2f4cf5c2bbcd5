"""Scores and past games (``/games``), from the event log."""

from __future__ import annotations

import datetime as dt

from flask import Blueprint, render_template
from flask.typing import ResponseReturnValue

from companion.games import game_class
from companion.web.access import has_pin
from companion.web.control import current_control

bp = Blueprint("history", __name__)


def _title(game: str) -> str:
    """The game's name as players know it ("The Nasty 7"), not its engine's."""
    try:
        return str(game_class(game).title)
    except Exception:  # a game whose engine is gone: its stored name
        return game


@bp.get("/games")
def games() -> ResponseReturnValue:
    """Every stored game, newest first, with its winner; the one in play marked."""
    control = current_control()
    rows = control.hub.store.games()
    table = control.hub.table
    current = table.game_id if table is not None else None
    wins: dict[str, int] = {}
    for row in rows:
        if row.winner:
            wins[row.winner] = wins.get(row.winner, 0) + 1
    games = [{"id": r.id, "game": _title(r.game), "players": r.players, "events": r.events,
              "winner": r.winner, "current": r.id == current,
              "when": dt.datetime.fromtimestamp(r.created).strftime("%Y-%m-%d %H:%M")}
             for r in rows]
    tally = sorted(wins.items(), key=lambda kv: (-kv[1], kv[0]))
    return render_template("games.html", games=games, tally=tally, pin_ok=has_pin())
