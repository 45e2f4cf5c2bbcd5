"""Voice activity detection: cutting utterances out of the stream (webrtcvad).

``Segmenter`` runs WebRTC's VAD (``webrtcvad``) on 10 ms frames at 16 kHz.
An utterance starts when ``start_voiced`` of the last ``start_window`` frames
are voiced; its **onset** is the first voiced frame of that run, then moved
back over the frames just before it whose energy stands clearly above the
noise floor (webrtcvad is slow to mark the unvoiced start of "six", "seven",
"three", "five", "four"). It ends after ``end_silence`` seconds without a
voiced frame, at ``max_length`` seconds, or where a louder voice rises out
of it (``VadSettings.cut_rise_db``, ``cut_early_db``: a call out of
table talk, which webrtcvad alone never ends). Each ``Segment`` carries its PCM
with ``pre_roll`` seconds before the onset and the trailing silence, ready for
a recognizer. While an utterance is open, ``quiet`` says how long the stream
has been back at its floor, ``peek`` gives the utterance so far and ``cut``
ends it at once (the listener's early endpoint). A voice too short to start
an utterance (a few voiced frames well above the floor) is a brief
``Segment``: no samples, only where it was.

Sample indices are the stream's, at ``rate`` Hz; the stream maps them to the
table clock (``companion.referee.clock``).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import webrtcvad

from companion.errors import RecognizerError

Pcm = npt.NDArray[np.int16]


@dataclass(frozen=True)
class VadSettings:
    """Settings of the segmenter (defaults in brackets).

    ``aggressiveness``: webrtcvad's mode 0..3, higher rejects more noise [2].
    ``start_window``/``start_voiced``: frames (10 ms) looked at / needed voiced
    to start an utterance [10 / 6]. ``end_silence``: seconds without a voiced
    frame that end it [0.25]. ``pre_roll``: seconds kept before the onset
    [0.3]. ``max_length``: the longest utterance, seconds [3.0]; a call
    lasts about one, and it bounds the decoding work in endless table talk.
    ``backtrack_db``: how far above the noise floor (dB) a frame's energy must
    be to move the onset back over it [12.0]; ``backtrack_max``: at most this
    many seconds [0.15]. ``gate_db``: a voiced frame's energy must be this
    far above the noise floor, dB [6.0]. ``brief_voiced``: voiced frames
    standing ``backtrack_db`` above the floor that, in a stretch that never
    started an utterance, make a brief sound (a ``Segment`` with ``brief``)
    once ``end_silence`` has passed without a voiced frame [3]; 0: none.
    A call whose voiced part is shorter than ``start_voiced`` frames (the
    short vowel of "six" in loud noise, its fricatives drowned) is then
    still heard as a voice, though too short to decode.

    ``cut_rise_db``: a 10 ms frame (and the next) this many dB above the
    median energy of the ``cut_window`` seconds before it, the frame before
    it not, more than ``cut_after`` seconds after the onset of an open
    utterance, ends that utterance ``cut_lead`` seconds before the rise
    (moved back over the softer frames just before it, as ``rise``) and
    opens a new one with its onset there [9.0; 0: never]. At a talking table
    webrtcvad hears the talk as one long utterance, and a call rising out of
    it was decoded together with seconds of talk (STUDY.md of the
    human-voice set: a rise of 9-12 dB over the last 1.5 s finds the caller;
    the figures on the human development sets: bench/RESULTS.md, "Talk cut
    where a voice rises out of it"). ``cut_after`` [1.0]: a call lasts about
    a second, and rises inside one (the vowel after the s of "six", the
    second word of a twin call) stay in it. ``cut_window`` [1.5];
    ``cut_lead`` [0.15]: the quiet start of the call's first sound kept with
    it (as the listener's ``LEAD_S``).

    ``cut_early_after`` [0.4]: from this many seconds after the onset (and
    on past ``cut_after``), a voice rising ``cut_early_db`` [6.0] dB above the
    ``cut_early_percentile`` [80] of the open utterance's own 10 ms frame
    energies (its loud frames, not the quiet before its onset that the
    ``cut_window`` would hold) cuts it as well, its start no earlier than
    half of ``cut_early_after`` after the onset [0: never]. On the
    human-voice development split the utterance holding a call in talk
    often began 0.3-1 s before the caller's voice, before ``cut_after``
    looks; against the talk's loud frames a caller's voice 10 dB over the
    talk rises out of it, and a voice's own syllables mostly do not (the
    settings swept, and what they moved: bench/RESULTS.md, "Talk cut early
    where the caller rises out of it"). Off with ``cut_rise_db`` 0 too.

    ``fall_db`` [3.0]: a 10 ms frame within this many dB of the level
    before the open utterance's onset (the median energy of the
    ``cut_window`` seconds before it) has fallen back to what was there
    before the voice (``fallen``), once the utterance rose ``fall_rise_db``
    [3.0] dB over that line (a voice out of talk or noise, not one no
    louder than what came before). At a talking table the stream is never
    quiet after a call, so an end by quiet waits for the talk to pause;
    the caller's end is where the level falls back to the talk's. Both
    chosen on the human-voice development split against 0 and 6 dB, and 6,
    9 and 12 dB (bench/RESULTS.md, "A call's end where the level falls
    back"). Off with ``fall_rise_db`` 0.

    ``decay_db`` [15.0]: a 10 ms frame more than this many dB under the
    open utterance's loudest frame so far has decayed (``decayed``): the
    voice is over, though a room's reverberant tail or the talk around it
    keeps the level above the floor and above what was there before. In
    the far field the level takes a fifth of a second or more to fall back
    (``fallen``), and the early endpoint waited for it; the level also
    decays in the gap between a twin's numbers and under a word's soft end
    (the v of "five"), so the listener asks this test only while a one-word
    call is owed, ends an utterance on it only for a call ruled right,
    learns that call only with the audio after the cut, and never asks it
    behind an array (``stream.Listener._early``). Chosen on
    the human-voice development split against 10, 12 and 20 dB
    (bench/RESULTS.md, "A call's end where its level has decayed").
    0: never."""

    aggressiveness: int = 2
    start_window: int = 10
    start_voiced: int = 6
    end_silence: float = 0.25
    pre_roll: float = 0.3
    max_length: float = 3.0
    backtrack_db: float = 12.0
    backtrack_max: float = 0.15
    gate_db: float = 6.0
    brief_voiced: int = 3
    cut_rise_db: float = 9.0
    cut_after: float = 1.0
    cut_window: float = 1.5
    cut_lead: float = 0.15
    cut_early_after: float = 0.4
    cut_early_db: float = 6.0
    cut_early_percentile: float = 80.0
    fall_db: float = 3.0
    fall_rise_db: float = 3.0
    decay_db: float = 15.0


@dataclass(frozen=True)
class Segment:
    """An utterance cut from the stream. ``start``: the stream index of
    ``pcm[0]``; ``onset``: index of the first sample of speech; ``end``:
    index just after the last voiced frame. ``forced``: cut at ``max_length``
    or at a gap in the stream rather than by silence. ``brief``: a voice too
    short to start an utterance (``VadSettings.brief_voiced``): ``onset``
    and ``end`` span its voiced frames, ``pcm`` is empty. ``rise``: ended
    where a louder voice rose out of it (``VadSettings.cut_rise_db``), and
    that voice's utterance is open now. ``risen``: began so (its onset is
    that rise, its pre-roll the talk before)."""

    start: int
    onset: int
    end: int
    pcm: Pcm
    forced: bool = False
    brief: bool = False
    rise: bool = False
    risen: bool = False


class RunningPercentile:
    """The ``percent``-th percentile of the last ``size`` values added, the
    same float as ``numpy.percentile`` (its default linear method) on them,
    kept sorted as values come and go: a frame's noise floor costs a
    bisection instead of a partition of two seconds of frames."""

    def __init__(self, size: int, percent: float) -> None:
        self.size = size
        self._q = percent / 100
        self._recent: deque[float] = deque()
        self._sorted: list[float] = []

    def __len__(self) -> int:
        return len(self._recent)

    def add(self, value: float) -> None:
        """Add ``value``; the oldest goes once there are ``size``."""
        if len(self._recent) == self.size:
            old = self._recent.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, old)]
        self._recent.append(value)
        bisect.insort(self._sorted, value)

    def value(self) -> float:
        """The percentile now; raises ``ValueError`` before the first value."""
        a = self._sorted
        n = len(a)
        if n == 0:
            raise ValueError("no values yet")
        virtual = (n - 1) * self._q  # numpy's linear method (Hyndman and Fan's 7th)
        below = math.floor(virtual)
        above = min(below + 1, n - 1)
        gamma = virtual - below
        lo, hi = a[below], a[above]
        diff = hi - lo
        return hi - diff * (1 - gamma) if gamma >= 0.5 else lo + diff * gamma


FRAME_MS = 10
DIGITAL_SILENCE = 2.0
"""A 10 ms frame whose mean square (plus one, as the segmenter's frame
energies) is at most this is digital silence, not sound: every sample within
about one step of zero (a dropped block the stream filled with zeros, or a
muted device). webrtcvad is not given it."""
RATES = (8000, 16000, 32000, 48000)


class Segmenter:
    """Finds utterances in a stream of 16-bit mono PCM at ``rate`` Hz (one of
    8000, 16000, 32000, 48000). Raises ``RecognizerError`` for another rate."""

    def __init__(self, rate: int = 16000, settings: VadSettings | None = None) -> None:
        if rate not in RATES:
            raise RecognizerError(f"webrtcvad takes {RATES} Hz, not {rate!r}")
        self.rate = rate
        self.settings = s = settings or VadSettings()
        self.vad = webrtcvad.Vad(s.aggressiveness)
        self.frame = rate * FRAME_MS // 1000
        keep = round(s.pre_roll * rate) + s.start_window * self.frame
        self._history: deque[Pcm] = deque(maxlen=max(1, keep // self.frame + 1))
        self._energies = RunningPercentile(200, 10)  # frame energies, last 2 s
        self._levels: deque[tuple[int, float]] = deque(maxlen=400)  # (index, energy), 4 s
        self._pending = np.zeros(0, dtype=np.int16)
        self._next = 0  # stream index of _pending[0]
        self._flags: deque[bool] = deque(maxlen=s.start_window)
        self._speech: list[Pcm] | None = None
        self._start = self._onset = self._last_voiced = self._last_sound = 0
        self._floor = 1.0
        self._brief: tuple[int, int, int] | None = None  # (first, end, voiced frames)
        self._risen = False  # the open utterance began at a rise out of talk
        # The open utterance's own frame energies (``_rise_early``): all of
        # them, and the percentile of all but the last two.
        self._own: list[float] = []
        self._own_first = 0  # the stream index of the first of them
        self._own_loud = RunningPercentile(1 << 30, self.settings.cut_early_percentile)
        # ``fallen``: the energy before the open utterance's onset, its
        # loudest frame, and the end of its last frame above the fall line;
        # ``decayed``: the end of its last frame within ``decay_db`` of that
        # loudest frame.
        self._before = 0.0
        self._own_peak = 0.0
        self._last_up = self._last_loud = 0

    @property
    def in_speech(self) -> bool:
        """True while an utterance is open."""
        return self._speech is not None

    @property
    def floor_dbfs(self) -> float:
        """The noise floor: the 10th percentile of the last 2 s of 10 ms
        frame energies, dB relative to int16 full scale (RMS)."""
        return 10 * float(np.log10(self._floor / 32768.0 ** 2 + 1e-12))

    @property
    def floor_spread_db(self) -> float | None:
        """How far the 30th percentile of the last 4 s of 10 ms frame
        energies lies above their 10th, dB (small when the quietest third
        of them is one steady level: a fan or hiss, not talk or clatter);
        None with less than a second of frames kept."""
        if len(self._levels) < 100:
            return None
        energies = np.fromiter((e for _, e in self._levels), dtype=np.float64)
        low, third = np.percentile(energies, [10, 30])
        return 10 * float(np.log10(third / low))

    @property
    def position(self) -> int:
        """The stream index just after the last sample pushed."""
        return self._next + len(self._pending)

    def push(self, pcm: Pcm, first: int | None = None) -> list[Segment]:
        """Add samples whose first has stream index ``first`` (None: right
        after the last). A later ``first`` than expected is a gap: any open
        utterance is closed first. Returns the utterances that ended."""
        out: list[Segment] = []
        if first is not None and first != self.position:
            out += self.flush()
            self._pending = np.zeros(0, dtype=np.int16)
            self._next = first
            self._history.clear()
            self._flags.clear()
            self._brief = None
        self._pending = np.concatenate([self._pending, np.asarray(pcm, dtype=np.int16)])
        f = self.frame
        while len(self._pending) >= f:
            frame, self._pending = self._pending[:f], self._pending[f:]
            index = self._next
            self._next += f
            seg = self._frame(frame, index)
            if seg is not None:
                out.append(seg)
        return out

    def rise(self, lo: int, hi: int, rise_db: float, window: float) -> int | None:
        """The stream index of the last 10 ms frame in ``lo..hi`` (stream
        indices) where the energy rises: it and the next frame stand
        ``rise_db`` dB or more above the median energy of the ``window``
        seconds before it, the frame before it does not (the onset of a
        voice louder than the talk around it; STUDY.md of the human-voice
        set), moved back over the frames just before it that stand half as
        far above that median (at most 0.25 s). None if there is none, or
        the frames are no longer kept (about 4 s)."""
        levels = list(self._levels)
        if not levels:
            return None
        base = levels[0][0]
        f = self.frame
        energies = np.array([e for _, e in levels])
        span = max(1, round(window * self.rate / f))
        factor = 10 ** (rise_db / 10)
        found = None
        above_before = True
        for k in range(max(0, (lo - base) // f), min(len(levels) - 1, (hi - base) // f + 1)):
            if k < span // 2:
                continue  # too little history to tell a rise
            ref = float(np.median(energies[max(0, k - span):k])) * factor
            above = energies[k] >= ref and energies[k + 1] >= ref
            if above and not above_before:
                found = k
            above_before = energies[k] >= ref
        if found is None:
            return None
        return levels[_soft_start(energies, found, span, rise_db, (lo - base) // f)][0]

    def flush(self) -> list[Segment]:
        """Close an open utterance (end of the stream or a gap)."""
        if self._speech is None:
            return []
        return [self._close(forced=True)]

    @property
    def quiet(self) -> float:
        """Seconds since the open utterance's last frame that was voiced or
        whose energy stood ``gate_db`` above the noise floor (0.0 with no
        utterance open): how long the stream has been back at its floor. The
        unvoiced s of "six" or the nasal end of a hum is not quiet."""
        if self._speech is None:
            return 0.0
        # A voiced frame is a sound frame too (the gate comes first).
        return (self._next - self._last_sound) / self.rate

    @property
    def fallen(self) -> float:
        """Seconds since the open utterance's last 10 ms frame above the
        level it rose from (``VadSettings.fall_db``, ``fall_rise_db``): how
        long the stream has been back at the talk or noise that was there
        before the voice. 0.0 with no utterance open, or one that never
        rose over that level."""
        if self._speech is None:
            return 0.0
        return (self._next - self._last_up) / self.rate

    @property
    def decayed(self) -> float:
        """Seconds since the open utterance's last 10 ms frame within
        ``VadSettings.decay_db`` of its loudest so far: how long its voice
        has been over, whatever the floor or the talk under it. 0.0 with no
        utterance open, or with ``decay_db`` 0."""
        if self._speech is None or self.settings.decay_db <= 0:
            return 0.0
        return (self._next - self._last_loud) / self.rate

    @property
    def onset(self) -> int | None:
        """The stream index of the open utterance's onset (None with no
        utterance open)."""
        return None if self._speech is None else self._onset

    @property
    def risen(self) -> bool:
        """Whether the open utterance began where a voice rose out of the
        one before it (``VadSettings.cut_rise_db``); False with none open."""
        return self._speech is not None and self._risen

    @property
    def length(self) -> float:
        """Seconds from the open utterance's onset to its last voiced frame
        (0.0 with no utterance open)."""
        if self._speech is None:
            return 0.0
        return (self._last_voiced - self._onset) / self.rate

    def peek(self) -> Segment | None:
        """The open utterance as it would be if it ended now (None with no
        utterance open); the utterance stays open."""
        if self._speech is None:
            return None
        return self._segment(forced=False)

    def cut(self) -> Segment | None:
        """End the open utterance now, before ``end_silence`` has run out (an
        early endpoint: its words are already known); None with none open."""
        if self._speech is None:
            return None
        return self._close(forced=False)

    # -- internals -------------------------------------------------------------

    def _frame(self, frame: Pcm, index: int) -> Segment | None:
        s = self.settings
        energy = float(np.mean(frame.astype(np.float64) ** 2)) + 1.0
        self._energies.add(energy)
        self._levels.append((index, energy))
        self._floor = self._energies.value()
        sound = energy >= self._floor * 10 ** (s.gate_db / 10)
        # webrtcvad hears every frame but digital silence: its noise model
        # adapts on the frames it is given. Given only those over the gate, it
        # learnt the voices as noise and, in steady hiss, stopped hearing
        # calls; given the zeros of a dropped block, it learnt silence and
        # then heard the room's floor as a voice for seconds.
        heard = energy > DIGITAL_SILENCE and self.vad.is_speech(frame.tobytes(), self.rate)
        voiced = heard and sound
        if self._speech is None:
            self._history.append(frame)
            self._flags.append(voiced)
            if sum(self._flags) >= s.start_voiced:
                self._brief = None  # the utterance holds it
                self._open(index)
                return None
            strong = voiced and energy >= self._floor * 10 ** (s.backtrack_db / 10)
            return self._brief_frame(index, strong)
        self._speech.append(frame)
        self._own.append(energy)
        if len(self._own) >= 3:
            self._own_loud.add(self._own[-3])
        self._own_peak = max(self._own_peak, energy)
        line = self._before * 10 ** (s.fall_db / 10)
        if (s.fall_rise_db <= 0 or energy > line
                or self._own_peak < line * 10 ** (s.fall_rise_db / 10)):
            self._last_up = index + self.frame
        if energy > self._own_peak * 10 ** (-s.decay_db / 10):
            self._last_loud = index + self.frame
        if s.cut_rise_db > 0 and index - self._onset >= s.cut_after * self.rate:
            rise = self._rise_now()
            if rise is not None:
                return self._cut_at(rise, index)
        if (s.cut_rise_db > 0 and s.cut_early_after > 0
                and index - self._onset >= s.cut_early_after * self.rate):
            rise = self._rise_early()
            if rise is not None:
                return self._cut_at(rise, index)
        if sound:
            self._last_sound = index + self.frame
        if voiced:
            self._last_voiced = index + self.frame
        elif (index + self.frame - self._last_voiced) >= s.end_silence * self.rate:
            return self._close(forced=False)
        if (index + self.frame - self._onset) >= s.max_length * self.rate:
            return self._close(forced=True)
        return None

    def _rise_now(self) -> int | None:
        """The stream index where a voice rises at the frame before the last
        (``VadSettings.cut_rise_db``), moved back over its softer start;
        None if it does not, or if that start is within ``cut_after`` / 2
        seconds of the open utterance's onset."""
        s = self.settings
        span = round(s.cut_window * self.rate / self.frame)
        if len(self._levels) < span + 2:
            return None
        recent = list(itertools.islice(self._levels, len(self._levels) - span - 2, None))
        energies = [e for _, e in recent]
        return self._edge(energies, lambda k: recent[k][0], float(np.median(energies[:span])),
                          s.cut_rise_db, s.cut_after / 2)

    def _rise_early(self) -> int | None:
        """The stream index where a voice rises at the frame before the last
        over the open utterance's own loud frames
        (``VadSettings.cut_early_db``), moved back over its softer start;
        None if it does not, or if that start is within
        ``cut_early_after`` / 2 seconds of the onset."""
        s = self.settings
        if len(self._own) < 4:
            return None
        return self._edge(self._own, lambda k: self._own_first + k * self.frame,
                          self._own_loud.value(), s.cut_early_db, s.cut_early_after / 2)

    def _reset_own(self) -> None:
        """Start the open utterance's own energies over from its onset: the
        frames kept from the onset on (``_rise_early``)."""
        kept = [(ix, e) for ix, e in self._levels if ix >= self._onset]
        self._own_first = kept[0][0] if kept else self._onset
        self._own = [e for _, e in kept]
        # (no window: every frame of the utterance counts, at most max_length)
        self._own_loud = RunningPercentile(1 << 30, self.settings.cut_early_percentile)
        for e in self._own[:-2]:
            self._own_loud.add(e)
        span = self.settings.cut_window * self.rate
        before = [e for ix, e in self._levels if self._onset - span <= ix < self._onset]
        self._before = float(np.median(before)) if before else 0.0
        self._own_peak = max(self._own, default=0.0)
        # (``_last_up`` and ``_last_loud`` are set by the caller: the end of
        # the frame it opened at)

    def _edge(self, energies: Sequence[float], index_of: Callable[[int], int],
              reference: float, rise_db: float, after_s: float) -> int | None:
        """Where a voice rises at the frame before the last of ``energies``
        (of consecutive 10 ms frames; ``index_of`` gives the stream index of
        the k-th): it and the last stand ``rise_db`` dB over ``reference``
        (an energy), the frame before it not. Its start moved back over the
        softer frames before it (``_soft_start``, the frames before it as
        its span); None if there is no such rise or the start is within
        ``after_s`` seconds of the open utterance's onset. The test reads
        the last three frames; the array is built only for a rise."""
        ref = reference * 10 ** (rise_db / 10)
        if not (energies[-2] >= ref and energies[-1] >= ref and energies[-3] < ref):
            return None
        k = len(energies) - 2
        start = index_of(_soft_start(np.asarray(energies, dtype=np.float64), k, k, rise_db, 0))
        if start - self._onset < after_s * self.rate:
            return None
        return start

    def _cut_at(self, rise: int, index: int) -> Segment:
        """End the open utterance ``cut_lead`` seconds before ``rise`` (a
        stream index) and open a new one with its onset at ``rise``, its
        frames from ``pre_roll`` before that to the frame at ``index``.
        Returns the utterance ended (``Segment.rise``)."""
        assert self._speech is not None
        s, f = self.settings, self.frame
        cut = max(self._onset + f, rise - round(s.cut_lead * self.rate))
        before = (cut - self._start) // f
        frames = self._speech
        ended = Segment(start=self._start, onset=self._onset,
                        end=min(self._last_voiced, self._start + before * f),
                        pcm=np.concatenate(frames[:before]), forced=True, rise=True,
                        risen=self._risen)
        first = max(0, (rise - self._start) // f - round(s.pre_roll * self.rate) // f)
        self._speech = frames[first:]
        self._start += first * f
        self._onset = rise
        self._risen = True
        self._reset_own()
        self._last_voiced = self._last_sound = self._last_up = self._last_loud = index + f
        return ended

    def _brief_frame(self, index: int, strong: bool) -> Segment | None:
        """Follow a voice too short to start an utterance; the brief
        ``Segment`` once ``end_silence`` has passed after its last strong
        frame (None until then, or when it had too few)."""
        s = self.settings
        if s.brief_voiced <= 0:
            return None
        end = index + self.frame
        if strong:
            first, _, count = self._brief or (index, end, 0)
            self._brief = (first, end, count + 1)
            return None
        if self._brief is None or end - self._brief[1] < s.end_silence * self.rate:
            return None
        first, last, count = self._brief
        self._brief = None
        if count < s.brief_voiced:
            return None
        return Segment(start=first, onset=first, end=last, pcm=np.zeros(0, dtype=np.int16),
                       brief=True)

    def _open(self, index: int) -> None:
        s = self.settings
        f = self.frame
        frames = list(self._history)
        flags = list(self._flags)
        first_hist = index + f - len(frames) * f  # stream index of frames[0]
        # The first voiced frame of the run that started the utterance.
        run = len(flags) - 1 - flags[::-1].index(False) if False in flags else -1
        first_voiced = next(i for i in range(run + 1, len(flags)) if flags[i])
        k = len(frames) - len(flags) + first_voiced  # its position in frames
        # Move the onset back over frames clearly above the noise floor.
        limit = self._floor * 10 ** (s.backtrack_db / 10)
        steps = 0
        max_steps = round(s.backtrack_max * self.rate / f)
        while k > 0 and steps < max_steps:
            prev = frames[k - 1].astype(np.float64)
            if float(np.mean(prev ** 2)) + 1.0 < limit:
                break
            k -= 1
            steps += 1
        onset = first_hist + k * f
        # Within the onset frame, the first 2.5 ms sub-frame above the limit.
        sub = f // 4
        head = frames[k].astype(np.float64)
        for j in range(4):
            if float(np.mean(head[j * sub:(j + 1) * sub] ** 2)) + 1.0 >= limit:
                onset += j * sub
                break
        self._onset = onset
        self._risen = False
        self._start = first_hist
        self._speech = frames
        self._reset_own()
        self._last_voiced = self._last_sound = self._last_up = self._last_loud = index + f

    def _segment(self, *, forced: bool) -> Segment:
        """The open utterance so far, as a ``Segment``."""
        assert self._speech is not None
        return Segment(start=self._start, onset=self._onset, end=self._last_voiced,
                       pcm=np.concatenate(self._speech), forced=forced, risen=self._risen)

    def _close(self, *, forced: bool) -> Segment:
        seg = self._segment(forced=forced)
        self._speech = None
        self._flags.clear()
        self._history.clear()
        return seg


def _soft_start(energies: npt.NDArray[np.float64], found: int, span: int, rise_db: float,
                lowest: int) -> int:
    """The index in ``energies`` (10 ms frame energies) where the rise at
    ``found`` (``rise_db`` over the median of the ``span`` frames before it)
    starts: moved back over the frames just before it that stand half as
    far above that median (the s of "six"), for at most 0.25 s and not
    before ``lowest``."""
    ref = float(np.median(energies[max(0, found - span):found])) * 10 ** (rise_db / 20)
    k = found
    while k - 1 >= max(0, lowest) and found - k < 25 and energies[k - 1] >= ref:
        k -= 1
    return k
