"""``companion.made_once.making``: a folder made once in a shared cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.made_once import making


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
