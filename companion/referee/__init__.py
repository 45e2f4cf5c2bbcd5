"""The speech referee: turns audio into judged calls.

``recognizer`` (the interface and backend choice), ``vosk_backend`` and
``sphinx_backend`` (the two backends), ``vad`` (utterances and their onsets,
webrtcvad), ``clock`` (sample index -> table clock), ``stream`` (the
``Listener`` the live table and replays feed), ``judge`` (audio events of a
session -> ``say`` events), ``models`` (``companion models install en``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["audio_handler"]


def audio_handler(recognizer_name: str | None, pack: Any) -> Any:
    """The replay hook for ``audio`` events (see ``companion.referee.judge``)."""
    from companion.referee.judge import audio_handler as make

    return make(recognizer_name, pack)
