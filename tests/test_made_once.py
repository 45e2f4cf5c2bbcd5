"""``companion.made_once``: a folder made once in a shared cache, and removed
only when nobody is making it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from companion.made_once import making, remove


def test_a_making_starts_from_an_empty_work_folder_and_leaves_only_what_it_made(
        tmp_path: Path) -> None:
    left = tmp_path / ".model.part"  # a making cut short by a power cut
    left.mkdir()
    (left / "half.wav").write_bytes(b"RIFF")
    with making(tmp_path, "model") as work:
        assert work == left and list(work.iterdir()) == []
        (work / "means").write_bytes(b"x")
        work.rename(tmp_path / "model")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".model.lock", "model"]


def test_a_making_that_fails_leaves_no_work_behind(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), making(tmp_path / "cache", "model") as work:
        (work / "means").write_bytes(b"x")
        raise RuntimeError("a tool failed")
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [".model.lock"]


def test_a_folder_is_removed_unless_it_is_being_made(tmp_path: Path) -> None:
    (tmp_path / "old" / "means").parent.mkdir()
    (tmp_path / "old" / "means").write_bytes(b"x")
    holding, release = threading.Event(), threading.Event()

    def make() -> None:  # another thread making it again, holding its lock
        with making(tmp_path, "old"):
            holding.set()
            release.wait(timeout=30)

    maker = threading.Thread(target=make)
    maker.start()
    assert holding.wait(timeout=30)
    assert remove(tmp_path, "old") is False and (tmp_path / "old" / "means").is_file()
    release.set()
    maker.join(timeout=30)
    assert remove(tmp_path, "old") is True and not (tmp_path / "old").exists()
    assert (tmp_path / ".old.lock").is_file()  # kept: a waiting maker may hold it open
    assert remove(tmp_path, "old") is False  # another process removed it first
