"""How each game shows on the table page: one template and a small registration.

The table page is the same for every game (whose turn, the rulings log with
undo, virtual buttons); the middle of it is the game's *panel*:

* ``board``: a template under ``web/templates/`` drawing the table from the
  engine's ``view`` (stacks, count, pile, hands, scores). It is rendered on
  the server for every update and pushed to every page, so it needs no
  JavaScript of its own.
* ``pad``: an optional template of input buttons (the Nasty 7 tap pad, the
  Cheat reveal entry, a score entry). A button posts an event with
  ``data-event='{"type": ..., ...}'`` (JSON); ``app.js`` sends it to
  ``POST /api/events``. An input named in ``data-fields`` is read into the
  event when the button is pressed (see ``panels/cheat_pad.html``).

To add a game's panel:

1. write ``web/templates/panels/<game>.html`` (the board; it gets ``view``,
   the ``Table.view()`` dict with the engine's view in ``view.state``, and
   ``log``, the recent rulings); optionally ``panels/<game>_pad.html``;
2. register it at the bottom of this module::

       register("finger_guns", Panel(board="panels/finger_guns.html",
                                     pad="panels/finger_guns_pad.html"))

A game without a registration gets ``panels/generic.html`` (the view as a
list), so a new engine is playable from the page at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.web import scoregames

View = dict[str, Any]
"""``Table.view()``: ``game_id``, ``game``, ``players``, ``clock``, ``winner``
and the engine's own view under ``state``."""


def turn_of(view: View) -> str | None:
    """Whose turn it is, from an engine view that has a ``turn`` name (None if not)."""
    turn = view.get("state", {}).get("turn")
    return turn if isinstance(turn, str) else None


def fewest_cards(view: View) -> list[str]:
    """Who is winning when the fewest cards left wins: the players whose
    ``stack`` (or ``hand``) count is smallest, from ``state.players``; nobody
    while all are level."""
    rows = view.get("state", {}).get("players", [])
    counts = {}
    for row in rows:
        if isinstance(row, dict):
            n = row.get("stack", row.get("hand"))
            if isinstance(n, int):
                counts[str(row.get("name"))] = n
    if not counts:
        return []
    least = min(counts.values())
    if all(n == least for n in counts.values()):
        return []  # level: nobody leads
    return [name for name, n in counts.items() if n == least]


PressHandler = Callable[[str, View], dict[str, Any]]
"""A virtual button press by ``player`` -> the event JSON it stands for (no ``t``)."""


@dataclass(frozen=True)
class Panel:
    """One game's part of the table page.

    ``board``/``pad``: template names (see the module docstring).
    ``actor_events``: event types whose missing ``player`` is filled with the
    acting player (the player whose button was just pressed, else the player
    whose turn it is), so a tap on the pad needs no name.
    ``current_player``: whose turn it is, from the view. ``leaders``: who is
    winning now, from the view. ``press``: what a virtual button press means
    when the live table does not decide it (``Hub.press`` absent)."""

    board: str
    pad: str | None = None
    actor_events: frozenset[str] = field(default_factory=frozenset)
    current_player: Callable[[View], str | None] = turn_of
    leaders: Callable[[View], list[str]] = lambda view: []
    press: PressHandler | None = None


PANELS: dict[str, Panel] = {}
GENERIC = Panel(board="panels/generic.html")


def register(game: str, panel: Panel) -> None:
    """Show ``game`` (its engine's ``name``) with ``panel``; replaces any earlier one."""
    PANELS[game] = panel


def panel_for(game: str) -> Panel:
    """The panel registered for ``game``, or the generic one."""
    return PANELS.get(game, GENERIC)


# --- the registrations ---------------------------------------------------------


def _nasty7_press(player: str, view: View) -> dict[str, Any]:
    # The player whose turn it is flips (the top card of a virtual stack); anyone
    # else accuses the last caller (rules/nasty7.md, DESIGN.md).
    if turn_of(view) == player:
        return {"type": "flip", "player": player}
    return {"type": "accuse", "by": [player]}


register("nasty7", Panel(board="panels/nasty7.html", pad="panels/nasty7_pad.html",
                         actor_events=frozenset({"flip"}), leaders=fewest_cards,
                         press=_nasty7_press))


def _cheat_press(player: str, view: View) -> dict[str, Any]:
    # Any press during a claim's window is a challenge (rules/cheat.md).
    return {"type": "challenge", "player": player}


register("cheat", Panel(board="panels/cheat.html", pad="panels/cheat_pad.html",
                        actor_events=frozenset({"claim"}), leaders=fewest_cards,
                        press=_cheat_press))


# The scorekeeping games (issue 7): score entry in the pad, picks on each phone.
register("finger_guns", Panel(board="panels/finger_guns.html", pad="panels/finger_guns_pad.html",
                              leaders=scoregames.most_lives))
register("cheap_shot", Panel(board="panels/cheap_shot.html", pad="panels/cheap_shot_pad.html",
                             leaders=scoregames.most_points))
register("rummy_battle", Panel(board="panels/rummy_battle.html",
                               pad="panels/rummy_battle_pad.html",
                               leaders=scoregames.most_points))
