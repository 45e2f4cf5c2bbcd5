"""The copy of the match the ear steers by (``judge.InOrder``) agrees with
what the replay will rule: a say decoded only after a later event (its
utterance began just before a flip) is put back in its time order, as the
replay's merge by time puts it."""

from __future__ import annotations

import contextlib

from companion.errors import EventError
from companion.events import Event, Say
from companion.games.base import Match
from companion.referee.judge import InOrder, owed
from companion.session import parse_header


def nasty7() -> Match:
    game = parse_header({"game": "nasty7", "players": ["Abby", "Beth", "Carter", "Debbie"]})
    return Match(game)


def flip(game: Match, t: float, player: str) -> Event:
    return game.game.parse_event({"t": t, "type": "flip", "player": player,
                                  "card": "racketeer"})


def test_a_say_heard_after_a_flip_it_began_before_is_put_in_its_place() -> None:
    """A round of the generated far-field set (s017): Beth's call began 12 ms
    before her flip and ran on past it, and was decoded only after the flip
    was applied. A copy that refused it as out of order saw no call from
    Beth, ruled her a hesitation at Carter's flip, and then owed nothing:
    Carter's call was judged with no call owed and became a false mistake.
    The replay applies that say before the flip (talk running into Beth's
    window: never a hesitation), and so does the copy now."""
    start = nasty7()
    events = [flip(start, 0.842, "Abby"), Say(t=1.3, text="one", confidence=1.0, end=1.69),
              flip(start, 2.584, "Beth")]
    late = Say(t=2.572, text="two", confidence=1.0, end=4.0)
    carter = flip(start, 4.331, "Carter")

    naive = start.copy()
    for ev in [*events, late, carter]:
        with contextlib.suppress(EventError):
            naive.apply(ev)  # the say is refused: it is earlier than the flip
    assert owed(naive) is None  # Beth ruled a hesitation; the round started again

    steer = InOrder(start)
    for ev in [*events, late, carter]:
        steer.apply(ev)
    assert owed(steer.match) == ["three"]

    merged = start.copy()  # what the replay does: every event in time order
    for ev in sorted([*events, late, carter], key=lambda e: e.t):
        merged.apply(ev)
    assert steer.match.state == merged.state
