"""The setup page (``/setup``): game, players in seat order, buttons, options."""

from __future__ import annotations

from flask import Blueprint, render_template, request
from flask.typing import ResponseReturnValue

from companion.games import game_class
from companion.web.access import has_pin
from companion.web.control import current_control
from companion.web.setupwords import setup_fields

bp = Blueprint("setup", __name__)


@bp.get("/setup")
def setup() -> ResponseReturnValue:
    """The form for a new game; ``?game=NAME`` picks the game shown first."""
    control = current_control()
    offer = control.games_on_offer()
    forms = {g["name"]: setup_fields(g["name"], game_class(g["name"]).options_type)
             for g in offer}
    chosen = request.args.get("game") or (offer[0]["name"] if offer else None)
    if chosen not in forms:
        chosen = offer[0]["name"] if offer else None
    table = control.hub.table
    players = list(table.game.players) if table is not None else []
    return render_template("setup.html", offer=offer, forms=forms, chosen=chosen,
                           players=players, buttons=control.button_map(), pin_ok=has_pin())
