"""The setup page's words: each option of each game as a table chooses it.

The options' docstrings are written for programmers (units, sources,
measurements); the page shows these words instead: a short label and one
line of plain help per option, and whether the option is a house rule a
table chooses (shown) or a setting of the ear (folded under "Advanced").
Every option of every installed game must have an entry here
(``tests/test_web_setup_words.py`` enumerates them from the code), so no
docstring, module constant or benchmark figure reaches the page.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.web.optionform import OptionField, option_fields


@dataclass(frozen=True)
class Words:
    """``label`` and ``help`` for players; ``advanced``: folded away."""

    label: str
    help: str = ""
    advanced: bool = False


def _deck(kind: str) -> Words:
    return Words(f"{kind} cards in the deck", "For a deck of your own making.", advanced=True)


WORDS: dict[str, dict[str, Words]] = {
    "nasty7": {
        "first_player": Words("First player", "Who starts. The rulebook says the youngest."),
        "nasty": Words("Nasty rules", "From the second round, the round's first phone "
                       "player picks the sound to make."),
        "even_more_nasty": Words("Even more nasty", "A starting player whose first card "
                                 "is a mistake also takes a card from each opponent."),
        "younger": Words("Younger players' version", "No twin cards."),
        "hesitation": Words("Seconds to call", "How long a player may wait after the flip "
                            "before it is too slow. The rulebook says 3."),
        "virtual_deck": Words("The companion deals", "No cards on the table: the companion "
                              "shuffles and says each card as it is flipped."),
        "wait_for_tap": Words("Wait for the card on a phone", "With real cards: a button "
                              "press waits for someone to tap the card's kind instead of "
                              "the companion telling it from the call.", advanced=True),
        "composition.racketeer": _deck("Racketeer"),
        "composition.twin_racketeer": _deck("Twin racketeer"),
        "composition.phone": _deck("Phone"),
        "composition.twin_phone": _deck("Twin phone"),
        "composition.gun": _deck("Gun"),
        "seed": Words("Shuffle number", "The same number deals the same cards "
                      "(when the companion deals).", advanced=True),
        "min_confidence": Words("How sure the ear must be to rule", "From 0 to 1. Higher: "
                                "fewer calls ruled by ear, and fewer wrong rulings.",
                                advanced=True),
        "talk_confidence": Words("Ignore words heard less surely than", "From 0 to 1. Words "
                                 "below this are taken for table talk.", advanced=True),
    },
    "cheat": {
        "decks": Words("Decks", "Empty: one deck for 3 to 6 players, two for 7 to 10."),
        "challenge_window": Words("Seconds to call cheat", "How long after a claim it can "
                                  "be challenged, unless the next claim comes first."),
        "min_confidence": Words("How sure the ear must be to act", "From 0 to 1. Words heard "
                                "less surely are ignored.", advanced=True),
        "claim_confidence": Words("How sure a claim must be", "From 0 to 1. A claim heard "
                                  "less surely is asked again.", advanced=True),
        "breach_confidence": Words("How sure a wrong claim must be", "From 0 to 1. Below "
                                   "this, a claim that breaks the rules is asked again "
                                   "instead of refused.", advanced=True),
        "ask_confidence": Words("Ask again above", "From 0 to 1. Below this, the words are "
                                "taken for table talk.", advanced=True),
        "echo_confidence": Words("Say a claim back below", "From 0 to 1. A claim heard less "
                                 "surely than this is said back, so a mistake is caught.",
                                 advanced=True),
    },
    "finger_guns": {
        "mode": Words("Mode", "Quickshot: the game ends when someone dies. Longshot: play "
                      "until one player is left."),
        "cards": Words("Life cards", "Each player's cards: A3 is an attack of 3, S2 a "
                       "shield of 2."),
        "hands": Words("Cards per player", "Only when some players hold other cards than "
                       "the rest.", advanced=True),
        "gun_gang": Words("Gun Gang", "A shield is shared with the player pointed at."),
        "gun_gang_point_back": Words("Gun Gang: pointing back", "Pointing back with an "
                                     "attack cancels the shared shield."),
        "flipping_fingers": Words("Flipping Fingers", "Half the cards start face down; "
                                  "every second round picks the card first."),
        "pick_discards": Words("Players choose the cards they lose", "Otherwise the "
                               "companion takes the chosen card, then the lowest."),
    },
    "cheap_shot": {
        "target_points": Words("Points to win", "Empty: 100 for 2 or 3 players, 75 for 4 "
                               "to 6."),
        "three_hands": Words("Short game", "The highest total after three hands wins."),
    },
    "rummy_battle": {
        "rounds": Words("Rounds", "The rulebook says 5."),
    },
}


def setup_fields(game: str, options_type: type) -> tuple[list[OptionField], list[OptionField]]:
    """The house rules and the advanced settings of ``game``, each an
    ``OptionField`` with the players' label and help. An option without
    words here is advanced and shown by its name alone (the test above
    fails for it)."""
    house: list[OptionField] = []
    advanced: list[OptionField] = []
    for f in option_fields(options_type):
        words = WORDS.get(game, {}).get(f.name)
        if words is None:
            advanced.append(replace(f, help=""))
            continue
        field = replace(f, label=words.label, help=words.help)
        (advanced if words.advanced else house).append(field)
    return house, advanced
