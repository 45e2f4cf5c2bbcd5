"""Finding a PortAudio device and a sample rate it takes (sounddevice).

Shared by the microphone (input) and the speaker (output)."""

from __future__ import annotations

from typing import Any, Literal

from companion.errors import CompanionError


def probe_device(device: int | str | None, kind: Literal["input", "output"],
                 preferred_rate: int, error: type[CompanionError],
                 missing: str) -> tuple[int, str]:
    """``(rate_hz, name)`` of a mono 16-bit ``kind`` device: ``preferred_rate``
    if the device takes it, else its default rate.

    Raises ``error`` when PortAudio cannot be loaded, or with ``missing``
    (e.g. "no microphone") when there is no such device."""
    try:
        import sounddevice as sd
    except OSError as exc:
        raise error(f"PortAudio cannot be loaded: {exc}") from None
    try:
        info: Any = sd.query_devices(device, kind=kind)
    except (ValueError, sd.PortAudioError) as exc:
        raise error(f"{missing} ({exc})") from None
    check = sd.check_input_settings if kind == "input" else sd.check_output_settings
    rate = int(info["default_samplerate"])
    try:
        check(device=device, channels=1, dtype="int16", samplerate=preferred_rate)
        rate = preferred_rate
    except (ValueError, sd.PortAudioError):
        pass
    return rate, str(info["name"])
