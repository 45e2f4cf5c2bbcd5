"""The one exception tree of the companion.

``CompanionError`` is the root. Each area has a base, and the leaves also
inherit a built-in (``ValueError`` or ``OSError``) so callers that do not know
the companion can still catch them sensibly. Messages show the offending value
with ``!r``.

A player's mistake at the table is never an exception: it is a ruling.
Exceptions are for malformed or illegal *input* and for faults of the machine.
"""

from __future__ import annotations


class CompanionError(Exception):
    """Root of every error the companion raises on purpose."""


# --- events and sessions -------------------------------------------------


class EventError(CompanionError, ValueError):
    """An event cannot be applied. ``field`` names the offending field, if any."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class InvalidEventError(EventError):
    """The event is malformed: a missing field, a wrong type, an unknown kind."""


class IllegalEventError(EventError):
    """The event is well formed but cannot happen now: an unknown player,
    a claim of 5 cards, an event after the game is over."""


class OutOfOrderError(IllegalEventError):
    """The event's time ``t`` is earlier than the previous event's."""


_ESCAPED = {c: repr(chr(c))[1:-1] for c in (*range(0x20), 0x7F)}
"""Control characters (ASCII) -> their escaped form (``\\n``, ``\\x00``)."""


class SessionError(CompanionError, ValueError):
    """A session file is malformed. ``line`` is 1-based; ``field`` may be None."""

    MAX_MESSAGE = 300
    """Longest ``message`` kept (values in it are quoted short where they arise)."""

    def __init__(self, message: str, *, line: int, field: str | None = None) -> None:
        # one line, whatever the file held: a control character a message
        # quotes (a newline in an option's name) is shown escaped
        message = message.translate(_ESCAPED)
        if len(message) > self.MAX_MESSAGE:
            message = message[:self.MAX_MESSAGE] + "…"
        where = f"line {line}" + (f", field {field!r}" if field else "")
        super().__init__(f"{where}: {message}")
        self.line = line
        self.field = field
        self.reason = message


class UnknownGameError(CompanionError, ValueError):
    """No game engine has that name."""


class OptionError(CompanionError, ValueError):
    """A game option has a wrong name, type or value. ``field`` names it."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


# --- storage -------------------------------------------------------------


class StoreError(CompanionError, OSError):
    """The SQLite event log cannot be opened or written."""


class UnknownStoredGameError(CompanionError, KeyError):
    """No stored game has that id."""


# --- voice packs, speech and audio ----------------------------------------


class VoicePackError(CompanionError, ValueError):
    """A voice pack is missing or malformed."""


class RecognizerError(CompanionError, OSError):
    """A speech recognizer cannot be loaded or run."""


class ModelError(CompanionError, OSError):
    """A speech model cannot be found, downloaded, checked or unpacked."""


class AudioDeviceError(CompanionError, OSError):
    """An audio device cannot be opened or has gone away."""


class SynthesisError(CompanionError, OSError):
    """espeak-ng or a Piper voice cannot render speech (missing program or
    voice file, a failed run)."""


class ClipError(CompanionError, ValueError):
    """A test clip cannot be built as asked: a negative silence, a non-finite
    SNR, an empty utterance, an unknown voice family."""


class SpeechOutputError(CompanionError, OSError):
    """Speech cannot be synthesized (espeak-ng missing or failing) or written."""


# --- hardware -------------------------------------------------------------


class BoardError(CompanionError, ValueError):
    """The pinout is malformed or names a pin twice."""


# --- the control page -------------------------------------------------------


class RequestError(CompanionError, ValueError):
    """A control-page request is malformed or not allowed (a missing field, a
    wrong PIN). ``field`` names the offending field; ``status`` is the HTTP
    status the page answers with (4xx)."""

    def __init__(self, message: str, *, field: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.status = status


# --- input from outside -----------------------------------------------------


class JSONInputError(CompanionError, ValueError):
    """JSON from a phone or a session line that the companion refuses to read:
    not UTF-8, not JSON, nested too deep, a number too large, a lone
    surrogate. ``field``: the dotted path of the bad value, or None."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
