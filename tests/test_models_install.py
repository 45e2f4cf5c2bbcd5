"""``companion models install`` against a local HTTP server (http.server on
127.0.0.1) serving a zip built here: a good download, a bad checksum, a short
file, a connection cut mid-transfer, a file that is not a zip. Whatever
fails leaves nothing in the models folder."""

from __future__ import annotations

import hashlib
import http.server
import os
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.referee.models import MODELS, installed_path

NAME = MODELS["en"].name


def build_zip(path: Path) -> bytes:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{NAME}/am/final.mdl", b"acoustic model " * 1000)
        zf.writestr(f"{NAME}/conf/model.conf", "--min-active=200\n")
        zf.writestr(f"{NAME}/graph/phones.txt", "SIL 1\n")
    return path.read_bytes()


class CutHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files; ``/cut/NAME`` promises the whole file but sends half
    and hangs up (an interrupted download)."""

    def do_GET(self) -> None:  # http.server calls it by this name
        if self.path.startswith("/cut/"):
            data = (Path(self.directory) / self.path[5:]).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "www"
    root.mkdir()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            partial(CutHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["models", *args])
    return result.exit_code, result.output


def test_install_downloads_checks_and_unpacks(server: tuple[str, Path], tmp_path: Path) -> None:
    url, root = server
    data = build_zip(root / "model.zip")
    models = tmp_path / "models"
    code, out = run("install", "en", "--dir", str(models), "--url", f"{url}/model.zip",
                    "--sha256", hashlib.sha256(data).hexdigest(), "--size", str(len(data)),
                    "--quiet")
    assert code == 0, out
    assert f"installed {NAME} in {models / NAME}" in out
    assert installed_path(MODELS["en"], models) == models / NAME
    assert (models / NAME / "am" / "final.mdl").read_bytes() == b"acoustic model " * 1000
    assert sorted(p.name for p in models.iterdir()) == [NAME]  # no temporary left
    code, out = run("list", "--dir", str(models))
    assert code == 0 and str(models / NAME) in out
    code, out = run("install", "en", "--dir", str(models), "--url", f"{url}/model.zip",
                    "--quiet")
    assert code == 0 and "already installed" in out


def test_the_progress_bar_shows_the_download(server: tuple[str, Path], tmp_path: Path) -> None:
    url, root = server
    data = build_zip(root / "model.zip")
    result = CliRunner().invoke(main, [
        "models", "install", "en", "--dir", str(tmp_path / "m"), "--url", f"{url}/model.zip",
        "--sha256", hashlib.sha256(data).hexdigest(), "--size", str(len(data))])
    assert result.exit_code == 0
    assert "100%" in result.output  # tqdm's bar, written to the terminal's stderr


@pytest.mark.parametrize("case", ["bad_sha", "short", "cut", "not_zip", "missing"])
def test_a_failed_install_leaves_nothing(server: tuple[str, Path], tmp_path: Path,
                                         case: str) -> None:
    url, root = server
    data = build_zip(root / "model.zip")
    sha, size, path = hashlib.sha256(data).hexdigest(), len(data), "model.zip"
    expect = {"bad_sha": "sha256", "short": "stopped at", "cut": "stopped at",
              "not_zip": "cannot unpack", "missing": "404"}[case]
    if case == "bad_sha":
        sha = "0" * 64
    elif case == "short":
        size = len(data) + 1000
    elif case == "cut":
        path = "cut/model.zip"
    elif case == "not_zip":
        junk = b"this is not a zip file" * 100
        (root / "junk.bin").write_bytes(junk)
        path, sha, size = "junk.bin", hashlib.sha256(junk).hexdigest(), len(junk)
    elif case == "missing":
        path = "nothing-here.zip"
    models = tmp_path / "models"
    code, out = run("install", "en", "--dir", str(models), "--url", f"{url}/{path}",
                    "--sha256", sha, "--size", str(size), "--quiet")
    assert code == 1
    assert expect in out
    assert out.count("\n") == 1  # one line, no traceback
    assert list(models.iterdir()) == []
    assert installed_path(MODELS["en"], models) is None


def test_unknown_language_is_refused() -> None:
    code, out = run("install", "xx")
    assert code == 2 and "'xx'" in out


def test_the_official_model_is_pinned() -> None:
    spec = MODELS["en"]
    assert spec.url == "https://alphacephei.com/vosk/models/vosk-model-small-en-us-0.15.zip"
    assert spec.size == 41_205_931
    assert spec.sha256 == "30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498"


def test_the_models_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    from companion.referee.models import models_dir

    monkeypatch.delenv("COMPANION_MODELS", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert models_dir() == tmp_path / "xdg" / "companion" / "models"
    monkeypatch.setenv("COMPANION_MODELS", str(tmp_path / "mine"))
    assert models_dir() == tmp_path / "mine"


def test_status_says_whether_the_speech_embedding_model_is_there(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed weights file is named; without it (an install that
    left ``models/`` out, simulated by the weights not being found) the
    status says how to get it back."""
    from companion.referee import embedding, embedding_model

    code, out = run("status")
    assert code == 0
    assert f"speech-embedding model: yes ({embedding.model_path()})" in out
    assert embedding.model_path() == embedding_model.weights_path()
    assert embedding.model_path() is not None and embedding.model_path().name.endswith(".npz")

    monkeypatch.setattr(embedding_model, "weights_path", lambda: None)
    monkeypatch.setattr(embedding_model, "weights", lambda: None)
    assert embedding.model_path() is None and not embedding.available()
    code, out = run("status")
    assert code == 0
    assert ("speech-embedding model: no (its weights file is missing: "
            "install the companion again)") in out


def voice_models(cache: Path, names: list[str]) -> None:
    """Players' finished voice models under ``$COMPANION_CACHE/adapted``,
    used in the order given (the last most recently), each with 300 kB
    of its own and 5 MB linked to a shared file (the bundled model's
    copy), which is not theirs to count."""
    root = cache / "adapted"
    root.mkdir(parents=True, exist_ok=True)
    (root / "shared").write_bytes(b"s" * 5_000_000)
    for k, name in enumerate(names):
        (root / name).mkdir()
        (root / name / "means").write_bytes(b"m" * 300_000)
        os.link(root / "shared", root / name / "sendump")
        os.utime(root / name, (1_700_000_000 + 60 * k,) * 2)


def test_status_counts_the_players_voice_models_and_prune_keeps_those_used_last(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    code, out = run("status")
    assert code == 0
    assert f"players' own voice models: 0 in {tmp_path / 'adapted'} (0.0 MB)" in out
    names = [f"{k:020x}" for k in range(3)]
    voice_models(tmp_path, names)
    code, out = run("status")
    assert code == 0
    assert (f"players' own voice models: 3 in {tmp_path / 'adapted'} (0.9 MB); "
            "a table keeps the 32 used last") in out
    code, out = run("prune", "--keep", "1")
    assert code == 0, out
    assert f"removed 2 voice model(s); 1 kept in {tmp_path / 'adapted'} (0.3 MB)" in out
    assert sorted(p.name for p in (tmp_path / "adapted").iterdir()
                  if not p.name.startswith(".")) == [names[2], "shared"]
    code, out = run("prune")  # as a table keeps them: nothing more to remove
    assert code == 0 and "removed 0 voice model(s); 1 kept" in out


def test_prune_refuses_a_negative_keep_by_name(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    voice_models(tmp_path, ["0" * 20])
    code, out = run("prune", "--keep", "-1")
    assert code == 2 and "--keep" in out
    assert (tmp_path / "adapted" / ("0" * 20) / "means").is_file()
