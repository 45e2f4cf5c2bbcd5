"""Listening toward the caller: an MVDR beamformer on a microphone array.

``Beamformer`` takes blocks of multi-channel PCM (one channel per
microphone, in the order of the array's positions) and gives one channel:
the array steered at an azimuth with ``steer``. It works on short-time
Fourier frames (``FRAME`` samples, hop ``HOP``, square-root Hann windows,
overlap-add), so its output is the input delayed by ``delay`` samples.

The weights are the minimum-variance distortionless response (Capon 1969;
Van Trees, *Optimum Array Processing*, ch. 6): per frequency bin ``f``,
``w = R⁻¹d / (dᴴR⁻¹d)``, with ``d`` the far-field steering vector toward the
seat and ``R`` the covariance of the audio of the last ``NOISE_S`` seconds
before ``steer`` was called (the talk and noise the call must be heard
through), diagonally loaded (``LOADING``). Sound from the seat passes
unchanged; whatever was loud before the call from elsewhere is suppressed.
Until the first ``steer`` the output is the first microphone.

With the other seats' azimuths given (``seats``), each frame is also given
a second time with a **seat mask**: per bin, the beam's output scaled by
the share of the steered seat's power among the powers of an MVDR beam
steered at every seat (the same covariance; each power smoothed over
frames), never below ``MASK_FLOOR`` (``Beamformer.masked``). This is the
idea of direction-based time-frequency masking (a bin belongs to the
source whose direction holds most of its power; Yilmaz and Rickard 2004
for two microphones) applied to beams at the known seats. It suppresses
talk from other seats further than the beam alone, but it also changes
the word's own spectrum: the ear decodes it only as a second hearing of
an utterance the beam left unsure, and takes only a right call from it
(``companion.referee.stream``).

The recent frames are kept (``HISTORY_S``) for the seat estimate
(``companion.referee.seats``). No maintained library fits this stage:
pyroomacoustics' beamformers design filters for whole recordings, not a
stream re-steered at every turn, and importing the package brings all of
it and scipy (bench/RESULTS.md); torchaudio's MVDR needs torch. So this is
numpy.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SPEED_OF_SOUND = 343.0
"""Metres per second, in air at about 20 °C."""

FRAME = 512
"""STFT frame length in samples (32 ms at 16 kHz)."""

HOP = 256
"""STFT hop in samples (half a frame)."""

NOISE_S = 1.0
"""Seconds of audio before ``steer`` whose covariance is the interference.
Chosen on the room simulation's dev seeds (bench/roomsim.py, the dev
speakers): half a second or two ruled fewer calls right over the four
conditions (bench/RESULTS.md, "Microphone arrays")."""

HISTORY_S = 8.0
"""Seconds of STFT frames kept for the seat estimate."""

LOADING = 0.01
"""Diagonal loading of the noise covariance, as a share of its mean
diagonal power per bin: keeps the beam from cancelling the caller when the
seat's direction is a little off (reflections, a player leaning). Chosen on
the room simulation's dev seeds (bench/roomsim.py, the dev speakers): ten
times less or more ruled fewer calls right over the four conditions, the
more so in talk (bench/RESULTS.md, "Microphone arrays")."""

MASK_FLOOR = 0.2
"""The seat mask's least gain (``Beamformer.masked``): 0.2, about -14 dB.
Chosen on the room simulation's dev seeds (bench/roomsim.py, seeds
500-504, the dev speakers), with ``MASK_SMOOTH`` (bench/RESULTS.md, "A
second hearing through a seat mask")."""

MASK_SMOOTH = 0.6
"""The weight of the previous frame's smoothed power per seat and bin in
the seat mask (first-order recursive smoothing, 32 ms frames): without it
the mask flickers from frame to frame. Chosen with ``MASK_FLOOR`` on the
same rooms (0.3 and 0.8 ruled a few calls fewer right)."""

SEAT_ELEVATION_DEG = 25.0
"""Elevation of a seated player's mouth seen from the array, degrees above
the table plane (a mouth about 0.4 m above the table, 0.8 m away)."""

BAND_HZ = (200.0, 4000.0)
"""The speech band the seat estimate compares powers in, Hz."""

Complex = npt.NDArray[np.complex128]


def steering_vectors(positions: npt.NDArray[np.float64], azimuths_deg: npt.ArrayLike,
                     freqs_hz: npt.NDArray[np.float64], *,
                     elevation_deg: float = SEAT_ELEVATION_DEG) -> Complex:
    """Far-field steering vectors, shape ``(S, F, M)`` for ``S`` azimuths
    (degrees, counter-clockwise from x), ``F`` frequencies (Hz) and ``M``
    microphones at ``positions`` (``(M, 3)``, metres). A plane wave from the
    azimuth reaches a microphone nearer the source earlier; the phases are
    relative to the array's centre."""
    az = np.radians(np.atleast_1d(np.asarray(azimuths_deg, dtype=np.float64)))
    el = math.radians(elevation_deg)
    toward = np.stack([np.cos(az) * math.cos(el), np.sin(az) * math.cos(el),
                       np.full_like(az, math.sin(el))], axis=1)  # (S, 3)
    advance = toward @ positions.T / SPEED_OF_SOUND  # (S, M) seconds earlier than the centre
    return np.exp(2j * np.pi * freqs_hz[None, :, None] * advance[:, None, :])


def covariance(frames: Complex) -> Complex:
    """The spatial covariance per bin of STFT frames ``(T, F, M)``: ``(F, M, M)``."""
    return np.einsum("tfm,tfn->fmn", frames, frames.conj()) / max(1, len(frames))


def mvdr_weights(cov: Complex, steer: Complex, loading: float = LOADING) -> Complex:
    """MVDR weights ``(..., F, M)`` for covariance ``cov`` ``(F, M, M)`` and
    steering vectors ``steer`` ``(..., F, M)``: ``w = R⁻¹d / (dᴴR⁻¹d)``, R
    diagonally loaded by ``loading`` times its mean diagonal power. With no
    power at all (digital silence) the weights are delay-and-sum."""
    m = cov.shape[-1]
    power = np.real(np.trace(cov, axis1=-2, axis2=-1)) / m  # (F,)
    load = loading * power + 1e-12
    r = cov + load[:, None, None] * np.eye(m)[None]
    rinv_d = np.linalg.solve(r, steer[..., None])[..., 0]
    denom = np.sum(steer.conj() * rinv_d, axis=-1, keepdims=True)
    return rinv_d / denom


def apply_weights(weights: Complex, frames: Complex) -> Complex:
    """Beam output ``wᴴx`` per frame and bin: weights ``(F, M)``, frames
    ``(T, F, M)`` -> ``(T, F)``."""
    return np.einsum("fm,tfm->tf", weights.conj(), frames)


@dataclass(frozen=True)
class Frames:
    """STFT frames of the recent past: ``spectra`` ``(T, F, M)`` and the
    table time of each frame's centre, ``times`` ``(T,)`` seconds."""

    spectra: Complex
    times: npt.NDArray[np.float64]


class Beamformer:
    """A streaming MVDR beamformer for microphones at ``positions``
    (``(M, 3)`` metres) sampled at ``rate`` Hz; ``seats``: the azimuths of
    the table's seats in degrees (None: no seat mask; the attribute may be
    replaced, and the next ``steer`` uses the new seats).

    ``process(block, t)`` takes int16 PCM ``(n, M)`` whose first sample was
    heard at ``t`` seconds on the table clock and returns the beam's int16
    mono output so far and the table time of its first sample (None when
    nothing is ready yet); ``masked`` then holds the same samples with the
    seat mask (None without seats)."""

    def __init__(self, positions: npt.ArrayLike, rate: int,
                 seats: npt.ArrayLike | None = None) -> None:
        self.positions = np.asarray(positions, dtype=np.float64)
        if self.positions.ndim != 2 or self.positions.shape[1] != 3:
            raise ValueError(f"positions must be (M, 3) metres, not {self.positions.shape}")
        self.rate = int(rate)
        self.mics = len(self.positions)
        self.freqs = np.fft.rfftfreq(FRAME, 1.0 / self.rate)
        self.window = np.sqrt(np.hanning(FRAME + 1)[:FRAME])  # periodic: sums to 1 at 50 %
        self.delay = FRAME - HOP
        self._pending = np.zeros((self.delay, self.mics), dtype=np.float64)
        self._pending_t: float | None = None  # table time of _pending[0]
        self._overlap = np.zeros(FRAME, dtype=np.float64)
        self._weights: Complex | None = None
        self.azimuth: float | None = None
        self.seats = (None if seats is None
                      else np.asarray(seats, dtype=np.float64).reshape(-1))
        # Weights of the steered seat (first) and of every other seat, (S, F, M),
        # for the seat mask, and their smoothed powers, (S, F).
        self._every: Complex | None = None
        self._power: npt.NDArray[np.float64] | None = None
        self._overlap_masked = np.zeros(FRAME, dtype=np.float64)
        self.masked: npt.NDArray[np.int16] | None = None
        keep = max(1, round(HISTORY_S * self.rate / HOP))
        self._spectra: deque[Complex] = deque(maxlen=keep)
        self._times: deque[float] = deque(maxlen=keep)
        band = (self.freqs >= BAND_HZ[0]) & (self.freqs <= BAND_HZ[1])
        self.band = np.flatnonzero(band)

    # -- steering ----------------------------------------------------------------

    def recent(self, start: float, end: float) -> Frames:
        """The kept frames whose centres lie in ``[start, end)`` (table seconds)."""
        times = np.fromiter(self._times, dtype=np.float64, count=len(self._times))
        pick = np.flatnonzero((times >= start) & (times < end))
        if not len(pick):
            return Frames(np.zeros((0, len(self.freqs), self.mics), complex), times[:0])
        spectra = np.stack([self._spectra[i] for i in pick])
        return Frames(spectra, times[pick])

    def last_time(self) -> float | None:
        """The table time of the newest kept frame's centre (None before any)."""
        return self._times[-1] if self._times else None

    def steer(self, azimuth_deg: float, now: float | None = None) -> None:
        """Listen toward ``azimuth_deg`` (degrees) from the next frame on, with
        the interference taken from the ``NOISE_S`` seconds before ``now``
        (table seconds; default: the newest frame)."""
        end = now if now is not None else (self.last_time() or 0.0) + 1e-9
        noise = self.recent(end - NOISE_S, end)
        others = [] if self.seats is None else [
            a for a in self.seats if abs((a - azimuth_deg + 180.0) % 360.0 - 180.0) > 1.0]
        d = steering_vectors(self.positions, [azimuth_deg, *others], self.freqs)
        if len(noise.spectra) < 4:  # nothing heard yet: delay-and-sum
            every = d / self.mics
        else:
            every = mvdr_weights(covariance(noise.spectra), d)
        self._weights = every[0]
        self._every = every if others else None
        self._power = None
        self.azimuth = float(azimuth_deg) % 360.0

    # -- audio -------------------------------------------------------------------------

    def process(self, block: npt.ArrayLike, t: float | None = None
                ) -> tuple[npt.NDArray[np.int16], float | None]:
        """Add ``block`` (int16 ``(n, M)``) heard from ``t`` (None: right after
        the previous block). Returns the finished output samples (int16 mono)
        and the table time of the first of them."""
        x = np.asarray(block)
        if x.ndim != 2 or x.shape[1] != self.mics:
            raise ValueError(f"a block must have {self.mics} channels, not shape {x.shape}")
        if self._pending_t is None:
            start = t if t is not None else 0.0
            self._pending_t = start - self.delay / self.rate
        elif t is not None:
            # A gap or restart in the input: follow the block's own time.
            expected = self._pending_t + len(self._pending) / self.rate
            if abs(t - expected) > HOP / self.rate:
                self._pending_t = t - len(self._pending) / self.rate
        buf = np.concatenate([self._pending, x.astype(np.float64)])
        out_t = self._pending_t
        n_frames = max(0, (len(buf) - FRAME) // HOP + 1)
        out = np.zeros(n_frames * HOP, dtype=np.float64)
        masked = np.zeros(n_frames * HOP, dtype=np.float64) if self.seats is not None else None
        for k in range(n_frames):
            frame = buf[k * HOP:k * HOP + FRAME] * self.window[:, None]
            spec = np.fft.rfft(frame, axis=0)  # (F, M)
            self._spectra.append(spec)
            self._times.append(out_t + (k * HOP + FRAME / 2) / self.rate)
            w = self._weights
            y = spec[:, 0] if w is None else np.sum(w.conj() * spec, axis=1)
            self._overlap, out[k * HOP:(k + 1) * HOP] = self._synthesize(self._overlap, y)
            if masked is not None:
                self._overlap_masked, masked[k * HOP:(k + 1) * HOP] = self._synthesize(
                    self._overlap_masked, y * self._mask(spec))
        used = n_frames * HOP
        self._pending = buf[used:]
        self._pending_t = out_t + used / self.rate
        pcm = np.clip(np.round(out), -32768, 32767).astype(np.int16)
        self.masked = (None if masked is None
                       else np.clip(np.round(masked), -32768, 32767).astype(np.int16))
        return pcm, (out_t if n_frames else None)

    def _synthesize(self, overlap: npt.NDArray[np.float64], y: Complex
                    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """One frame's spectrum ``y`` ``(F,)`` overlap-added onto ``overlap``
        (``FRAME`` samples of output still being summed): the overlap moved
        on by ``HOP``, and the ``HOP`` finished samples."""
        overlap = overlap + np.fft.irfft(y, FRAME) * self.window
        return np.concatenate([overlap[HOP:], np.zeros(HOP)]), overlap[:HOP]

    def _mask(self, spec: Complex) -> npt.NDArray[np.float64]:
        """The seat mask of one frame's spectra ``(F, M)``: per bin, the
        steered seat's share of the (smoothed) power of every seat's beam,
        at least ``MASK_FLOOR``; all ones before the first steer or with no
        other seat."""
        if self._every is None:
            return np.ones(len(self.freqs))
        power = np.abs(np.einsum("sfm,fm->sf", self._every.conj(), spec)) ** 2
        if self._power is not None:
            power = MASK_SMOOTH * self._power + (1.0 - MASK_SMOOTH) * power
        self._power = power
        return np.maximum(power[0] / (power.sum(axis=0) + 1e-9), MASK_FLOOR)
