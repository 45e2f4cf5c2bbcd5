"""The table page (``/``): board, tap pad, virtual buttons, rulings log with undo."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template, send_from_directory, url_for
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
                           players=snap["players"], pressable=pressable)


@bp.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    """The table's icon (a PNG, which every browser takes at this address)."""
    static = current_app.static_folder
    assert static is not None
    return send_from_directory(static, "icon-48.png", mimetype="image/png", max_age=86400)


@bp.get("/manifest.webmanifest")
def manifest() -> ResponseReturnValue:
    """The web app manifest, so a phone can put the table on its home screen
    and open it full screen (W3C Web Application Manifest)."""
    reply = jsonify({
        "name": "Card Table Companion",
        "short_name": "Card Table",
        "description": "The referee and scorekeeper in the middle of the table.",
        "start_url": url_for("table.table"),
        "scope": "/",
        "display": "standalone",
        "orientation": "portrait",
        "background_color": "#10141a",
        "theme_color": "#10141a",
        "icons": [
            {"src": url_for("static", filename="icon-192.png"), "sizes": "192x192",
             "type": "image/png"},
            {"src": url_for("static", filename="icon-512.png"), "sizes": "512x512",
             "type": "image/png", "purpose": "any"},
            {"src": url_for("static", filename="icon.svg"), "sizes": "any",
             "type": "image/svg+xml"},
        ],
    })
    reply.mimetype = "application/manifest+json"
    return reply
