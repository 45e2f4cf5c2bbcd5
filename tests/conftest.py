"""Checks run around every test.

Live table = replay (issue 20, item 5): every ``Table`` a test drives
(through the page, the hub, the live table or directly) is checked when the
test ends: the rulings it gave live must be exactly the rulings ``companion
replay --game`` gives for the events it logged (``replay.stored_session`` and
``replay.replay``, what that command runs), read back from the SQLite log
the test wrote. Logs holding an ``audio`` event are replayed with the
speech referee in that command; here they are skipped (no recognizer is
loaded around every test), and the page no longer takes ``audio`` at all.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_rig import CHROMIUM, launched

from companion.errors import CompanionError
from companion.hub import Hub
from companion.replay import replay, stored_session
from companion.store import Store
from companion.table import Table
from companion.web import create_app


def _replayed(path: Path, game_id: int, events: int, lexicon: Any) -> list[dict[str, Any]] | None:
    """The rulings of the first ``events`` events of a stored game, as
    ``replay --game`` gives them; None for a log with audio in it."""
    with contextlib.closing(Store(path)) as store:
        session = stored_session(store, game_id, lexicon_for=lambda _header: lexicon,
                                 limit=events)
    if any(event.type == "audio" for event in session.events):
        return None
    return [r.to_dict() for r in replay(session)]


@pytest.fixture(autouse=True, scope="session")
def adapted_models_in_a_test_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Players' adapted models (``companion.referee.adaptation``) are kept
    in a folder of this test run, not the user's cache, and shared by its
    tests (replays in subprocesses too: they inherit the variable). With
    the tests spread over processes (pytest-xdist), the folder is the run's,
    shared by every worker: a model another worker built is found, and two
    builds of one model keep the first (``Adapter`` settles a build in one
    rename)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # each worker's folder sits in the run's
    cache = root / "cache"
    cache.mkdir(exist_ok=True)
    patch = pytest.MonkeyPatch()
    patch.setenv("COMPANION_CACHE", str(cache))
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def live_rulings_equal_the_replay(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    tables: list[Table] = []
    made = Table.__init__

    def remember(self: Table, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        tables.append(self)

    monkeypatch.setattr(Table, "__init__", remember)
    yield
    for table in tables:
        path = Path(str(table.store.path))
        if str(path) == ":memory:" or not path.exists() or table._seq == 0:
            continue
        try:
            expected = _replayed(path, table.game_id, table._seq, table.game.lexicon)
        except CompanionError as exc:
            pytest.fail(f"game {table.game_id} of {path.name}: its log does not replay: {exc}")
        if expected is None:
            continue
        live = [r.to_dict() for r in table.rulings]
        assert live == expected, (
            f"game {table.game_id} of {path.name}: the live table and replay --game ruled "
            "differently")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for one test module (``browser_rig``); the test is
    skipped where Debian's chromium is not installed."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed")
    with launched() as chromium:
        yield chromium


@pytest.fixture
def hub(tmp_path: Path) -> Hub:
    """A hub on a fresh event log in the test's folder."""
    return Hub(Store(tmp_path / "log.sqlite3"))


@pytest.fixture
def app(hub: Hub, request: pytest.FixtureRequest) -> Any:
    """The control page on ``hub`` for test clients, with the test module's
    ``PIN`` and its ``TRUSTED_HOSTS`` (default: localhost and 127.0.0.1)."""
    module = request.module
    hosts = getattr(module, "TRUSTED_HOSTS", ["localhost", "127.0.0.1"])
    return create_app(hub, pin=module.PIN, test_config={"TESTING": True, "TRUSTED_HOSTS": hosts})
