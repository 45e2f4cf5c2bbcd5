"""Speech models on disk: where they live, and ``companion models install``.

vosk's English model is in no package registry, so it is downloaded once
from its official address (DESIGN.md, Speech). The download streams to a
temporary file inside the models folder with a progress bar (tqdm), its
size and sha256 are checked, and the zip is unpacked into a temporary folder
that is renamed into place in one step: a failed or interrupted download
leaves nothing half-installed (only the finished folder ever has the model's
name).

The models folder: ``$COMPANION_MODELS``, else ``$XDG_DATA_HOME/companion/models``
(``~/.local/share/companion/models``).
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.errors import ModelError

ENV_VAR = "COMPANION_MODELS"
"""The environment variable that overrides the models folder."""


@dataclass(frozen=True)
class ModelSpec:
    """A downloadable model. ``language``: the voice pack it serves.
    ``name``: its folder name (the zip's top folder). ``url``, ``sha256``,
    ``size`` (bytes): where it comes from and what it must be."""

    language: str
    name: str
    url: str
    sha256: str
    size: int


MODELS: dict[str, ModelSpec] = {
    "en": ModelSpec(
        language="en",
        name="vosk-model-small-en-us-0.15",
        url="https://alphacephei.com/vosk/models/vosk-model-small-en-us-0.15.zip",
        sha256="30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498",
        size=41_205_931,
    ),
}
"""The models ``companion models install LANG`` knows, by language."""


def models_dir() -> Path:
    """The models folder (it may not exist yet)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "companion" / "models"


def installed_path(spec: ModelSpec, root: Path | None = None) -> Path | None:
    """The model's folder if it is installed (complete), else None."""
    path = (root or models_dir()) / spec.name
    return path if (path / "am").is_dir() or (path / "conf").is_dir() else None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(url: str, dest: Path, *, size: int | None, progress: bool = True,
             timeout: float = 30.0) -> None:
    """Stream ``url`` into ``dest`` with a tqdm progress bar. Raises
    ``ModelError`` if the transfer fails or stops short of ``size`` bytes."""
    from tqdm import tqdm

    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            total = size or int(response.headers.get("Content-Length") or 0) or None
            with dest.open("wb") as out, tqdm(total=total, unit="B", unit_scale=True,
                                              unit_divisor=1024, disable=not progress,
                                              desc=dest.name.split(".part")[0]) as bar:
                while chunk := response.read(1 << 16):
                    out.write(chunk)
                    bar.update(len(chunk))
    except urllib.error.HTTPError as exc:
        exc.close()
        raise ModelError(f"downloading {url!r} failed: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
        raise ModelError(f"downloading {url!r} failed: {exc!r}") from None
    got = dest.stat().st_size
    if size is not None and got != size:
        raise ModelError(f"downloading {url!r} stopped at {got} of {size} bytes")


def install(spec: ModelSpec, *, root: Path | None = None, progress: bool = True,
            say: Callable[[str], None] = print) -> Path:
    """Download, check and unpack ``spec`` into the models folder; return
    the model's folder. Already installed: returns it at once.

    Raises ``ModelError`` (download failed or interrupted, wrong size or
    sha256, not a zip, no model inside); nothing is left behind then."""
    root = root or models_dir()
    done = installed_path(spec, root)
    if done is not None:
        say(f"{spec.name} is already installed in {done}")
        return done
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(f"cannot create the models folder {str(root)!r}: {exc}") from None
    work = Path(tempfile.mkdtemp(prefix=f".{spec.name}.", dir=root))
    try:
        archive = work / f"{spec.name}.zip.part"
        download(spec.url, archive, size=spec.size, progress=progress)
        digest = _sha256(archive)
        if digest != spec.sha256:
            raise ModelError(f"{spec.name}: sha256 is {digest}, expected {spec.sha256}; "
                             "the download is corrupt or not the official file")
        unpacked = work / "unpacked"
        try:
            with zipfile.ZipFile(archive) as zf:
                zf.extractall(unpacked)
        except (zipfile.BadZipFile, OSError) as exc:
            raise ModelError(f"{spec.name}: cannot unpack the zip: {exc}") from None
        inner = unpacked / spec.name
        if not inner.is_dir():
            entries = [p for p in unpacked.iterdir() if p.is_dir()]
            if len(entries) != 1:
                raise ModelError(f"{spec.name}: the zip does not hold one model folder")
            inner = entries[0]
        if not ((inner / "am").is_dir() or (inner / "conf").is_dir()):
            raise ModelError(f"{spec.name}: the zip holds no vosk model (no am/ or conf/)")
        target = root / spec.name
        if target.exists():
            shutil.rmtree(target)  # an incomplete leftover from elsewhere
        os.replace(inner, target)  # one atomic step within the same folder
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    shutil.rmtree(work, ignore_errors=True)
    say(f"installed {spec.name} in {target}")
    return target


def status(root: Path | None = None) -> list[tuple[ModelSpec, Path | None]]:
    """Every known model and its folder (None when not installed)."""
    return [(spec, installed_path(spec, root)) for spec in MODELS.values()]
