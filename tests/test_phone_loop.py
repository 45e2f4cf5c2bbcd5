"""The phone loop in its worker process, for real: the same best path and the
same confidences as in this process, and a worker that dies leaves decodes
right (in this process, with a notice). Speech is rendered here with Piper
and espeak-ng (companion.audio.synth). That the worker decodes at the same
time as the grammar is a matter of time, so ``bench/referee.py`` measures it
(ruling latency), not a test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.audio import synth
from companion.audio.synth import Synth, VoiceSpec
from companion.errors import RecognizerError
from companion.referee.phone_loop import PHONE_LM, PhoneLoop, best_path, new_decoder
from companion.referee.recognizer import Spellings
from companion.referee.sphinx_backend import SphinxRecognizer, with_floor
from companion.voice.pack import load_pack

pytestmark = pytest.mark.slow

VOCABULARY = ["one", "two", "three", "four", "five", "six", "seven", "hmmrrr"]
VOICES = [VoiceSpec("piper", "en_US-joe-medium", 1.0), VoiceSpec("espeak-ng", "en-us", 1.0, 50)]


@pytest.fixture(scope="module")
def utterances() -> list[np.ndarray]:
    sy = Synth()
    out = []
    for i, (voice, word) in enumerate([(v, w) for v in VOICES for w in ("three", "six", "hmmrrr")]):
        clip = synth.add_floor(synth.call_after_silence(sy.utterance(word, voice), 0.3), seed=i)
        out.append(clip.audio)
    return out


def recognizer(loop: PhoneLoop) -> SphinxRecognizer:
    rec = SphinxRecognizer(phones=loop)
    rec.set_vocabulary(VOCABULARY)
    return rec


def test_the_worker_decodes_what_this_process_would(utterances: list[np.ndarray]) -> None:
    """Fresh loops, the same utterances in the same order: the worker's words
    and confidences are this process's, to the last digit."""
    here, there = PhoneLoop(parallel=False), PhoneLoop(parallel=True)
    try:
        assert there.parallel, "this machine has more than one core"
        a, b = recognizer(here), recognizer(there)
        heard_here = [a.decode(u) for u in utterances]
        heard_there = [b.decode(u) for u in utterances]
        assert heard_here == heard_there
        assert [w[0].text for w in heard_here if w][:2] == ["three", "six"]
        assert there.worker_cpu_s > 0 and there.worker_peak_mb > 10
        assert here.worker_cpu_s == 0
    finally:
        there.close()


def test_the_workers_peak_is_its_own_not_the_parents() -> None:
    """The worker is started by fork and exec; getrusage's ``ru_maxrss``
    survives an exec, so it reported this process's peak when that was
    higher. Here a child process holds 300 MB and then starts a loop: the
    worker's reported peak is its own (a decoder, tens of MB)."""
    script = (
        "import numpy as np\n"
        "held = np.ones(300 * 2**20 // 8)\n"
        "from companion.referee.phone_loop import PhoneLoop\n"
        "loop = PhoneLoop(parallel=True)\n"
        "loop.submit(np.zeros(16000, np.int16).tobytes())()\n"
        "print(loop.worker_peak_mb, held.nbytes / 2**20)\n"
        "loop.close()\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=60,
                         cwd=Path(__file__).resolve().parents[1]).stdout.split()
    worker_mb, held_mb = float(out[0]), float(out[1])
    assert held_mb == 300
    assert 5 < worker_mb < 150


def test_the_one_word_dictionary_gives_the_full_dictionarys_phone_loop(
        utterances: list[np.ndarray]) -> None:
    """The loop's decoder does without the CMU dictionary (23 MB less): the
    phones, frames and scores of the best path are the same."""
    import pocketsphinx

    full = pocketsphinx.Decoder(lm=None, loglevel="FATAL")
    full.add_allphone_file("phones", pocketsphinx.get_model_path(PHONE_LM))
    full.activate_search("phones")
    small = new_decoder()
    for u in utterances:
        pcm = with_floor(u, -60.0).tobytes()
        path = best_path(small, pcm)
        assert len(path) > 3
        assert path == best_path(full, pcm)


def test_a_dead_worker_leaves_decodes_right(utterances: list[np.ndarray],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    here, there = PhoneLoop(parallel=False), PhoneLoop(parallel=True)
    try:
        a, b = recognizer(here), recognizer(there)
        assert a.decode(utterances[0]) == b.decode(utterances[0])
        assert there._process is not None
        there._process.kill()
        there._process.wait()
        assert a.decode(utterances[1]) == b.decode(utterances[1])
        assert not there.parallel
        assert "phone-loop worker stopped" in capsys.readouterr().err
        assert a.decode(utterances[2]) == b.decode(utterances[2])
    finally:
        there.close()


def test_the_shared_worker_stops_with_its_process() -> None:
    """A process that used the shared loop exits without a warning, and its
    worker has exited and been reaped by then."""
    script = (
        "import numpy as np\n"
        "from companion.referee import phone_loop\n"
        "loop = phone_loop.shared()\n"
        "loop.submit(np.zeros(8000, dtype=np.int16).tobytes())()\n"
        "print(loop._process.pid)\n")
    run = subprocess.run([sys.executable, "-W", "error", "-c", script],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert "Warning" not in run.stderr
    pid = int(run.stdout.strip())
    assert not Path(f"/proc/{pid}").exists()


def test_the_twins_decodes_leave_the_recognizer_alone(utterances: list[np.ndarray]) -> None:
    """pocketsphinx's noise removal carries its estimate from one decode to
    the next: after a second of loud hiss the same utterances come out as
    other words, or the same with other confidences. The ear's second
    hearing (the noise-suppressed copy) is decoded by the recognizer's twin
    instead, which has decoders of its own: the recognizer's next decodes
    are what they would have been without it."""
    rng = np.random.default_rng(4)
    hiss = np.clip(rng.normal(0, 3000, 16000), -32768, 32767).astype(np.int16)
    plain, busy, twinned = (recognizer(PhoneLoop(parallel=False)) for _ in range(3))
    for r in (plain, busy, twinned):
        r.decode(utterances[0])
    busy.decode(hiss)
    twin = twinned.twin()
    assert twin is twinned.twin() and twin is not twinned
    twin.follow(twinned)
    assert twin.vocabulary == twinned.vocabulary
    twin.decode(hiss)
    later = utterances[1:]
    expected = [plain.decode(u) for u in later]
    assert [busy.decode(u) for u in later] != expected  # the carry-over is real
    assert [twinned.decode(u) for u in later] == expected


def test_a_decoder_with_only_the_words_listened_for_hears_what_the_whole_dictionary_hears(
        utterances: list[np.ndarray]) -> None:
    """The recognizer's grammar decoder, and its twin's, hold only the words
    they listen for, read from the CMU dictionary file, with the English
    pack's phones after them ("hmm" for the phone sound): the same words and
    confidences as a decoder that loaded the whole CMU dictionary (as it did
    before), utterance by utterance; the twin, whose phone loop shares its
    decoder, the same as such a decoder sharing its phone loop."""
    import pocketsphinx

    spellings = Spellings.from_pack(load_pack("en"))

    def whole_dictionary() -> SphinxRecognizer:
        rec = SphinxRecognizer(spellings, phones=PhoneLoop(parallel=False))
        rec._decoder = pocketsphinx.Decoder(lm=None, loglevel="FATAL", wip=rec.settings.wip,
                                            wbeam=rec.settings.wbeam)
        rec._logmath = rec._decoder.get_logmath()
        rec.set_vocabulary(VOCABULARY)
        return rec

    whole = whole_dictionary()
    # The twin's phone loop is a second search of its grammar decoder: the
    # same with the whole dictionary.
    whole_twin = whole_dictionary()
    whole_twin.phones.share(whole_twin._decoder)
    small = SphinxRecognizer(spellings, phones=PhoneLoop(parallel=False))
    small.set_vocabulary(VOCABULARY)
    twin = small.twin()
    with pytest.raises(RecognizerError):
        twin.decode(utterances[0])  # no vocabulary until it follows one
    twin.follow(small)
    expected = [whole.decode(u) for u in utterances]
    assert [small.decode(u) for u in utterances] == expected
    assert [twin.decode(u) for u in utterances] == [whole_twin.decode(u) for u in utterances]
    for name in ("hmm", "hmm(2)", "hmm(3)", "seven", "three"):
        assert small._decoder.lookup_word(name) == whole._decoder.lookup_word(name)
        assert twin._decoder.lookup_word(name) == whole._decoder.lookup_word(name)
    assert small._decoder.lookup_word("hmm(2)") == "HH AH M"  # the pack's, after the CMU one
    assert whole._decoder.lookup_word("seventeen") is not None
    assert small._decoder.lookup_word("seventeen") is None  # not the whole dictionary


def test_a_shared_phone_loop_is_a_second_search_of_the_same_decoder(
        utterances: list[np.ndarray]) -> None:
    """``PhoneLoop.share``: the loop decodes with the grammar decoder it is
    given, whose grammar still decodes after it; the first path is the one a
    loop of its own finds (the same noise estimate to start from). A loop
    that decodes in a worker cannot share."""
    shared = recognizer(PhoneLoop(parallel=False))
    shared.phones.share(shared._decoder)
    pcm = with_floor(utterances[0], -60.0).tobytes()
    assert shared.phones.submit(pcm)() == PhoneLoop(parallel=False).submit(pcm)()
    assert [w.text for w in shared.decode(utterances[1])] == ["six"]
    worker = PhoneLoop(parallel=True)
    try:
        if worker.parallel:
            with pytest.raises(ValueError):
                worker.share(shared._decoder)
    finally:
        worker.close()
