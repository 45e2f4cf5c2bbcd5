"""The log is the truth for the scorekeeping games too: each example session,
submitted to a table backed by a real SQLite log, is rebuilt exactly after a
restart (``Table.resume``), and ``companion replay --game ID`` replays it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.games.base import Match
from companion.resources import data_path
from companion.session import load_session
from companion.store import Store
from companion.table import Table


@pytest.mark.parametrize("example", ["finger-guns.jsonl", "cheap-shot.jsonl",
                                     "rummy-battle.jsonl"])
def test_a_stored_game_is_rebuilt_and_replayed_exactly(tmp_path: Path, example: str) -> None:
    session = load_session(data_path("voices", "en", "examples", example))
    db = tmp_path / "log.sqlite3"
    with Store(db) as store:
        table = Table.new(store, session.game)
        for event in session.events:
            table.submit(event)
        live_view, live_rulings = table.view(), [r.to_dict() for r in table.rulings]
        game_id, winner = table.game_id, table.match.winner
    with Store(db) as store:
        again = Table.resume(store, game_id)
        assert again.view() == live_view
        assert [r.to_dict() for r in again.rulings] == live_rulings
        assert store.games()[0].winner == winner
    folded = Match(session.game)
    assert [r.to_dict() for r in folded.fold(session.events)] == live_rulings
    result = CliRunner().invoke(main, ["replay", "--db", str(db), "--game", str(game_id)])
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.output.splitlines()] == live_rulings
