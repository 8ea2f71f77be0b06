#!/usr/bin/python3
"""`oxport export decoder --shape-only --weights FILE`: the decoder traced with
shape functions only, its weights read from a safetensors-layout file by the
engine (ox_trace_param_file) while it writes.

- With the float32 weights the eager export computes (--save-weights of the
  same seed), the file is byte-identical to the eager export's, inline and
  with external data (model and side file), at the default size and another.
- With float16 weights it is the same graph (node for node, every
  initializer with its shape) with float16 types, and onnx.checker accepts it.
- Bad inputs are clean errors that leave no file: a weights file made for
  another configuration, one cut short, --shape-only without weights, a
  model whose forward needs values.
- Without weights (--no-params) it needs no file and matches eager's file.

usage: shape_only_test.py --oxport BIN --srcdir SRC
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    else:
        print("ok:", what)


def run(bin_, *args):
    return subprocess.run([bin_, "export", *args], capture_output=True, text=True)


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def side_file(d):
    found = glob.glob(os.path.join(d, "*.data"))
    return found[0] if len(found) == 1 else None


def identical_to_eager(b, tmp, label, config):
    cfg = ["--decoder-config", config] if config else []
    d = os.path.join(tmp, label)
    os.makedirs(os.path.join(d, "eager"))
    os.makedirs(os.path.join(d, "shape"))
    weights = os.path.join(d, "w.safetensors")
    r = run(b, "decoder", *cfg, "--save-weights", weights, "--seed", "7")
    check(r.returncode == 0, f"{label}: --save-weights float32 ({r.stderr.strip()})")
    for ext in ([], ["--external-data"]):
        tag = "external" if ext else "inline"
        e = os.path.join(d, "eager", f"{tag}.onnx")
        s = os.path.join(d, "shape", f"{tag}.onnx")
        r1 = run(b, "decoder", *cfg, "--seed", "7", *ext, "-o", e)
        r2 = run(b, "decoder", *cfg, "--shape-only", "--weights", weights, *ext, "-o", s)
        check(r1.returncode == 0 and r2.returncode == 0,
              f"{label} {tag}: both exports succeed ({r1.stderr.strip()} {r2.stderr.strip()})")
        if r1.returncode or r2.returncode:
            continue
        check(same_bytes(e, s), f"{label} {tag}: --shape-only file is byte-identical to eager")
        if ext:
            se, ss = side_file(os.path.join(d, "eager")), side_file(os.path.join(d, "shape"))
            check(se and ss and os.path.basename(se) == os.path.basename(ss)
                  and same_bytes(se, ss), f"{label}: external data files identical")
    return weights


def float16_same_graph(b, tmp, srcdir):
    import onnx
    d = os.path.join(tmp, "f16")
    os.makedirs(d)
    w16 = os.path.join(d, "w16.safetensors")
    r = run(b, "decoder", "--save-weights", w16, "--weights-dtype", "float16")
    check(r.returncode == 0, f"--save-weights float16 ({r.stderr.strip()})")
    e, s = os.path.join(d, "eager.onnx"), os.path.join(d, "f16.onnx")
    r1 = run(b, "decoder", "-o", e)
    r2 = run(b, "decoder", "--shape-only", "--weights", w16, "--external-data", "-o", s)
    check(r1.returncode == 0 and r2.returncode == 0,
          f"float16 shape-only export succeeds ({r2.stderr.strip()})")
    if r1.returncode or r2.returncode:
        return
    me, ms = onnx.load(e), onnx.load(s)  # loads the side file too
    check([(n.op_type, list(n.input), list(n.output)) for n in me.graph.node] ==
          [(n.op_type, list(n.input), list(n.output)) for n in ms.graph.node],
          "float16: the same nodes, inputs and outputs as eager")
    check([(t.name, list(t.dims)) for t in me.graph.initializer] ==
          [(t.name, list(t.dims)) for t in ms.graph.initializer],
          "float16: the same initializers and shapes")
    check(all(t.data_type == onnx.TensorProto.FLOAT16 for t in ms.graph.initializer),
          "float16: every initializer is float16")
    check(ms.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT16,
          "float16: the logits are float16")
    v = subprocess.run([sys.executable, os.path.join(srcdir, "tests", "py", "onnxval.py"),
                        "check", s], capture_output=True, text=True)
    check(v.returncode == 0, f"float16: onnx.checker accepts it ({v.stdout}{v.stderr})")


def errors(b, tmp, weights):
    d = os.path.join(tmp, "errors")
    os.makedirs(d)
    out = os.path.join(d, "m.onnx")

    def nothing_written(label):
        left = [f for f in os.listdir(d) if f.endswith(".onnx") or ".data" in f
                or ".oxtmp-" in f]
        check(not left, f"{label}: nothing left behind ({left})")

    r = run(b, "decoder", "--decoder-config", "layers=3", "--shape-only", "--weights", weights,
            "-o", out)
    check(r.returncode == 2 and "model.layers.2." in r.stderr,
          f"weights of another configuration name the missing tensor ({r.stderr.strip()})")
    nothing_written("other configuration")

    short = os.path.join(d, "short.safetensors")
    with open(weights, "rb") as f:
        data = f.read()
    with open(short, "wb") as f:
        f.write(data[: len(data) - 100])
    r = run(b, "decoder", "--shape-only", "--weights", short, "--external-data", "-o", out)
    check(r.returncode != 0 and "lm_head.weight" in r.stderr and "past the end" in r.stderr,
          f"a weights file cut short names the parameter ({r.stderr.strip()})")
    nothing_written("short weights file")

    with open(short, "wb") as f:
        f.write(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"x\": [1, 2]}   ")
    r = run(b, "decoder", "--shape-only", "--weights", short, "-o", out)
    check(r.returncode == 2 and "malformed header" in r.stderr,
          f"a malformed header is refused ({r.stderr.strip()})")
    nothing_written("malformed header")

    r = run(b, "decoder", "--shape-only", "-o", out)
    check(r.returncode == 2 and "--weights" in r.stderr, "--shape-only without weights")
    np1, np2 = os.path.join(d, "np-eager.onnx"), os.path.join(d, "np-shape.onnx")
    r1 = run(b, "decoder", "--no-params", "-o", np1)
    r2 = run(b, "decoder", "--shape-only", "--no-params", "-o", np2)
    check(r1.returncode == 0 and r2.returncode == 0 and same_bytes(np1, np2),
          f"--shape-only --no-params reads no weights and matches eager ({r2.stderr.strip()})")
    os.unlink(np1)
    os.unlink(np2)
    r = run(b, "alexnet", "--shape-only", "--no-params", "-o", out)
    check(r.returncode == 2 and "shape-only" in r.stderr, "--shape-only on a model needing values")
    r = run(b, "decoder", "--weights", weights, "-o", out)
    check(r.returncode == 2, "--weights without --shape-only")
    r = run(b, "decoder", "--decoder-config", "dim=10,heads=4", "-o", out)
    check(r.returncode == 2 and "multiple of heads" in r.stderr, "a bad --decoder-config")
    nothing_written("usage errors")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxport", required=True)
    ap.add_argument("--srcdir", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="oxport-shape-only-") as tmp:
        weights = identical_to_eager(args.oxport, tmp, "default", None)
        identical_to_eager(args.oxport, tmp, "other size",
                           "layers=3,dim=48,hidden=100,heads=3,vocab=70,seq=5")
        identical_to_eager(args.oxport, tmp, "no rope", "rope=0,layers=1")
        float16_same_graph(args.oxport, tmp, args.srcdir)
        errors(args.oxport, tmp, weights)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
