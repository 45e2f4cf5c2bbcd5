"""Each player's own acoustic model, adapted from their enrolled takes.

The bundled pocketsphinx model (US English, 16,000 Hz) was trained on many
voices and on full-band audio; a player's own voice, through the table's
microphone, fits it less well (on the development speakers' 8 kHz
recordings "six" is mostly heard as another number). Speaker adaptation
moves the model towards the player: the Gaussians' means and variances are
re-estimated from the player's takes by maximum a posteriori (MAP)
estimation, which stays near the speaker-independent model where the takes
say little (Gauvain and Lee, "Maximum a posteriori estimation for
multivariate Gaussian mixture observations of Markov chains", IEEE Trans.
Speech and Audio Processing 2(2), 1994). It is done as the CMU Sphinx
adaptation tutorial does it, by CMU Sphinx's own tools (Debian packages
``sphinxtrain``: ``bw``, ``map_adapt``; ``sphinxbase-utils``: ``sphinx_fe``;
``pocketsphinx``: ``pocketsphinx_mdef_convert``): features of each take,
Baum-Welch counts against the take's word, then MAP. Each take is used
clean and in white noise (``NOISY_COPIES_DB``), so that the model fits the
player in noise as well.

The ear hears an utterance it left unsure once more with the caller's
adapted model (``companion.referee.stream.Listener``); the model's mixture
weights (``sendump``) and everything else stay the bundled model's.
Adapted models are kept in a folder (``cache_dir``) under a digest of the
takes and their words, so a player's model is built once, by one process
at a time (a lock file beside it; ``companion.made_once``). A player who
records their takes again gets a new model; the live table keeps the
``KEEP_MODELS`` used most recently and removes the rest (``prune``).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import logging
import os
import re
import shutil
import struct
import subprocess
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from companion.errors import CompanionError
from companion.made_once import making, remove
from companion.referee.cmudict import CmuDictionary
from companion.referee.templates import in_noise

log = logging.getLogger(__name__)

RATE = 16000
"""Sample rate (Hz) of the takes and of the model."""
PAD_S = 0.3
"""Seconds of the noise floor put before and after each take (the model's
silence at a word's edges)."""
FLOOR_DBFS = -60.0
"""Level (dBFS, RMS) of the seeded white floor under each take: the same
floor the recognizer adds before decoding (``SphinxSettings.floor_dbfs``),
so that digital silence does not throw the features off."""
NOISY_COPIES_DB = (20.0, 10.0, 5.0)
"""Each take is also adapted on in seeded white noise at these SNRs (dB,
against the take's loud part; ``templates.in_noise``), so that the model
hears the player in noise too (multi-condition training). Chosen on the
development split: bench/RESULTS.md, "Adapted in noise too"."""
ENV_VAR = "COMPANION_CACHE"
"""Overrides the folder adapted models are kept in (``cache_dir``)."""
SPHINXTRAIN = Path("/usr/lib/sphinxtrain")
"""Where Debian's ``sphinxtrain`` puts ``bw`` and ``map_adapt``."""
KEEP_MODELS = 32
"""How many players' adapted models the live table keeps in its cache
(``Adapter(keep=...)``): those used most recently. A model holds about
1.7 MB of its own (its means and variances; its other files are links to
the bundled model's copy), and every new set of a player's takes is a new
model, so without a bound the cache only grows. 32 covers the regulars of
a few tables; a model removed is built again, in seconds, the next time
its takes are used."""
MODEL_NAME = re.compile(r"[0-9a-f]{20}")
"""The name of an adapted model's folder: its ``takes_digest``."""


class AdaptationError(CompanionError, RuntimeError):
    """A model could not be adapted: a tool is missing or failed."""


def background_builders() -> int:
    """How many models the live table builds at once: the cores left over
    once the ear has one and the page, the speaker and the buttons another
    (``os.cpu_count``), at least one and at most two (a Raspberry Pi 4 or
    5 has four cores: two builds at once)."""
    return max(1, min(2, (os.cpu_count() or 1) - 2))


def cache_dir() -> Path:
    """The folder adapted models are kept in: ``$COMPANION_CACHE/adapted``,
    else ``$XDG_CACHE_HOME/companion/adapted`` (``~/.cache`` without it)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser() / "adapted"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "companion" / "adapted"


@dataclass(frozen=True)
class Tools:
    """The programs adaptation runs (paths)."""

    sphinx_fe: Path
    mdef_convert: Path
    bw: Path
    map_adapt: Path

    @classmethod
    def find(cls, sphinxtrain: Path = SPHINXTRAIN) -> Tools:
        """The tools on ``PATH`` and in ``sphinxtrain``. Raises
        ``AdaptationError`` naming the Debian package of one that is missing."""
        found: dict[str, Path] = {}
        for key, name, package in (("sphinx_fe", "sphinx_fe", "sphinxbase-utils"),
                                   ("mdef_convert", "pocketsphinx_mdef_convert", "pocketsphinx")):
            where = shutil.which(name)
            if where is None:
                raise AdaptationError(f"{name} is not installed (Debian package {package})")
            found[key] = Path(where)
        for key in ("bw", "map_adapt"):
            path = sphinxtrain / key
            if not os.access(path, os.X_OK):
                raise AdaptationError(f"{path} is not installed (Debian package sphinxtrain)")
            found[key] = path
        return cls(**found)


def bundled_model() -> Path:
    """The folder of pocketsphinx's bundled US English acoustic model."""
    import pocketsphinx

    return Path(pocketsphinx.get_model_path("en-us/en-us"))


def write_mixture_weights(sendump: Path, out: Path) -> None:
    """Write the mixture weights held in pocketsphinx's quantized ``sendump``
    (each weight a byte: its negated log base 1.0001, shifted right by the
    header's ``mixw_shift``; pocketsphinx's ``ptm_mgau.c`` reads it) as a
    Sphinx-III ``mixture_weights`` file of 32-bit floats (senones x streams
    x codewords), which ``bw`` and ``map_adapt`` read. Raises ``OSError``
    if a file cannot be read or written, ``AdaptationError`` if
    ``sendump`` is not one (a clustered one is not supported)."""
    data = sendump.read_bytes()
    pos = 0

    def word() -> int:
        nonlocal pos
        if pos + 4 > len(data):
            raise AdaptationError(f"{sendump} ends early")
        (value,) = struct.unpack_from("<I", data, pos)
        pos += 4
        return int(value)

    header: dict[str, str] = {}
    title = True
    while (size := word()) != 0:
        text = data[pos:pos + size - 1].decode("ascii", "replace")
        pos += size
        if not title:
            key, _, value = text.partition(" ")
            header[key] = value.strip()
        title = False
    if header.get("cluster_count", "0") != "0":
        raise AdaptationError(f"{sendump} holds clustered weights")
    shift = int(header.get("mixw_shift", "10"))
    streams = int(header.get("feature_count", "1"))
    codewords, senones = word(), word()
    need = streams * codewords * senones
    if len(data) - pos != need:
        raise AdaptationError(f"{sendump} holds {len(data) - pos} weights, not {need}")
    raw = np.frombuffer(data, np.uint8, need, pos).reshape(streams, codewords, senones)
    weights = np.power(1.0001, -(raw.astype(np.float64) * (1 << shift)))
    table = np.ascontiguousarray(weights.transpose(2, 0, 1), dtype="<f4")
    head = b"s3\nversion 1.0\n"
    spare = (len(head) + len(b"endhdr\n")) % 4  # the data starts on a 4-byte boundary
    head += b" " * ((4 - spare) % 4) + b"endhdr\n"
    with open(out, "wb") as fh:
        fh.write(head)
        fh.write(struct.pack("<i", 0x11223344))  # the byte order, as Sphinx-III writes it
        fh.write(struct.pack("<4I", senones, streams, codewords, table.size))
        fh.write(table.tobytes())


def takes_digest(takes: Mapping[str, Sequence[npt.ArrayLike]],
                 pronunciations: Mapping[str, str]) -> str:
    """A digest of one player's takes (``takes[word]``: sample arrays), the
    pronunciations they are adapted with and ``NOISY_COPIES_DB``: the
    adapted model's name."""
    h = hashlib.sha256()
    h.update(repr(NOISY_COPIES_DB).encode())  # a model adapted otherwise is another model
    for word in sorted(takes):
        h.update(f"{word}\t{pronunciations.get(word, '')}\n".encode())
        for take in takes[word]:
            x = np.asarray(take, dtype=np.float32).reshape(-1)
            h.update(len(x).to_bytes(8, "little"))
            h.update(x.tobytes())
    return h.hexdigest()[:20]


class Adapter:
    """Builds and keeps players' adapted models (folders pocketsphinx loads
    with ``-hmm``; ``SphinxRecognizer.adapted``).

    ``root``: where they are kept (default ``cache_dir()``). ``wait``: build
    a model when it is asked for and return it (a replay); False: build it
    in the background, ``builders`` at a time (each build runs the tools
    as child processes, a core each), in the order asked, and return None
    until it is ready (the live table, whose ear must not stop; see
    ``background_builders``). ``tools``: the programs (default
    ``Tools.find()``, looked up on first use). ``keep``: after each model
    it builds, keep only this many under ``root``, those used most
    recently, and never one this adapter has handed out (``prune``, done by
    the builder, not by the ear asking for a model; None: keep every model,
    as a replay and the benchmarks do). Only a build adds a model, so
    pruning after builds bounds the cache."""

    def __init__(self, root: Path | None = None, *, wait: bool = True,
                 tools: Tools | None = None, builders: int = 1,
                 keep: int | None = None) -> None:
        self.root = root or cache_dir()
        self.builders = max(1, builders)
        self.wait = wait
        self.keep = keep
        self._tools = tools
        self._lock = threading.Lock()
        self._used: set[str] = set()  # the models handed out
        self._building: set[str] = set()
        self._failed: set[str] = set()
        self._queue: list[tuple[str, dict[str, list[npt.NDArray[np.float64]]],
                                dict[str, str]]] = []
        self._workers: list[threading.Thread] = []  # each drains the queue

    def model(self, takes: Mapping[str, Sequence[npt.ArrayLike]],
              pronunciations: Mapping[str, str] | None = None) -> Path | None:
        """The folder of the model adapted to one player's ``takes``
        (``takes[word]``: mono samples at ``RATE`` Hz, 16-bit scale) of the
        words that have a pronunciation (``pronunciations[word]``: phones
        of the bundled model, e.g. ``"S IH K S"``; default: each word's
        first in the bundled CMU dictionary); None with no such take, when
        its build failed before, or (``wait`` False) until it is built.
        Raises ``AdaptationError`` (``wait`` only) if a tool is missing or
        fails, ``OSError`` if the dictionary or the folder cannot be read
        or written."""
        if pronunciations is None:
            pronunciations = self._pronunciations(takes)
        usable = {w: [np.asarray(t, dtype=np.float64).reshape(-1) for t in ts]
                  for w, ts in takes.items() if w in pronunciations and len(ts)}
        if not usable:
            return None
        key = takes_digest(usable, pronunciations)
        done = self.root / key
        if (done / "means").is_file():
            self._handed_out(key)
            return done
        with self._lock:
            if key in self._failed:
                return None
            if not self.wait:
                if key not in self._building:
                    self._building.add(key)
                    self._queue.append((key, usable, dict(pronunciations)))
                    # (a builder that died of an error it did not expect is let go)
                    self._workers = [w for w in self._workers if w.is_alive()]
                    if len(self._workers) < self.builders:
                        worker = threading.Thread(target=self._drain, daemon=True,
                                                  name="companion-adaptation")
                        self._workers.append(worker)
                        worker.start()
                return None
        try:
            built = self._build(key, usable, pronunciations)
        except (AdaptationError, OSError):
            with self._lock:
                self._failed.add(key)
            raise
        self._handed_out(key)
        self._pruned()
        return built

    def _handed_out(self, key: str) -> None:
        """The model ``key`` is handed out: the first time, its folder's
        time is set to now (when it was last used, for ``prune``)."""
        with self._lock:
            if key in self._used:
                return
            self._used.add(key)
        try:
            os.utime(self.root / key)
        except OSError as exc:  # (it is there to be used, or was a moment ago)
            log.warning("an adapted model's time of use could not be set: %s", exc)

    def _pruned(self, *built: str) -> None:
        """With ``keep``, the cache pruned after a build (``prune``), sparing
        the models handed out and those just ``built``."""
        if self.keep is not None:
            with self._lock:
                spare = self._used | set(built)
            prune(self.root, self.keep, spare)

    def _pronunciations(self, takes: Mapping[str, object]) -> dict[str, str]:
        """Each word's first pronunciation in the bundled CMU dictionary
        (words it lacks are left out), read once per process for all
        adapters (``_bundled_dictionary``)."""
        dictionary = _bundled_dictionary()
        dictionary.look_up(takes)  # one pass over the file for the words not read yet
        found = {w: dictionary.pronunciations(w) for w in takes}
        return {w: p[0] for w, p in found.items() if p}

    def idle(self, timeout: float | None = None) -> bool:
        """Wait until the background builds asked for so far are done (or
        ``timeout`` seconds); whether they are."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(w.is_alive() for w in workers)

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._workers.remove(threading.current_thread())
                    return
                key, takes, pronunciations = self._queue.pop(0)
            try:
                self._build(key, takes, pronunciations)
                self._pruned(key)
            except (AdaptationError, OSError) as exc:
                log.warning("a player's voice could not be adapted: %s", exc)
                with self._lock:
                    self._failed.add(key)
            finally:
                with self._lock:
                    self._building.discard(key)

    def tools(self) -> Tools:
        """The programs (found on first use). Raises ``AdaptationError``."""
        if self._tools is None:
            self._tools = Tools.find()
        return self._tools

    def base(self) -> Path:
        """The bundled model as the tools read it (a copy with a text
        ``mdef.txt`` and ``mixture_weights``), made once under ``root``, by
        one process at a time (``made_once.making``). Raises
        ``AdaptationError`` or ``OSError``."""
        source = bundled_model()
        digest = hashlib.sha256((source / "means").read_bytes()).hexdigest()[:12]
        base = self.root / f"base-{digest}"
        if (base / "mixture_weights").is_file():
            return base
        tools = self.tools()
        with making(self.root, base.name) as work:
            if (base / "mixture_weights").is_file():
                return base
            for f in source.iterdir():
                if f.is_file():
                    shutil.copy(f, work / f.name)
            _run([str(tools.mdef_convert), "-text", str(source / "mdef"), str(work / "mdef.txt")])
            write_mixture_weights(source / "sendump", work / "mixture_weights")
            _settle(work, base)
        return base

    def _build(self, key: str, takes: Mapping[str, Sequence[npt.NDArray[np.float64]]],
               pronunciations: Mapping[str, str]) -> Path:
        """Build one model, one process at a time (a lock file beside it):
        a process that finds another building the same model waits for it
        and takes it rather than building it again (``made_once.making``,
        which also removes what a build of it cut short left behind)."""
        with making(self.root, key) as work:
            out = self.root / key
            if (out / "means").is_file():
                return out
            return self._build_now(key, takes, pronunciations, work)

    def _build_now(self, key: str, takes: Mapping[str, Sequence[npt.NDArray[np.float64]]],
                   pronunciations: Mapping[str, str], work: Path) -> Path:
        """Build the model ``key`` in the empty folder ``work`` (``making``'s)
        and settle it under ``root``."""
        from companion.audio.synth import write_wav  # only a build needs it, not the ear's start

        base, tools = self.base(), self.tools()
        out = self.root / key
        names, transcripts = [], []
        rng = np.random.default_rng(0)
        pad = np.zeros(round(PAD_S * RATE))
        for word in sorted(takes):
            for take, snr in itertools.product(takes[word], (None, *NOISY_COPIES_DB)):
                name = f"{len(names):03d}"
                x = np.concatenate([pad, take, pad])
                x = x + rng.normal(0.0, 32768.0 * 10 ** (FLOOR_DBFS / 20), len(x))
                if snr is not None:
                    x = in_noise(x, snr, seed=len(names))
                write_wav(work / f"{name}.wav",
                          np.clip(np.rint(x), -32768, 32767).astype(np.int16), RATE)
                names.append(name)
                transcripts.append(f"<s> {word} </s> ({name})")
        (work / "takes.ctl").write_text("\n".join(names) + "\n", encoding="ascii")
        (work / "takes.lsn").write_text("\n".join(transcripts) + "\n", encoding="utf-8")
        (work / "words.dict").write_text(
            "".join(f"{w} {pronunciations[w]}\n" for w in sorted(takes)), encoding="utf-8")
        counts = work / "counts"
        counts.mkdir()
        adapted = work / "model"
        adapted.mkdir()
        _run([str(tools.sphinx_fe), "-argfile", str(base / "feat.params"),
              "-samprate", str(RATE), "-c", str(work / "takes.ctl"), "-di", str(work),
              "-do", str(work), "-ei", "wav", "-eo", "mfc", "-mswav", "yes"])
        _run([str(tools.bw), "-hmmdir", str(base), "-moddeffn", str(base / "mdef.txt"),
              "-ts2cbfn", ".ptm.", "-feat", "1s_c_d_dd", "-svspec", "0-12/13-25/26-38",
              "-cmn", "current", "-agc", "none", "-dictfn", str(work / "words.dict"),
              "-fdictfn", str(base / "noisedict"), "-ctlfn", str(work / "takes.ctl"),
              "-lsnfn", str(work / "takes.lsn"), "-cepdir", str(work),
              "-accumdir", str(counts)])
        _run([str(tools.map_adapt), "-moddeffn", str(base / "mdef.txt"), "-ts2cbfn", ".ptm.",
              "-meanfn", str(base / "means"), "-varfn", str(base / "variances"),
              "-mixwfn", str(base / "mixture_weights"),
              "-tmatfn", str(base / "transition_matrices"), "-accumdir", str(counts),
              "-mapmeanfn", str(adapted / "means"), "-mapvarfn", str(adapted / "variances"),
              "-mapmixwfn", str(adapted / "mixture_weights"),
              "-maptmatfn", str(adapted / "transition_matrices")])
        model = work / "adapted"
        model.mkdir()
        for name in ("mdef", "feat.params", "noisedict", "sendump", "transition_matrices"):
            try:  # the bundled model's files, shared with every player's model
                os.link(base / name, model / name)
            except OSError:
                shutil.copy(base / name, model / name)
        for name in ("means", "variances"):
            shutil.copy(adapted / name, model / name)
        _settle(model, out)
        return out


def prune(root: Path, keep: int, spare: Collection[str] = ()) -> list[str]:
    """Remove the adapted models under ``root`` but the ``keep`` used most
    recently (by their folders' modification times: when built, or when an
    ``Adapter`` last handed one out) and those named in ``spare``; a model
    being built is left (``made_once.remove``), and so is everything that is
    not a finished model (the bundled model's copy, lock files, work
    folders). Returns the names removed. What cannot be read or removed is
    logged and left, never raised: a full cache is no reason to stop a
    game."""
    try:
        models = [(f.stat().st_mtime, f.name) for f in _finished(root)]
    except OSError as exc:
        log.warning("the adapted models could not be listed: %s", exc)
        return []
    removed = []
    for _, name in sorted(models, reverse=True)[keep:]:
        if name in spare:
            continue
        try:
            if remove(root, name):
                removed.append(name)
        except OSError as exc:
            log.warning("an old adapted model could not be removed: %s", exc)
    return removed


def kept_models(root: Path) -> tuple[int, int]:
    """How many finished adapted models are under ``root`` and the bytes
    of their own files (those not linked to the bundled model's copy: the
    means and variances); (0, 0) when the folder is missing. Raises
    ``OSError`` if it cannot be read."""
    if not root.is_dir():
        return 0, 0
    count = size = 0
    for folder in _finished(root):
        count += 1
        size += sum(st.st_size for st in (f.stat() for f in folder.iterdir())
                    if st.st_nlink == 1)
    return count, size


def _finished(root: Path) -> list[Path]:
    """The finished adapted models' folders under ``root``: named by a
    ``takes_digest`` (``MODEL_NAME``) and holding their means. Raises
    ``OSError`` if ``root`` cannot be read."""
    return [f for f in root.iterdir()
            if MODEL_NAME.fullmatch(f.name) and (f / "means").is_file()]


@functools.cache
def _bundled_dictionary() -> CmuDictionary:
    """The bundled CMU dictionary, one per process (it keeps the words it
    has read)."""
    return CmuDictionary()


def _run(argv: list[str]) -> None:
    """Run one tool; raises ``AdaptationError`` with its last words if it fails."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AdaptationError(f"{Path(argv[0]).name} could not run: {exc}") from None
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).strip().splitlines()[-2:])
        raise AdaptationError(f"{Path(argv[0]).name} failed ({done.returncode}): {tail}")


def _settle(folder: Path, final: Path) -> None:
    """Move a finished ``folder`` to ``final`` in one step; if another build
    got there first, keep theirs."""
    try:
        folder.rename(final)
    except OSError:
        if not final.is_dir():
            raise
