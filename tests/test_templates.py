"""Enrolled voice templates (``companion.referee.templates``) and the
``enrollment`` header field (``companion.referee.enrollment``).

The DTW is checked against a plain reading of Sakoe & Chiba's recurrence;
the templates on real voices (FSDD takes of the development speakers in
``../shared/human-calls``: takes 0-2 enroll, later takes are the calls)."""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path

import fsdd
import numpy as np
import pytest
from fsdd import needs_fsdd

from companion.referee import templates
from companion.referee.judge import read_wav
from companion.referee.recognizer import Recognizer, Word
from companion.referee.stream import Listener
from companion.referee.templates import (
    FLOOR_DB,
    RATE,
    STEADY_FLOOR_DB,
    Enrollment,
    distances,
    features,
    floor_margin,
    in_noise,
    steady,
    subsequence_distances,
)

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
HEADER = {"game": "nasty7", "players": ["Abby", "Beth", "Carter", "Debbie"]}


def plain_dtw(a: np.ndarray, b: np.ndarray) -> float:
    """Sakoe & Chiba's symmetric P = 1 recurrence, cell by cell."""
    n, m = len(a), len(b)
    d = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))
    g = np.full((n, m), np.inf)
    g[0, 0] = 2 * d[0, 0]
    for i in range(n):
        for j in range(m):
            steps = []
            if i >= 1 and j >= 1:
                steps.append(g[i - 1, j - 1] + 2 * d[i, j])
            if i >= 1 and j >= 2:
                steps.append(g[i - 1, j - 2] + 2 * d[i, j - 1] + d[i, j])
            if i >= 2 and j >= 1:
                steps.append(g[i - 2, j - 1] + 2 * d[i - 1, j] + d[i, j])
            if steps:
                g[i, j] = min(steps)
    return float(g[n - 1, m - 1] / (n + m))


def test_batched_dtw_equals_the_recurrence_cell_by_cell() -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(size=(17, 4)).astype(np.float32)
    templates = [rng.normal(size=(k, 4)).astype(np.float32) for k in (9, 12, 17, 25, 34, 40)]
    got = distances(a, templates)
    want = [plain_dtw(a, t) for t in templates]
    assert np.isinf(got[-1]) and np.isinf(want[-1])  # 40 frames: more than twice 17
    np.testing.assert_allclose(got[:-1], want[:-1], rtol=1e-6)
    assert distances(a, [a])[0] == pytest.approx(0.0, abs=1e-4)


def test_the_subsequence_dtw_finds_a_template_inside_a_longer_stretch() -> None:
    """Each distance is a real path's: no less than the best of every
    stretch of ``a`` warped whole (brute force), and no more than the
    stretch the template was hidden in."""
    rng = np.random.default_rng(5)
    t = rng.normal(size=(12, 4)).astype(np.float32)
    others = [rng.normal(size=(k, 4)).astype(np.float32) for k in (7, 12, 20)]
    a = np.vstack([rng.normal(size=(15, 4)), t + rng.normal(scale=0.2, size=t.shape),
                   rng.normal(size=(10, 4))]).astype(np.float32)
    got = subsequence_distances(a, [t, *others])
    assert np.isinf(distances(a, [t])[0])  # 37 frames: more than twice 12
    for k, tmpl in enumerate([t, *others]):
        spans = [plain_dtw(a[s:e], tmpl) for s in range(len(a))
                 for e in range(s + 1, len(a) + 1)]
        assert got[k] >= min(spans) * (1 - 1e-6)
    assert got[0] <= plain_dtw(a[15:27], t) * (1 + 1e-6)
    assert got[0] < got[1:].min()  # the hidden template fits best
    assert subsequence_distances(t, [t])[0] == pytest.approx(0.0, abs=1e-4)
    assert np.isinf(subsequence_distances(a[:5], [t])[0])  # shorter than half of it


def test_the_cepstra_are_scipys_orthonormal_dct() -> None:
    """The runtime has no scipy: the DCT is a matrix, checked against it."""
    from scipy.fft import dct

    from companion.referee import templates

    x = np.random.default_rng(1).normal(size=(5, templates.N_MELS))
    np.testing.assert_allclose(x @ templates._DCT, dct(x, type=2, norm="ortho", axis=1),
                               atol=1e-10)


def test_silence_has_no_features_and_cannot_be_enrolled() -> None:
    quiet = np.zeros(RATE // 2, dtype=np.int16)
    assert features(quiet[:100]).shape == (0, 24)
    assert not Enrollment().add("Abby", "one", quiet)


@needs_fsdd
def test_a_take_is_kept_as_16_bit_samples_and_its_copies_are_the_same() -> None:
    """Takes are kept as int16 (a quarter of the memory of floats): a take
    given as integer-valued floats is kept with the same values, its noisy
    copy's features are those made from the floats, and floats off the
    16-bit grid are rounded and clipped."""
    pcm = take(6, "george", 0)
    as_float = Enrollment()
    assert as_float.add("Abby", "six", pcm.astype(np.float64))
    kept = as_float.audio["Abby"]["six"][0]
    assert kept.dtype == np.int16
    np.testing.assert_array_equal(kept, pcm)
    np.testing.assert_array_equal(
        templates.noisy_copy(kept, 9.0, STEADY_FLOOR_DB, 0),
        features(in_noise(pcm.astype(np.float64), 9.0, seed=0), STEADY_FLOOR_DB))
    np.testing.assert_array_equal(templates.pcm16([1.4, -2.6, 40000.0, -40000.0]),
                                  np.array([1, -3, 32767, -32768], dtype=np.int16))


def take(digit: int, voice: str, k: int) -> np.ndarray:
    """An FSDD take at 16 kHz with 0.2 s of silence each side."""
    return fsdd.take(digit, voice, k, pad_s=0.2)


@needs_fsdd
@pytest.mark.parametrize("voice", ["george", "jackson", "lucas"])
def test_a_players_own_takes_tell_their_count_words_apart(voice: str) -> None:
    """Enrolled on takes 0-2 of "one".."seven", later takes of the same
    speaker fit the word said best (gap below zero) and another count word
    owed is told apart (gap above zero), "six" against "two" included (words
    the recognizer confuses)."""
    enrolled = Enrollment()
    for digit in range(1, 8):
        for k in range(3):
            assert enrolled.add("Abby", WORDS[digit], take(digit, voice, k))
    assert enrolled.words("Abby") == set(WORDS[1:8])
    for digit, owed, fits in [(6, "six", True), (6, "two", False), (2, "two", True),
                              (3, "three", True), (7, "one", False)]:
        found = enrolled.match("Abby", [owed], take(digit, voice, 40))
        assert found is not None
        gap = found.gap
        assert (gap < 0) == fits, (digit, owed, gap)
    assert enrolled.match("Beth", ["six"], take(6, voice, 40)) is None  # Beth never enrolled
    assert enrolled.match("Abby", ["nine"], take(9, voice, 40)) is None  # "nine" not enrolled


@needs_fsdd
def test_a_word_shorter_than_half_of_every_other_take_is_told_by_its_own_takes() -> None:
    """jackson says "six" quickly: his later take 18 keeps 15 frames over
    the floor, under half of every other count word's takes (34 frames or
    more), so no take but the six's can be warped to it (the slope
    constraint of ``distances``). The call owed is then the only word that
    can fit: the gap is -inf and the six's own fit is the evidence (a
    repeat here). Owed a two, whose takes cannot be warped to it either,
    nothing can be told (None)."""
    enrolled = Enrollment()
    for digit in range(1, 8):
        for k in range(3):
            assert enrolled.add("Abby", WORDS[digit], take(digit, "jackson", k))
    six = take(6, "jackson", 18)
    shortest = min(len(t) for w, takes in enrolled.takes["Abby"].items() if w != "six"
                   for t in takes)
    assert 2 * len(features(six)) < shortest
    found = enrolled.match("Abby", ["six"], six)
    assert found is not None and found.gap == -np.inf and found.best_word == "six"
    assert found.fit is not None and found.fit < 1.0
    assert enrolled.match("Abby", ["two"], six) is None


@needs_fsdd
@pytest.mark.parametrize("voice", ["george", "lucas"])
def test_a_wrong_numbers_takes_are_compared_only_when_it_was_heard(voice: str) -> None:
    """Enrolled on takes 0-2 of "zero".."nine", with "one".."seven" the
    count words (``Enrollment.counted``): a later "eight" said where a six
    is owed fits the player's "eight" takes best, far better than the
    six's, when the recognizer heard "eight"; when it did not, "eight" is
    left out of the comparison (the best word is a count word). Without
    ``counted`` every enrolled word is compared always. A later "six"
    fits its own takes best whatever was heard."""
    counted = frozenset(WORDS[1:8])
    enrolled = Enrollment(counted=counted)
    for digit in range(10):
        for k in range(3):
            assert enrolled.add("Abby", WORDS[digit], take(digit, voice, k))
    eight = take(8, voice, 40)
    heard = enrolled.match("Abby", ["six"], eight, heard={"eight"})
    unheard = enrolled.match("Abby", ["six"], eight)
    assert heard is not None and unheard is not None
    assert heard.best_word == "eight" and heard.gap > 1.0, heard
    assert unheard.best_word in counted, unheard
    always = Enrollment(takes=enrolled.takes, audio=enrolled.audio)
    found = always.match("Abby", ["six"], eight)
    assert found is not None and found.best_word == "eight"
    for words in (set(), {"eight"}):
        six = enrolled.match("Abby", ["six"], take(6, voice, 40), heard=words)
        assert six is not None and six.best_word == "six" and six.gap < 0


@needs_fsdd
@pytest.mark.parametrize("voice", ["george", "jackson", "lucas"])
def test_a_call_with_talk_around_it_is_found_inside_it(voice: str) -> None:
    """A later take of "six" with real talk (Picovoice's recorded commands,
    at half their recorded level) before and after it, over twice as long as
    any take: whole, it cannot be warped to them; matched ``within``, each
    take with the stretch it fits best, the call owed fits best and "two"
    owed does not."""
    enrolled = Enrollment()
    for digit in range(1, 8):
        for k in range(3):
            assert enrolled.add("Abby", WORDS[digit], take(digit, voice, k))
    files = sorted((fsdd.FSDD.parent / "talk" / "commands").glob("*.wav"))
    talk = [read_wav(f)[0] / 2.0 for f in files[:2]]
    call = np.concatenate([talk[0][:RATE], take(6, voice, 40), talk[1][:RATE]])
    longest = max(len(t) for ts in enrolled.takes["Abby"].values() for t in ts)
    assert len(features(call)) > 2 * longest
    assert enrolled.match("Abby", ["six"], call) is None  # too long to warp whole
    said = enrolled.match("Abby", ["six"], call, within=True)
    not_said = enrolled.match("Abby", ["two"], call, within=True)
    assert said is not None and not_said is not None
    assert said.gap < 0 < not_said.gap


def in_hiss(monkeypatch: pytest.MonkeyPatch, margin_db: float, frames: int
            ) -> tuple[int, int, int]:
    """Takes 40-49 of "six" and "three" by each development speaker, 10 dB
    over white noise, against their takes 0-2 of "one".."seven", with
    ``margin_db`` as the cut over a steady floor and ``frames`` as the least
    length compared after that cut: how many calls were compared, how many
    fit the word said best (a gap below zero) and how many fit a word not
    said best."""
    monkeypatch.setattr(templates, "STEADY_FLOOR_DB", margin_db)
    monkeypatch.setattr(templates, "MATCH_MIN_FRAMES", frames)
    told = right = wrong = 0
    for voice in ("george", "jackson", "lucas"):
        enrolled = Enrollment()
        for digit in range(1, 8):
            for k in range(3):
                assert enrolled.add("Abby", WORDS[digit], take(digit, voice, k))
        for digit, other in ((6, "two"), (3, "five")):
            for k in range(40, 50):
                call = in_noise(fsdd.take(digit, voice, k, pad_s=0.3), 10.0, seed=k)
                said = enrolled.match("Abby", [WORDS[digit]], call, snr_db=10.0)
                told += said is not None
                right += said is not None and said.gap < 0
                not_said = enrolled.match("Abby", [other], call, snr_db=10.0)
                wrong += not_said is not None and not_said.gap < 0
    return told, right, wrong


@needs_fsdd
def test_a_word_in_steady_noise_keeps_its_weak_sounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """In white noise 10 dB under the word, a cut ``FLOOR_DB`` over the floor
    left little more than the vowel of "six" (its s and k sit a few dB over
    the hiss): often too short to warp to any take, so the takes had no say.
    Over a steady floor the cut is closer (``STEADY_FLOOR_DB``) and the
    takes' noisy copies are cut alike: more calls fit the word said, and no
    more fit a word not said. Real voices, noise of a test."""
    call = in_noise(fsdd.take(6, "lucas", 41, pad_s=0.3), 10.0, seed=7)
    assert steady(call) and floor_margin(call) == STEADY_FLOOR_DB
    assert len(features(call, floor_margin(call))) > len(features(call))
    # (the cut alone: every call and copy held to a take's length; the
    # close cut's own least length is the next test's)
    closer = in_hiss(monkeypatch, STEADY_FLOOR_DB, templates.MIN_FRAMES)[1:]
    as_before = in_hiss(monkeypatch, FLOOR_DB, templates.MIN_FRAMES)[1:]
    print("fit the word said, fit another (of 60):", closer, "as before:", as_before)
    assert closer[0] >= as_before[0] + 10 and closer[1] <= as_before[1]


@needs_fsdd
def test_a_short_word_in_hiss_meets_its_takes_short_copies(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In white noise 10 dB under the word, "six" and "three" cut over the
    steady floor are often shorter than a take may be (``MIN_FRAMES``), and
    so are the takes' noisy copies: held to that length, some calls were
    compared with nothing. Held to ``MATCH_MIN_FRAMES``, more calls are
    compared, more fit the word said, and no more fit a word not said. Real
    voices, noise of a test."""
    told, right, wrong = in_hiss(monkeypatch, STEADY_FLOOR_DB, templates.MATCH_MIN_FRAMES)
    as_takes = in_hiss(monkeypatch, STEADY_FLOOR_DB, templates.MIN_FRAMES)
    print("compared, fit the word said, fit another (of 60):", (told, right, wrong),
          "held to a take's length:", as_takes)
    assert told > as_takes[0]
    assert right >= as_takes[1] + 2 and wrong <= as_takes[2]


@needs_fsdd
def test_a_takes_noisy_copies_are_made_once_for_every_enrollment_that_holds_it() -> None:
    """A replay loads each round's takes anew, and a table keeps them all
    evening: the copies of a take in noise are kept by its content, so a
    second enrollment of the same takes matches a call in hiss exactly as
    the first, from the very same copies, and a different take gets its
    own. Real voices (FSDD), noise of a test."""
    def enroll(voice: str) -> Enrollment:
        out = Enrollment()
        for digit in (2, 6):
            for k in range(3):
                assert out.add("Abby", WORDS[digit], take(digit, voice, k))
        return out

    call = in_noise(fsdd.take(6, "george", 41, pad_s=0.3), 10.0, seed=41)
    first, second, other = enroll("george"), enroll("george"), enroll("lucas")
    a = first.match("Abby", ["six"], call, snr_db=10.0)
    b = second.match("Abby", ["six"], call, snr_db=10.0)
    assert a is not None and a == b
    step = 9.0  # 10 dB to the nearest SNR step
    key = ("Abby", step, STEADY_FLOOR_DB)
    six = ("six", False)  # the takes of "six" with no call learnt joining them
    kept, again = first._noisy[key], second._noisy[key]
    assert kept[six] and all(x is y for x, y in zip(kept[six], again[six], strict=True))
    assert not kept[six][0].flags.writeable
    direct = features(in_noise(first.audio["Abby"]["six"][0], step, seed=0), STEADY_FLOOR_DB)
    assert np.array_equal(kept[six][0], direct)
    other.match("Abby", ["six"], call, snr_db=10.0)
    theirs = other._noisy[key][six]
    assert not any(x is y for x in theirs for y in kept[six])


def test_a_changing_floor_is_cut_as_before() -> None:
    """Noise that comes and goes (clatter: each 50 ms 0-12 dB over a quiet
    floor) is no steady floor: the stray sounds a few dB over it are not a
    word's, and the cut stays ``FLOOR_DB`` over it."""
    rng = np.random.default_rng(5)
    n = RATE
    gain = np.repeat(10 ** (rng.uniform(0.0, 12.0, n // 800) / 20), 800)
    clatter = rng.normal(0.0, 100.0, n) * gain
    assert not steady(clatter) and floor_margin(clatter) == FLOOR_DB
    hiss = rng.normal(0.0, 100.0, n)
    assert steady(hiss) and floor_margin(hiss) == STEADY_FLOOR_DB
    assert not steady(np.zeros(10))  # shorter than a frame: nothing to tell


def write_session(tmp_path: Path, header: dict[str, object]) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(header) + "\n" + '{"t": 0.0, "type": "audio", "path": "s.wav"}\n')
    with wave.open(str(tmp_path / "s.wav"), "wb") as wf:
        wf.setnchannels(1)
        wf.setsampwidth(2)
        wf.setframerate(16000)
        wf.writeframes(np.zeros(16000, dtype=np.int16).tobytes())
    return path


@pytest.mark.parametrize(("enrollment", "where"), [
    ([], "field 'enrollment'"),
    ({"Zed": {"one": ["a.wav"]}}, "field 'enrollment.Zed'"),
    ({"Abby": ["a.wav"]}, "field 'enrollment.Abby'"),
    ({"Abby": {"one": []}}, "field 'enrollment.Abby.one'"),
    ({"Abby": {"one": [3]}}, "field 'enrollment.Abby.one'"),
    ({"Abby": {"one": "missing.wav"}}, "line 1, field 'enrollment.Abby.one'"),
])
def test_a_bad_enrollment_is_one_line_naming_the_field_and_exit_2(
        tmp_path: Path, enrollment: object, where: str) -> None:
    path = write_session(tmp_path, {**HEADER, "enrollment": enrollment})
    proc = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                          capture_output=True, text=True, check=False, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert where in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


class Deaf(Recognizer):
    """A recognizer that finds no game word in anything: it stands in for
    pocketsphinx in the case under test (in white noise it finds none in
    about one call in five); the voices, the segmenter and the takes are
    real."""

    name = "deaf"
    sample_rate = RATE

    def _compile(self, vocabulary: tuple[str, ...]) -> None:
        pass

    def decode(self, pcm: np.ndarray) -> list[Word]:
        return []


@needs_fsdd
@pytest.mark.parametrize(("digit", "owed", "right"), [(6, "six", True), (2, "six", False)])
def test_a_call_the_recognizer_found_no_word_in_is_judged_by_the_callers_takes(
        digit: int, owed: str, right: bool) -> None:
    """Enrolled on takes 0-2, George says "six" (take 35) where a six is owed
    and the recognizer hears no game word: his takes fit it as a repeat, so
    it is his call, ruled right. His "two" where a six is owed is not (left
    unsure, as an utterance with no game word always was)."""
    enrolled = Enrollment()
    for d in range(1, 8):
        for k in range(3):
            enrolled.add("Abby", WORDS[d], take(d, "george", k))
    listener = Listener(Deaf(), RATE, enrollment=enrolled)
    listener.set_expected([owed], "Abby")
    pad = np.zeros(RATE // 2, dtype=np.int16)
    heard = listener.feed(np.concatenate([pad, take(digit, "george", 35), pad]), 0.0)
    heard += listener.flush()
    assert len(heard) == 1
    if right:
        assert (heard[0].outcome, heard[0].text) == ("right", "six")
        assert heard[0].to_say().confidence == 1.0
    else:
        assert (heard[0].outcome, heard[0].text) == ("unsure", "")


@needs_fsdd
def test_calls_learnt_at_the_table_are_compared_beside_the_takes_never_counted_as_takes(
        ) -> None:
    """Abby enrolled with jackson's takes 0-2 of "one".."seven", then heard
    at the table in george's voice (a voice far from the takes stands in
    for one drifting from them): before, george's "two" (take 40) fits
    another word ("six") better; after two of his calls of "two" are
    learnt, it fits "two". Only ``LEARNT_KEPT`` are kept, the oldest going
    first; the takes, their spread and the voices page's count stay the
    takes'; ``forget`` drops what was learnt; a word never enrolled is not
    learnt."""
    enrolled = Enrollment()
    for digit in range(1, 8):
        for k in range(3):
            assert enrolled.add("Abby", WORDS[digit], take(digit, "jackson", k))
    spread = enrolled.spread("Abby", "two")
    before = enrolled.match("Abby", ["two"], take(2, "george", 40))
    assert before is not None and before.gap > 0 and before.best_word == "six", before
    calls = [take(2, "george", k) for k in (9, 10, 11)]
    for pcm in calls:
        assert enrolled.learn("Abby", "two", pcm)
    kept = enrolled.learnt["Abby"]["two"]
    assert len(kept) == templates.LEARNT_KEPT == 2
    assert np.array_equal(kept[0][1], calls[1]) and np.array_equal(kept[1][1], calls[2])
    assert len(enrolled.takes["Abby"]["two"]) == len(enrolled.audio["Abby"]["two"]) == 3
    assert len(enrolled.voice("Abby")["two"]) == 5 and len(enrolled.voice("Abby")["six"]) == 3
    assert enrolled.spread("Abby", "two") == spread
    after = enrolled.match("Abby", ["two"], take(2, "george", 40))
    assert after is not None and after.gap < 0 and after.best_word == "two", after
    assert not enrolled.learn("Abby", "nine", take(9, "george", 10))  # not enrolled
    assert not enrolled.learn("Beth", "two", calls[0])  # Beth has no takes
    assert not enrolled.learn("Abby", "two", np.zeros(RATE // 2, dtype=np.int16))  # no voice
    enrolled.forget("Abby")
    assert "Abby" not in enrolled.learnt and enrolled.voice("Abby") == {}


@needs_fsdd
def test_an_evenings_takes_are_joined_by_a_sessions_players_it_lacks() -> None:
    """``Enrollment.join``: a player the kept enrollment has takes of keeps
    them and what was learnt; one it lacks takes the session's; ``counted``
    becomes the session's."""
    kept, session = Enrollment(), Enrollment(counted=frozenset({"one", "two"}))
    assert kept.add("Abby", "one", take(1, "lucas", 0))
    assert kept.learn("Abby", "one", take(1, "lucas", 5))
    assert session.add("Abby", "one", take(1, "george", 0))
    assert session.add("Beth", "two", take(2, "george", 0))
    abby = kept.takes["Abby"]
    kept.join(session)
    assert kept.takes["Abby"] is abby and len(kept.learnt["Abby"]["one"]) == 1
    assert kept.takes["Beth"] is session.takes["Beth"]
    assert kept.counted == frozenset({"one", "two"})


@needs_fsdd
def test_a_wrong_number_heard_is_weighed_against_the_takes_alone() -> None:
    """Abby enrolled with jackson's takes of "one".."seven" and of "nine"
    (a wrong number: compared only when heard), two calls of "two" learnt
    in george's voice. When the recognizer heard "nine", the comparison is
    the takes' alone, exactly as with nothing learnt; a word she never
    enrolled ("twelve") changes nothing, and the learnt calls join."""
    counted = frozenset(WORDS[1:8])
    learnt, plain = Enrollment(counted=counted), Enrollment(counted=counted)
    for enrolled in (learnt, plain):
        for digit in [*range(1, 8), 9]:
            for k in range(3):
                assert enrolled.add("Abby", WORDS[digit], take(digit, "jackson", k))
    for k in (10, 11):
        assert learnt.learn("Abby", "two", take(2, "george", k))
    call = take(2, "george", 40)
    assert not learnt.weighs_learnt("Abby", ["nine"], ["two"])
    assert learnt.weighs_learnt("Abby", ["twelve"], ["two"])
    assert learnt.weighs_learnt("Abby", ["two", "nine"], ["two", "nine"])  # owed: no wrong number
    assert learnt.match("Abby", ["two"], call, heard=["nine"]) == plain.match(
        "Abby", ["two"], call, heard=["nine"])
    with_learnt = learnt.match("Abby", ["two"], call, heard=["twelve"])
    without = plain.match("Abby", ["two"], call, heard=["twelve"])
    assert with_learnt is not None and without is not None
    assert with_learnt.gap < 0 < without.gap, (with_learnt, without)


@needs_fsdd
def test_calls_learnt_speak_only_for_the_call_owed() -> None:
    """Abby enrolled with jackson's takes of "one".."seven", two of george's
    calls of "two" learnt. Matched for a call owed of "six", george's "six"
    (take 44) is compared with the takes alone, exactly as with nothing
    learnt, and the takes of "six" fit it best; with every call learnt
    joining, his learnt "two" fitted it better, by 0.16 (his voice is
    nearer his own calls than jackson's takes are). Owed "two", the
    learnt calls join the takes of "two". The speech embedding's samples
    follow the same rule (``Enrollment.voice``)."""
    learnt, plain = Enrollment(), Enrollment()
    for enrolled in (learnt, plain):
        for digit in range(1, 8):
            for k in range(3):
                assert enrolled.add("Abby", WORDS[digit], take(digit, "jackson", k))
    for k in (10, 11):
        assert learnt.learn("Abby", "two", take(2, "george", k))
    six = take(6, "george", 44)
    for snr in (None, 10.0):
        assert learnt.match("Abby", ["six"], six, snr_db=snr) == plain.match(
            "Abby", ["six"], six, snr_db=snr)
    got = learnt.match("Abby", ["six"], six)
    assert got is not None and got.gap < 0, got
    two = take(2, "george", 40)
    with_learnt, without = learnt.match("Abby", ["two"], two), plain.match("Abby", ["two"], two)
    assert with_learnt is not None and without is not None
    assert with_learnt.gap < without.gap, (with_learnt, without)
    assert len(learnt.voice("Abby", owed={"six"})["two"]) == 3
    assert len(learnt.voice("Abby", owed={"two"})["two"]) == 5
