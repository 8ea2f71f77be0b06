"""Run an ONNX file in ONNX Runtime (the npm package onnxruntime-node, through the
project's tools/ort/run.js).  Set OXPORT_ORT_RUNJS to use another copy of run.js."""

import json
import os
import subprocess
import tempfile

import numpy as np

from .. import _engine

_NP_TO_ORT = {
    np.dtype(np.float32): "float32", np.dtype(np.float64): "float64", np.dtype(np.float16): "float16",
    np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8", np.dtype(np.int16): "int16",
    np.dtype(np.int32): "int32", np.dtype(np.int64): "int64", np.dtype(np.bool_): "bool",
}
_ORT_TO_NP = {v: k for k, v in _NP_TO_ORT.items()}


def runjs():
    p = os.environ.get("OXPORT_ORT_RUNJS") or os.path.join(_engine.SOURCE_ROOT, "tools", "ort", "run.js")
    if not os.path.isfile(p):
        raise RuntimeError(f"ONNX Runtime runner {p} not found: set OXPORT_ORT_RUNJS to tools/ort/run.js of an "
                           f"oxport checkout (with 'ONNXRUNTIME_NODE_INSTALL=skip npm ci' run in tools/ort)")
    return p


def input_names(path):
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in inits]


def run(path, feeds):
    """Run `path` on `feeds` (ndarrays for the non-initializer inputs, in order).
    Returns (output names, output arrays)."""
    names = input_names(path)
    if len(names) != len(feeds):
        raise RuntimeError(f"{path}: the file has {len(names)} inputs {names}, got {len(feeds)} arrays")
    with tempfile.TemporaryDirectory(prefix="oxport-ort-") as tmp:
        in_dir = os.path.join(tmp, "in")
        out_dir = os.path.join(tmp, "out")
        os.mkdir(in_dir)
        spec = []
        for i, (name, arr) in enumerate(zip(names, feeds)):
            arr = np.ascontiguousarray(arr)
            fname = f"input_{i}.bin"
            arr.tofile(os.path.join(in_dir, fname))
            spec.append({"name": name, "dtype": _NP_TO_ORT[arr.dtype], "dims": list(arr.shape), "file": fname})
        with open(os.path.join(in_dir, "inputs.json"), "w") as f:
            json.dump(spec, f)
        proc = subprocess.run(["node", runjs(), os.path.abspath(path), in_dir, out_dir],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{path}: ONNX Runtime failed: {proc.stderr.strip()}")
        with open(os.path.join(out_dir, "outputs.json")) as f:
            outs = json.load(f)
        arrays = []
        for o in outs:
            a = np.fromfile(os.path.join(out_dir, o["file"]), dtype=_ORT_TO_NP[o["dtype"]])
            arrays.append(a.reshape(o["dims"]))
        return [o["name"] for o in outs], arrays
