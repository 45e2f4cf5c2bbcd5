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
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from flask import Flask, current_app, jsonify, request, session
from flask.typing import ResponseReturnValue
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, SecurityError

from companion import jsonin
from companion.errors import (
    EventError,
    JSONInputError,
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


PIN_FILE = "table_pin"
SECRET_FILE = "secret_key"
"""Files in the state directory holding the table PIN and the page's secret key."""


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only (mode 0600),
    replacing it atomically."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _read_private(path: Path) -> str | None:
    """The text of ``path`` (its mode tightened to 0600), None if missing."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read {str(path)!r}: {exc}") from None
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)
    return text


def stored_secret_key(directory: Path) -> str:
    """The page's secret key kept in ``directory`` (made once, 64 hex digits),
    so a restart keeps every phone's session and PIN. Raises ``StoreError``."""
    path = directory / SECRET_FILE
    try:
        directory.mkdir(parents=True, exist_ok=True)
        key = _read_private(path)
        if not key or len(key) < 32:
            key = secrets.token_hex(32)
            _write_private(path, key)
    except OSError as exc:
        raise StoreError(f"cannot keep the secret key in {str(directory)!r}: {exc}") from None
    return key


def stored_pin(directory: Path, *, new: str | None = None) -> str:
    """The table PIN kept in ``directory``: ``new`` (digits) if given, else
    the stored one, else 4 random digits; stored either way (mode 0600).
    Raises ``StoreError``, or ``ValueError`` for a ``new`` PIN that is not 4-12 digits."""
    if new is not None and not (new.isascii() and new.isdigit() and 4 <= len(new) <= 12):
        raise ValueError("the table PIN must be 4 to 12 digits")
    path = directory / PIN_FILE
    try:
        directory.mkdir(parents=True, exist_ok=True)
        pin = new if new is not None else _read_private(path)
        if not pin or not pin.isdigit():
            pin = "".join(secrets.choice("0123456789") for _ in range(4))
        if new is not None or _read_private(path) != pin:
            _write_private(path, pin)
    except OSError as exc:
        raise StoreError(f"cannot keep the table PIN in {str(directory)!r}: {exc}") from None
    return pin


def table_pin() -> str:
    """The table PIN now: read again from ``PIN_FILE`` (config, a path) when
    that file changed (``companion pin --set`` while the table runs), else
    the config's ``TABLE_PIN``."""
    app = current_app
    path = app.config.get("PIN_FILE")
    if path:
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return str(app.config["TABLE_PIN"])
        if app.extensions.get("companion.pin_mtime") != mtime:
            text = _read_private(Path(path))
            if text and text.isdigit():
                app.config["TABLE_PIN"] = text
            app.extensions["companion.pin_mtime"] = mtime
    return str(app.config["TABLE_PIN"])


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


MAX_MESSAGE = 300
"""Longest error message sent; values inside are quoted short (``jsonin.short``)."""


def error_body(message: str, field: str | None, status: int) -> ResponseReturnValue:
    """The JSON answer to a refused request (the message cut to ``MAX_MESSAGE``)."""
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE] + "…"
    if field is not None and len(field) > 80:
        field = field[:80] + "…"
    return jsonify({"error": message, "field": field}), status


def request_json() -> Any:
    """The request's body, decoded by ``companion.jsonin.loads``.

    Raises ``RequestError`` (400) naming ``body`` when the body is not JSON
    (or not sent as ``application/json``), and naming the path of the bad
    value (``options.seed``) when a value is refused."""
    if not request.is_json:
        raise RequestError("the request body must be JSON (Content-Type: application/json)",
                           field="body")
    try:
        return jsonin.loads(request.get_data(cache=True))
    except JSONInputError as exc:
        raise RequestError(str(exc), field=exc.field or "body") from None


def pin_digest(pin: str) -> str:
    """A keyed digest of a PIN, as kept in the session cookie (never the PIN itself)."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, pin.encode(), hashlib.sha256).hexdigest()


def has_pin() -> bool:
    """Whether this phone's session holds the table PIN."""
    held = session.get("pin")
    expected = pin_digest(table_pin())
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
        expected = table_pin()
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
        return error_body(f"Host {jsonin.short(request.headers.get('Host', ''))} is not this table",
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
