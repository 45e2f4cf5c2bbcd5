"""The start of a word that a noise hides, found from the caller's takes.

Over a steady floor (a fan, a hiss) the segmenter finds a call where its
level first stands clearly over the floor. In "three", "two" and "six"
that is the vowel: the soft sound before it (the th, the t and its breath,
the s) is quieter than the noise, and the onset comes late by as much
(bench/RESULTS.md, "Measured, nothing changed: where the onset errors come
from"). The 3-second rule counts from the word's start.

Two witnesses of how much of the word the noise hid:

- **The caller's takes** (``hidden_lead``). The caller's own takes of the
  word heard, recorded at setup in a quiet room, show how much of the word
  comes before the point where, said as loud as the call, it would first
  stand ``SHOWS_DB`` over this floor (the median over the takes).
- **The call's own spectrum** (``band_lead``). Just before the onset, the
  frames whose power in the speech band (``BAND_HZ``), bin by bin over the
  noise's own spectrum, stands over every frame of the noise heard before
  them (``REFERENCE_S``): the soft start is quieter than the noise in all,
  but not in the band where it has its power. Asked only when the call's
  loudest frame stands less than ``START_DB`` over the floor, where the
  start of a word can be under it; in a quiet room the frames before a
  word hold breath and the room, which this would take for the word.

Over a noise that is not steady (clatter, talk at the table), the soft
start hides under the noise heard just before the word (``noise_before``)
rather than a floor, and only the takes can tell: the band spectrum of
such a noise is not steady enough to tell a word's start from it.

Over a steady floor the onset is moved back by the mean of the two (by the
takes' alone when the band cannot tell: over a noise not steady in the
band, ``STEADY_BAND_DB``; and by the band's alone for a word the caller
has no takes of): each alone misses by the spread of what it reads (the
takes by how this call's start differs from theirs, the spectrum by the
noise's own ups and downs), and the two misses are apart
(bench/RESULTS.md, "The start of a word the hiss hides: the call's own
band spectrum"). In a quiet room nothing moves, since the word stands over
the floor from its start.

Audio is 16-bit mono PCM; levels are powers (mean square, int16 scale) of
10 ms frames.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FRAME_S = 0.010
"""The frame levels are measured on, seconds."""

START_DB = 25.0
"""A take starts at its first frame within this many dB of its loudest:
where the ear finds a word's onset in a quiet room
(``stream.WORD_ONSET_DB``)."""

SHOWS_DB = 6.0
"""A frame of the call shows over the floor when the call's power and the
floor's together stand this many dB above the floor's. Chosen on the
human development split in white noise at 10 dB, where the segmenter's
onsets were measured against the words' starts (bench/RESULTS.md, "The
start of a word the hiss hides")."""

LONGEST_S = 0.25
"""The onset is never moved back by more than this, seconds. In the
development speakers' takes (3 each of 10 words), a word runs at most
0.14 s from its start to its first frame within 15 dB of its loudest,
but for one "three" (0.29 s)."""


NOISE_BEFORE_S = 0.3
"""Over a noise that is not steady (clatter, talk), a word's soft start
hides under the noise heard just before it rather than under a floor: the
median power of the 10 ms frames of this many seconds, up to ``GAP_S``
before the onset (``noise_before``). Chosen on the human development
split in kitchen noise and talk at 10 dB, where the onsets of "two",
"three" and "six" came late as in a hiss (bench/RESULTS.md, "The start of
a word that clatter or talk hides")."""

GAP_S = 0.02
"""The frames ``noise_before`` weighs end this many seconds before the
onset, which can be a frame or two into the word."""


def frame_powers(pcm: npt.ArrayLike, rate: int) -> npt.NDArray[np.float64]:
    """Mean square of each whole 10 ms frame of ``pcm`` (mono samples,
    16-bit scale, at ``rate`` Hz), shape ``(frames,)``."""
    x = np.asarray(pcm, dtype=np.float64).reshape(-1)
    n = round(FRAME_S * rate)
    count = len(x) // n
    return np.mean(x[:count * n].reshape(count, n) ** 2, axis=1)


def hidden_lead(takes: Sequence[npt.ArrayLike], peak: float, floor: float, rate: int) -> float:
    """Seconds of a word said before it first shows over a steady floor.

    Per take (mono samples at the takes' own ``rate``, Hz), scaled so its
    loudest frame has the call's power ``peak`` (over the floor; mean
    square, int16 scale): the time from its start (``START_DB``) to its
    first frame that, with the floor's power ``floor`` added, stands
    ``SHOWS_DB`` over the floor (0 for a take that would never show). The
    median over the takes, at most ``LONGEST_S``; 0.0 with no take a whole
    frame long, or a ``peak`` or ``floor`` not above zero."""
    if peak <= 0.0 or floor <= 0.0:
        return 0.0
    shows = floor * (10 ** (SHOWS_DB / 10) - 1.0)
    leads: list[float] = []
    for take in takes:
        power = frame_powers(take, rate)
        if not len(power) or power.max() <= 0.0:
            continue
        start = int(np.argmax(power >= power.max() * 10 ** (-START_DB / 10)))
        scaled = power[start:] * (peak / power.max())
        above = np.flatnonzero(scaled >= shows)
        leads.append(float(above[0]) * FRAME_S if len(above) else 0.0)
    if not leads:
        return 0.0
    return min(LONGEST_S, float(np.median(leads)))


def noise_before(audio: npt.ArrayLike, rate: int) -> float:
    """The power a word's start hides under over a noise that is not steady:
    the median of the 10 ms frame powers (mean square, int16 scale) of
    ``audio`` (mono samples at ``rate`` Hz, the ``NOISE_BEFORE_S`` seconds
    before the onset less ``GAP_S``); 0.0 when shorter than a frame."""
    power = frame_powers(audio, rate)
    return float(np.median(power)) if len(power) else 0.0


BAND_HZ = (300.0, 4000.0)
"""The band whose power ``band_lead`` weighs, Hz: where every take and call
of the development recordings (8 kHz, so nothing above 4 kHz) has the
soft start of a word; below it, hum and rumble."""

SPECTRUM_S = 0.032
"""The length of each Hann-windowed frame of ``band_lead``'s spectra,
seconds, one every ``FRAME_S``."""

REFERENCE_S = 0.4
"""Seconds of noise, before the ``LONGEST_S`` searched, whose spectrum and
frames ``band_lead`` weighs each frame against."""

STEADY_BAND_DB = 2.0
"""``band_lead`` tells a word from a noise only when the noise is steady in
the band: its loudest frame (smoothed as the frames weighed) at most this
many dB over its mean spectrum. On the development split the white
noise's stood at most 1.35 dB over it (0.4 s before the segmenter's
onsets of 178 calls), talk's 2.7-4.2 dB; above the line the noise heard
before held more than the noise (talk, the tail of a word), and the band
said nothing where the takes saw a hidden start (bench/RESULTS.md, "The
start of a word the hiss hides: the call's own band spectrum")."""

OVER_BAR = 1.1
"""With no takes beside it, a frame is the word only when its band power
stands this many times over the largest of the noise's frames: the frames
of pure noise just before a word reach the noise's largest about as often
as its own frames do, and a run back over them, which the takes' witness
halves when there is one, went on into the noise alone (a synthetic "one"
in white noise at 10 dB, heard without takes, moved 82 ms before its
start). With the takes beside it the bar is the largest itself: on the
development sets' white noise 1.1 times it left more onsets over 60 ms
late (38 against 34 of 641 calls) (bench/RESULTS.md, "The start of a word
the hiss hides: the call's own band spectrum")."""

SMOOTH_FRAMES = 3
"""``band_lead`` weighs each frame's band power averaged with its
neighbours' (this many frames, ``FRAME_S`` apart), the noise's frames
alike."""


def band_power(audio: npt.ArrayLike, rate: int) -> npt.NDArray[np.float64]:
    """The power of each ``SPECTRUM_S`` Hann-windowed frame of ``audio``
    (mono samples at ``rate`` Hz, a frame every ``FRAME_S``) in each FFT
    bin of ``BAND_HZ``: shape ``(frames, bins)``, no frames when shorter
    than one."""
    x = np.asarray(audio, dtype=np.float64).reshape(-1)
    size, hop = round(SPECTRUM_S * rate), round(FRAME_S * rate)
    band = np.fft.rfftfreq(size, 1.0 / rate)
    band = (band >= BAND_HZ[0]) & (band < BAND_HZ[1])
    if len(x) < size:
        return np.zeros((0, int(band.sum())))
    frames = np.lib.stride_tricks.sliding_window_view(x, size)[::hop] * np.hanning(size)
    return np.abs(np.fft.rfft(frames, axis=1)[:, band]) ** 2


def band_lead(audio: npt.ArrayLike, rate: int, over: float = 1.0) -> float | None:
    """Seconds of a word's start under a noise, by its band spectrum.

    ``audio``: mono samples at ``rate`` Hz, ``REFERENCE_S + LONGEST_S``
    seconds of them up to the onset found, and on past it (at least a
    ``SPECTRUM_S`` frame); ``over``, the bar's factor over the noise's
    largest frame (``OVER_BAR`` for the band alone). The frames within the
    first ``REFERENCE_S`` are the noise. Each frame's power over the noise's
    mean spectrum, bin by bin (``band_power``), averaged over the bins and
    over ``SMOOTH_FRAMES`` frames; ``over`` times the largest of the noise's
    frames (smoothed among themselves) is the bar. From the last frame
    centred before the onset back, the frames that pass the bar: the time
    from the centre of the first of that run, less a quarter frame, to the
    onset, at most ``LONGEST_S``; 0.0 when the frame before the onset does
    not pass. None (it cannot tell) when the audio is too short, or the
    noise's largest frame stands more than ``STEADY_BAND_DB`` over its mean."""
    x = np.asarray(audio, dtype=np.float64).reshape(-1)
    split = round(REFERENCE_S * rate)
    onset = split + round(LONGEST_S * rate)
    size, hop = round(SPECTRUM_S * rate), round(FRAME_S * rate)
    noisy = 0 if split < size else 1 + (split - size) // hop  # the noise's frames
    if len(x) < onset + size or noisy < SMOOTH_FRAMES:
        return None
    power = band_power(x, rate)
    ratio = np.mean(power / (power[:noisy].mean(axis=0) + 1e-12), axis=1)
    smooth = np.ones(SMOOTH_FRAMES) / SMOOTH_FRAMES
    largest = float(np.convolve(ratio[:noisy], smooth, "valid").max())
    if largest > 10 ** (STEADY_BAND_DB / 10):
        return None
    bar = largest * over
    ratio = np.convolve(ratio, smooth, "same")
    centres = np.arange(len(ratio)) * hop + size / 2  # samples from the audio's start
    lead = 0.0
    for j in range(int(np.searchsorted(centres, onset)) - 1, -1, -1):
        if onset - centres[j] > LONGEST_S * rate or ratio[j] < bar:
            break
        lead = float(onset - centres[j] + size / 4) / rate
    return min(LONGEST_S, lead)


def band_asked(peak: float, floor: float) -> bool:
    """Whether ``word_lead`` asks the band spectrum at all: the call's
    loudest frame, ``peak`` over the floor's power ``floor`` (mean squares,
    int16 scale), above zero and less than ``START_DB`` over the floor. A
    louder call's start shows over the floor; the caller of ``word_lead``
    need not fetch the audio around the onset otherwise."""
    return 0.0 < peak < floor * 10 ** (START_DB / 10)


def word_lead(takes: Sequence[npt.ArrayLike], peak: float, floor: float, takes_rate: int,
              audio: npt.ArrayLike | None, rate: int) -> float:
    """Seconds to move a call's onset back over the start of its word that a
    steady floor hid: the caller's ``takes`` of the word (``hidden_lead``,
    at ``takes_rate`` Hz), averaged with the call's band spectrum
    (``band_lead`` of ``audio``, at ``rate`` Hz) when the call's loudest
    frame, ``peak`` over the floor's power ``floor`` (mean squares, int16
    scale), stands less than ``START_DB`` over it and ``audio`` (the
    stream around the onset, as ``band_lead`` takes it) is known and the
    band can tell; the band spectrum's alone, its bar ``OVER_BAR`` over
    the noise's largest frame, when the caller has no takes of the word."""
    lead = hidden_lead(takes, peak, floor, takes_rate) if takes else None
    if audio is not None and band_asked(peak, floor):
        band = band_lead(audio, rate, OVER_BAR if lead is None else 1.0)
        if band is not None:
            return band if lead is None else (lead + band) / 2
    return lead or 0.0
