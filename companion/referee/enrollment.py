"""Voice enrollment in the session format: the ``enrollment`` header field.

A session header may give each player's recorded takes of the count words::

    "enrollment": {"Abby": {"one": ["voices/abby-one-1.wav", ...], ...}, ...}

(paths relative to the session file; each a 16-bit mono or multi-channel WAV
of that player saying that word once, at any rate from 8,000 to 192,000 Hz;
channels are averaged and the audio resampled to 16,000 Hz). The ear then
compares each call with the caller's own takes (``companion.referee.
templates``). Without the field, nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import soxr

from companion import jsonin
from companion.errors import CompanionError
from companion.referee.templates import RATE, Enrollment

COUNT_TOP = 7
"""The count runs from one to this (The Nasty 7)."""


def count_words(number_word: Callable[[int], str], top: int = COUNT_TOP) -> tuple[str, ...]:
    """The count words a player enrolls, 1 to ``top``, in the voice pack's
    language (``Lexicon.number_word``), lower case: the words calls are
    made of (``Enrollment.counted``)."""
    return tuple(number_word(n).strip().lower() for n in range(1, top + 1))


def wrong_numbers(number_word: Callable[[int], str], top: int = COUNT_TOP) -> tuple[str, ...]:
    """The wrong numbers a player enrolls besides the count words: the
    numbers just past either end of the count (zero below one; ``top`` + 1
    and + 2 above it: "eight" and "nine"), where a count going down past
    one or up past seven lands (rules/nasty7.md: the count turns at seven
    and at one). With the player's own takes of them, such a wrong number
    is told from the call owed (bench/RESULTS.md, "Wrong numbers
    enrolled")."""
    return tuple(number_word(n).strip().lower() for n in (0, top + 1, top + 2))


MAX_TAKES = 10
"""Most takes one player may enroll of one word."""

Takes = dict[str, dict[str, list[str]]]
"""``{player: {word: [WAV path, ...]}}`` as the header gives it."""


class EnrollmentError(CompanionError, ValueError):
    """A bad ``enrollment`` header field or take; ``field`` names it
    (``enrollment.Abby.one``)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def takes_from_header(header: Mapping[str, Any], players: Sequence[str]) -> Takes | None:
    """The header's ``enrollment`` field checked: None when absent. Raises
    ``EnrollmentError`` naming the field for a player not at the table, a
    word that is not text, or takes that are not a list of WAV paths."""
    value = header.get("enrollment")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise EnrollmentError("enrollment must map each player to their words",
                              field="enrollment")
    out: Takes = {}
    for player, words in value.items():
        where = _field(player)
        if player not in players:
            raise EnrollmentError(f"{jsonin.short(str(player))} is not at the table",
                                  field=where)
        if not isinstance(words, dict):
            raise EnrollmentError("each player's enrollment maps words to WAV files",
                                  field=where)
        out[player] = {}
        for word, paths in words.items():
            at = _field(player, word)
            if isinstance(paths, str):
                paths = [paths]
            if (not isinstance(paths, list) or not paths or len(paths) > MAX_TAKES
                    or not all(isinstance(p, str) and p.strip() for p in paths)):
                raise EnrollmentError(f"a word's takes are a list of 1 to {MAX_TAKES} WAV paths",
                                      field=at)
            if not str(word).strip():
                raise EnrollmentError("an enrolled word cannot be empty", field=at)
            out[player][str(word).strip().lower()] = list(paths)
    return out


def _field(player: Any, word: Any = None) -> str:
    """The name of a player's (or one of their words') ``enrollment`` field."""
    where = f"enrollment.{str(player)[:jsonin.SHORT]}"
    return where if word is None else f"{where}.{str(word)[:jsonin.SHORT]}"


def _each_take(takes: Takes) -> Iterator[tuple[str, str, str]]:
    """Every take of ``takes``: (player, word, WAV path)."""
    for player, words in takes.items():
        for word, paths in words.items():
            for rel in paths:
                yield player, word, rel


def check_files(takes: Takes, base_dir: Path) -> None:
    """Raise ``EnrollmentError`` naming the field of the first take whose
    file is not there (paths relative to ``base_dir``)."""
    for player, word, rel in _each_take(takes):
        if not (base_dir / rel).is_file():
            raise EnrollmentError(f"no enrollment file {jsonin.short(rel)}",
                                  field=_field(player, word))


def load_enrollment(takes: Takes, base_dir: Path, *,
                    counted: Collection[str] | None) -> Enrollment:
    """The templates of every take in ``takes`` (paths relative to
    ``base_dir``); ``counted``: the words calls are made of
    (``Enrollment.counted``: ``count_words`` for an ear; None: every word
    counts, as for takes only copied into another enrollment). Raises ``OSError``
    for a missing or unreadable file and ``RecognizerError`` (an
    ``OSError``) for one that is not a usable WAV."""
    from companion.referee.judge import mono_of, read_wav_channels

    out = Enrollment(counted=None if counted is None else frozenset(counted))
    for player, word, rel in _each_take(takes):
        path = base_dir / rel
        if not path.is_file():
            raise FileNotFoundError(f"no enrollment file {str(path)!r}")
        pcm, rate = read_wav_channels(path)
        mono = mono_of(pcm)
        if rate != RATE:
            mono = soxr.resample(mono, rate, RATE).astype(np.int16)
        out.add(player, word, mono)
    return out
