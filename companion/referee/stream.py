"""The listening stream: microphone blocks in, utterances on the table clock out.

``Listener`` is what the live table and a replay both use::

    listener = Listener(recognizer, device_rate=48000)
    listener.set_vocabulary(game.listen_words(state))   # from the next utterance on
    for heard in listener.feed(block.samples, block.t):  # int16 mono, first-sample time
        table.submit(heard.to_say())

Blocks at the device's own rate are resampled (soxr, streaming, delay
compensated) to the recognizer's rate; ``SampleClock`` maps sample indices to
the table clock (jitter, drift, dropped blocks); the ``Segmenter`` (webrtcvad)
cuts utterances (and cuts talk where a louder voice rises out of it) and
gives their onset, and a short utterance already heard as
a sure call ends as soon as the stream is quiet, its level has fallen
back to the talk it rose out of, or, while a one-word call is owed, its
level has decayed far under its own loudest (``EARLY_S``, the early
endpoint); the
recognizer decodes the loud part
of each utterance (``foreground``: the caller is the loud voice, talk runs on
around the call) with the vocabulary that was in force when it began; a word
after the first that starts in the trailing silence or is far from sure is
dropped (``TRAILING_S``, ``PHANTOM``), so are words far quieter than the
loudest of their utterance. What is left, with the levels against the recent
sure calls (``CallLevels``) and the call owed (``set_expected``), goes to the
ear's one decision (``companion.referee.decision``: right, mistake, unsure or
talk), which sets the confidence the engine gets; an utterance heard as a
mistake is heard again by the recognizer's confirmer, where it has one
(``Recognizer.confirmer``), and judged on that hearing, and so are sure
words for a game that never says what a call owes (Cheat), whose engine
acts on the words' own confidences. An utterance ruled right on a twin's
first number alone has the rest of it heard on its own for the second
(``TWIN_REST_S``); while silence is owed, an utterance with game words in
it is put to a voice detector too (``Listener.voice``), and clatter is
talk, not doubt. A new vocabulary (and a
new call owed) waits for an utterance boundary: it is never switched inside
an utterance.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soxr

from companion.errors import RecognizerError
from companion.events import Say
from companion.referee import embedding, heap, hidden_onset
from companion.referee.adaptation import AdaptationError, Adapter
from companion.referee.blas import one_thread
from companion.referee.clock import SampleClock
from companion.referee.decision import (
    DEFAULT,
    SURE,
    Evidence,
    Outcome,
    Thresholds,
    Verdict,
    among_words,
    clear_snr,
    decide,
    expected_of,
    no_rival,
    steady_not_clear,
    takes_alone,
    takes_decided,
    takes_find,
    takes_name,
    takes_overrule,
    takes_without_voice,
    talk_edged,
)
from companion.referee.enhance import RATE as SUPPRESSOR_RATE
from companion.referee.enhance import NoiseSuppressor, StreamCopy
from companion.referee.recognizer import Recognizer, Word
from companion.referee.stretch import caller_stretch, frame_power
from companion.referee.templates import RATE as TAKES_RATE
from companion.referee.templates import STEADY_SPREAD_DB, Enrollment, Match, steady
from companion.referee.vad import Segment, Segmenter, VadSettings
from companion.referee.voiced import VoiceWitness

log = logging.getLogger(__name__)

FOREGROUND_DB = 18.0
"""Only the loud part of an utterance is decoded: from the first to the last
10 ms frame (50 ms smoothed power) within this many dB of its loudest, with
``LEAD_S`` before and ``TAIL_S`` after. At a table the caller is the loud
voice and talk runs on around the call, so webrtcvad's utterance often holds
seconds of talk; decoded whole, the talk came out as game words and capped
the call with it. Game words wholly in the margins are dropped (talk, or
hiss). Chosen on the referee benchmark's synthetic clips against 12, 15
and 25 dB, and kept on human voices against 9-25 dB: a tighter crop heard
more calls in the generated development split's talk and far field, but
fewer in the shared development sessions' far field, and it made false
mistakes on the simulated dev tables (bench/RESULTS.md, "The loud part
decoded and the early endpoint, checked on human voices")."""

LEAD_S = 0.15
"""Seconds kept before the loud part: the unvoiced start of "six", "seven",
"three", which sits well below the vowel."""

RECENT_S = 5.0
"""Seconds of the stream kept for the noise heard before an onset
(``hidden_onset.band_lead``): a call's utterance, with the noise before it,
is decoded well within them; a longer one is judged without it."""

TAIL_S = 0.4
"""Seconds kept after the loud part: the final s of "six" and the silence the
decoder needs to close its last word."""

EARLY_S = 0.08
"""The early endpoint: after this many seconds of quiet (``Segmenter.quiet``:
no voiced frame and nothing above the noise floor, so not the s of "six" nor
the nasal end of a hum), of the level fallen back to what it rose from
(``Segmenter.fallen``: talk around a call never lets the stream go
quiet), or of the level decayed well under the utterance's loudest
(``Segmenter.decayed``: a far-field call's reverberant tail falls back
slowly), an utterance that could be a call is decoded at once instead of
after the VAD's ``end_silence`` (0.25 s); if it holds a sure
call it ends there, otherwise it stays open and is decoded again when it
ends. A call is a word or two and the engine gathers a twin call's words
across utterances, so waiting for more only delays the ruling. Chosen
on the referee benchmark's synthetic clips against 0.05 s and against
plain VAD silence, which made hums sure "two"s (bench/RESULTS.md, "Where
the ear's constants came from"), and kept on human voices against 0.05
and 0.12 s, which each lost calls in kitchen noise (bench/RESULTS.md, "The
loud part decoded and the early endpoint, checked on human voices"). It
costs extra decoding in table talk, so it runs only where the game asks
(``Listener.set_vocabulary(early=True)``, ``Game.early_endpoint``: The
Nasty 7, not Cheat's heavy claim grammar). 0 switches it off."""

EARLY_PAD_S = 0.15
"""Seconds of the utterance's own quiet tail (repeated) put after it for an
early decode, so the decoder has quiet to end the last word on. On human
voices pocketsphinx often runs the last word on over it anyway (its silence
only wins after about a quarter second), so where the last word ends is no
test of a finished call: the quiet before the decode (``EARLY_S``) is.
The early endpoint once also asked the last word to end 0.05 s before the
real audio (chosen on synthetic voices); on the human development sets that
turned away many sure calls, which then waited for the VAD's silence and a
second decode. Without it the development sets ruled more calls right,
sooner, and with no false mistake once the decision's far-worse rule asked
its two template measures to agree (``Thresholds.template_wrong``;
bench/RESULTS.md, "The early endpoint without the word-end test")."""

EARLY_MIN_S = 0.15
"""Speech shorter than this (seconds, onset to last voiced frame) is no call
yet: a click or a breath is not decoded early."""

EARLY_MAX_S = 1.5
"""Speech longer than this (seconds) is not decoded early: a call lasts about
one second ("hmm, hmm" up to 1.3); longer speech is table talk, whose words
only count when all of it is heard (``Thresholds.talk_words``)."""

EARLY_DB = 6.0
"""Speech whose loudest 50 ms is more than this many dB below the recent sure
calls (``CallLevels``) is not decoded early: the callers are the loud voices,
and quieter speech is talk whose decode would be wasted."""

WORD_ONSET_DB = 25.0
"""The onset is moved on to the first 10 ms frame (then its first 2.5 ms
sub-frame) within this many dB of the utterance's loudest 10 ms frame,
when that comes after the VAD's onset and within the loud part: in a quiet
room the VAD opens the utterance on whatever stands above the floor just
before the word (a breath, a chair, the hiss of a player's own
recording), up to ``VadSettings.backtrack_max`` early, and the 3-second
rule counts from the word. In noise or talk the frames at the VAD's onset
are already within this of the loudest, and nothing moves. Chosen on the
human development set (bench/RESULTS.md, "Onsets on the word in a quiet
room"). 0 switches it off."""

RISE_DB = 9.0
"""The caller's onset is the first 10 ms frame (and the next) this many dB
above the median level of the ``RISE_WINDOW_S`` before it, if that comes
after the VAD's onset: at a talking table the VAD opens the utterance on
the talk (STUDY.md of the human-voice set: a rise of 9-12 dB over the last
1.5 s finds the caller). Taken from that study and kept after measuring
the onsets on the human development set (bench/RESULTS.md). 0 switches it
off."""

RISE_WINDOW_S = 1.5
"""Seconds of level history the onset rise (``RISE_DB``) is measured over."""

RISE_SLACK_S = 0.1
"""The onset rise is looked for up to this many seconds after the start of
the first word the decoder kept (its start is a little early or late; later
rises are inside the word, the k of "six")."""

STRONG = 0.5
"""A sure call, whose loudness joins the reference (the engines' default
``min_confidence``)."""

LEARN_MARGIN_S = 0.15
"""A sure call kept beside the caller's takes (``Listener._learn``) keeps
this many seconds of the floor each side of the word, as a take has."""

TEMPLATE_MARGIN_S = 0.1
"""The heard words' span, widened by this many seconds each side, is what
is compared with the caller's enrolled takes (the decoder's word edges are
a frame or two off; the takes' own silence is trimmed the same way)."""

SPOT_MIN_S, SPOT_MAX_S = 0.15, 1.2
"""Stretches of talk shorter or longer than these (seconds) are not
compared with the caller's takes (``Listener._spot``): no count word is
that short, and a take warps to at most twice its length."""

TRAILING_S = 0.04
"""A word after the first that starts later than this many seconds before
the last voiced frame lies in the trailing silence: a decoder pads a call's
tail with a short game word ("four two"). Such words are dropped."""

PHANTOM = 0.2
"""A word after the first with a confidence below this is dropped: the
grammar lets a decoder pad a call with a short game word matched to breath or
the noise floor ("one five" for "one"; "five" fits hiss). Dropping a real
second word is safe: a twin call heard by half is left unsure by the engine,
never ruled a mistake. Not the second word when it carries on the first
(``carries_on``)."""
CARRIES_ON_S = 0.02
"""A second word starting at most this many seconds (two decoder frames)
after the first word ends abuts it (``carries_on``)."""

TWIN_REST_S = 0.15
"""A twin's first number heard alone with at least this many seconds of
voice after it: that stretch is heard on its own for the second number
(``Listener._twin_rest_alone``). No count word is shorter (``SPOT_MIN_S``).
Chosen on the human set's dev split, where 0.1 s found the same calls
(bench/RESULTS.md, "A twin's second number heard on its own")."""

TWIN_REST_LEAD_S = 0.05
"""The stretch after a twin's first number that is heard on its own starts
this many seconds before that word's end as the decoder placed it (its word
edges are a frame or two off)."""

PAST_OWED = 8
"""How many calls owed taken over are kept besides the one in force: an
utterance decoded after a later call took over is judged by the one owed
at its onset (``Listener._owed_at``)."""


@dataclass(frozen=True)
class Heard:
    """One utterance, on the table clock.

    ``onset``: seconds, the start of speech (from the VAD). ``end``: seconds,
    the end of the last voiced frame. ``words``: the game words the
    recognizer found (may be empty: speech with no game word, or rejected),
    their confidences set by the decision (``companion.referee.decision``).
    ``forced``: cut by a length limit or a gap, not by silence. ``outcome``:
    the decision's verdict. ``pcm``: the samples decoded (the utterance's
    loud part with its margins, ``foreground``), 16-bit mono at ``rate``
    Hz (the recognizer's), for whoever wants the voice itself (a player's
    takes at setup, ``companion.voice_setup``); None when not given.
    ``brief``: a voice too short to start an utterance (``Segment.brief``),
    not decoded: no words, no ``pcm``; it still tells the engine a voice
    was heard (a call in loud noise whose vowel alone stood out), so the
    window it falls in is never ruled a hesitation. ``unseated``: when the
    words came from a hearing that may be of another player's voice (behind
    an array, the caller's adapted model on the seat-masked copy:
    ``Hearing.vet``; or the caller's takes alone, in an utterance no
    recognizer heard a game word in), the utterance as judged without it, which
    stands unless its words come surely from the caller's seat
    (``companion.referee.steered.SteeredEar.says``); None otherwise.
    ``sounded``: seconds, where the voice's first sound rose (the VAD's
    onset, or the rise out of talk) when ``onset`` is elsewhere: moved on
    past it to the word (``WORD_ONSET_DB``), or back before it over the
    start of the word a steady floor hid (``hidden_onset``). The seat is
    measured from there, where the voice's direct sound first rises in the
    beams; None: at ``onset``."""

    onset: float
    end: float
    words: tuple[Word, ...]
    forced: bool = False
    outcome: Outcome | None = None
    pcm: npt.NDArray[np.int16] | None = field(default=None, compare=False, repr=False)
    rate: int = 0
    brief: bool = False
    unseated: Heard | None = field(default=None, compare=False, repr=False)
    sounded: float | None = None

    @property
    def sound_onset(self) -> float:
        """Seconds, table clock: where the voice's first sound rose
        (``sounded``), or ``onset``."""
        return self.onset if self.sounded is None else self.sounded

    @property
    def text(self) -> str:
        """The game words, space separated."""
        return " ".join(w.text for w in self.words)

    @property
    def confidence(self) -> float:
        """The least confident word's confidence (0.0 with no word)."""
        return min((w.confidence for w in self.words), default=0.0)

    def to_say(self) -> Say:
        """The ``say`` event for the engine: onset ``t``, words, confidence
        and end. Speech with no game word becomes a ``say`` with empty text
        and confidence 0: it marks the onset (a call was made) but can never
        make a mistake."""
        return Say(t=max(self.onset, 0.0), text=self.text, confidence=self.confidence,
                   end=max(self.end, self.onset, 0.0))


@dataclass(frozen=True)
class Owed:
    """The call the decision judges utterances by: ``expected`` (game words;
    empty: silence is owed; None: unknown), by ``caller`` (whose enrolled
    takes to compare with; None: nobody's), ``calls`` (the calls that can
    still be right, each its words in order; None: not known), owed from
    table time ``at`` seconds on (not part of equality: the same call owed
    from another time is the same call); ``timed``: ``at`` was given (a
    flip), not taken as the end of the audio fed so far."""

    expected: tuple[str, ...] | None = None
    caller: str | None = None
    calls: tuple[tuple[str, ...], ...] | None = None
    at: float = field(default=-math.inf, compare=False)
    timed: bool = field(default=False, compare=False)

    @property
    def heads(self) -> tuple[str, ...] | None:
        """The next word of each call that can be right (the enrolled takes
        are single words: they can stand only for the next word owed);
        ``expected`` when the calls are not known."""
        if self.calls is None:
            return self.expected
        return tuple(dict.fromkeys(c[0] for c in self.calls if c))

    def after(self, first: str) -> tuple[str, ...]:
        """The word after ``first`` of each call that can be right and
        begins with it (a twin's second number); empty when none does or
        the calls are not known."""
        return tuple(dict.fromkeys(c[1] for c in self.calls or ()
                                   if len(c) > 1 and c[0] == first))

    @property
    def one_word(self) -> bool:
        """Whether every call that can be right is one word (``calls``, or
        ``expected`` when the calls are not known): not a twin none of
        whose numbers was heard yet, not silence, nor nothing known (a
        game that does not say, or no call pending)."""
        calls = self.calls if self.calls is not None else (
            () if self.expected is None else (self.expected,))
        return bool(calls) and all(len(c) == 1 for c in calls)


@dataclass(frozen=True)
class Hearing:
    """Another hearing of an utterance's decoded stretch (``Listener``'s
    second opinions): its samples ``pcm`` (16-bit mono at the listener's
    rate), the ``loud`` part and ``last_voiced`` in seconds from its first
    sample, and ``cut``: the index in the decoded stretch of that first
    sample (0: the whole stretch). ``recognizer``: the one that decodes
    it (None: the listener's recognizer's twin). ``vet``: what it hears
    right may be another player's voice; taken only where the utterance's
    seat is surely the caller's (``Heard.unseated``)."""

    pcm: npt.NDArray[np.int16]
    loud: tuple[float, float]
    last_voiced: float
    cut: int = 0
    recognizer: Recognizer | None = None
    vet: bool = False


class Listener:
    """One audio stream feeding one recognizer.

    ``device_rate``: the rate of the PCM given to ``feed`` (Hz). ``vad``:
    segmenter settings. ``clock``: a ``SampleClock`` at ``device_rate``
    (default: a new one). ``levels``: the table's ``CallLevels`` (default: a
    new one). ``thresholds``: the decision's (``decision.DEFAULT``).
    ``trace``: a list that gets ``(Evidence, Verdict)`` of every decided
    utterance (for the benchmark), or None. ``enrollment``: the players'
    enrolled takes (``companion.referee.templates``), which the decision
    weighs when the recognizer's words are not the call owed; None: none.
    ``second_opinion``: an utterance left unsure (or talk) with a call owed
    is heard again in a noise-suppressed copy of the stream, and taken as
    the call owed if the decision rules that copy right
    (``companion.referee.enhance``; only for a recognizer at 16 kHz with a
    twin, ``Recognizer.twins``: without one no copy is made). ``adapter``:
    builds each caller's own acoustic model from their enrolled takes
    (``companion.referee.adaptation``); such an utterance is also heard
    once more with the caller's model, taken, like the copy, only if ruled
    right there (pocketsphinx only, ``Recognizer.adapted``; None: never).
    ``learn``: a call the ear is sure of, heard clearly from the caller
    alone, is kept beside the caller's takes for later calls
    (``Enrollment.learn``, ``_learn``).
    The recognizer's confirmer (``Recognizer.confirmer``) is loaded here;
    raises ``RecognizerError`` if it cannot be. From here on the process's
    BLAS runs on one thread (``blas.one_thread``)."""

    def __init__(self, recognizer: Recognizer, device_rate: int, *,
                 vad: VadSettings | None = None, clock: SampleClock | None = None,
                 levels: CallLevels | None = None, thresholds: Thresholds = DEFAULT,
                 trace: list[tuple[Evidence, Verdict]] | None = None,
                 enrollment: Enrollment | None = None, second_opinion: bool = True,
                 adapter: Adapter | None = None, learn: bool = True) -> None:
        one_thread()
        self.recognizer = recognizer
        self.device_rate = int(device_rate)
        self.rate = recognizer.sample_rate
        self.clock = clock or SampleClock(self.device_rate)
        self.segmenter = Segmenter(self.rate, vad)
        self._resampler = self._new_resampler()
        self._model_base = 0  # model index where the current resampler began
        self._device_base = 0  # device index where it began
        self._jump = False  # the next push starts at _model_base (after a long gap)
        self._pending_vocab: tuple[tuple[str, ...], int | None, bool] | None = None
        self._early_on = False
        self.levels = levels if levels is not None else CallLevels()
        self._judging = False  # whether the game has said what a call owes
        # The onset of the utterance last decoded early, and by which test:
        # once at quiet, once where the level fell back and once where it
        # decayed (``_early``).
        self._tried: dict[str, int] = {"quiet": -1, "fallen": -1, "decayed": -1}
        # whether a copy was ever fed beside the stream (an array's
        # seat-masked beam: the array tells seats apart)
        self._behind_array = False
        # a call the decayed test ended, learnt once the audio after it is in
        # (``_learn_later``): its caller, word and stream indices
        self._to_learn: tuple[str, str, int, int] | None = None
        self.thresholds = thresholds
        self.trace = trace
        self._past_owed = [Owed()]  # taken over, by ``at``; the last is in force
        self._pending_owed: list[Owed] = []  # changes to come, by ``at``
        self.enrollment = enrollment
        self.learn = learn
        self.suppressor = (NoiseSuppressor(self.rate) if second_opinion and recognizer.twins
                           and self.rate == SUPPRESSOR_RATE else None)
        # whether a silent card's utterance holds a voice (Silero VAD, loaded when first asked)
        self.voice = VoiceWitness()
        # Another hearing of the same stream fed beside it (``feed``'s ``copy``:
        # an array's seat-masked beam), kept only when there is a twin to decode it.
        self.masked: StreamCopy | None = None
        # the stream itself, for the noise before an onset (``_unhidden``)
        self._recent = StreamCopy(keep_s=RECENT_S, rate=self.rate)
        self._copy_resampler = self._new_resampler()
        self.adapter = adapter if recognizer.adaptable else None
        self._adapted: tuple[Path, Recognizer | None] | None = None  # one caller's at a time
        recognizer.confirmer()  # loaded now, not when the game's first mistake is heard
        self._later: list[Heard] = []  # calls heard after a flip inside an utterance
        self._earlier: list[Heard] = []  # a voice before a flip, its onset moved past it

    def _new_resampler(self) -> soxr.ResampleStream | None:
        if self.device_rate == self.rate:
            return None
        return soxr.ResampleStream(self.device_rate, self.rate, 1, dtype="int16")

    # -- vocabulary --------------------------------------------------------------

    def set_vocabulary(self, words: Sequence[str], items: int | None = None, *,
                       early: bool = False) -> None:
        """Listen for ``words`` (at most ``items`` of them in one utterance;
        see ``Recognizer.set_vocabulary``) from the next utterance on (at
        once when no utterance is open); with ``early``, a sure call ends its
        utterance as soon as the stream is quiet (``EARLY_S``;
        ``Game.early_endpoint``). Raises ``RecognizerError`` for an empty
        list."""
        self._pending_vocab = (tuple(words), items, early)
        self._apply_vocab()

    def set_expected(self, words: Sequence[str] | None, player: str | None = None, *,
                     at: float | None = None,
                     calls: Sequence[Sequence[str]] | None = None) -> None:
        """The call owed (game words; empty: silence is owed; None: unknown)
        from table time ``at`` seconds on (None: the end of the audio fed
        so far), and by whom (``player``: whose enrolled takes to compare
        with; None: nobody's), what the decision judges the next utterances
        against. Like the vocabulary it takes over at an utterance boundary;
        an utterance open when it came is judged by it if its onset is at or
        after ``at`` (talk ran on into the call), else by the one before;
        without ``at``, an utterance that rose out of the one just decoded
        (``Segmenter.risen``) is judged by it.
        ``calls``: the calls that can still be right, each its words in order
        (``Nasty7.expected_calls``; None: not known)."""
        timed = at is not None
        self._judging = self._judging or words is not None
        if at is None:
            at = self.clock.time_of(self.clock.samples) if self.clock.samples else -math.inf
            seg = self.segmenter
            if seg.risen and seg.onset is not None:
                # A voice rose out of the utterance just decoded, whose words
                # (the first number of a twin) changed the call: the riser,
                # open since the cut, is judged by what is owed now.
                at = min(at, self.time_of(seg.onset))
        ordered = None if calls is None else tuple(
            e for e in (expected_of(c) for c in calls) if e is not None)
        # A change from ``at`` on replaces any pending from ``at`` or later
        # (a rebuilt game says again what is owed from there on).
        self._pending_owed = [p for p in self._pending_owed if p.at < at]
        self._pending_owed.append(Owed(expected_of(words), player, ordered, at, timed))
        self._apply_vocab()
        if words is not None and self.adapter is not None and not self.adapter.wait:
            # built in the background before it is needed; only for a call the
            # ear judges against what is owed (no other hearing uses the model)
            self._adapted_model(player)

    def _apply_vocab(self, *, rise: bool = False) -> None:
        """Let a new vocabulary and call owed take over between utterances;
        with ``rise``, also where an utterance just ended at a louder voice
        rising out of it (``Segment.rise``: the riser's utterance is open),
        the call owed only if that utterance began at or after its ``at``."""
        seg = self.segmenter
        if not seg.in_speech:
            due = len(self._pending_owed)
        elif rise and seg.onset is not None:
            due = self._due(self.time_of(seg.onset))
        else:
            due = 0
        for owed in self._pending_owed[:due]:
            self._past_owed = [p for p in self._past_owed if p.at < owed.at][-PAST_OWED:]
            self._past_owed.append(owed)
        if due:
            self._pending_owed = self._pending_owed[due:]
        if self._pending_vocab is not None and (rise or not seg.in_speech):
            words, items, early = self._pending_vocab
            self.recognizer.set_vocabulary(words, items)
            self._early_on = early
            self._pending_vocab = None

    @property
    def in_utterance(self) -> bool:
        """True while an utterance is open (a vocabulary change would wait)."""
        return self.segmenter.in_speech

    @property
    def utterance_onset(self) -> int | None:
        """The open utterance's onset (an index of the stream at the
        recognizer's rate; ``time_of`` gives its table time), None with
        none open: a new value is a new utterance."""
        return self.segmenter.onset

    # -- audio ---------------------------------------------------------------------

    def feed(self, pcm: npt.ArrayLike, first_sample_time: float | None = None,
             copy: npt.ArrayLike | None = None) -> list[Heard]:
        """Add a block of 16-bit mono PCM at ``device_rate`` whose first
        sample was heard at ``first_sample_time`` seconds on the table clock
        (None: right after the previous block). ``copy``: the same block as
        another hearing gives it (an array's seat-masked beam,
        ``SteeredEar.masked``; as many samples), decoded again for an
        utterance the block's own audio leaves unsure (``masked``); raises
        ``ValueError`` when its length differs. Returns the utterances that
        ended in it, decoded; an utterance that ran on past the time a new
        call became owed (``set_expected``'s ``at``) and holds that call
        after it gives two: the utterance as judged by the call owed before,
        and the call, at its own onset."""
        block = np.asarray(pcm, dtype=np.int16).reshape(-1)
        other = None if copy is None else np.asarray(copy, dtype=np.int16).reshape(-1)
        if other is not None and len(other) != len(block):
            raise ValueError(f"a copy must have the block's {len(block)} samples, not {len(other)}")
        if other is not None:
            self._behind_array = True
            if self.masked is None and self.recognizer.twins:
                self.masked = StreamCopy(rate=self.rate)
        self._apply_vocab()
        placed = self.clock.place(len(block), first_sample_time)
        out: list[Heard] = []
        if placed.restart:
            out += self._decode_all(self._drain(last=True))
            out += self._decode_all(self.segmenter.flush())
            self._resampler = self._new_resampler()
            self._copy_resampler = self._new_resampler()
            self._device_base = placed.first
            self._model_base = round(placed.first * self.rate / self.device_rate)
            self._jump = True
        elif placed.missing:
            block = np.concatenate([np.zeros(placed.missing, dtype=np.int16), block])
            if other is not None:
                other = np.concatenate([np.zeros(placed.missing, dtype=np.int16), other])
        out += self._decode_all(self._push(block, last=False, copy=other))
        out += self._early()
        self._learn_later()
        return out

    def _early(self) -> list[Heard]:
        """An early endpoint: the open utterance, decoded after ``EARLY_S``
        of quiet, of the level fallen back to what it rose from
        (``Segmenter.fallen``: at a talking table the stream is never
        quiet) or of the level decayed under the utterance's loudest
        (``Segmenter.decayed``: a reverberant tail), ended now if it holds
        a sure call (once per utterance for each test: the level may fall
        back inside a call, before its quiet). The decayed test is asked
        only while a one-word call is owed (the level decays in the gap
        between a twin's numbers, and a twin split there had a number
        judged alone: a correct one misheard was ruled a mistake; with no
        call owed, a voices-page take would be cut before its soft end), and
        on it only a call ruled right ends the utterance: a mistake, which
        ends a round, waits for the whole utterance (bench/RESULTS.md, "A
        call's end where its level has decayed"). A call so ended is learnt
        only once the audio after it is in (``_learn_later``: its soft end,
        the v of "five", may be after the cut). Not asked behind an array
        that tells the seats apart (once ``feed`` has had a ``copy``: the
        seat-masked beam, given with two seats or more): the seat is
        measured over ``seats.AFTER_S`` from the onset, and a call ruled
        sooner had another seat's number taken for the caller's on the
        arrays' development rooms."""
        seg = self.segmenter
        if not self._early_on or EARLY_S <= 0 or not seg.in_speech:
            return []
        test = ("quiet" if seg.quiet >= EARLY_S else "fallen" if seg.fallen >= EARLY_S
                else "decayed" if seg.decayed >= EARLY_S and not self._behind_array else None)
        if (test is None or not EARLY_MIN_S <= seg.length <= EARLY_MAX_S
                or seg.onset == self._tried[test]):
            return []
        peek = seg.peek()
        assert peek is not None
        reference = self.levels.reference()
        if reference is not None and _peak_dbfs(peek, self.rate) < reference - EARLY_DB:
            return []  # talk: its words would be capped, never a sure call
        self._tried[test] = peek.onset
        if test == "decayed" and not self._owed_at(self.time_of(peek.onset)).one_word:
            return []  # a twin owed, or no call (the voices page: its takes must be whole)
        heard = self._decode(peek, early=True, right_only=test == "decayed")
        heap.release()  # the utterance's arrays are freed: their pages go back
        if heard is None:
            return []
        seg.cut()
        return [heard]

    def flush(self) -> list[Heard]:
        """End of the stream: close and decode any open utterance."""
        out = self._decode_all(self._drain(last=True))
        self._learn_later(last=True)
        out += self._decode_all(self.segmenter.flush())
        self._apply_vocab()
        return out

    def _push(self, block: npt.NDArray[np.int16], *, last: bool,
              copy: npt.NDArray[np.int16] | None = None) -> list[Segment]:
        if self._resampler is None:
            model = block
        else:
            model = self._resampler.resample_chunk(block, last=last)
        first = None
        if self._jump:
            first, self._jump = self._model_base, False
        model = np.asarray(model, dtype=np.int16)
        start = first if first is not None else self.segmenter.position  # model[0]'s index
        if copy is not None and self.masked is not None:
            if self._copy_resampler is not None:
                copy = np.asarray(self._copy_resampler.resample_chunk(copy, last=last),
                                  dtype=np.int16)
            # (the two resamplers take the same lengths and give the same; if
            # ever not, the raw samples stand in for the copy's missing ones)
            self.masked.add(np.concatenate([copy, model[len(copy):]])[:len(model)], start)
        self._recent.add(model, start)
        if self.suppressor is not None:  # fed what the segmenter is, so their indices agree
            self.suppressor.push(model, first)
        return self.segmenter.push(model, first)

    def _drain(self, *, last: bool) -> list[Segment]:
        if self._resampler is None:
            return []
        return self._push(np.zeros(0, dtype=np.int16), last=last)

    def time_of(self, model_index: float) -> float:
        """Table seconds of a sample index at the recognizer's rate."""
        device = self._device_base + (model_index - self._model_base) * (
            self.device_rate / self.rate)
        return self.clock.time_of(device)

    def _decode_all(self, segments: list[Segment]) -> list[Heard]:
        out = []
        for seg in segments:
            heard = self._decode(seg)
            heap.release()  # the utterance's arrays are freed: their pages go back
            assert heard is not None
            out += self._earlier  # a voice in the window before, when the onset left it
            self._earlier.clear()
            out.append(heard)
            out += self._later  # the next call, heard in the same utterance
            self._later.clear()
            if seg.rise:
                self._apply_vocab(rise=True)
        return out

    def _decode(self, seg: Segment, *, early: bool = False, right_only: bool = False,
                ) -> Heard | None:
        """Decode an utterance; with ``early``, None unless it is a sure call
        (with ``right_only`` too, a call ruled right, and not on the call
        owed's takes alone fitting a scrap no other word's take could be
        warped to, ``decision.no_rival``: the level also decays in a word's
        soft end, and a cut there left a "nine" such a scrap, made the call
        owed)."""
        if seg.brief:
            return self._brief(seg)
        first, loud_start, loud_end, last = foreground(seg, self.rate)
        pcm = seg.pcm[first:last]
        real = len(pcm)
        if early and EARLY_PAD_S > 0:
            tail = pcm[-round(EARLY_S * self.rate):]  # repeated to fill the padding
            pcm = np.concatenate([pcm, np.resize(tail, round(EARLY_PAD_S * self.rate))])
        lo, hi = (loud_start - first) / self.rate, (loud_end - first) / self.rate
        base = self.time_of(seg.start + first)
        # Where the voice's first sound is (the VAD's onset, moved later by
        # what is learnt below): the seat is measured from there. The call's
        # onset is that, or the word's own onset in a quiet room if later.
        voice_at = sounded = self.time_of(seg.onset)
        word_at = (self.time_of(word_onset(seg, self.rate, seg.start + loud_end))
                   if WORD_ONSET_DB > 0 else voice_at)
        end = self.time_of(min(seg.end, seg.start + loud_end))
        cropped = seg.start + first > seg.onset  # talk before the loud part was cut
        last_voiced = (min(seg.end, seg.start + last) - seg.start - first) / self.rate
        words, kept, heard, loud = self._words(pcm, (lo, hi), last_voiced)
        if heard and kept and (cropped or heard[0] is not kept[0]):
            sounded = max(sounded, base + heard[0].start)  # the call began after the talk
        if RISE_DB > 0 and heard:
            # The onset of the caller: the last rise above the level before it
            # (talk opens an utterance early) up to just after the first word's start.
            near = seg.start + first + round((heard[0].start + RISE_SLACK_S) * self.rate)
            at = self.segmenter.rise(seg.onset, near, RISE_DB, RISE_WINDOW_S)
            if at is not None:
                sounded = max(sounded, self.time_of(at))
        onset = max(sounded, word_at)
        owed = self._owed_at(onset)
        expected = owed.expected
        evidence = Evidence(words=tuple(heard), decoded=tuple(words), loud_db=loud,
                            reference_db=self.levels.reference(),
                            floor_dbfs=self.segmenter.floor_dbfs, expected=expected,
                            onset=onset, calls=owed.calls, risen=seg.risen,
                            cut=seg.rise, steady=self._steady(pcm[:real]))
        evidence, verdict, heard = self._weigh(evidence, pcm, heard, (lo, hi), real, owed)
        if expected == () and heard and verdict.outcome in ("unsure", "mistake"):
            # Silence is owed and game words were heard: doubt, or a mistake,
            # unless it is no voice at all (clatter). Asked only then: the
            # voice detector costs about as much CPU as a decode.
            evidence = replace(evidence,
                               voice=self.voice.speech_probability(pcm[:real], self.rate))
            verdict = decide(evidence, self.thresholds)
        if verdict.outcome == "mistake" or (
                expected is None and not self._judging and verdict.outcome == "right"):
            # (a game that never says what a call owes, as Cheat, acts on the
            # words' own confidences: a sure one, heard on the calibrated
            # hearing too)
            evidence, verdict, heard, loud = self._confirm(evidence, verdict, heard, loud, pcm,
                                                           (lo, hi), last_voiced, real, owed)
        # Whether ``loud`` may not be the call's own level (it joins
        # CallLevels only if it is): a call found inside talk (the loudest
        # word is the talk's), a call heard only in the suppressed copy
        # (the loudest word the raw audio gave was not the call), or a call
        # the caller's takes found where the recognizer heard no game word
        # (``loud`` is then no level at all: -120 dBFS).
        other_level = not evidence.words
        talk = verdict.outcome == "talk"
        among = verdict.outcome == "unsure" and among_words(evidence, self.thresholds)
        spot = self._spot(pcm, words, owed) if talk or among else None
        # (a stretch after the next flip is not this call: the run-on below judges it)
        if spot is not None and self._owed_at(max(onset, base + spot[1].start)) == owed:
            evidence, verdict = self._spotted(evidence, spot)
            if verdict.outcome == "right":  # the caller's own word, inside the talk
                heard, other_level = [spot[1]], True
                rest = self._spot_rest(pcm, words, owed, spot[1])
                if rest is not None:  # and a twin's second number after it
                    heard.append(rest)
                if talk:
                    # Talk opened the utterance. Among a few words the first
                    # may be the call's own start (the "s" of "six"): the
                    # onset stays, never moved late enough to rule a correct
                    # call a hesitation.
                    sounded = max(sounded, base + spot[1].start)
                    onset = max(sounded, word_at)
        unvetted: tuple[Verdict, list[Word]] | None = None
        reheard = False  # the call owed was heard in another hearing
        if (not early and (self.masked is not None or self.suppressor is not None
                           or self.adapter is not None)
                and expected and verdict.outcome in ("unsure", "talk")):
            # When the caller's takes of the raw call favour another word, the
            # bundled model does not hear the copies (the suppressor and the
            # mask can thin a word into another, which that model then takes
            # for the call); the caller's own model, adapted in noise too,
            # still hears the call and its suppressed copy. The caller's model
            # does not hear again what was taken for talk: long, mostly other
            # voices, the dearest decode for the fewest calls.
            favoured = (evidence.template_gap is not None
                        and evidence.template_gap >= self.thresholds.template_favoured)
            adapt_for = owed.caller if verdict.outcome == "unsure" else None
            for hearing in self._hearings(seg, first, last, (lo, hi), last_voiced, adapt_for,
                                          copies=not favoured):
                second = self._second_opinion(seg, hearing, onset, owed)
                if second is not None:  # heard in that hearing: the call owed
                    if hearing.vet:
                        unvetted = (verdict, heard)
                    evidence, verdict, heard = second
                    other_level = reheard = True
                    break
        if not early and expected and verdict.outcome in ("unsure", "talk"):
            was_talk = verdict.outcome == "talk"
            embedded = self._embedded(evidence, verdict, heard, pcm[:real], owed, (lo, hi))
            if embedded is not None:
                evidence, verdict, found = embedded
                if found is not None:  # the call owed, or a mistake named
                    heard, other_level = found, verdict.outcome == "right"
                    if (was_talk and verdict.outcome == "right"
                            and found[0].start == evidence.spot_start):
                        # Found in the spot's stretch of talk: the onset is
                        # there, as when the cepstral takes alone find it.
                        sounded = max(sounded, base + found[0].start)
                        onset = max(sounded, word_at)
        if verdict.outcome == "right" and takes_decided(evidence) and not evidence.steady:
            # The caller's takes found the call where the recognizer heard no
            # word of it, in clatter or talk: only if it is a voice.
            evidence = replace(evidence,
                               voice=self.voice.speech_probability(pcm[:real], self.rate))
            if takes_without_voice(evidence, self.thresholds):
                verdict, heard = Verdict("unsure", 0.0), []
        learnt = heard  # what the utterance itself was ruled on (a twin's rest is not learnt)
        if not early and verdict.outcome == "right":
            rest = self._twin_rest_alone(evidence, pcm[:real], heard, owed, last_voiced)
            if rest is not None:  # a twin's second number, heard after its first on its own
                heard = [*heard, rest]
        if (unvetted is None and not reheard and self.masked is not None and not words
                and verdict.outcome == "right"):
            # Behind an array, a call no recognizer heard a game word in, found
            # by the caller's takes alone, stands only when it came surely from
            # the caller's seat: on the arrays' development rooms an 80 ms scrap
            # after another seat's call, its seat not sure, fitted the caller's
            # takes of the word owed and was taken for the call.
            unvetted = (Verdict("unsure", 0.0), [])
        if self.trace is not None and not early:
            self.trace.append((evidence, verdict))
        if not early and onset > voice_at and owed != self._owed_at(voice_at):
            # The voice began before the flip that made ``owed`` the call, and
            # the onset moved past it (the caller rose out of the talk): the
            # window before still heard a voice, which is never a hesitation.
            self._earlier.append(Heard(onset=voice_at, end=max(voice_at, owed.at),
                                       words=(), forced=seg.forced, outcome="unsure",
                                       rate=self.rate))
        def placed(words: list[Word], judged: Verdict) -> tuple[Word, ...]:
            own = expected is None and judged.outcome != "talk"  # nothing to judge by
            return tuple(Word(w.text, w.start + base, w.end + base,
                              w.confidence if own else judged.confidence) for w in words)

        moved = self._unhidden(onset, verdict, heard, pcm[:real], seg.start + first, owed,
                               recognized=bool(evidence.words))
        result = Heard(onset=moved, end=end, words=placed(heard, verdict), forced=seg.forced,
                       sounded=sounded if sounded != moved else None,
                       outcome=verdict.outcome, pcm=pcm[:real], rate=self.rate)
        if unvetted is not None:  # as judged before the hearing that must be vetted
            # (at the onset found, which the words it has not heard never moved)
            was, words_was = unvetted
            result = replace(result, unseated=replace(
                result, onset=onset, sounded=sounded if sounded != onset else None,
                words=placed(words_was, was), outcome=was.outcome))
        sure = verdict.outcome in ("right", "mistake") and min(
            (w.confidence for w in heard), default=0.0) >= STRONG
        if early and (not sure or (right_only and (
                verdict.outcome != "right" or no_rival(evidence.template_gap)))):
            return None
        if early and self.trace is not None:
            self.trace.append((evidence, verdict))
        if sure and not other_level:
            self.levels.add(loud)
            if verdict.outcome == "right" and right_only:
                # a call ended where its level decayed: its soft end, the v of
                # "five", may come after the cut
                self._learn_after_cut(evidence, owed, heard, seg, seg.start + first)
            elif verdict.outcome == "right":
                self._learn(evidence, owed, learnt, pcm[:real])
        pending = self._owed_after(onset)
        if (pending is not None and not early
                and verdict.outcome in ("talk", "unsure")):
            later = self._run_on(pcm, words, base, loud, pending)
            if later is not None:  # the next call, after talk that ran across its flip
                evidence, verdict, call = later
                if self.trace is not None:
                    self.trace.append((evidence, verdict))
                self._later.append(Heard(
                    onset=base + call.start, end=max(end, base + call.end),
                    words=(Word(call.text, base + call.start, base + call.end, SURE),),
                    forced=seg.forced, outcome=verdict.outcome, pcm=pcm[:real], rate=self.rate))
        return result

    def _twin_rest_alone(self, evidence: Evidence, pcm: npt.NDArray[np.int16],
                         heard: list[Word], owed: Owed, last_voiced: float) -> Word | None:
        """A twin's second number (The Nasty 7: a twin racketeer's call is
        two numbers) in an utterance ruled right on its first alone:
        ``heard`` is one word, a call owed goes on from it, and the voice
        goes on at least ``TWIN_REST_S`` past it (``last_voiced``, seconds
        from ``pcm``'s start). The rest of ``pcm``, from
        ``TWIN_REST_LEAD_S`` before that word's end, is decoded on its own
        and judged by the same decision and the caller's takes
        (``_weigh``) as the call of the second number alone: in the whole
        utterance the decoder's best path through the first number can
        leave the second unexplained, and in talk or a far field the
        second is often heard as another word that the caller's takes then
        overrule. Only a right verdict counts: a second number heard wrong
        here leaves the twin heard by half, as before, which the engine
        never rules a mistake. Returns the word, its span in seconds from
        ``pcm``'s start (not before the first word's end), ``SURE``; None
        otherwise (bench/RESULTS.md, "A twin's second number heard on its
        own")."""
        if len(heard) != 1 or last_voiced - heard[0].end < TWIN_REST_S:
            return None
        rest = owed.after(heard[0].text)
        if not rest:
            return None
        start = max(0.0, heard[0].end - TWIN_REST_LEAD_S)
        tail = pcm[round(start * self.rate):]
        alone = Owed(expected=rest, caller=owed.caller, calls=tuple((w,) for w in rest),
                     at=owed.at, timed=owed.timed)
        # (nothing the whole utterance's spot or embedding told is about the rest)
        fresh = replace(evidence, expected=rest, calls=alone.calls, spot_gap=None,
                        spot_fit=None, spot_start=None, spot_end=None, embedding_gap=None,
                        embedding_rival=None, embedding_spot_gap=None)
        _, verdict, got, _, _ = self._hear_again(self.recognizer, fresh, tail,
                                                 (0.0, len(tail) / self.rate),
                                                 last_voiced - start, len(tail), alone)
        if (verdict.outcome != "right" or len(got) != 1 or got[0].text not in rest
                or start + got[0].end <= heard[0].end):
            return None  # (nor a word wholly inside the first one's end)
        return Word(got[0].text, max(start + got[0].start, heard[0].end), start + got[0].end,
                    SURE)

    def _learn(self, evidence: Evidence, owed: Owed, heard: list[Word],
               pcm: npt.NDArray[np.int16]) -> None:
        """Keep a sure right call (``heard``, seconds from ``pcm``'s start)
        beside the caller's takes (``Enrollment.learn``): one word, the
        first owed, heard clearly (``decision.clear_snr``) with no other
        voice rising at its edges (``decision.talk_edged``). A word and a
        little of the floor each side (``LEARN_MARGIN_S``). No more is
        asked of the call: on the evening set's dev split, a bar on how far
        the word stood over the audio around it kept out the calls learnt
        in talk that found later calls there, and let in no wrong call
        fewer (``bench/RESULTS.md``, "Calls learnt at the table")."""
        if not self._learnable(evidence, owed, heard):
            return
        assert self.enrollment is not None and owed.caller is not None  # (asked there)
        word = heard[0]
        a = max(0, round((word.start - LEARN_MARGIN_S) * self.rate))
        b = min(len(pcm), round((word.end + LEARN_MARGIN_S) * self.rate))
        self.enrollment.learn(owed.caller, word.text, pcm[a:b])

    def _learnable(self, evidence: Evidence, owed: Owed, heard: list[Word]) -> bool:
        """Whether a sure right call is kept beside the caller's takes
        (``_learn``)."""
        return (self.learn and self.enrollment is not None and owed.caller is not None
                and len(heard) == 1 and bool(evidence.expected)
                and heard[0].text == evidence.expected[0] and not talk_edged(evidence)
                and clear_snr(evidence, self.thresholds))

    def _learn_after_cut(self, evidence: Evidence, owed: Owed, heard: list[Word],
                         seg: Segment, base: int) -> None:
        """Keep a sure right call the decayed test ended (``heard``, seconds
        from stream index ``base``; ``seg``, the utterance as cut) to be
        learnt as ``_learn`` would (``_learnable``) once the stream has
        gone ``LEARN_MARGIN_S`` past the later of the word's end and the
        cut (``_learn_later``)."""
        if not self._learnable(evidence, owed, heard):
            return
        assert owed.caller is not None  # (``_learnable`` asks it)
        word = heard[0]
        self._to_learn = (owed.caller, word.text,
                          max(0, base + round((word.start - LEARN_MARGIN_S) * self.rate)),
                          max(base + round(word.end * self.rate), seg.start + len(seg.pcm))
                          + round(LEARN_MARGIN_S * self.rate))

    def _learn_later(self, *, last: bool = False) -> None:
        """Learn the call the decayed test ended (``_to_learn``) once the
        stream has reached ``LEARN_MARGIN_S`` past the cut or past the
        word's end, whichever is later, from the stream as kept (with
        ``last``, the end of the stream: as much of it as there is). A call
        whose audio is no longer kept (a gap in the stream) is dropped."""
        if self._to_learn is None:
            return
        caller, word, a, b = self._to_learn
        if last:
            b = min(b, self._recent.end)
        elif self._recent.end < b:
            return
        self._to_learn = None
        pcm = self._recent.kept(a, b)
        if pcm is not None and self.enrollment is not None:
            self.enrollment.learn(caller, word, pcm)

    def _words(self, pcm: npt.NDArray[np.int16], loud: tuple[float, float],
               last_voiced: float, recognizer: Recognizer | None = None,
               ) -> tuple[list[Word], list[Word], list[Word], float]:
        """Decode ``pcm`` (an utterance's decoded stretch; with
        ``recognizer``, default the listener's own) and sort its game
        words: those overlapping the ``loud`` part (seconds from ``pcm``'s
        start; words wholly in the margins are talk or hiss), then those
        kept (the first, and later ones neither in the trailing silence
        after ``last_voiced`` nor phantoms), then those heard (within
        ``Thresholds.quiet_db`` of the loudest kept). Returns the words,
        kept, heard, and the loudest kept word's level (dBFS; -120 with
        none)."""
        lo, hi = loud
        decoded = (recognizer or self.recognizer).decode(pcm)
        words = [w for w in decoded if w.end > lo and w.start < hi]
        kept = [w for i, w in enumerate(words)
                if i == 0 or (w.start < last_voiced - TRAILING_S
                              and (w.confidence >= PHANTOM
                                   or (i == 1 and carries_on(pcm, words[0], w, self.rate))))]
        word_db = [_level_db(pcm, w, self.rate) for w in kept]
        level = max(word_db, default=-120.0)
        # The caller is the loud voice: words of quieter talk around the call go.
        quiet = level - self.thresholds.quiet_db
        heard = [w for w, lv in zip(kept, word_db, strict=True) if lv >= quiet]
        return words, kept, heard, level

    def _weigh(self, evidence: Evidence, pcm: npt.NDArray[np.int16], heard: list[Word],
               loud: tuple[float, float], real: int,
               owed: Owed) -> tuple[Evidence, Verdict, list[Word]]:
        """The decision on ``evidence``, with the caller's enrolled takes
        weighed in when the recognizer alone leaves it unsure or a mistake
        (``_templates``); the heard words become the call owed when the
        takes overrule the recognizer. A mistake they made in steady noise
        below the clear SNR is put to the speech embedding too
        (``decision.noisy_mistake_allowed``), and so is a word the
        recognizer heard that they overrule (``Thresholds.embedding_veto``).
        ``loud``: the loud part (seconds from ``pcm``'s start); ``real``:
        samples of ``pcm`` that are audio (not early padding)."""
        verdict = decide(evidence, self.thresholds)
        floor, expected = self.segmenter.floor_dbfs, evidence.expected
        # the loudest heard word's level over the floor
        snr: float | None = None if floor is None else evidence.loud_db - floor
        # No game word at all: the caller's takes are matched with all of it
        # (the templates' own trim finds the word; the loud part alone may be
        # only its vowel).
        span = (heard[0].start, heard[-1].end) if heard else (0.0, real / self.rate)
        if not heard:
            snr = self._snr(pcm, Word("", *loud, 0.0))
        matched = (self._templates(pcm, heard, span, owed.heads, owed.caller, snr)
                   if verdict.outcome in ("unsure", "mistake") else None)
        if matched is not None and self.enrollment is not None:
            # the caller's own takes have their say too
            evidence = _with_takes(evidence, matched, self.enrollment, owed.caller)
            verdict = decide(evidence, self.thresholds)
        if (verdict.outcome == "mistake" and evidence.embedding_gap is None
                and steady_not_clear(evidence, self.thresholds)):
            # A mistake in steady noise below the clear SNR, where the caller's
            # cepstral takes stood in for it: the speech embedding is asked too
            # (``decision.noisy_mistake_allowed``).
            evidence, verdict = self._with_embedding(evidence, verdict, pcm[:real], heard, owed)
        overruled = (verdict.outcome == "right" and matched is not None and bool(expected)
                     and (not heard or any(w.text not in expected for w in heard)))
        if (overruled and heard and evidence.embedding_gap is None
                and takes_overrule(evidence, self.thresholds)):
            # The takes overrule a word the recognizer heard: the speech
            # embedding may name another word too (``Thresholds.embedding_veto``).
            evidence, verdict = self._with_embedding(evidence, verdict, pcm[:real], heard, owed)
            overruled = verdict.outcome == "right"
        if overruled:
            # The player's own takes overruled the recognizer: the call owed,
            # and the rest of a twin after its first word.
            assert matched is not None  # (``overruled`` asks it)
            rest = self._twin_rest(pcm, heard, owed, matched.word, snr)
            heard = ([Word(matched.word, span[0], rest.start, SURE), rest] if rest is not None
                     else [Word(matched.word, *span, SURE)])
        if verdict.outcome == "mistake" and heard:
            heard = _named(evidence, heard, self.thresholds)
        return evidence, verdict, heard

    def _confirm(self, evidence: Evidence, verdict: Verdict, heard: list[Word], loud: float,
                 pcm: npt.NDArray[np.int16], span: tuple[float, float], last_voiced: float,
                 real: int, owed: Owed) -> tuple[Evidence, Verdict, list[Word], float]:
        """An utterance the recognizer heard as a mistake (or as sure words
        where no call owed is ever said), heard again by its confirmer
        (``Recognizer.confirmer``: the hearing the decision's thresholds and
        the engines' confidence bars were calibrated on) and judged on that
        hearing, by the same decision and takes: its evidence, verdict,
        words and level (a mistake only if it is one there too). As is
        without a confirmer.
        ``span``: the loud part, seconds from ``pcm``'s start; ``real``:
        samples of ``pcm`` that are audio."""
        confirmer = self.recognizer.confirmer()
        if confirmer is None:
            return evidence, verdict, heard, loud
        second, checked, again, _, level = self._hear_again(confirmer, evidence, pcm, span,
                                                            last_voiced, real, owed)
        return second, checked, again, level

    def _hear_again(self, recognizer: Recognizer, evidence: Evidence,
                    pcm: npt.NDArray[np.int16], span: tuple[float, float],
                    last_voiced: float, real: int, owed: Owed,
                    ) -> tuple[Evidence, Verdict, list[Word], list[Word], float]:
        """``pcm`` decoded by ``recognizer`` (the twin or the confirmer,
        following this one's vocabulary, or this one) and judged by the same decision
        and takes, on ``evidence`` with the words, level and takes of that
        hearing instead: its evidence, verdict, words (the takes may have
        overruled them), the words it heard before the takes were weighed,
        and their level."""
        recognizer.follow(self.recognizer)
        words, _, heard, level = self._words(pcm, span, last_voiced, recognizer)
        again = _with_takes(replace(evidence, words=tuple(heard), decoded=tuple(words),
                                    loud_db=level), None)
        checked, verdict, weighed = self._weigh(again, pcm, heard, span, real, owed)
        return checked, verdict, weighed, heard, level

    def _hearings(self, seg: Segment, first: int, last: int, loud: tuple[float, float],
                  last_voiced: float, caller: str | None, *,
                  copies: bool = True) -> Iterator[Hearing]:
        """The other hearings of the utterance ``seg``'s decoded stretch
        ``first:last`` (the ``loud`` part and ``last_voiced`` in seconds
        from ``first``), in the order the ear tries them, each made only
        when asked for: the array's seat-masked copy (``masked``); the
        caller's own stretch of it alone (``stretch.caller_stretch``: the
        copy against the beam), then the beam's own samples over that
        stretch (the mask reshapes a word's spectrum; the beam does not);
        the noise suppressor's copy (``suppressor``); with ``caller``'s
        adapted model (``_adapted_recognizer``; None: no such hearing), with
        one microphone the stretch itself, then the suppressor's copy, and
        behind an array the seat-masked copy, to be vetted by the seat
        (``Hearing.vet``). ``copies`` False: only the adapted model's
        hearings."""
        raw = seg.pcm[first:last]
        masked = None
        if self.masked is not None and copies:
            masked = self.masked.copy(seg.start + first, raw)
            yield Hearing(masked, loud, last_voiced)
            stretch = caller_stretch(raw, masked, self.rate)
            if stretch is not None:
                cut, end = stretch
                span = (0.0, (end - cut) / self.rate)
                yield Hearing(masked[cut:end], span, span[1], cut)
                yield Hearing(raw[cut:end], span, span[1], cut)
        suppressed = None
        if self.suppressor is not None:
            suppressed = self.suppressor.copy(seg.start + first, raw)
            if copies:
                yield Hearing(suppressed, loud, last_voiced)
        adapted = self._adapted_recognizer(caller)
        if adapted is None:
            return
        if self.masked is not None:
            # Behind an array only the mask's copy, and vetted: on the simulated
            # development rooms this hearing took the tail of another seat's
            # call, whose seat was not sure, for the caller's.
            if masked is None:
                masked = self.masked.copy(seg.start + first, raw)
            yield Hearing(masked, loud, last_voiced, recognizer=adapted, vet=True)
            return
        yield Hearing(raw, loud, last_voiced, recognizer=adapted)
        if suppressed is not None:
            yield Hearing(suppressed, loud, last_voiced, recognizer=adapted)

    def adapt_ahead(self, players: Sequence[str]) -> None:
        """Start building the adapted models of ``players`` now, in this
        order, in the background (``Adapter.wait`` False), rather than at
        each one's first turn: a build takes seconds of CPU, and until a
        caller's model is there their unsure calls are heard without it.
        Players without enrolled takes are passed over; nothing without an
        adapter that builds in the background. A model already built is
        only looked up."""
        if self.adapter is None or self.adapter.wait:
            return
        for player in players:
            self._adapted_model(player)

    def _adapted_model(self, caller: str | None) -> Path | None:
        """The folder of ``caller``'s adapted model (``adapter``), from their
        enrolled takes; None without an adapter, takes or (building in the
        background) yet, or when it cannot be built (logged)."""
        if self.adapter is None or self.enrollment is None or caller is None:
            return None
        takes = self.enrollment.audio.get(caller)
        if not takes:
            return None
        try:
            return self.adapter.model(takes)
        except (AdaptationError, OSError) as exc:
            log.warning("%s's voice could not be adapted; heard without it: %s", caller, exc)
            return None

    def _adapted_recognizer(self, caller: str | None) -> Recognizer | None:
        """A recognizer on ``caller``'s adapted model (``_adapted_model``;
        one caller's is kept at a time: a decoder per player would cost an
        acoustic model's memory each), or None."""
        model = self._adapted_model(caller)
        if model is None:
            return None
        if self._adapted is None or self._adapted[0] != model:
            self._adapted = None  # the last caller's decoder goes before the next one loads
            try:
                recognizer = self.recognizer.adapted(model)
            except RecognizerError as exc:
                log.warning("an adapted model could not be loaded: %s", exc)
                recognizer = None
            self._adapted = (model, recognizer)
        return self._adapted[1]

    def _second_opinion(self, seg: Segment, hearing: Hearing, onset: float, owed: Owed,
                        ) -> tuple[Evidence, Verdict, list[Word]] | None:
        """The utterance ``seg`` heard again in another ``hearing`` of it
        (``_hearings``), decoded by the recognizer's twin
        (``Recognizer.twin``, so that the first hearing of the utterances
        after it stays what it was), and judged by the same decision and
        takes. Only a right call is taken from it (``enhance``: a copy can
        lift a call out of noise or talk, but it also thins words, so what
        it does not hear counts for nothing); and where the takes overrule
        the words heard in it, only when they fit the call as a repeat does
        (``Thresholds.template_fit``: the takes' rules were chosen on raw
        calls), and never when no other word's take could be warped to
        what the copy heard (a gap of -inf: a copy thins a word, and another
        seat's scrap of a word fits the call owed's short takes so; the
        arrays' development rooms took one for the call). Not asked when
        the caller's takes already found another
        word fitting the raw call better by ``Thresholds.template_favoured``
        (the suppressor can thin a word into another: the s and v of
        "seven" go with the hiss). The evidence, verdict and heard words
        (times from the utterance's decoded stretch) when it is right; None
        otherwise."""
        twin = hearing.recognizer or self.recognizer.twin()
        assert twin is not None  # the other hearings are kept only for a twin
        base = Evidence(words=(), reference_db=self.levels.reference(),
                        floor_dbfs=self.segmenter.floor_dbfs, expected=owed.expected,
                        onset=onset, calls=owed.calls, risen=seg.risen, cut=seg.rise)
        evidence, verdict, heard, decoded, _ = self._hear_again(
            twin, base, hearing.pcm, hearing.loud, hearing.last_voiced, len(hearing.pcm), owed)
        if verdict.outcome != "right":
            return None
        if heard is not decoded and (
                evidence.template_fit is None
                or evidence.template_fit > self.thresholds.template_fit
                or no_rival(evidence.template_gap)):
            # the takes overruled the words heard, but fit no repeat of the
            # call, or no other word's take could be warped to what the copy
            # left (a word a copy thinned to a scrap)
            return None
        shift = hearing.cut / self.rate
        return evidence, verdict, [Word(w.text, w.start + shift, w.end + shift, w.confidence)
                                   for w in heard]

    def _unhidden(self, onset: float, verdict: Verdict, heard: Sequence[Word],
                  pcm: npt.NDArray[np.int16], start: int, owed: Owed, *,
                  recognized: bool) -> float:
        """``onset`` (table seconds) moved back over the start of the first
        word heard that a noise hid (``hidden_onset.word_lead``: the
        caller's takes of that word, at the call's loudest 10 ms frame from
        ``onset`` to the word's end, over the segmenter's floor; and the
        stream's band spectrum around the onset, while ``_recent`` keeps it
        and the call is quiet enough to ask it: ``hidden_onset.band_asked``).
        ``start``: the stream index of ``pcm``'s first sample.

        Over a noise that is not steady (clatter, talk: ``_floor_steady``
        false), the floor is the noise heard just before the onset when it
        is louder (``hidden_onset.noise_before``), and the caller's takes
        are the only witness (the band spectrum cannot tell a word from
        such a noise), asked only of a word the recognizer heard
        (``recognized``; a word the takes alone found there may be the
        noise itself).

        Only for a call ruled right or a mistake, never before the flip
        that made the call owed nor before ``pcm``'s first sample (word
        times in seconds from it). ``onset`` unchanged otherwise, or with
        neither the caller's takes of that word nor the noise before the
        onset."""
        if not heard or verdict.outcome not in ("right", "mistake"):
            return onset
        steady_floor = self._floor_steady()
        takes = ([] if self.enrollment is None or owed.caller is None
                 else self.enrollment.audio.get(owed.caller, {}).get(heard[0].text, []))
        if not steady_floor and (not takes or not recognized):
            return onset
        base = self.time_of(start)  # ``pcm``'s first sample, table seconds
        frame = round(hidden_onset.FRAME_S * self.rate)
        offset = round((onset - base) * self.rate)  # the onset, in samples of ``pcm``
        a = max(0, offset)
        power = hidden_onset.frame_powers(pcm[a:max(a + frame, round(heard[0].end * self.rate))],
                                          self.rate)
        if not len(power):
            return onset
        floor = 10 ** (self.segmenter.floor_dbfs / 10) * 32768.0 ** 2
        at = start + offset  # the onset's stream index
        if not steady_floor:
            before = self._recent.kept(
                at - round((hidden_onset.NOISE_BEFORE_S + hidden_onset.GAP_S) * self.rate),
                at - round(hidden_onset.GAP_S * self.rate))
            if before is None:
                return onset
            floor = max(floor, hidden_onset.noise_before(before, self.rate))
        peak = float(power.max()) - floor
        audio = self._recent.kept(  # (the band spectrum: a steady floor's only)
            at - round((hidden_onset.REFERENCE_S + hidden_onset.LONGEST_S) * self.rate),
            at + round(hidden_onset.SPECTRUM_S * self.rate),
        ) if steady_floor and hidden_onset.band_asked(peak, floor) else None
        lead = hidden_onset.word_lead(takes, peak, floor, TAKES_RATE, audio, self.rate)
        return max(onset - lead, base, owed.at)

    def _steady(self, pcm: npt.NDArray[np.int16]) -> bool:
        """Whether the noise under an utterance (``pcm``, its decoded
        samples) is steady: the quietest third of its frames one level
        (``templates.steady``), and of the last 4 s of frames the segmenter
        keeps (``Segmenter.floor_spread_db``), each within
        ``STEADY_SPREAD_DB``. Either alone is fooled at times by talk that
        comes and goes: the utterance may fall in a quiet stretch of it, and
        the 4 s be mostly a quiet room around the talk inside the utterance."""
        return self._floor_steady() and steady(pcm)

    def _floor_steady(self) -> bool:
        """Whether the last 4 s of frames the segmenter keeps are one level
        (``Segmenter.floor_spread_db`` within ``STEADY_SPREAD_DB``)."""
        spread = self.segmenter.floor_spread_db
        return spread is not None and spread <= STEADY_SPREAD_DB

    def _brief(self, seg: Segment) -> Heard:
        """A voice too short to decode (``Segment.brief``): judged as an
        utterance with no game word (the decision's unsure)."""
        onset = self.time_of(seg.onset)
        owed = self._owed_at(onset)
        evidence = Evidence(words=(), floor_dbfs=self.segmenter.floor_dbfs,
                            reference_db=self.levels.reference(), expected=owed.expected,
                            onset=onset, calls=owed.calls)
        verdict = decide(evidence, self.thresholds)
        if self.trace is not None:
            self.trace.append((evidence, verdict))
        return Heard(onset=onset, end=self.time_of(seg.end), words=(),
                     outcome=verdict.outcome, brief=True)

    def _owed_at(self, onset: float) -> Owed:
        """The call owed for an utterance with ``onset`` (table seconds): a
        change that arrived while the utterance was open (a flip during talk
        that ran on into the call) applies if the utterance's onset is at or
        after it (the last such change, when several came). A change from
        a given time after the onset (a flip) does not apply even if it took
        over before the utterance was decoded (a piece of talk cut where the
        caller rose out of it, decoded once the next card was owed): the
        call owed before it does. A change given for "now" (what is left of
        a twin once its first word was heard) holds for every utterance
        decoded after it took over."""
        due = self._due(onset)
        if due:
            return self._pending_owed[due - 1]
        flip = self._flip_after(onset)
        return self._past_owed[flip - 1] if flip else self._past_owed[-1]

    def _flip_after(self, onset: float) -> int | None:
        """Where in the calls owed taken over (``_past_owed``) the first one
        from a given time after ``onset`` is; None: there is none (0 is
        never returned: the first is the start)."""
        return next((i for i, q in enumerate(self._past_owed)
                     if i and q.timed and q.at > onset), None)

    def _owed_after(self, onset: float) -> Owed | None:
        """The first change of the call owed from a time after ``onset``
        (table seconds): a flip taken over already, else the first pending
        change after it; None when none is known."""
        flip = self._flip_after(onset)
        if flip:
            return self._past_owed[flip]
        due = self._due(onset)
        return self._pending_owed[due] if due < len(self._pending_owed) else None

    def _due(self, onset: float) -> int:
        """How many of the pending changes of the call owed (kept in order of
        their ``at``) hold for an utterance with ``onset`` (table seconds):
        those at or before it."""
        return sum(1 for p in self._pending_owed if p.at <= onset)

    def _spotted(self, evidence: Evidence, spot: tuple[Match, Word]) -> tuple[Evidence, Verdict]:
        """``evidence`` of a talk utterance (or an unsure one of a few
        words) with the stretch the caller's takes fit best (``_spot``: its
        ``Match`` and span), and the decision on it (right: that stretch is
        the call)."""
        found, span = spot
        evidence = replace(evidence, spot_gap=found.gap, spot_fit=found.fit,
                           spot_start=span.start, spot_end=span.end)
        return evidence, decide(evidence, self.thresholds)

    def _run_on(self, pcm: npt.NDArray[np.int16], words: Sequence[Word], base: float,
                loud: float, pending: Owed) -> tuple[Evidence, Verdict, Word] | None:
        """An utterance that began before a call became owed (``pending``,
        from its ``at`` on) and ran on past it: its decoded ``words`` from
        ``at`` on (``base``: the table time of the decoded audio's first
        sample), judged as an utterance of their own by the call owed after
        it, with the caller's takes looked for in them when they are talk.
        The evidence, the verdict and the call (the owed word, its span)
        when the decision says right; None otherwise. When the call owed
        changed again before the first of those words (``pending`` the
        call owed again "now", then the next card's flip), they are judged
        by the call owed at that word instead."""
        after = [w for w in words if base + w.start >= pending.at]
        if not after:
            return None
        pending = self._owed_at(base + after[0].start)
        if not pending.expected:
            return None
        evidence = Evidence(words=tuple(after), decoded=tuple(after), loud_db=loud,
                            reference_db=self.levels.reference(),
                            floor_dbfs=self.segmenter.floor_dbfs, expected=pending.expected,
                            onset=base + after[0].start, calls=pending.calls)
        verdict = decide(evidence, self.thresholds)
        if verdict.outcome == "right":
            return evidence, verdict, Word(" ".join(w.text for w in after), after[0].start,
                                           after[-1].end, SURE)
        spot = self._spot(pcm, after, pending) if verdict.outcome == "talk" else None
        if spot is None:
            return None
        evidence, verdict = self._spotted(evidence, spot)
        return (evidence, verdict, spot[1]) if verdict.outcome == "right" else None

    def _spot(self, pcm: npt.NDArray[np.int16], words: Sequence[Word],
              owed: Owed) -> tuple[Match, Word] | None:
        """The stretch of a talk utterance, or of an unsure one of a few
        words (``decision.among_words``), among ``_spans`` of its decoded
        ``words``, that the caller's takes of a word owed (``owed.heads``) fit
        best, as its ``Match`` and span (the owed word, ``SURE``); only
        stretches where an owed word fits better than any other enrolled
        word count (each matched ``within`` itself when too long for some
        takes), never one no other word's take can be warped to (a gap of
        -inf: a piece of talk can be any length). None: no enrollment,
        nothing owed, or no such stretch."""
        heads, caller = owed.heads, owed.caller
        if self.enrollment is None or not heads or caller is None:
            return None
        best: tuple[Match, Word] | None = None
        for a, b in _spans(words):
            snr = self._snr(pcm, Word(heads[0], a, b, 0.0))
            found = self.enrollment.match(caller, heads, self._around(pcm, a, b), snr,
                                          within=True)
            if (found is None or found.fit is None or no_rival(found.gap)
                    or found.gap > self.thresholds.template_right):
                continue  # (a piece of talk no other take can be warped to tells nothing)
            if best is None or found.fit < (best[0].fit or math.inf):
                best = (found, Word(found.word, a, b, SURE))
        return best

    def _spot_rest(self, pcm: npt.NDArray[np.int16], words: Sequence[Word], owed: Owed,
                   first: Word) -> Word | None:
        """A twin's second number in talk, after its first was found there
        (``first``, ``_spot``'s span): the decoded word right after it, as
        ``_twin_rest`` judges the last heard word. None: no word after."""
        after = [w for w in words if w.start >= first.end]
        if not after:
            return None
        return self._twin_rest(pcm, [first, after[0]], owed, first.text,
                               self._snr(pcm, after[0]))

    def _embedded(self, evidence: Evidence, verdict: Verdict, heard: list[Word],
                  pcm: npt.NDArray[np.int16], owed: Owed, loud: tuple[float, float],
                  ) -> tuple[Evidence, Verdict, list[Word] | None] | None:
        """An utterance left unsure or taken for talk while a call is owed,
        against the caller's takes in the speech-embedding space
        (``embedding.witness``): its evidence with the ``embedding_gap``,
        the verdict (``verdict`` unless the decision now finds the call
        owed, or a mistake by three witnesses: then the heard words as a
        mistake names them, ``_named``), and, when it finds the call, the
        words: the owed word the takes named over the heard words' stretch
        (the ``loud`` part, seconds from ``pcm``'s start, when none was
        heard), and a twin's second number
        after it as ``_twin_rest`` finds it. None: no enrollment, the
        witness could not tell (not installed, the caller or the word owed
        not enrolled), or it was asked already (``_weigh``) and no stretch
        was spotted since."""
        if self.enrollment is None:
            return None
        spot = (None if evidence.spot_start is None or evidence.spot_end is None
                else (evidence.spot_start, evidence.spot_end))
        if spot is None and evidence.embedding_gap is not None:
            return None  # decided with that very gap: asking again tells nothing new
        told = self._witnessed(pcm, heard, owed, [None] if spot is None else [None, spot])
        found = told[0] if told else None
        if found is None:
            return None
        at_spot = told[1] if spot is not None else None
        evidence = replace(evidence, embedding_gap=found.gap, embedding_rival=found.rival,
                           embedding_spot_gap=None if at_spot is None else at_spot.gap)
        judged = decide(evidence, self.thresholds)
        if judged.outcome == "mistake":  # the witnesses agree against the call
            return evidence, judged, _named(evidence, heard, self.thresholds)
        if judged.outcome != "right":
            return evidence, verdict, None
        if spot is not None and at_spot is not None and found.gap > self.thresholds.embedding_right:
            # Found in the spot's stretch (``decision.embedding_spots``): the
            # call is that stretch, and a twin's second number after it.
            call = Word(at_spot.word, *spot, SURE)
            after = self._spot_rest(pcm, evidence.decoded, owed, call)
            return evidence, judged, [call] if after is None else [call, after]
        span = (heard[0].start, heard[-1].end) if heard else loud
        rest = (self._twin_rest(pcm, heard, owed, found.word, self._snr(pcm, heard[-1]))
                if heard and owed.after(found.word) else None)
        words = ([Word(found.word, span[0], rest.start, SURE), rest] if rest is not None
                 else [Word(found.word, *span, SURE)])
        return evidence, judged, words

    def _with_embedding(self, evidence: Evidence, verdict: Verdict,
                        pcm: npt.NDArray[np.int16], heard: Sequence[Word],
                        owed: Owed) -> tuple[Evidence, Verdict]:
        """``evidence`` with the caller's takes' verdict on the call owed in
        the speech-embedding space (``embedding.witness``:
        ``Evidence.embedding_gap``) for the whole of ``pcm``, in which the
        recognizer heard ``heard``, and the decision on it; ``evidence`` and
        ``verdict`` as they are without an enrollment, or when the witness
        cannot tell."""
        if self.enrollment is None:
            return evidence, verdict
        told = self._witnessed(pcm, heard, owed, [None])
        if not told or told[0] is None:
            return evidence, verdict
        evidence = replace(evidence, embedding_gap=told[0].gap,
                           embedding_rival=told[0].rival)
        return evidence, decide(evidence, self.thresholds)

    def _witnessed(self, pcm: npt.NDArray[np.int16], heard: Sequence[Word], owed: Owed,
                   spans: list[tuple[float, float] | None]) -> list[embedding.Witness | None]:
        """``embedding.witnesses`` of the caller owed for ``spans`` of
        ``pcm`` (an utterance in which the recognizer heard ``heard``), the
        calls learnt joining when ``Enrollment.weighs_learnt`` says so. The
        listener must have an enrollment."""
        assert self.enrollment is not None
        learnt = (owed.caller is None or self.enrollment.weighs_learnt(
            owed.caller, [w.text for w in heard], owed.heads or ()))
        return embedding.witnesses(self.enrollment, owed.caller, owed.heads, pcm, spans,
                                   learnt)

    def _snr(self, pcm: npt.NDArray[np.int16], span: Word) -> float | None:
        """How far ``span`` of ``pcm`` (seconds from its first sample) is
        over the stream's noise floor, dB; None while the floor is unknown."""
        floor = self.segmenter.floor_dbfs
        return None if floor is None else _level_db(pcm, span, self.rate) - floor

    def _twin_rest(self, pcm: npt.NDArray[np.int16], heard: Sequence[Word], owed: Owed,
                   first: str, snr_db: float | None) -> Word | None:
        """The second word of a twin call (The Nasty 7: a twin racketeer
        says two numbers) when the caller's takes named its first word,
        ``first``, in an utterance of several ``heard`` words: the last of
        them, if a call owed (``owed.calls``) goes on from ``first`` to the
        word the recognizer heard there, or to a word whose takes fit that
        word's stretch best of all the caller's words (a gap at or below
        ``Thresholds.template_right``; not -inf, as in ``_spot``) and within
        ``Thresholds.spot_fit`` times their spread (``Enrollment.match``, the
        word ``snr_db`` dB over the floor). Returns that word with its span
        (seconds from ``pcm``'s start), ``SURE``; None otherwise."""
        rest = owed.after(first)
        if not rest or len(heard) < 2:
            return None
        last = heard[-1]
        if last.text in rest:
            return Word(last.text, last.start, last.end, SURE)
        if self.enrollment is None or owed.caller is None:
            return None
        found = self.enrollment.match(owed.caller, rest, self._around(pcm, last.start, last.end),
                                      snr_db, within=True, heard={last.text})
        th = self.thresholds
        if (found is None or no_rival(found.gap)
                or not takes_find(found.gap, found.fit, th.spot_fit, th)):
            return None  # (nor does a stretch of it no other take can be warped to)
        return Word(found.word, last.start, last.end, SURE)

    def _templates(self, pcm: npt.NDArray[np.int16], heard: Sequence[Word],
                   span: tuple[float, float], expected: tuple[str, ...] | None,
                   caller: str | None, snr_db: float | None) -> Match | None:
        """The caller's enrolled takes against ``span`` (seconds from the
        first sample of ``pcm``: the heard words', or all of ``pcm`` when
        no game word was heard), the call ``snr_db`` dB over the floor
        (``Enrollment.match``; ``within`` the heard words' stretch when
        there are any), when they can matter: a call owed, and the heard
        words are not it. None otherwise."""
        if (self.enrollment is None or not expected
                or (heard and all(w.text in expected for w in heard))):
            return None
        return self.enrollment.match(caller, expected, self._around(pcm, *span), snr_db,
                                     within=bool(heard), heard={w.text for w in heard})

    def _around(self, pcm: npt.NDArray[np.int16], start: float,
                end: float) -> npt.NDArray[np.int16]:
        """The samples of ``pcm`` from ``start`` to ``end`` seconds (from its
        first sample), widened by ``TEMPLATE_MARGIN_S`` each side: what is
        compared with the caller's takes."""
        lo = max(0, round((start - TEMPLATE_MARGIN_S) * self.rate))
        return pcm[lo:round((end + TEMPLATE_MARGIN_S) * self.rate)]


def _with_takes(evidence: Evidence, matched: Match | None,
                enrollment: Enrollment | None = None, caller: str | None = None) -> Evidence:
    """``evidence`` with the caller's enrolled takes' verdict ``matched``
    (``Enrollment.match``) and the words ``caller`` enrolled in
    ``enrollment``, or with no takes at all (``matched`` None): every
    ``Evidence`` field the takes fill, in one place."""
    if matched is None or enrollment is None:
        return replace(evidence, template_gap=None, template_word=None, template_fit=None,
                       template_best_fit=None, template_best_word=None,
                       enrolled=frozenset(), heard_only=frozenset())
    enrolled = frozenset(enrollment.words(caller or ""))
    counted = enrollment.counted
    return replace(evidence, template_gap=matched.gap, template_word=matched.word,
                   template_fit=matched.fit, template_best_fit=matched.best_fit,
                   template_best_word=matched.best_word, enrolled=enrolled,
                   heard_only=enrolled - counted if counted is not None else frozenset())


def _named(evidence: Evidence, heard: list[Word], th: Thresholds) -> list[Word]:
    """The words a mistake on ``evidence`` names: ``heard``, or the one
    number the caller's takes name instead, over the heard words' span.
    When every heard word is one the caller never enrolled (the sound,
    "hmmrrr") and the takes name a number clearly (``takes_name``), that
    number, at the heard words' least confidence; when the takes alone
    ruled it (``takes_alone``: heard as other wrong words), the number
    they name, ``SURE``."""
    texts = {w.text for w in heard}
    named = takes_name(evidence, th)
    if named is not None and not evidence.enrolled & texts:
        least = min(w.confidence for w in heard)
        heard = [Word(named, heard[0].start, heard[-1].end, least)]
        texts = {named}
    alone = takes_alone(evidence, th)
    if alone is not None and alone not in texts:
        heard = [Word(alone, heard[0].start, heard[-1].end, SURE)]
    return heard


def _spans(words: Sequence[Word]) -> list[tuple[float, float]]:
    """The stretches of an utterance a call could hide in: each decoded word
    and each pair of neighbours (seconds from the decoded audio's start)."""
    out = [(w.start, w.end) for w in words]
    out += [(a.start, b.end) for a, b in itertools.pairwise(words)]
    return [(a, b) for a, b in out if SPOT_MIN_S <= b - a <= SPOT_MAX_S]


def foreground(seg: Segment, rate: int) -> tuple[int, int, int, int]:
    """The loud part of an utterance, as indices into ``seg.pcm``: ``(first,
    loud_start, loud_end, last)``. ``loud_start..loud_end`` spans the frames
    within ``FOREGROUND_DB`` of the loudest; ``first..last`` adds the margins
    (``LEAD_S``, ``TAIL_S``) and is what is decoded. ``first`` is 0 when the
    loud part starts with the utterance (nothing is cut before it); ``last``
    never passes ``len(seg.pcm)``."""
    n = len(seg.pcm)
    frame = rate // 100
    lo = max(0, seg.onset - seg.start) // frame
    hi = max(0, min(n, seg.end - seg.start)) // frame
    if hi - lo < 3:
        return 0, 0, n, n
    db = 10 * np.log10(frame_power(seg.pcm[lo * frame:hi * frame], rate) + 1.0)
    active = np.flatnonzero(db >= db.max() - FOREGROUND_DB)
    loud_start = (lo + int(active[0])) * frame
    loud_end = (lo + int(active[-1]) + 1) * frame
    a = loud_start - round(LEAD_S * rate)
    first = 0 if a <= seg.onset - seg.start else a
    last = min(n, max(loud_end + round(TAIL_S * rate), first + frame))
    return first, min(loud_start, last), min(loud_end, last), last


class CallLevels:
    """The loudness (dBFS) of the last ``size`` sure calls, the reference for
    telling the caller from table talk (``Thresholds.quiet_db``). One table keeps one
    for the whole game; a ``Listener`` made anew (a new microphone stream)
    can take over the old one's."""

    def __init__(self, size: int = 8) -> None:
        self._levels: deque[float] = deque(maxlen=size)

    def add(self, dbfs: float) -> None:
        """A sure call's level, dBFS."""
        self._levels.append(dbfs)

    def reference(self) -> float | None:
        """The median level of the kept calls, dBFS; None before the first."""
        return float(np.median(self._levels)) if self._levels else None

    def __len__(self) -> int:
        return len(self._levels)


def word_onset(seg: Segment, rate: int, upto: int) -> int:
    """The stream index where the word begins: the first 10 ms frame from
    ``seg.onset`` to ``upto`` (stream indices) within ``WORD_ONSET_DB`` of
    the loudest 10 ms frame from the onset on, refined to its first 2.5 ms
    sub-frame that is; ``seg.onset`` when none is (``rate`` in Hz)."""
    frame = round(hidden_onset.FRAME_S * rate)
    a = max(0, seg.onset - seg.start)
    x = seg.pcm[a:].astype(np.float64)
    power = hidden_onset.frame_powers(x, rate)
    n = len(power)
    if n == 0:
        return seg.onset
    bar = float(power.max()) * 10 ** (-WORD_ONSET_DB / 10)
    last = min(n, max(0, upto - seg.start - a) // frame + 1)
    above = np.flatnonzero(power[:last] >= bar)
    if not len(above):
        return seg.onset
    k = int(above[0])
    sub = frame // 4
    head = x[k * frame:(k + 1) * frame]
    j = next((j for j in range(4) if float(np.mean(head[j * sub:(j + 1) * sub] ** 2)) >= bar), 0)
    return seg.onset + k * frame + j * sub


def _peak_dbfs(seg: Segment, rate: int) -> float:
    """The loudest 50 ms (10 ms steps) of an utterance from its onset, dBFS
    (RMS relative to int16 full scale); ``rate`` in Hz."""
    power = frame_power(seg.pcm[max(0, seg.onset - seg.start):], rate)
    if not len(power):
        return -120.0
    return 10 * math.log10(float(power.max()) / 32768.0 ** 2 + 1e-12)


def carries_on(pcm: npt.NDArray[np.int16], first: Word, second: Word, rate: int) -> bool:
    """Whether ``second`` (a word the decoder barely heard, below
    ``PHANTOM``) carries on ``first``: it abuts it (``CARRIES_ON_S``) and is
    at least as loud (``_level_db`` of ``pcm``, samples at ``rate`` Hz, word
    times in seconds from its first sample). The voice goes on, not a pad
    on breath or hiss after the word: a "zero" whose z the decoder took for
    the sound "hmmrrr", the vowel after it heard as "zero" at 0.1
    (bench/RESULTS.md, "A barely heard word carrying on the first")."""
    return (second.start - first.end <= CARRIES_ON_S
            and _level_db(pcm, second, rate) >= _level_db(pcm, first, rate))


def _level_db(pcm: npt.NDArray[np.int16], word: Word, rate: int) -> float:
    """RMS level of a word's samples, dB relative to int16 full scale."""
    a, b = max(0, round(word.start * rate)), min(len(pcm), round(word.end * rate))
    if b <= a:
        return -120.0
    x = pcm[a:b].astype(np.float64)
    return 10 * math.log10(float(np.mean(x * x)) / 32768.0 ** 2 + 1e-12)
