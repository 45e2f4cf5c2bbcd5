"""What the settings page reports: audio devices, the input level, the voice,
the recognizer and the speech model.

Everything is read, never opened: the device list comes from
``sounddevice.query_devices()`` (PortAudio's list; no stream is started), the
level from the live table's microphone when it has one (``hub.microphone``),
and the recognizer and voice from what the hub holds. Parts the hub does not
have are reported as ``None``, and the page says "none".
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.web.control import Control

log = logging.getLogger(__name__)


def device_status(control: Control) -> list[dict[str, Any]]:
    """PortAudio's devices: ``index``, ``name``, ``inputs`` (channels),
    ``rate`` (default sample rate, Hz), ``selected``. Empty if PortAudio
    cannot be loaded."""
    try:
        import sounddevice as sd

        devices = sd.query_devices()
    except (OSError, ImportError) as exc:
        log.warning("cannot list audio devices: %s", exc)
        return []
    chosen = selected_device(control)
    out = []
    for dev in devices:
        out.append({"index": int(dev["index"]), "name": str(dev["name"]),
                    "inputs": int(dev["max_input_channels"]),
                    "rate": float(dev["default_samplerate"]),
                    "selected": chosen is not None and int(dev["index"]) == chosen})
    return out


def selected_device(control: Control) -> int | None:
    """The input device in use: the microphone's, else the page's choice."""
    mic = getattr(control.hub, "microphone", None)
    device = getattr(mic, "device", None)
    if isinstance(device, int):
        return device
    chosen = control.settings.get("input_device")
    return chosen if isinstance(chosen, int) else None


def level_status(control: Control) -> dict[str, Any]:
    """``{"level_db": dBFS or None, "device": index or None}`` from the live microphone."""
    mic = getattr(control.hub, "microphone", None)
    level = getattr(mic, "level_db", None)
    if callable(level):
        level = level()
    if not isinstance(level, int | float) or not math.isfinite(level):
        level = None
    return {"level_db": level, "device": selected_device(control)}


def _describe(obj: Any) -> dict[str, Any] | None:
    if obj is None:
        return None
    out: dict[str, Any] = {"name": str(getattr(obj, "name", type(obj).__name__))}
    for attr in ("status", "model", "model_status", "voice", "language", "sample_rate"):
        value = getattr(obj, attr, None)
        if callable(value):
            try:
                value = value()
            except Exception as exc:  # a status probe must not break the page
                value = f"unavailable: {exc}"
        if value is not None:
            out[attr] = value if isinstance(value, int | float | bool) else str(value)
    return out


def speech_models() -> dict[str, Any]:
    """The referee's view of speech models (``companion.referee``): the
    backend it would pick now and why, and each downloadable model with its
    folder (``None`` when not installed). pocketsphinx's English model ships
    inside its package and is always there."""
    out: dict[str, Any] = {}
    try:
        from companion.referee.models import status
        from companion.referee.recognizer import pick_backend

        backend, notice = pick_backend()
        out["backend"] = backend
        if notice:
            out["notice"] = notice
        for spec, path in status():
            out[f"{spec.language}: {spec.name}"] = str(path) if path else "not installed"
        out["pocketsphinx (bundled)"] = "installed"
    except Exception as exc:  # the page shows the fault instead of failing
        out["error"] = str(exc)
    return out


def settings_status(control: Control) -> dict[str, Any]:
    """The voice pack, the speaker, the recognizer and the speech models."""
    hub = control.hub
    pack = hub.pack
    return {
        "voice_pack": {"language": pack.language, "name": pack.name,
                       "espeak_voice": pack.espeak_voice},
        "speaker": _describe(getattr(hub, "speaker", None)),
        "recognizer": _describe(getattr(hub, "recognizer", None)),
        "speech_models": speech_models(),
        "input_device": selected_device(control),
        "microphone": _describe(getattr(hub, "microphone", None)),
    }


def health(control: Control) -> list[dict[str, str]]:
    """The companion's health in players' words, for the line at the top of
    the table page: one ``{"part", "state", "text"}`` per part, ``state``
    ``ok``, ``off`` (working without it) or ``sim`` (simulated):

    * microphone: open, unplugged, or none;
    * recognizer (speech checking): calls checked by ear, or off;
    * speaker: rulings spoken, or shown only on the page;
    * buttons: wired, simulated (gpiozero's mock pins: the page's buttons
      stand in), or none (the page's buttons only)."""
    hub = control.hub
    mic = getattr(hub, "microphone", None)
    recognizer = getattr(hub, "recognizer", None)
    live = getattr(hub, "live", None)
    checking = getattr(live, "speech_checking", None)
    if checking is None:
        checking = recognizer is not None and mic is not None and not getattr(mic, "lost", False)
    out = []
    if mic is None:
        out.append({"part": "microphone", "state": "off", "text": "No microphone"})
    elif getattr(mic, "lost", False):
        out.append({"part": "microphone", "state": "off", "text": "Microphone unplugged"})
    else:
        out.append({"part": "microphone", "state": "ok", "text": "Microphone on"})
    out.append({"part": "recognizer", "state": "ok" if checking else "off",
                "text": "calls checked by ear" if checking else "speech checking off"})
    speaker = getattr(hub, "speaker", None)
    if speaker is not None and getattr(speaker, "available", False):
        out.append({"part": "speaker", "state": "ok", "text": "speaker on"})
    else:
        out.append({"part": "speaker", "state": "off", "text": "no speaker"})
    board = getattr(live, "board", None)
    if board is None:
        out.append({"part": "buttons", "state": "sim",
                    "text": "no buttons: use the page's"})
    elif type(getattr(board, "factory", None)).__name__ == "MockFactory":
        out.append({"part": "buttons", "state": "sim",
                    "text": "buttons simulated: use the page's"})
    else:
        out.append({"part": "buttons", "state": "ok", "text": "buttons wired"})
    return out
