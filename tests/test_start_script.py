"""``scripts/install`` and ``scripts/start``: the first install runs pip with
its progress shown and leaves a stamp; later starts find the stamp matching
and start offline without running pip at all; a changed ``pyproject.toml``
installs again.

pip itself is replaced by a stand-in that records its arguments (tests may
not download, and a real first install takes minutes): it is the one thing
mocked here. The environment is otherwise what a first install leaves
(``bench/startup.py``'s ``installed_env``: this checkout and the test
environment's libraries), apt finds its packages installed, and pip's index
points where nothing listens."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(CHECKOUT / "bench"))

import startup  # noqa: E402

pytestmark = pytest.mark.slow

FAKE_PIP = """import json, os, sys
with open(os.environ["FAKE_PIP_LOG"], "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
"""


def _env(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    venv = tmp_path / "venv"
    env = startup.installed_env(venv)
    purelib = next((venv / "lib").glob("python3*/site-packages"))
    (purelib / "pip").mkdir()
    (purelib / "pip" / "__init__.py").write_text("")
    (purelib / "pip" / "__main__.py").write_text(FAKE_PIP)
    log = tmp_path / "pip.log"
    return {**env, "FAKE_PIP_LOG": str(log)}, venv / "companion-install.stamp", log


def _pip_calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def _install(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHECKOUT / "scripts" / "install")], env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_first_install_shows_its_steps_and_leaves_a_stamp(tmp_path: Path) -> None:
    env, stamp, log = _env(tmp_path)
    stamp.unlink()
    done = _install(env)
    assert done.returncode == 0, done.stderr
    calls = _pip_calls(log)
    assert [c[c.index("install"):] for c in calls] == [
        # the companion alone: the speech-embedding model's weights are in the checkout
        ["install", "--upgrade", "pip"], ["install", "--progress-bar", "on", "-e", "."]]
    assert not any({"-q", "--quiet"} & set(c) for c in calls)  # pip's own progress shows
    steps = [line for line in done.stdout.splitlines() if line.startswith("==> ")]
    assert steps[0] == "==> Updating pip"
    assert "a few minutes the first time" in steps[1]
    assert steps[-1].startswith("==> Installed: companion")
    assert stamp.read_text() == startup.stamp("run")


def test_a_second_start_runs_offline_without_pip(tmp_path: Path) -> None:
    env, _, log = _env(tmp_path)
    assert _install(env).stdout == ""  # the stamp matches: nothing to do, nothing said
    proc = subprocess.Popen(
        [str(CHECKOUT / "scripts" / "start"), "--port", "0", "--no-microphone",
         "--db", str(tmp_path / "log.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True)
    try:
        assert proc.stdout is not None
        line = ""
        while "Control page:" not in line:
            line = proc.stdout.readline()
            assert line, proc.communicate(timeout=60)[1]
        os.killpg(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, err
    assert _pip_calls(log) == []
    assert "==>" not in out
    assert out.rstrip().endswith("Stopped; the event log is closed.")


def test_a_changed_pyproject_installs_again(tmp_path: Path) -> None:
    env, stamp, log = _env(tmp_path)
    stamp.write_text(stamp.read_text().replace("sha256: ", "sha256: 0"))
    done = _install(env)
    assert done.returncode == 0, done.stderr
    assert "pyproject.toml or Python changed since the last install" in done.stdout
    assert len(_pip_calls(log)) == 2
    assert stamp.read_text() == startup.stamp("run")


def test_a_test_install_serves_a_start_too(tmp_path: Path) -> None:
    env, stamp, log = _env(tmp_path)
    stamp.write_text(startup.stamp("test"))
    assert _install(env).returncode == 0
    assert _pip_calls(log) == []
    done = subprocess.run([str(CHECKOUT / "scripts" / "install"), "test"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and _pip_calls(log) == []
