"""The table page (``/``): board, tap pad, virtual buttons, rulings log with undo."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask.typing import ResponseReturnValue

from companion.web.access import has_pin
from companion.web.control import current_control
from companion.web.panels import panel_for

bp = Blueprint("table", __name__)


@bp.get("/")
def table() -> ResponseReturnValue:
    """The table as it is now; ``app.js`` keeps it live from the stream."""
    control = current_control()
    snap = control.snapshot()
    game = snap["game"]
    panel = panel_for(game) if game else None
    # Virtual buttons only where a press means something in this game.
    pressable = panel is not None and (panel.press is not None
                                       or callable(getattr(control.hub, "press", None)))
    return render_template("table.html", snap=snap, panel=panel, pin_ok=has_pin(),
                           players=snap["players"] if pressable else [])
