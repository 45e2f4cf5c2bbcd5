"""`companion replay`, `companion games` and the session format, end to end."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.events import Say, Tick
from companion.games import make_game
from companion.games.nasty7 import Accuse, Flip
from companion.resources import data_path
from companion.session import dump_session, parse_lines
from companion.store import Store
from companion.table import Table

EXAMPLE = data_path("voices", "en", "examples", "nasty7-rulebook.jsonl")
HEADER = '{"game": "nasty7", "players": ["Abby", "Beth", "Carter", "Debbie"]}'


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_replay_prints_one_json_ruling_per_line() -> None:
    result = CliRunner().invoke(main, ["replay", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    rulings = [json.loads(line) for line in result.output.splitlines()]
    assert [r["type"] for r in rulings].count("call_ok") == 10
    assert rulings[-3] == {"type": "mistake", "t": 21.7, "player": "Abby",
                           "kind": "wrong_number", "expected": ["one"], "heard": ["five"]}
    assert rulings[-1] == {"type": "round", "t": 21.7, "starter": "Abby"}


def test_replay_text_prints_the_spoken_sentences() -> None:
    result = CliRunner().invoke(main, ["replay", "--text", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["Abby: wrong number. I heard five, it was one.",
                                          "Abby takes 11 cards.",
                                          "New round. Abby starts at one."]


@pytest.mark.parametrize(("lines", "where"), [
    ([HEADER, '{"t": 1, "type": "flip", "player": "Abby", "card": "racketeer"', ], "line 2"),
    ([HEADER, '{"t": 1, "type": "flip", "player": "Zed", "card": "racketeer"}'],
     "line 2, field 'player'"),
    ([HEADER, '{"t": 1, "type": "flip", "player": "Abby", "card": "joker"}'],
     "line 2, field 'card'"),
    ([HEADER, '{"t": 2, "type": "tick"}', '{"t": 1, "type": "tick"}'], "line 3, field 't'"),
    ([HEADER, '{"t": 1, "type": "flip", "card": "gun"}'], "line 2, field 'player'"),
    ([HEADER, '{"t": "soon", "type": "tick"}'], "line 2, field 't'"),
    ([HEADER, '{"t": 1, "type": "dance"}'], "line 2, field 'type'"),
    ([HEADER, '{"t": 1, "type": "say", "text": "one", "volume": 3}'], "line 2, field 'volume'"),
    ([HEADER, '{"t": 1, "type": "accuse", "by": ["Abby"]}'], "line 2, field 'type'"),
    (['{"game": "poker", "players": ["A", "B"]}'], "line 1, field 'game'"),
    (['{"game": "nasty7", "players": ["A"]}'], "line 1, field 'players'"),
    (['{"game": "nasty7", "players": ["A", "B"], "options": {"hesitation": -1}}'],
     "line 1, field 'options.hesitation'"),
])
def test_a_bad_session_names_the_line_and_field_and_exits_2(tmp_path: Path, lines: list[str],
                                                           where: str) -> None:
    path = write(tmp_path, *lines)
    proc = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert where in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_illegal_event_mid_session_stops_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER, '{"t": 1, "type": "flip", "player": "Abby", "card": "gun"}',
                 '{"t": 1.5, "type": "card", "player": "Abby", "card": "racketeer"}')
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 2
    assert "line 3, field 'card'" in result.output


def test_session_round_trip_keeps_every_field() -> None:
    game = make_game("nasty7", ["Abby", "Beth"], {"nasty": True})
    events = [Flip(t=1.0, player="Abby", card="twin_phone"),
              Say(t=1.5, text="pfft pfft", confidence=0.8, end=2.0),
              Accuse(t=2.5, by=["Beth"]), Tick(t=3.0)]
    session = parse_lines(dump_session(game, events).splitlines())
    assert session.events == events
    assert session.game.header() == game.header()


def test_stored_games_are_listed_and_replayed(tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite3"
    with Store(db) as store:
        table = Table.new(store, make_game("nasty7", ["Abby", "Beth"]))
        table.submit(Flip(t=1.0, player="Abby", card="racketeer"))
        table.submit(Say(t=1.4, text="two"))
    runner = CliRunner()
    listing = runner.invoke(main, ["games", "--db", str(db)])
    assert listing.exit_code == 0
    assert f"{table.game_id:>4}" in listing.output and "Abby, Beth" in listing.output
    assert "(2 events, in play)" in listing.output
    replayed = runner.invoke(main, ["replay", "--game", str(table.game_id), "--db", str(db)])
    assert replayed.exit_code == 0, replayed.output
    types = [json.loads(line)["type"] for line in replayed.output.splitlines()]
    assert types == ["mistake", "pile", "round"]
    missing = runner.invoke(main, ["replay", "--game", "99", "--db", str(db)])
    assert missing.exit_code == 2 and "99" in missing.output


def test_a_refused_event_is_neither_logged_nor_applied(tmp_path: Path) -> None:
    with Store(tmp_path / "log.sqlite3") as store:
        table = Table.new(store, make_game("nasty7", ["Abby", "Beth"]))
        table.submit(Flip(t=1.0, player="Abby", card="racketeer"))
        before = table.state
        with pytest.raises(ValueError, match="cannot accuse themself"):
            table.submit(Accuse(t=1.2, by=["Abby"]))
        assert table.state == before
        assert len(list(store.event_objects(table.game_id))) == 1


def test_the_log_uses_wal_and_full_sync(tmp_path: Path) -> None:
    with Store(tmp_path / "log.sqlite3") as store:
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_the_wheel_ships_voice_packs_page_files_pinout_and_model_weights(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(root)], check=True)
    wheel = next(tmp_path.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "companion/_data/voices/en/pack.toml" in names
    assert "companion/_data/voices/en/examples/nasty7-rulebook.jsonl" in names
    assert "companion/_data/hardware/pinout.toml" in names
    assert "companion/_data/models/speech-embedding.npz" in names
    assert any(n.startswith("companion/_data/web/") for n in names)
    # The unpacked wheel finds its data without the checkout.
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    probe = ("from companion.resources import data_path; "
             "from companion.referee.embedding_model import weights_path; "
             "print(data_path('voices', 'en', 'pack.toml')); print(weights_path())")
    out = subprocess.run([sys.executable, "-c", probe], cwd=unpacked, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(unpacked)})
    pack, weights = out.stdout.split()
    assert pack.startswith(str(unpacked)) and weights.startswith(str(unpacked))


def test_demo_narrates_the_example_and_its_rulings() -> None:
    result = CliRunner().invoke(main, ["demo", "--quiet"])
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines()]
    assert "1.0s  Abby flips a racketeer." in lines
    assert "-> Carter: right. The count is 3." in lines
    assert lines[-3:] == ["-> Abby: wrong number. I heard five, it was one.",
                          "-> Abby takes 11 cards.", "-> New round. Abby starts at one."]
