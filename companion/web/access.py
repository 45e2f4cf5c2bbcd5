"""Who may do what on the control page, and how refusals look.

* Watching (GET) is open to anyone on the table's network.
* Changing a game needs the table PIN, entered once per phone: ``POST
  /api/pin`` stores a keyed digest of it in the signed session cookie, and
  ``needs_pin`` checks it. Five wrong PINs from one address within a minute
  earn a 429 for the rest of that minute.
* Every POST carries the session's CSRF token (Flask-WTF's ``CSRFProtect``,
  header ``X-CSRFToken``).
* The ``Host`` header must name this machine (Flask's ``TRUSTED_HOSTS``):
  localhost, its host names and addresses, and any configured extra names.
* Every refusal and every bad input is a JSON body ``{"error": message,
  "field": name}`` with a 4xx status; the game state is untouched.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from flask import Flask, current_app, jsonify, request, session
from flask.typing import ResponseReturnValue
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, SecurityError

from companion.errors import (
    EventError,
    OptionError,
    RequestError,
    StoreError,
    UnknownGameError,
    UnknownStoredGameError,
)

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

MAX_PIN_FAILURES = 5
"""Wrong PINs one address may try per ``PIN_WINDOW`` seconds."""
PIN_WINDOW = 60.0


def local_hosts(extra: Iterable[str] = ()) -> list[str]:
    """Host names the page answers to: localhost, 127.0.0.1, this machine's
    host name (and ``<name>.local`` for mDNS), the addresses it resolves to,
    the address of the default route, ``$COMPANION_ALLOWED_HOSTS``
    (comma-separated) and ``extra``. No packet is sent to find them."""
    names = {"localhost", "127.0.0.1"}
    host = socket.gethostname()
    names.update({host, f"{host}.local", socket.getfqdn()})
    with contextlib.suppress(OSError):
        names.update(socket.gethostbyname_ex(host)[2])
    try:  # connecting a UDP socket picks the outgoing address without sending anything
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            names.add(probe.getsockname()[0])
    except OSError:
        pass
    env = os.environ.get("COMPANION_ALLOWED_HOSTS", "")
    names.update(h.strip() for h in env.split(",") if h.strip())
    names.update(extra)
    return sorted(n.lower() for n in names if n)


def error_body(message: str, field: str | None, status: int) -> ResponseReturnValue:
    """The JSON answer to a refused request."""
    return jsonify({"error": message, "field": field}), status


def pin_digest(pin: str) -> str:
    """A keyed digest of a PIN, as kept in the session cookie (never the PIN itself)."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, pin.encode(), hashlib.sha256).hexdigest()


def has_pin() -> bool:
    """Whether this phone's session holds the table PIN."""
    held = session.get("pin")
    expected = pin_digest(str(current_app.config["TABLE_PIN"]))
    return isinstance(held, str) and hmac.compare_digest(held, expected)


class PinGuard:
    """Counts wrong PINs per client address (``MAX_PIN_FAILURES`` per ``PIN_WINDOW`` s)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, addr: str) -> list[float]:
        now = self._clock()
        kept = [t for t in self._failures.get(addr, []) if now - t < PIN_WINDOW]
        self._failures[addr] = kept
        return kept

    def check(self, addr: str, pin: Any) -> None:
        """Accept the right PIN into the session; raise ``RequestError``
        (403 wrong, 429 too many tries, 400 not a string) naming ``pin``."""
        with self._lock:
            if len(self._recent(addr)) >= MAX_PIN_FAILURES:
                raise RequestError("too many wrong PINs; wait a minute", field="pin", status=429)
        if not isinstance(pin, str | int) or isinstance(pin, bool):
            raise RequestError("pin must be a string of digits", field="pin")
        given = str(pin).strip()
        expected = str(current_app.config["TABLE_PIN"])
        if not hmac.compare_digest(given.encode(), expected.encode()):
            with self._lock:
                self._recent(addr).append(self._clock())
            raise RequestError("wrong table PIN", field="pin", status=403)
        session["pin"] = pin_digest(expected)


def needs_pin(view: F) -> F:
    """Refuse the request (403 naming ``pin``) unless the session holds the PIN."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not has_pin():
            raise RequestError("this needs the table PIN", field="pin", status=403)
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def _check_host() -> None:
    # Flask records a Host outside TRUSTED_HOSTS as the routing exception; raise
    # it before anything else runs (CSRF, PIN) so a bad Host is refused first.
    exc = request.routing_exception
    if isinstance(exc, SecurityError):
        raise exc


def init_app(app: Flask) -> None:
    """Install the Host check and the JSON error handlers. Call before
    ``CSRFProtect.init_app`` so the Host is checked first."""
    app.before_request(_check_host)
    app.extensions["companion.pin_guard"] = PinGuard()

    @app.errorhandler(SecurityError)
    def bad_host(exc: SecurityError) -> ResponseReturnValue:
        return error_body(f"Host {request.headers.get('Host', '')!r} is not this table",
                          "Host", 400)

    @app.errorhandler(CSRFError)
    def bad_csrf(exc: CSRFError) -> ResponseReturnValue:
        return error_body(str(exc.description), "csrf_token", 400)

    @app.errorhandler(RequestError)
    def bad_request(exc: RequestError) -> ResponseReturnValue:
        return error_body(str(exc), exc.field, exc.status)

    @app.errorhandler(EventError)
    def bad_event(exc: EventError) -> ResponseReturnValue:
        return error_body(str(exc), exc.field or "event", 400)

    @app.errorhandler(OptionError)
    def bad_option(exc: OptionError) -> ResponseReturnValue:
        field = f"options.{exc.field}" if exc.field else "options"
        return error_body(str(exc), field, 400)

    @app.errorhandler(UnknownGameError)
    def bad_game(exc: UnknownGameError) -> ResponseReturnValue:
        return error_body(str(exc), "game", 400)

    @app.errorhandler(UnknownStoredGameError)
    def bad_stored(exc: UnknownStoredGameError) -> ResponseReturnValue:
        return error_body(str(exc.args[0] if exc.args else exc), "game_id", 404)

    @app.errorhandler(StoreError)
    def store_down(exc: StoreError) -> ResponseReturnValue:
        log.error("event log: %s", exc)
        return error_body(str(exc), None, 503)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        if request.path.startswith("/api/"):
            return error_body(str(exc.description), None, exc.code or 500)
        return exc
