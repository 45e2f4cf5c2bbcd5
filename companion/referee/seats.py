"""Who spoke: the seat an utterance came from, heard by the array.

Three estimates of the seat, each good where another is weak, must agree:

- **Beam power rise.** For an utterance with onset ``t``, an MVDR beam
  (``companion.referee.beam``) is steered at every seat with the
  interference of the ``BEFORE_S`` seconds before the onset, and the power
  of each beam over the ``AFTER_S`` seconds from the onset is compared with
  its power before: the seat whose beam rose most is the speaker's. Talk
  that went on through the onset rises in no beam; a new voice rises most in
  the beam toward it, which passes it unchanged, while the beams toward
  other seats are held to the old level by their nulls. Each frequency
  bin's rise (dB) counts alike, so the high bins, where a small array is
  most directive, are not drowned by the loud low ones. In a quiet room
  there is nothing to null, a small array's beams are broad, and every
  beam rises nearly alike.
- **MUSIC** (Schmidt, "Multiple emitter location and signal parameter
  estimation", IEEE Trans. Antennas Propag., 1986) on the ``AFTER_S``
  seconds from the onset, one source, each bin's pseudo-spectrum normalized
  to its largest over the seats before the bins are averaged (NormMUSIC, as
  pyroomacoustics' ``MUSIC(frequency_normalization=True)``; Salvati et al.,
  IEEE Signal Process. Lett., 2014). Alone in the room the voice is the one
  source and MUSIC is sharp where the rise is flat; with others talking
  through it, the strongest source may be a talker, which the rise is not
  fooled by.

- **MUSIC whitened by the audio before the onset** (GEVD-MUSIC: the
  covariance after the onset whitened by the one before it, so the talk
  and noise that were already there count as noise, not sources; Nakamura
  et al., "Intelligent sound source localization for dynamic
  environments", IROS 2009). It hears the new voice through talk that goes
  on, which plain MUSIC does not; in a quiet room it is less sharp.

A seat is given to the engines (``SeatEstimate.sure``) when the rise
names it together with MUSIC or whitened MUSIC, each estimate's lead over
the next seat measured against its own bar (``SURE_DB``, ``MUSIC_SURE_DB``,
``WHITENED_SURE_DB``: the lead at which that estimate alone is clearly
ahead). Any seat is given when MUSIC names it and MUSIC or the rise is
clearly ahead, or when whitened MUSIC names it clearly ahead. The seat of
the player whose turn it is (the one the beam is steered at) is also given
when the leads of those that name it, each divided by its bar, add up to
1: in talk the rise and whitened MUSIC often agree on the caller, each
short of its bar, and a voice from the seat whose turn it is needs less
evidence than one from another seat, which would keep the caller's own
call from being theirs. MUSIC clearly ahead names its seat even when the
rise names another: in a quiet room a small array's beams are broad and
the rise's best seat often leads by a hair, while MUSIC, with one voice in
the room, is sharp; but not when the rise and whitened MUSIC both name the
seat whose turn it is (in talk MUSIC's strongest source may be a talker).
A split call says nothing about the seat.

MUSIC is written here in numpy, not taken from pyroomacoustics at run time:
importing that package brings all of it and scipy, more memory than the
whole ear is allowed on a Pi (bench/RESULTS.md, "Microphone arrays");
``tests/test_array_ear.py`` checks the two give the same pseudo-spectrum.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from companion.referee.beam import (
    LOADING,
    Beamformer,
    Complex,
    apply_weights,
    covariance,
    mvdr_weights,
    steering_vectors,
)

BEFORE_S = 1.0
"""Seconds before the onset: the interference the beams are steered
against, and the level each beam's rise is measured from."""

GAP_S = 0.05
"""Seconds just before the onset left out of the 'before' audio (the onset
is known to about a frame)."""

AFTER_S = 0.5
"""Seconds from the onset over which each beam's power is measured (a call
word is 0.3-0.6 s)."""

SURE_DB = 1.5
"""The beam power rise is clearly ahead when its seat's rise beats every
other seat's by this many dB (chosen on the room simulation of
bench/roomsim.py, seeds 500-504, the dev speakers: the margins measured are
in bench/RESULTS.md)."""

MUSIC_SURE_DB = 2.8
"""MUSIC is clearly ahead when its seat's pseudo-spectrum beats every other
seat's by this many dB: the smallest margin at which MUSIC alone named no
wrong seat on the same rounds (every condition, both arrays, onsets 0.1 s
early to on time: bench/RESULTS.md)."""

WHITENED_SURE_DB = 3.2
"""Whitened MUSIC is clearly ahead when its seat's pseudo-spectrum beats
every other seat's by this many dB: just above the largest margin at which
it alone named a wrong seat on the same rounds (bench/RESULTS.md)."""


@dataclass(frozen=True)
class SeatEstimate:
    """The seat an utterance came from. ``player``: the seat whose beam rose
    most, or MUSIC's when MUSIC alone is clearly ahead (``agreement``).
    ``confidence``: 0..1, from the estimates' leads over the next seat,
    each divided by its own bar (``agreement``: the largest of them, or
    for the seat whose turn it is their sum; a scale, not a probability).
    ``rises``: per player, the beam's power rise at the onset, dB.
    ``music``, ``whitened``: per player, the normalized MUSIC
    pseudo-spectrum, plain and whitened, dB (0 at the best seat)."""

    player: str
    confidence: float
    rises: Mapping[str, float]
    music: Mapping[str, float]
    whitened: Mapping[str, float]

    @property
    def sure(self) -> bool:
        """Whether the estimates that name ``player`` are clearly ahead."""
        return self.confidence >= 1.0


def music_spectrum(frames: Complex, steer: Complex, noise: Complex | None = None
                   ) -> npt.NDArray[np.float64]:
    """NormMUSIC pseudo-spectrum for one source, dB, shape ``(S,)``, from
    STFT frames ``(T, F, M)`` and steering vectors ``(S, F, M)`` over the
    same ``F`` bins: per bin ``1 / |E_nᴴd|²`` (``E_n`` the ``M - 1``
    eigenvectors of the frames' covariance with the smallest eigenvalues,
    ``d`` normalized), divided by its largest over the ``S`` directions,
    averaged over the bins. The best direction is 0 dB. With ``noise``, a
    covariance ``(F, M, M)`` (diagonally loaded by ``LOADING``), the frames'
    covariance and ``d`` are first whitened by it (GEVD-MUSIC)."""
    cov = covariance(frames)
    d = steer
    if noise is not None:
        m = noise.shape[-1]
        load = LOADING * np.real(np.trace(noise, axis1=-2, axis2=-1)) / m + 1e-12
        inv = np.linalg.inv(np.linalg.cholesky(noise + load[:, None, None] * np.eye(m)))
        cov = inv @ cov @ np.conj(np.swapaxes(inv, -1, -2))
        d = np.einsum("fmn,sfn->sfm", inv, steer)
    _, vectors = np.linalg.eigh(cov)  # (F, M, M), eigenvalues ascending
    noise_space = vectors[:, :, :-1]  # (F, M, M-1)
    d = d / np.linalg.norm(d, axis=-1, keepdims=True)
    leak = np.sum(np.abs(np.einsum("fmk,sfm->sfk", noise_space.conj(), d)) ** 2, axis=-1)
    pseudo = 1.0 / (leak + 1e-12)  # (S, F)
    pseudo /= pseudo.max(axis=0, keepdims=True)
    return 10 * np.log10(pseudo.mean(axis=1))


def best_lead(scores: Mapping[str, float]) -> tuple[str, float]:
    """The best-scoring key of ``scores`` (at least two) and its lead over
    the next, in the scores' unit (dB for ``SeatEstimate``'s)."""
    order = sorted(scores, key=lambda n: scores[n], reverse=True)
    return order[0], scores[order[0]] - scores[order[1]]


def estimate_seat(beam: Beamformer, seats: Mapping[str, float], onset: float,
                  expected: str | None = None) -> SeatEstimate | None:
    """The seat of the utterance starting at ``onset`` (table seconds), from
    the frames ``beam`` kept, for ``seats`` (player -> azimuth in degrees).
    ``expected``: the player whose turn it is to speak, whose seat needs
    less evidence (``agreement``). None when the frames around the onset
    are no longer (or not yet) kept, or fewer than two seats are known."""
    if len(seats) < 2:
        return None
    before = beam.recent(onset - BEFORE_S, onset - GAP_S)
    after = beam.recent(onset, onset + AFTER_S)
    if len(before.spectra) < 4 or len(after.spectra) < 2:
        return None
    band = beam.band
    pre, post = before.spectra[:, band], after.spectra[:, band]
    names = list(seats)
    d = steering_vectors(beam.positions, [seats[n] for n in names], beam.freqs[band])
    before_cov = covariance(pre)
    weights = mvdr_weights(before_cov, d)  # (S, F, M)
    rises: dict[str, float] = {}
    for name, w in zip(names, weights, strict=True):
        p0 = np.mean(np.abs(apply_weights(w, pre)) ** 2, axis=0) + 1e-12  # per bin
        p1 = np.mean(np.abs(apply_weights(w, post)) ** 2, axis=0) + 1e-12
        rises[name] = float(np.mean(10 * np.log10(p1 / p0)))  # each bin counts alike
    music = dict(zip(names, music_spectrum(post, d).tolist(), strict=True))
    whitened = dict(zip(names, music_spectrum(post, d, before_cov).tolist(), strict=True))
    best, confidence = agreement(rises, music, whitened, expected)
    return SeatEstimate(player=best, confidence=confidence, rises=rises, music=music,
                        whitened=whitened)


def agreement(rises: Mapping[str, float], music: Mapping[str, float],
              whitened: Mapping[str, float], expected: str | None = None
              ) -> tuple[str, float]:
    """A seat and the confidence the three estimates (per seat, dB) give
    it, 0..1 (capped), each estimate's lead over the next seat divided by
    its own bar (``SURE_DB``, ``MUSIC_SURE_DB``, ``WHITENED_SURE_DB``).
    The seat is the one whose beam rose most. For any seat: the largest of
    the rise's and MUSIC's when MUSIC names the seat too, and whitened
    MUSIC's when it does. For the ``expected`` speaker's seat (whose turn
    it is): the rise's plus each MUSIC estimate's that names it, the sum of
    agreeing evidence, since a voice from the seat whose turn it is needs
    less of it than one from another seat. 0 when neither MUSIC estimate
    names the seat. When that leaves the rise's seat unsure and MUSIC
    names another seat clearly ahead (``MUSIC_SURE_DB``), that seat, sure:
    the bar is the lead at which MUSIC alone named no wrong seat, and in a
    quiet room the rise of a small array's broad beams often names a seat
    by a fraction of a dB (another player saying the number before the
    caller was then no one's voice, and counted as the caller's). Not when
    the rise and whitened MUSIC both name the ``expected`` seat: the seat
    then stays theirs, unsure. In talk plain MUSIC's one source is often a
    talker going on through the call, which whitening removes; on the
    arrays' development rooms MUSIC alone gave callers' own calls in talk
    to a talker's seat this way, and never named a wrong-seat round's
    other player against those two (bench/RESULTS.md, "MUSIC alone not
    against the rise and whitened MUSIC naming the caller")."""
    best, rise_lead = best_lead(rises)
    music_best, music_lead = best_lead(music)
    whitened_best, whitened_lead = best_lead(whitened)
    agreeing = []
    if music_best == best:
        agreeing.append(music_lead / MUSIC_SURE_DB)
    if whitened_best == best:
        agreeing.append(whitened_lead / WHITENED_SURE_DB)
    lead = 0.0
    if agreeing and best == expected:
        lead = rise_lead / SURE_DB + sum(agreeing)
    elif agreeing:
        lead = max([*agreeing, rise_lead / SURE_DB if music_best == best else 0.0])
    if (lead < 1.0 and music_best != best and music_lead >= MUSIC_SURE_DB
            and not (best == expected and whitened_best == best)):
        # MUSIC alone, clearly ahead: in a quiet room the small array's beams
        # are broad and the rise names a seat by a hair. Not against the
        # rise and whitened MUSIC both naming the caller: in talk, plain
        # MUSIC's strongest source is often a talker who went on through
        # the call.
        return music_best, 1.0
    return best, min(1.0, max(0.0, lead))


LOCATE_STEP_DEG = 5.0
"""Azimuth grid, degrees, on which ``locate`` looks for a voice."""

LOCATE_AGREE_DEG = 30.0
"""``locate`` takes MUSIC's direction when it lies within this many degrees
of the beam rise's, else the rise's: MUSIC is the finer of the two with one
voice in the room, the rise the one talk does not lead astray (chosen on
the dev rooms of bench/seat_margins.py; the errors are in
bench/RESULTS.md)."""


def degrees_apart(a: float, b: float) -> float:
    """Degrees between two azimuths in degrees (0..180)."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


def locate(beam: Beamformer, onset: float, step_deg: float = LOCATE_STEP_DEG) -> float | None:
    """The azimuth (degrees, counter-clockwise from x) of the voice starting
    at ``onset``, on a ``step_deg`` grid (as ``estimate_seat``, every
    direction a candidate seat): MUSIC's best direction when it is within
    ``LOCATE_AGREE_DEG`` of the direction whose beam rose most, else the
    latter. Used at setup, when each player in turn speaks. None when the
    frames are not kept."""
    grid = {f"{a:g}": float(a) for a in np.arange(0.0, 360.0, step_deg)}
    found = estimate_seat(beam, grid, onset)
    if found is None:
        return None
    rise = grid[found.player]
    music = grid[best_lead(found.music)[0]]
    return music if degrees_apart(music, rise) <= LOCATE_AGREE_DEG else rise
