#!/usr/bin/python3
"""Validation helpers for oxport: onnx.checker, ONNX Runtime runs, backend-test bundles.

Library use (import with /usr/bin/python3, which has onnx and numpy):

    check(path)                       onnx.checker.check_model(..., full_check=True); above the
                                      checker's newest opset (17 for Debian's onnx 1.12) `oxport check`
    run_ort(path, {name: ndarray})    -> list of output ndarrays (ONNX Runtime via tools/ort/run.js)
    run_ort_many(path, [feeds, ...])  -> one list of outputs per feed dict, from one runner process
    verify_bundle(dir, rtol, atol[, atol_scale])  run dir/model.onnx on every dir/test_data_set_K/input_N.pb and
                                      compare with its output_N.pb; raises on mismatch

Command line:

    python3 tests/py/onnxval.py check FILE
    python3 tests/py/onnxval.py run FILE IN_DIR OUT_DIR [IN_DIR OUT_DIR]...  (node tools/ort/run.js)
    python3 tests/py/onnxval.py bundle DIR [--rtol R] [--atol A] [--atol-scale K]

Exit status: 0 ok, 1 the model failed (checker error, runtime error, mismatch), 2 usage error.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "tools", "ort"))
RUN_JS = os.path.join(ORT_DIR, "run.js")

# Anything past this cannot be handed to the checker as one serialized message.
PROTOBUF_LIMIT = 2**31 - 1

_NP_TO_ORT = {
    np.dtype(np.float32): "float32",
    np.dtype(np.float64): "float64",
    np.dtype(np.float16): "float16",
    np.dtype(np.int8): "int8",
    np.dtype(np.uint8): "uint8",
    np.dtype(np.int16): "int16",
    np.dtype(np.uint16): "uint16",
    np.dtype(np.int32): "int32",
    np.dtype(np.uint32): "uint32",
    np.dtype(np.int64): "int64",
    np.dtype(np.uint64): "uint64",
    np.dtype(np.bool_): "bool",
}
_ORT_TO_NP = {v: k for k, v in _NP_TO_ORT.items()}


class ValidationError(Exception):
    """The model failed a check, did not run, or produced different numbers."""


def _external_bytes(path):
    """Size of the model file plus every external data file it references."""
    import onnx
    from onnx.external_data_helper import _get_all_tensors, uses_external_data

    total = os.path.getsize(path)
    model = onnx.load(path, load_external_data=False)
    base = os.path.dirname(os.path.abspath(path))
    seen = set()
    for t in _get_all_tensors(model):
        if uses_external_data(t):
            for e in t.external_data:
                if e.key == "location" and e.value not in seen:
                    seen.add(e.value)
                    p = os.path.join(base, e.value)
                    if os.path.exists(p):
                        total += os.path.getsize(p)
    return total


def _default_opset(path):
    """The default-domain opset a model imports (0 when it names none)."""
    import onnx

    model = onnx.load(path, load_external_data=False)
    return max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)


def _oxport_check(path):
    """`oxport check` (the engine's schema table covers opsets 7-21)."""
    exe = os.environ.get("OXPORT_BIN") or os.path.join(
        os.environ.get("OXPORT_BUILDDIR", os.path.join(HERE, "..", "..", "build")), "tools", "oxport")
    proc = subprocess.run([exe, "check", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"{path}: oxport check (exit {proc.returncode}): {proc.stdout.strip()}")


def check(path):
    """onnx.checker.check_model with full_check (shape inference in strict mode).

    External data is loaded too; models past protobuf's 2 GiB cap are checked by
    path (the checker then reads the external files itself).  A model importing a
    default-domain opset newer than the installed checker knows (Debian's onnx 1.12
    stops at 17; oxport exports up to 21) is checked by `oxport check` instead, whose
    schema table covers 18-21 (docs/checking.md): onnx.checker is skipped there."""
    import onnx
    import onnx.defs

    if not os.path.isfile(path):
        raise ValidationError(f"{path}: no such file")
    try:
        newer = _default_opset(path) > onnx.defs.onnx_opset_version()
    except Exception as e:  # not even loadable
        raise ValidationError(f"{path}: onnx.load: {type(e).__name__}: {e}") from e
    if newer:
        _oxport_check(path)
        return
    try:
        if _external_bytes(path) > PROTOBUF_LIMIT:
            onnx.checker.check_model(path, full_check=False)
            # infer_shapes_path would overwrite the model when no output is
            # given: write the inferred model to a scratch file instead.
            with tempfile.TemporaryDirectory() as tmp:
                onnx.shape_inference.infer_shapes_path(
                    path, os.path.join(tmp, "inferred.onnx"), check_type=True, strict_mode=True
                )
        else:
            model = onnx.load(path)
            onnx.checker.check_model(model, full_check=True)
    except ValidationError:
        raise
    except Exception as e:  # the checker raises several exception types
        raise ValidationError(f"{path}: onnx.checker: {type(e).__name__}: {e}") from e


def run_ort(path, feeds):
    """Run `path` with ONNX Runtime on `feeds` ({input name: ndarray}); return outputs in order."""
    return run_ort_many(path, [feeds])[0]


def _write_feeds(in_dir, feeds):
    os.mkdir(in_dir)
    spec = []
    for i, (name, arr) in enumerate(feeds.items()):
        # not np.ascontiguousarray: it makes a 0-dim array 1-dim, and ONNX Runtime
        # then runs a scalar input as shape [1] (and returns [1] outputs)
        arr = np.asarray(arr, order="C")
        if arr.dtype not in _NP_TO_ORT:
            raise ValidationError(f"input {name}: dtype {arr.dtype} is not supported by the runner")
        fname = f"input_{i}.bin"
        arr.astype(arr.dtype.newbyteorder("<"), copy=False).tofile(os.path.join(in_dir, fname))
        spec.append({"name": name, "dtype": _NP_TO_ORT[arr.dtype], "dims": list(arr.shape), "file": fname})
    with open(os.path.join(in_dir, "inputs.json"), "w") as f:
        json.dump(spec, f)


def _read_outputs(out_dir):
    with open(os.path.join(out_dir, "outputs.json")) as f:
        outs = json.load(f)
    result = []
    for o in outs:
        dt = _ORT_TO_NP[o["dtype"]]
        a = np.fromfile(os.path.join(out_dir, o["file"]), dtype=dt.newbyteorder("<"))
        result.append(a.reshape(o["dims"]).astype(dt, copy=False))
    return result


def run_ort_many(path, feed_sets):
    """Run `path` with ONNX Runtime on each dict of `feed_sets` in turn; return one list of
    outputs per set.  One runner process and one session serve every set (a model load and a
    node start-up cost more than a small model's run)."""
    if not os.path.exists(os.path.join(ORT_DIR, "node_modules", "onnxruntime-node")):
        raise ValidationError(
            f"onnxruntime-node is not installed in {ORT_DIR}; run "
            f"'cd {ORT_DIR} && ONNXRUNTIME_NODE_INSTALL=skip npm ci'"
        )
    if not feed_sets:
        return []
    with tempfile.TemporaryDirectory(prefix="onnxval-") as tmp:
        dirs = []
        for k, feeds in enumerate(feed_sets):
            in_dir, out_dir = os.path.join(tmp, f"in{k}"), os.path.join(tmp, f"out{k}")
            _write_feeds(in_dir, feeds)
            dirs += [in_dir, out_dir]
        proc = subprocess.run(["node", RUN_JS, path] + dirs, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        if proc.returncode != 0:
            raise ValidationError(f"{path}: ONNX Runtime failed: {proc.stderr.strip()}")
        return [_read_outputs(dirs[2 * k + 1]) for k in range(len(feed_sets))]


def _read_tensor(path):
    import onnx
    from onnx import numpy_helper

    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def compare(name, got, want, rtol, atol, atol_scale=0.0):
    """Print max abs/rel difference for one output and raise when out of tolerance:
    |got - want| <= atol + atol_scale * max|want| + rtol * |want| element-wise."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        raise ValidationError(f"{name}: shape {list(got.shape)} but expected {list(want.shape)}")
    if got.dtype != want.dtype:
        raise ValidationError(f"{name}: dtype {got.dtype} but expected {want.dtype}")
    if got.dtype == np.bool_ or np.issubdtype(got.dtype, np.integer):
        bad = int(np.count_nonzero(got != want))
        print(f"{name}: {bad} of {got.size} elements differ")
        if bad:
            raise ValidationError(f"{name}: {bad} of {got.size} elements differ")
        return
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    diff = np.abs(g - w)
    max_abs = float(diff.max()) if diff.size else 0.0
    max_rel = float((diff / np.maximum(np.abs(w), 1e-30)).max()) if diff.size else 0.0
    print(f"{name}: max abs diff {max_abs:.3g}, max rel diff {max_rel:.3g} ({got.size} elements)")
    if atol_scale and w.size and np.isfinite(w).any():
        atol = atol + atol_scale * float(np.abs(w[np.isfinite(w)]).max())
    ok = np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if not ok:
        raise ValidationError(
            f"{name}: outside rtol={rtol} atol={atol:.3g} (max abs diff {max_abs:.3g}, max rel diff {max_rel:.3g})"
        )


def verify_bundle(bundle, rtol=1e-4, atol=1e-5, atol_scale=0.0):
    """Check and run bundle/model.onnx on every test_data_set_K/ (one runner call) and compare
    every output of each."""
    import onnx

    model_path = os.path.join(bundle, "model.onnx")
    if not os.path.isfile(model_path):
        raise ValidationError(f"{bundle}: no model.onnx")
    data_dirs = []
    while os.path.isdir(os.path.join(bundle, f"test_data_set_{len(data_dirs)}")):
        data_dirs.append(os.path.join(bundle, f"test_data_set_{len(data_dirs)}"))
    if not data_dirs:
        raise ValidationError(f"{bundle}: no test_data_set_0/")
    model = onnx.load(model_path, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    in_names = [i.name for i in model.graph.input if i.name not in inits]
    feed_sets = []
    for data_dir in data_dirs:
        feeds = {}
        for i, name in enumerate(in_names):
            p = os.path.join(data_dir, f"input_{i}.pb")
            if not os.path.isfile(p):
                raise ValidationError(f"{bundle}: model input {name} has no {p}")
            feeds[name] = _read_tensor(p)
        feed_sets.append(feeds)
    got_sets = run_ort_many(model_path, feed_sets)
    out_names = [o.name for o in model.graph.output]
    for data_dir, got in zip(data_dirs, got_sets):
        for i, name in enumerate(out_names):
            p = os.path.join(data_dir, f"output_{i}.pb")
            if not os.path.isfile(p):
                raise ValidationError(f"{bundle}: model output {name} has no {p}")
            compare(f"{os.path.basename(data_dir)} {name}", got[i], _read_tensor(p), rtol, atol, atol_scale)


def main(argv=None):
    ap = argparse.ArgumentParser(description="oxport validation helpers")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="onnx.checker.check_model(full_check=True)")
    c.add_argument("file")
    r = sub.add_parser("run", help="run with ONNX Runtime (run.js layout)")
    r.add_argument("file")
    r.add_argument("dirs", nargs="+", metavar="IN_DIR OUT_DIR")
    b = sub.add_parser("bundle", help="verify an ONNX backend-test bundle")
    b.add_argument("dir")
    b.add_argument("--rtol", type=float, default=1e-4)
    b.add_argument("--atol", type=float, default=1e-5)
    b.add_argument("--atol-scale", type=float, default=0.0,
                   help="add this times max|expected| of each output to atol")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "check":
            check(args.file)
            print(f"{args.file}: ok")
        elif args.cmd == "run":
            if shutil.which("node") is None:
                raise ValidationError("node is not on PATH")
            if len(args.dirs) % 2:
                ap.error("run: give IN_DIR OUT_DIR pairs")
            rc = subprocess.run(["node", RUN_JS, args.file] + args.dirs).returncode
            return rc
        else:
            verify_bundle(args.dir, args.rtol, args.atol, args.atol_scale)
            print(f"{args.dir}: ok")
    except ValidationError as e:
        print(f"onnxval: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
