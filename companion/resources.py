"""Where the installed data lives: voice packs, page files, the default pinout.

In a wheel they sit in ``companion/_data/`` (``pyproject.toml`` force-includes
the top-level ``voices/``, ``web/`` and ``hardware/pinout.toml``); in a source
checkout or an editable install they are read from the checkout itself.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent


def data_path(*parts: str) -> Path:
    """The path of an installed data file or folder, e.g. ``data_path("voices", "en")``.

    Raises ``FileNotFoundError`` naming both places looked in."""
    for base in (_PACKAGE / "_data", _CHECKOUT):
        candidate = base.joinpath(*parts)
        if candidate.exists():
            return candidate
    raise FileNotFoundError(
        f"{'/'.join(parts)!r} is in neither {str(_PACKAGE / '_data')!r} nor {str(_CHECKOUT)!r}")
