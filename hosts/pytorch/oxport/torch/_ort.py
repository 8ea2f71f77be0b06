"""Run an ONNX file in ONNX Runtime: Python's `onnxruntime` when it is importable, else
the npm package onnxruntime-node through run.js.

run.js is looked up as $OXPORT_ORT_RUNJS, the checkout's tools/ort/run.js, then the copy
installed inside this package (oxport/_ort/run.js).  Node finds onnxruntime-node next to
run.js, else in $OXPORT_ORT_NODE_MODULES, the tools/ort/node_modules of the tree oxport
was built from, or `npm root -g`.
"""

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
    candidates = [os.environ.get("OXPORT_ORT_RUNJS"),
                  os.path.join(_engine.SOURCE_ROOT, "tools", "ort", "run.js"),
                  os.path.join(_engine.HERE, "_ort", "run.js")]
    for p in candidates:
        if p and os.path.isfile(p):
            return p
    raise RuntimeError("ONNX Runtime not found: install Python's onnxruntime, or set OXPORT_ORT_RUNJS to "
                       "tools/ort/run.js of an oxport checkout (with 'ONNXRUNTIME_NODE_INSTALL=skip npm ci' "
                       "run in tools/ort)")


def node_path(script):
    """NODE_PATH entries under which `require('onnxruntime-node')` resolves for script."""
    paths = []
    beside = os.path.join(os.path.dirname(script), "node_modules")
    if os.path.isdir(beside):
        return paths
    env = os.environ.get("OXPORT_ORT_NODE_MODULES")
    if env:
        paths.append(env)
    inst = _engine.installed()
    if inst is not None and os.path.isdir(inst.ORT_NODE_MODULES):
        paths.append(inst.ORT_NODE_MODULES)
    try:
        root = subprocess.run(["npm", "root", "-g"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, check=False).stdout.strip()
    except OSError:
        root = ""
    if root:
        paths.append(root)
    return paths


def input_names(path):
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in inits]


def _python_onnxruntime():
    try:
        import onnxruntime
    except ImportError:
        return None
    return onnxruntime


def run(path, feeds):
    """Run `path` on `feeds` (ndarrays for the non-initializer inputs, in order).
    Returns (output names, output arrays)."""
    names = input_names(path)
    if len(names) != len(feeds):
        raise RuntimeError(f"{path}: the file has {len(names)} inputs {names}, got {len(feeds)} arrays")
    ort = _python_onnxruntime()
    if ort is not None:
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        outs = [o.name for o in sess.get_outputs()]
        # not np.ascontiguousarray: it makes a 0-dim array 1-dim
        got = sess.run(outs, {n: np.asarray(a, order="C") for n, a in zip(names, feeds)})
        return outs, [np.asarray(g) for g in got]
    return _run_node(path, names, feeds)


def _run_node(path, names, feeds):
    script = runjs()
    with tempfile.TemporaryDirectory(prefix="oxport-ort-") as tmp:
        in_dir = os.path.join(tmp, "in")
        out_dir = os.path.join(tmp, "out")
        os.mkdir(in_dir)
        spec = []
        for i, (name, arr) in enumerate(zip(names, feeds)):
            # not np.ascontiguousarray: it makes a 0-dim array 1-dim, and ONNX Runtime
            # then runs a scalar input as shape [1] (and returns [1] outputs)
            arr = np.asarray(arr, order="C")
            fname = f"input_{i}.bin"
            arr.tofile(os.path.join(in_dir, fname))
            spec.append({"name": name, "dtype": _NP_TO_ORT[arr.dtype], "dims": list(arr.shape), "file": fname})
        with open(os.path.join(in_dir, "inputs.json"), "w") as f:
            json.dump(spec, f)
        env = dict(os.environ)
        extra = node_path(script)
        if extra:
            env["NODE_PATH"] = os.pathsep.join(extra + [p for p in [env.get("NODE_PATH")] if p])
        proc = subprocess.run(["node", script, os.path.abspath(path), in_dir, out_dir],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"{path}: ONNX Runtime failed: {proc.stderr.strip()}")
        with open(os.path.join(out_dir, "outputs.json")) as f:
            outs = json.load(f)
        arrays = []
        for o in outs:
            a = np.fromfile(os.path.join(out_dir, o["file"]), dtype=_ORT_TO_NP[o["dtype"]])
            arrays.append(a.reshape(o["dims"]))
        return [o["name"] for o in outs], arrays
