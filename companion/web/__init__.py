"""The control page: a Flask app factory and one blueprint per area.

``create_app(hub, pin=...)`` builds the app around the running ``Hub``; the
live table serves it with ``companion.web.server.start_server`` (waitress,
never Flask's development server). Templates and static files come from the
top-level ``web/`` folder (``companion.resources.data_path``), so the page
loads with no CDN and no build step.

| blueprint | module | serves |
| --- | --- | --- |
| ``table`` | ``table.py`` | ``/``: the table, tap pad, virtual buttons, log with undo |
| ``setup`` | ``setup.py`` | ``/setup``: game, players, buttons, options |
| ``history`` | ``history.py`` | ``/games``: scores and past games |
| ``settings`` | ``settings.py`` | ``/settings``: microphone, voice, recognizer |
| ``api`` | ``api.py`` | ``/api/...``: the JSON API the pages use (docs/control-page.md) |
| ``stream`` | ``stream.py`` | ``/api/events/stream``: live updates (server-sent events) |
| ``seats`` | ``seats.py`` | ``/seats``: where each player sits around a microphone array |
| ``voices`` | ``voices.py`` | ``/voices``: each player's takes of the count words |
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from flask_wtf.csrf import CSRFProtect

from companion.hub import Hub
from companion.resources import data_path
from companion.web import access
from companion.web.control import Control
from companion.web.live import Broadcaster

log = logging.getLogger(__name__)

csrf = CSRFProtect()


def new_pin(digits: int = 4) -> str:
    """A random table PIN of ``digits`` decimal digits."""
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def create_app(hub: Hub, *, pin: str | None = None, state: Path | None = None,
               test_config: Mapping[str, Any] | None = None) -> Flask:
    """The control page for ``hub``.

    ``pin``: the table PIN needed to change a game (digits; a random 4-digit
    PIN when None, readable as ``app.config["TABLE_PIN"]`` to print and speak).
    ``state``: the companion's state directory (``companion.store.state_dir``); when
    given, the secret key and (unless ``pin`` is given) the table PIN are kept
    there in files of mode 0600, so a restart logs no phone out and keeps
    the PIN (``companion pin`` shows or changes it; the page reads a changed
    PIN at once). ``test_config``: config overrides, for example ``TRUSTED_HOSTS`` (the
    Host names the page answers to; default ``access.local_hosts()``),
    ``SECRET_KEY`` (default random per process, so a restart asks phones
    for the PIN again), ``SSE_MAX_CLIENTS`` (40), ``SSE_KEEPALIVE`` (15 s).

    The app subscribes one listener to the hub (live updates); the
    ``Broadcaster`` is ``app.extensions["companion.live"]``."""
    app = Flask(__name__, template_folder=str(data_path("web", "templates")),
                static_folder=str(data_path("web", "static")), static_url_path="/static")
    if state is not None:
        secret_key = access.stored_secret_key(state)
        table_pin = pin if pin is not None else access.stored_pin(state)
        pin_file = None if pin is not None else str(state / access.PIN_FILE)
    else:
        secret_key = secrets.token_hex(32)
        table_pin = pin if pin is not None else new_pin()
        pin_file = None
    app.config.from_mapping(
        SECRET_KEY=secret_key,
        TABLE_PIN=table_pin,
        PIN_FILE=pin_file,
        TRUSTED_HOSTS=access.local_hosts(),
        SSE_MAX_CLIENTS=40,
        SSE_KEEPALIVE=15.0,
        WTF_CSRF_TIME_LIMIT=None,  # a token lasts as long as the phone's session
        WTF_CSRF_HEADERS=["X-CSRFToken"],
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=64 * 1024,  # an event or a setup is a few hundred bytes
    )
    if test_config:
        app.config.from_mapping(test_config)
    if not str(app.config["TABLE_PIN"]).isdigit():
        raise ValueError(f"the table PIN must be digits, not {app.config['TABLE_PIN']!r}")

    access.init_app(app)  # the Host check runs before the CSRF check
    csrf.init_app(app)

    control = Control(hub, app)
    live = Broadcaster(control.snapshot, max_clients=int(app.config["SSE_MAX_CLIENTS"]),
                       keepalive=float(app.config["SSE_KEEPALIVE"]))
    hub.subscribe(live.hub_listener)
    hub.subscribe_notices(live.hub_listener)
    app.extensions["companion.control"] = control
    app.extensions["companion.live"] = live

    from companion.web import (
        api,
        fingerguns,
        history,
        seats,
        settings,
        setup,
        stream,
        table,
        voices,
    )

    app.register_blueprint(table.bp)
    app.register_blueprint(setup.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(settings.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(fingerguns.bp)
    app.register_blueprint(seats.bp)
    app.register_blueprint(voices.bp)
    return app


def control_of(app: Flask) -> Control:
    """The ``Control`` of an app made by ``create_app``."""
    out = app.extensions["companion.control"]
    assert isinstance(out, Control)
    return out


def live_of(app: Flask) -> Broadcaster:
    """The live-update ``Broadcaster`` of an app made by ``create_app``."""
    out = app.extensions["companion.live"]
    assert isinstance(out, Broadcaster)
    return out
