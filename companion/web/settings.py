"""The settings page (``/settings``): microphone and level meter, voice, recognizer."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask.typing import ResponseReturnValue

from companion.web.access import has_pin
from companion.web.control import current_control
from companion.web.status import device_status, health, settings_status

bp = Blueprint("settings", __name__)


@bp.get("/settings")
def settings() -> ResponseReturnValue:
    """Audio input devices (with a live level meter), the voice and the recognizer."""
    control = current_control()
    return render_template("settings.html", status=settings_status(control),
                           devices=device_status(control), health=health(control),
                           pin_ok=has_pin())
