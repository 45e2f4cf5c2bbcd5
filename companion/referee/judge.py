"""The judge's ear: a recording plus the session's flips -> ``say`` events.

The engine (``companion.games.nasty7``) makes the verdicts: it compares the
words of each ``say`` with the expected call, rules hesitation from the flip to
the ``say``'s onset ``t``, and never rules a mistake on words below its
``min_confidence`` (weak evidence). This module turns audio into those ``say``
events exactly as the live table does: the same ``Listener`` (resampling,
clock, webrtcvad onsets, recognizer with a grammar that follows the game).

``audio_handler(recognizer_name, pack)`` is the hook ``companion replay``
calls for each ``audio`` event. It feeds the recording in time order, and at
each later event of the session (a flip, an accusation) it lets any utterance
in progress finish, applies the event to a copy of the match and asks the
engine which words can matter now (``Game.listen_words``): the grammar is
switched only at utterance boundaries, as at the table. It returns the
``say`` events; the replay merges them with the session's own events by time.

Speech with no game word (rejected, or table talk) becomes a ``say`` with
empty text and confidence 0: it marks an onset but can never make a mistake.
"""

from __future__ import annotations

import contextlib
import wave
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.errors import EventError, RecognizerError
from companion.events import Audio, Event, Say
from companion.games.base import Match
from companion.referee.adaptation import Adapter
from companion.referee.blas import one_thread
from companion.referee.decision import DEFAULT, Evidence, Thresholds, Verdict
from companion.referee.enrollment import count_words, load_enrollment
from companion.referee.recognizer import Recognizer, open_recognizer
from companion.referee.steered import SteeredEar
from companion.referee.stream import CallLevels, Heard, Listener
from companion.referee.templates import Enrollment
from companion.referee.vad import VadSettings
from companion.session import Session
from companion.voice.pack import VoicePack

CHUNK_S = 0.03
"""Seconds of audio per block fed to the listener (a live table's block size)."""


@dataclass(frozen=True)
class EarSettings:
    """Settings of the judge's ear. ``vad``: the segmenter's (onset and
    end of utterances). ``chunk``: seconds per block fed [0.03].
    ``thresholds``: the decision's. ``trace``: gets every utterance's
    ``(Evidence, Verdict)`` (the benchmark's), or None. ``listener``: the
    ``Listener`` class (the benchmark's metered subclass). ``adapt``:
    with enrolled takes and one microphone, an unsure call is also heard
    with the caller's adapted model (``companion.referee.adaptation``; the
    replay waits for each player's model to be built, once: they are
    kept). ``levels``: the callers' loudness the listener starts with and
    adds to (``stream.CallLevels``; the benchmarks keep one from round to
    round, as ``companion start`` keeps it all evening); None: a new one,
    as a replay of one session has. ``learn``: the ear keeps each
    caller's sure calls beside their takes (``Listener``'s ``learn``).
    ``enrollment``: the players' takes the ear starts every session with
    and learns into (the benchmarks keep one from round to round when the
    same voice sits at each seat all evening, as ``companion start`` keeps
    the voices page's); a session's takes of a player it has none of join
    it. None: each session's own takes (its header's)."""

    vad: VadSettings = field(default_factory=VadSettings)
    chunk: float = CHUNK_S
    thresholds: Thresholds = DEFAULT
    trace: list[tuple[Evidence, Verdict]] | None = None
    listener: type[Listener] = Listener
    adapt: bool = True
    levels: CallLevels | None = None
    learn: bool = True
    enrollment: Enrollment | None = None


MAX_CHANNELS = 32
"""Most channels an audio event's WAV may have (one per microphone)."""
MIN_RATE, MAX_RATE = 8000, 192000
"""Sample rates (Hz) an audio event's WAV may have."""


def read_wav_channels(path: Path) -> tuple[npt.NDArray[np.int16], int]:
    """A WAV file's 16-bit samples with every channel, shape ``(n, channels)``,
    and its rate in Hz.

    Raises ``OSError`` if it cannot be read, ``RecognizerError`` (an
    ``OSError``) if it is not a 16-bit PCM WAV file, claims more than
    ``MAX_CHANNELS`` channels or a rate outside ``MIN_RATE..MAX_RATE``."""
    try:
        with wave.open(str(path), "rb") as wf:
            width, channels, rate = wf.getsampwidth(), wf.getnchannels(), wf.getframerate()
            if not 1 <= channels <= MAX_CHANNELS:
                raise RecognizerError(f"{str(path)!r} claims {channels} channels; audio "
                                      f"events take 1 to {MAX_CHANNELS}")
            if not MIN_RATE <= rate <= MAX_RATE:
                raise RecognizerError(f"{str(path)!r} claims a rate of {rate} Hz; audio "
                                      f"events take {MIN_RATE} to {MAX_RATE} Hz")
            data = wf.readframes(wf.getnframes())
    except (wave.Error, EOFError) as exc:  # EOFError: empty or cut inside the header
        raise RecognizerError(f"{str(path)!r} is not a WAV file: "
                              f"{str(exc) or 'it ends inside its header'}") from None
    if width != 2:
        raise RecognizerError(f"{str(path)!r} has {8 * width}-bit samples; "
                              "audio events need 16-bit PCM")
    if len(data) % (width * channels):  # cut inside a frame: drop the partial frame
        data = data[:len(data) - len(data) % (width * channels)]
    return np.frombuffer(data, dtype="<i2").reshape(-1, channels).astype(np.int16), rate


def read_wav(path: Path) -> tuple[npt.NDArray[np.int16], int]:
    """A WAV file's samples as 16-bit mono (channels averaged) and its rate in
    Hz. Raises as ``read_wav_channels``."""
    pcm, rate = read_wav_channels(path)
    return mono_of(pcm), rate


def mono_of(pcm: npt.NDArray[np.int16]) -> npt.NDArray[np.int16]:
    """One channel of 16-bit samples from ``(n, channels)``: the channels averaged."""
    if pcm.shape[1] == 1:
        return pcm[:, 0].copy()
    return pcm.mean(axis=1).round().astype(np.int16)


def set_grammar(listener: Listener, match: Match[Any], *, at: float | None = None) -> None:
    """Give ``listener`` the grammar the engine wants now: its
    ``listen_words`` (for The Nasty 7 this already holds every offered phone
    sound while the round's sound is not chosen, nasty rules), at most its
    ``utterance_items`` per utterance, ending utterances early if it asks
    (``early_endpoint``), and the call owed from table time ``at`` seconds
    on (``expect``)."""
    listener.set_vocabulary(match.game.listen_words(match.state),
                            match.game.utterance_items(match.state),
                            early=match.game.early_endpoint(match.state))
    expect(listener, match, at=at)


def expect(listener: Listener, match: Match[Any], *, at: float | None = None) -> None:
    """Tell ``listener`` the call ``match`` owes now (``owed``), from table
    time ``at`` seconds on (None: the end of the audio fed so far; see
    ``Listener.set_expected``), by whom (the game's ``speaker``), and the
    calls that can still be right, each its words in order (The Nasty 7's
    ``expected_calls``; None for games that do not say, or when no call
    is pending)."""
    expected = owed(match)
    calls = getattr(match.game, "expected_calls", None)
    listener.set_expected(expected, match.game.speaker(match.state), at=at,
                          calls=None if calls is None or expected is None
                          else list(calls(match.state)))


def owed(match: Match[Any]) -> list[str] | None:
    """The call owed now, for the decision: the words of The Nasty 7's
    pending call (``expected_call``: empty for a silent card, every word
    that can be right when the card is inferred or the call picks the
    sound); None for games that do not say, or when no call is pending
    (nothing to judge against)."""
    expected = getattr(match.game, "expected_call", None)
    state = match.state
    call = getattr(state, "call", None)
    if expected is None or call is None or getattr(call, "status", None) != "pending":
        return None
    return list(expected(state))


class InOrder:
    """A copy of a match that the ear steers by (the call owed, the caller),
    fed events as the replay will apply them: in time order, a session's own
    event before a heard one at the same time. A say heard late (its
    utterance began before an event already given, and was decoded after it)
    is put in its place and the copy rebuilt from the start, as the replay's
    merge by time will apply it; events the engine refuses are skipped, as
    the copy only steers (the replay reports them)."""

    def __init__(self, match: Match[Any]) -> None:
        self._start = match.copy()
        self.match = match.copy()
        self._events: list[Event] = []

    @staticmethod
    def _key(event: Event) -> tuple[float, bool]:
        return event.t, isinstance(event, Say)

    def apply(self, event: Event) -> None:
        """Give the copy ``event``."""
        late = bool(self._events) and self._key(event) < self._key(self._events[-1])
        self._events.append(event)
        if not late:
            with contextlib.suppress(EventError):
                self.match.apply(event)
            return
        self._events.sort(key=self._key)
        self.match = self._start.copy()
        for ev in self._events:
            with contextlib.suppress(EventError):
                self.match.apply(ev)


def hear_recording(recognizer: Recognizer, pcm: npt.NDArray[np.int16], rate: int, *,
                   start: float, later: Sequence[Event], match: Match[Any],
                   settings: EarSettings | None = None,
                   ear: SteeredEar | None = None,
                   enrollment: Enrollment | None = None) -> list[Say]:
    """The ``say`` events heard in a recording whose sample 0 is at ``start``
    seconds, given the session's ``later`` events (in time order) and the
    ``match`` as it stands at ``start`` (it is not changed). With ``ear`` (a
    microphone array), ``pcm`` is ``(n, M)``: the ear steers at the game's
    expected speaker after each event and gives each say its seat. With
    ``enrollment``, each call is also compared with the caller's enrolled
    takes (``companion.referee.templates``); with the settings' kept
    ``enrollment`` as well, those takes join the kept ones
    (``Enrollment.join``) and the ear hears and learns with the kept ones."""
    s = settings or EarSettings()
    if s.enrollment is not None and enrollment is not None:
        s.enrollment.join(enrollment)
        enrollment = s.enrollment
    steer = InOrder(match)  # what the replay will make of the events so far
    adapter = Adapter() if s.adapt and enrollment is not None else None
    listener = s.listener(recognizer, rate, vad=s.vad, thresholds=s.thresholds, trace=s.trace,
                          enrollment=enrollment, adapter=adapter, levels=s.levels,
                          learn=s.learn)
    set_grammar(listener, steer.match)
    chunk = max(1, round(s.chunk * rate))
    says: list[Say] = []
    pos = 0
    started: list[bool] = []  # the beam's first output block was placed on the clock
    if ear is not None:
        ear.steer_at(steer.match.game.speaker(steer.match.state), start)

    held: list[Say] = []  # says heard after ``waiting``'s time, before it is applied
    waiting: list[float] = []  # the time of the session event not applied yet

    def take(heard: list[Heard]) -> None:
        for say in (s for h in heard for s in (ear.says(h) if ear is not None else [h.to_say()])):
            says.append(say)
            if waiting and say.t >= waiting[0]:
                # An utterance that began before the event and ended after it
                # may have its onset after it (talk first, then the caller's
                # rise): applied now it would come before the event on the
                # copy's clock, and the copy would refuse the event.
                held.append(say)
                continue
            steer.apply(say)
            expect(listener, steer.match)

    def feed(n: int) -> None:
        nonlocal pos
        end = min(len(pcm), pos + n)
        if end <= pos:
            return
        t = start if pos == 0 else None
        if ear is None:
            take(listener.feed(pcm[pos:end], t))
        else:
            mono, t_mono = ear.feed(pcm[pos:end], t)
            if len(mono):
                take(listener.feed(mono, None if started else t_mono, copy=ear.masked))
                started.append(True)
        pos = end

    stop = start + len(pcm) / rate
    for event in later:
        if event.t > stop:
            break
        if isinstance(event, Audio):
            continue
        target = round((event.t - start) * rate)
        while pos < target:
            feed(min(chunk, target - pos))
        ahead = steer.match.copy()
        with contextlib.suppress(EventError):
            ahead.apply(event)
        # An utterance running on across the event is judged by the call owed
        # after it if its onset is after it (the listener decides which).
        expect(listener, ahead, at=event.t)
        if ear is not None:
            # Steer when the event happens, against the second before it, as
            # the live table does: the audio after it (the call, and the end
            # of an utterance running into it) is heard through the new beam.
            ear.steer_at(ahead.game.speaker(ahead.state), event.t)
        waiting.append(event.t)
        # Let the utterance open at the event end before it is applied
        # (offline look-ahead); not the utterances after it, when a voice
        # rose out of it and began another (``VadSettings.cut_rise_db``).
        open_at = listener.utterance_onset
        while open_at is not None and listener.utterance_onset == open_at and pos < len(pcm):
            feed(rate // 100)
        waiting.clear()
        steer.apply(event)
        for say in held:
            steer.apply(say)
        held.clear()
        # The call owed after the event holds from the event on: an utterance
        # that rose out of the talk after it (and is open now) is judged by it.
        set_grammar(listener, steer.match, at=event.t)
        speaker = steer.match.game.speaker(steer.match.state)
        if ear is not None and speaker != ear.target:
            ear.steer_at(speaker, event.t)  # a held say moved the turn on
    while pos < len(pcm):
        feed(chunk)
    take(listener.flush())
    return says


def audio_handler(recognizer_name: str | None, pack: VoicePack, *,
                  settings: EarSettings | None = None,
                  recognizer: Recognizer | None = None,
                  ) -> Callable[[Audio, Session, Match[Any]], list[Event]]:
    """The replay hook for ``audio`` events: ``(audio, session, match) ->
    [say, ...]``. The recognizer (``recognizer_name``: ``vosk``,
    ``pocketsphinx`` or None for the default) is loaded on first use.

    The hook raises ``OSError`` for an unreadable WAV, ``RecognizerError``
    for a bad one or a recognizer that cannot load; the replay reports both
    on the ``audio`` event's line. From here on the process's BLAS runs on
    one thread (``blas.one_thread``), the players' takes read included."""
    one_thread()
    loaded: list[Recognizer] = [recognizer] if recognizer is not None else []
    enrolled: dict[int, Enrollment | None] = {}  # per session: its takes, loaded once

    def handle(event: Audio, session: Session, match: Match[Any]) -> list[Event]:
        path = Path(session.base_dir) / event.path
        if not path.is_file():
            raise FileNotFoundError(f"no audio file {str(path)!r}")
        pcm, rate = read_wav_channels(path)  # a bad file is refused before the recognizer loads
        if not loaded:
            loaded.append(open_recognizer(recognizer_name, pack))
        if id(session) not in enrolled:
            enrolled[id(session)] = None if session.enrollment is None else load_enrollment(
                session.enrollment, Path(session.base_dir),
                counted=count_words(pack.lexicon.number_word))
        enrollment = enrolled[id(session)]
        index = next(i for i, ev in enumerate(session.events) if ev is event)
        later = session.events[index + 1:]
        if session.seating is None:
            return list(hear_recording(loaded[0], mono_of(pcm), rate, start=event.t, later=later,
                                       match=match, settings=settings, enrollment=enrollment))
        ear = SteeredEar(session.seating, rate)
        if pcm.shape[1] != ear.channels:
            raise RecognizerError(
                f"{str(path)!r} has {pcm.shape[1]} channels; the header's microphones "
                f"need {ear.channels}, one per microphone")
        return list(hear_recording(loaded[0], pcm, rate, start=event.t, later=later,
                                   match=match, settings=settings, ear=ear,
                                   enrollment=enrollment))

    return handle
