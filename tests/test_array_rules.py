"""Who spoke, in the rules (issue 18): a ``say`` with the seat the array heard
it from, the session header's microphones and seats, and the shipped arrays.

Engine-level: the says are scripted with their ``seat``; the ear that gives
them is tested on simulated rooms in tests/test_array_ear.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.audio.array import ArrayError, load_array, shipped_arrays
from companion.errors import SessionError
from companion.games import make_game
from companion.games.base import Match
from companion.session import dump_session, parse_lines

FOUR = ["Abby", "Beth", "Carter", "Debbie"]
USB4 = [[0.02263, 0.02263, 0.0], [-0.02263, 0.02263, 0.0],
        [-0.02263, -0.02263, 0.0], [0.02263, -0.02263, 0.0]]
SEATS = {"Abby": 0.0, "Beth": 90.0, "Carter": 180.0, "Debbie": 270.0}


def play(game_id: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    game = make_game(game_id, FOUR, {})
    match: Match[Any] = Match(game)
    out: list[dict[str, Any]] = []
    for obj in events:
        out.extend(r.to_dict() for r in match.apply(game.parse_event(obj)))
    return out


def flip(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "flip", "player": player, "card": "racketeer"}


def say(t: float, text: str, seat: str | None = None, end: float | None = None,
        confidence: float = 1.0) -> dict[str, Any]:
    out: dict[str, Any] = {"t": t, "type": "say", "text": text, "end": end or t + 0.4,
                           "confidence": confidence}
    if seat is not None:
        out["seat"] = seat
    return out


# -- The Nasty 7 ------------------------------------------------------------------------

def test_another_player_saying_the_number_first_is_not_the_callers_call() -> None:
    rulings = play("nasty7", [flip(1.0, "Abby"), say(1.6, "one", "Abby"),
                              flip(3.0, "Beth"), say(3.3, "two", seat="Carter"),
                              say(4.1, "two", seat="Beth")])
    oks = [r for r in rulings if r["type"] == "call_ok"]
    assert [(r["player"], r["t"]) for r in oks] == [("Abby", 1.6), ("Beth", 4.1)]
    assert not [r for r in rulings if r["type"] == "mistake"]


def test_without_a_seat_the_first_voice_is_the_call_as_before() -> None:
    rulings = play("nasty7", [flip(1.0, "Abby"), say(1.6, "one"),
                              flip(3.0, "Beth"), say(3.3, "two"), say(4.1, "two")])
    assert [(r["player"], r["t"]) for r in rulings if r["type"] == "call_ok"] == [
        ("Abby", 1.6), ("Beth", 3.3)]


def test_a_wrong_number_from_another_seat_is_no_mistake_of_the_caller() -> None:
    rulings = play("nasty7", [flip(1.0, "Abby"), say(1.5, "five", seat="Debbie"),
                              say(2.0, "one", seat="Abby")])
    assert [r["type"] for r in rulings] == ["call_ok"]


def test_talk_from_another_seat_is_table_talk_for_the_deadline() -> None:
    # As with table talk: while another seat talks the window stays open, and
    # a call never heard from the caller's seat is left unsure, never ruled a
    # hesitation (the caller may have been heard from the wrong seat).
    rulings = play("nasty7", [flip(1.0, "Abby"), say(1.5, "five", seat="Debbie", end=4.3),
                              {"t": 5.0, "type": "tick"}])
    assert rulings == []
    rulings = play("nasty7", [flip(1.0, "Abby"), say(1.5, "five", seat="Debbie", end=4.3),
                              {"t": 7.5, "type": "tick"}])
    assert not {"mistake", "call_ok"} & {r["type"] for r in rulings}


def test_an_unsure_voice_from_the_callers_seat_is_the_onset_of_the_call() -> None:
    # Abby's call, heard in time but as a far-from-sure "three" (what the ear
    # gives talk), then a sure "one" from her seat after the 3 seconds (a
    # voice misheard in the talk, as in the simulated room). Heard from her
    # own seat the first voice is hers: her call began in time, no
    # hesitation. Without a seat the first voice may be anyone's chatter,
    # and the sure call after the limit is a hesitation, as before.
    events = [flip(1.0, "Abby"), say(1.6, "three", end=1.9, confidence=0.1),
              say(4.2, "one")]
    seated = [dict(e, seat="Abby") if e["type"] == "say" else e for e in events]
    assert [(r["type"], r["player"]) for r in play("nasty7", seated)] == [("call_ok", "Abby")]
    unseated = play("nasty7", events)
    assert [(r["type"], r["kind"]) for r in unseated if r["type"] in ("call_ok", "mistake")
            ] == [("mistake", "hesitation")]


def test_the_caller_heard_from_another_seat_only_is_never_taken() -> None:
    rulings = play("nasty7", [flip(1.0, "Abby"), say(1.5, "one", seat="Beth"),
                              {"t": 9.0, "type": "tick"}])
    assert "call_ok" not in [r["type"] for r in rulings]


# -- Cheat ------------------------------------------------------------------------------

def claim(t: float, player: str, count: int = 1, rank: str = "A") -> dict[str, Any]:
    return {"t": t, "type": "claim", "player": player, "count": count, "rank": rank}


def test_a_spoken_cheat_from_a_seat_is_that_players_challenge() -> None:
    rulings = play("cheat", [claim(1.0, "Abby"), say(2.0, "cheat", seat="Carter")])
    opened = [r for r in rulings if r["type"] == "challenge"]
    assert [(r["player"], r["claimant"]) for r in opened] == [("Carter", "Abby")]
    assert "challenge_heard" not in [r["type"] for r in rulings]


def test_a_spoken_cheat_and_a_press_are_ordered_by_onset_and_edge() -> None:
    # The table applies inputs in time order: Beth's spoken onset (2.0) came
    # before Debbie's press edge (2.1), so Beth's challenge stands.
    rulings = play("cheat", [claim(1.0, "Abby"), say(2.0, "cheat", seat="Beth"),
                             {"t": 2.1, "type": "challenge", "player": "Debbie"}])
    assert [r["player"] for r in rulings if r["type"] == "challenge"] == ["Beth"]
    ignored = [r for r in rulings if r["type"] == "challenge_ignored"]
    assert [(r["player"], r["reason"]) for r in ignored] == [("Debbie", "not_first")]
    rulings = play("cheat", [claim(1.0, "Abby"),
                             {"t": 1.9, "type": "challenge", "player": "Debbie"},
                             say(2.0, "cheat", seat="Beth")])
    assert [r["player"] for r in rulings if r["type"] == "challenge"] == ["Debbie"]


def test_a_spoken_cheat_from_the_claimants_own_seat_does_not_count() -> None:
    rulings = play("cheat", [claim(1.0, "Abby"), say(2.0, "cheat", seat="Abby")])
    assert [(r["type"], r.get("reason")) for r in rulings][-1] == (
        "challenge_ignored", "own_claim")


def test_a_claim_is_taken_only_from_the_claimants_seat() -> None:
    rulings = play("cheat", [say(1.0, "two kings", seat="Carter")])
    assert "claim_ok" not in [r["type"] for r in rulings]
    rulings = play("cheat", [say(1.0, "two kings", seat="Abby")])
    assert [(r["type"], r["player"]) for r in rulings if r["type"] == "claim_ok"] == [
        ("claim_ok", "Abby")]


# -- The session format -------------------------------------------------------------------

def header(**extra: Any) -> str:
    return json.dumps({"game": "nasty7", "players": FOUR, **extra})


def test_a_header_with_microphones_and_seats_round_trips() -> None:
    session = parse_lines([header(microphones=USB4, seats=SEATS),
                           json.dumps(say(1.0, "one", seat="Beth"))])
    assert session.seating is not None
    assert session.seating.seats == SEATS
    assert session.events[0].seat == "Beth"  # type: ignore[attr-defined]
    again = parse_lines(dump_session(session.game, session.events,
                                     seating=session.seating).splitlines())
    assert again.seating == session.seating
    assert again.events == session.events


@pytest.mark.parametrize(("extra", "field"), [
    ({"microphones": USB4}, "seats"),
    ({"seats": SEATS}, "microphones"),
    ({"microphones": [[0.1, 0.0, 0.0]], "seats": SEATS}, "microphones"),
    ({"microphones": [[3.2, 0.0, 0.0], [-3.2, 0.0, 0.0]], "seats": SEATS}, "microphones"),
    ({"microphones": USB4, "seats": {**SEATS, "Zed": 10.0}}, "seats"),
    ({"microphones": USB4, "seats": {"Abby": 0.0}}, "seats"),
    ({"microphones": USB4, "seats": {**SEATS, "Abby": "north"}}, "seats"),
])
def test_a_bad_array_header_names_its_field(extra: dict[str, Any], field: str) -> None:
    with pytest.raises(SessionError) as err:
        parse_lines([header(**extra)])
    assert err.value.field == field
    assert err.value.line == 1


def test_a_say_from_an_unknown_seat_is_refused() -> None:
    with pytest.raises(SessionError) as err:
        parse_lines([header(), json.dumps(say(1.0, "one", seat="Zed"))])
    assert (err.value.line, err.value.field) == (2, "seat")


def test_replay_refuses_a_bad_array_header_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(header(microphones=USB4, seats={"Abby": 0.0}) + "\n")
    run = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert "line 1" in run.stderr and "seats" in run.stderr
    assert "Traceback" not in run.stderr


# -- The shipped arrays -------------------------------------------------------------------

def test_the_shipped_arrays_are_the_4_and_6_microphone_circles() -> None:
    arrays = shipped_arrays()
    assert set(arrays) == {"usb4", "hat6"}
    for name, size, radius in (("usb4", 4, 0.032), ("hat6", 6, 0.0463)):
        a = arrays[name]
        assert a.size == size == len(a.channels)
        radii = [float(sum(c * c for c in p) ** 0.5) for p in a.positions]
        assert radii == pytest.approx([radius] * size, abs=2e-4)


def test_an_array_file_or_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('[array]\nmicrophones = [[0.03, 0.0, 0.0], [-0.03, 0.0, 0.0]]\n')
    assert load_array(str(path)).channels == (0, 1)
    with pytest.raises(ArrayError, match="usb4"):
        load_array("nonesuch")
    path.write_text('[array]\nmicrophones = [[0.03, 0.0, 0.0], [-0.03, 0.0, 0.0]]\n'
                    'channels = [0]\n')
    with pytest.raises(ArrayError) as err:
        load_array(str(path))
    assert err.value.field == "channels"


def test_replay_refuses_a_wav_without_one_channel_per_microphone(tmp_path: Path) -> None:
    import wave

    with wave.open(str(tmp_path / "mono.wav"), "wb") as wf:
        wf.setnchannels(1)
        wf.setsampwidth(2)
        wf.setframerate(16000)
        wf.writeframes(bytes(3200))
    path = tmp_path / "s.jsonl"
    path.write_text(header(microphones=USB4, seats=SEATS) + "\n"
                    + json.dumps({"t": 0.0, "type": "audio", "path": "mono.wav"}) + "\n")
    run = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert "line 2" in run.stderr and "1 channels" in run.stderr and "need 4" in run.stderr
    assert "Traceback" not in run.stderr
