"""What a button press means in each game (pure: no pins, no clock).

``press_events(game, view, players, t, physical_deck)`` turns one group of
presses (the earliest group of ``board.group_presses``: one press, or a tie
within 1 ms) into the game's events, from the table as it stands when the
presses are applied:

* The Nasty 7 (``rules/nasty7.md``): the player whose turn it is flips, with
  a ``flip`` without a card: with the virtual deck the engine turns the top
  card of their virtual stack; with a physical deck the engine infers the
  card from the call (a tap on the pad or the accusation's question names it
  later). Only with the ``wait_for_tap`` option is a physical deck's press
  returned as a ``PendingFlip``, for the table loop to complete with the
  card tapped on the pad. Anyone else accuses the last caller; tied accusers
  accuse together (``accuse`` with every name), and they are applied before
  a tied flip (the accusation is about the call before it). The last
  caller's own press accuses nobody and is ignored, and every press is
  ignored while the table is asked which card an accused player flipped.
* Cheat (``rules/cheat.md``): while the last claim's challenge window is
  open, a press by anyone but the claimant calls cheat (``challenge``);
  otherwise the player whose turn it is puts cards down (a ``claim`` whose
  count and rank come from speech) and anyone else calls cheat (the engine
  rules a challenge with no claim to challenge). Tied challengers get the
  same ``t``, which the engine rules as a tie.
* Other games: the control page's panel decides (``companion.web.panels``),
  when it has a press handler; otherwise the press means nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.base import Game


@dataclass(frozen=True)
class PendingFlip:
    """A flip of a physical card by ``player`` at ``t``, waiting for its kind
    from the tap pad."""

    player: str
    t: float


Meaning = dict[str, Any] | PendingFlip
"""An event as its JSON object (``t`` included), or a flip awaiting its card."""


def _turn(view: dict[str, Any]) -> str | None:
    turn = view.get("turn")
    return turn if isinstance(turn, str) else None


def _nasty7(view: dict[str, Any], players: Sequence[str], t: float,
            wait_for_tap: bool) -> list[Meaning]:
    if view.get("question"):
        return []  # the accused card must be named first
    turn = _turn(view)
    call = view.get("call") or {}
    caller = call.get("player") if isinstance(call, dict) else None
    accusers = [p for p in players if p != turn and p != caller]
    out: list[Meaning] = []
    if accusers and call:
        out.append({"type": "accuse", "t": t, "by": accusers})
    if turn in players:
        assert turn is not None
        out.append(PendingFlip(player=turn, t=t) if wait_for_tap
                   else {"type": "flip", "t": t, "player": turn})
    return out


def _cheat(view: dict[str, Any], players: Sequence[str], t: float) -> list[Meaning]:
    turn = _turn(view)
    window = view.get("window")
    claimant = window.get("claimant") if isinstance(window, dict) else None
    if claimant is not None:
        # The last claim can still be challenged: any press but the claimant's
        # is a challenge, the next player's too (they may claim once it closes).
        return [{"type": "challenge", "t": t, "player": p} for p in players if p != claimant]
    out: list[Meaning] = [{"type": "challenge", "t": t, "player": p}
                          for p in players if p != turn]
    if turn in players:
        out.append({"type": "claim", "t": t, "player": turn})
    return out


def press_events(game: Game[Any], view: dict[str, Any], players: Sequence[str],
                 t: float) -> list[Meaning]:
    """The events a group of tied presses by ``players`` (names) at ``t``
    stands for, given the game's ``view`` of the table now. Empty when the
    presses mean nothing now (the game is over, the last caller's own press)."""
    if view.get("winner"):
        return []
    if game.name == "nasty7":
        options = game.options
        wait_for_tap = bool(getattr(options, "wait_for_tap", False)) \
            and not bool(getattr(options, "virtual_deck", False))
        return _nasty7(view, players, t, wait_for_tap)
    if game.name == "cheat":
        return _cheat(view, players, t)
    try:
        from companion.web.panels import panel_for
    except ImportError:  # the page is optional
        return []
    panel = panel_for(game.name)
    if panel.press is None:
        return []
    return [{**panel.press(p, view), "t": t} for p in players]
