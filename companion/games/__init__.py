"""The game engines, one module each, found by the name a session header uses.

| name | module | rulebook |
| --- | --- | --- |
| ``nasty7`` | ``nasty7`` | ``rules/nasty7.md`` |
| ``cheat`` | ``cheat`` | ``rules/cheat.md`` |
| ``finger_guns`` | ``finger_guns`` | ``rules/finger-guns.md`` |
| ``cheap_shot`` | ``cheap_shot`` | ``rules/cheap-shot.md`` |
| ``rummy_battle`` | ``rummy_battle`` | ``rules/rummy-battle.md`` |
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from companion.errors import UnknownGameError
from companion.games.base import Game, Match
from companion.games.lexicon import ENGLISH, Lexicon

GAME_MODULES: dict[str, str] = {
    "nasty7": "companion.games.nasty7",
    "cheat": "companion.games.cheat",
    "finger_guns": "companion.games.finger_guns",
    "cheap_shot": "companion.games.cheap_shot",
    "rummy_battle": "companion.games.rummy_battle",
}


def game_class(name: str) -> type[Game[Any]]:
    """The engine class for a game name. Raises ``UnknownGameError``."""
    module_name = GAME_MODULES.get(name) if isinstance(name, str) else None
    if module_name is None:
        shown = repr(name) if len(repr(name)) <= 40 else repr(name)[:40] + "…"
        raise UnknownGameError(f"unknown game {shown}; known games: {sorted(GAME_MODULES)}")
    module = importlib.import_module(module_name)
    cls = module.GAME
    assert issubclass(cls, Game)
    return cls


def available_games() -> list[str]:
    """Names of the games whose engine module is installed."""
    out = []
    for name, module in GAME_MODULES.items():
        if importlib.util.find_spec(module) is not None:
            out.append(name)
    return out


def make_game(name: str, players: Sequence[str], options: Mapping[str, Any] | None = None,
              *, lexicon: Lexicon = ENGLISH) -> Game[Any]:
    """A game engine set up for one table. Raises ``UnknownGameError``,
    ``IllegalEventError`` (players) or ``OptionError``."""
    return game_class(name)(players, options, lexicon=lexicon)


__all__ = ["GAME_MODULES", "Game", "Match", "available_games", "game_class", "make_game"]
