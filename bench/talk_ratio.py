"""How much talk lies over each call in the room simulation's talk rounds.

Renders the seeded rounds ``bench/arrays.py`` renders (bench/roomsim.py,
talk at 10 and 5 dB) and, for every call, compares at the first microphone
the call's power with the talk's over the call's own span: the calls' and
the talk's room images as ``render_session`` mixes them, the talk scaled as
the session scales it. Prints, per condition and place of the call in its
round (the last row holds every call from the sixth on), the median ratio
in dB and how many calls had more talk than call over them. Checks that
the talk is spread over a round, not gathered at one call.

    python bench/talk_ratio.py --seeds 500-504 --sessions 8
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

# This checkout's bench modules and companion, not the companion the environment
# installed (a worktree's run with another checkout's venv measured that one).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import roomsim

SNR_DB = {"talk10": 10.0, "talk5": 5.0}


def ratios(seeds: list[int], sessions: int, array: str = "usb4"
           ) -> dict[tuple[str, int], list[float]]:
    """Call-to-talk ratios (dB) by (condition, place of the call: 0-5)."""
    images: list[Any] = []
    render = roomsim._render

    def kept(*args: Any, **kwargs: Any) -> Any:
        out = render(*args, **kwargs)
        images.append(out)
        return out

    out: dict[tuple[str, int], list[float]] = defaultdict(list)
    roomsim._render = kept  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory(prefix="talk-ratio-") as folder:
            for condition, snr in SNR_DB.items():
                for seed in seeds:
                    for i in range(sessions):
                        images.clear()
                        rendered = roomsim.render_session(
                            Path(folder), "r", condition=condition, array=array,
                            seed=seed * 1000 + i)
                        calls, talk = images[0][0], images[1][0]
                        rate = roomsim.RATE
                        active = np.zeros(len(calls), dtype=bool)
                        for c in rendered.calls:
                            active[int(c.onset_t * rate):int(c.end_t * rate)] = True
                        level = roomsim._rms(calls[active])
                        talk = talk * (level / roomsim._rms(talk) * 10 ** (-snr / 20))
                        for j, c in enumerate(rendered.calls):
                            a, b = int(c.onset_t * rate), int(c.end_t * rate)
                            ratio = np.mean(calls[a:b] ** 2) / (np.mean(talk[a:b] ** 2) + 1e-12)
                            out[(condition, min(j, 5))].append(10 * float(np.log10(ratio)))
    finally:
        roomsim._render = render  # type: ignore[assignment]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="500-504", help="first-last, as bench/arrays.py's --seed")
    ap.add_argument("--sessions", type=int, default=8, help="rounds per seed and condition")
    args = ap.parse_args()
    first, _, last = args.seeds.partition("-")
    seeds = list(range(int(first), int(last or first) + 1))
    found = ratios(seeds, args.sessions)
    print(f"Call over talk at the first microphone, usb4 rooms, seeds {args.seeds}, "
          f"{args.sessions} rounds each; {platform.machine()}")
    print()
    print("| condition | call in round | calls | median call over talk | calls under 0 dB |")
    print("|---|---|---|---|---|")
    for (condition, place), values in sorted(found.items()):
        v = np.asarray(values)
        print(f"| {condition} | {place + 1}{'+' if place == 5 else ''} | {len(v)} | "
              f"{np.median(v):.1f} dB | {int((v < 0).sum())} |")


if __name__ == "__main__":
    main()
