"""Who is ahead in the scorekeeping games, for the table page's status line.

Pure functions on ``Table.view()`` (see ``panels.View``), registered with the
Finger Guns, Cheap Shot and Rummy Battle panels in ``panels.py``.
"""

from __future__ import annotations

from typing import Any

View = dict[str, Any]


def _top(figures: dict[str, int]) -> list[str]:
    if not figures:
        return []
    best = max(figures.values())
    return [name for name, value in figures.items() if value == best]


def most_lives(view: View) -> list[str]:
    """Finger Guns: the living players with the most life cards."""
    rows = view.get("state", {}).get("players", [])
    return _top({str(r["name"]): int(r["lives"]) for r in rows
                 if isinstance(r, dict) and not r.get("dead")})


def most_points(view: View) -> list[str]:
    """Cheap Shot and Rummy Battle: the highest totals (none before any score)."""
    totals = view.get("state", {}).get("totals", {})
    if not isinstance(totals, dict) or not any(totals.values()):
        return []
    return _top({str(k): int(v) for k, v in totals.items()})
