#!/usr/bin/python3
"""Export one zoo model at several opsets and check it in ONNX Runtime.

For each opset: `oxport export MODEL --opset N --test-data DIR` (the C host's
own inputs and outputs in the ONNX backend-test layout: test_data_set_0 is the
traced example, test_data_set_1 other input values of the same shapes), then
`tests/py/onnxval.py bundle DIR` runs the file in ONNX Runtime on both and compares.

The tolerance is tests/py/modelcheck.py's scale rule: |ORT - host| <= 1e-4 *
max|host| + 1e-3 * |host| per output, not an absolute number tuned on one CPU.

usage: zoo_test.py MODEL --oxport BIN --srcdir SRC [--opsets 9,13,17]
                   [--rtol 1e-3] [--atol-scale 1e-4]
Exit 0 all opsets pass, 1 a failure, 77 (meson's skip) when ONNX Runtime is
not available.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


def openblas_env(env):
    """OpenBLAS 0.3.21 does not recognise some recent CPUs and falls back to
    its Prescott (SSE3) kernels, 4x slower; name a core it knows that this
    CPU can run.  Speed only: results are checked either way."""
    if "OPENBLAS_CORETYPE" in env:
        return
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l for l in f if l.startswith("flags")), "").split()
    except OSError:
        return
    if "avx512f" in flags and "avx512vl" in flags and "avx512bw" in flags:
        env["OPENBLAS_CORETYPE"] = "SkylakeX"
    elif "avx2" in flags and "fma" in flags:
        env["OPENBLAS_CORETYPE"] = "Haswell"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--oxport", required=True)
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--opsets", default="9,13,17")
    ap.add_argument("--rtol", default="1e-3")
    ap.add_argument("--atol-scale", default="1e-4")
    args = ap.parse_args()

    onnxval = os.path.join(args.srcdir, "tests", "py", "onnxval.py")
    ort = os.path.join(args.srcdir, "tools", "ort", "node_modules", "onnxruntime-node")
    if not os.path.exists(onnxval):
        print(f"SKIP: {onnxval} is missing")
        return SKIP
    if shutil.which("node") is None or not os.path.isdir(ort):
        print(f"SKIP: ONNX Runtime not installed (need node and {ort})")
        return SKIP

    env = dict(os.environ)
    openblas_env(env)
    failures = []
    with tempfile.TemporaryDirectory(prefix=f"oxport-zoo-{args.model}-") as tmp:
        for opset in args.opsets.split(","):
            bundle = os.path.join(tmp, f"opset{opset}")
            t0 = time.monotonic()
            exp = subprocess.run([args.oxport, "export", args.model, "--opset", opset,
                                  "--test-data", bundle],
                                 env=env, capture_output=True, text=True)
            t1 = time.monotonic()
            if exp.returncode != 0:
                failures.append(f"opset {opset}: oxport export exited {exp.returncode}:\n"
                                f"{exp.stderr.strip()}")
                print(failures[-1])
                continue
            val = subprocess.run([sys.executable, onnxval, "bundle", bundle,
                                  "--rtol", args.rtol, "--atol", "0", "--atol-scale", args.atol_scale],
                                 env=env, capture_output=True, text=True)
            t2 = time.monotonic()
            out = (val.stdout + val.stderr).strip()
            print(f"--- {args.model} opset {opset}: export {t1 - t0:.1f}s, "
                  f"ORT check {t2 - t1:.1f}s\n{out}")
            if val.returncode != 0:
                failures.append(f"opset {opset}: onnxval bundle exited {val.returncode}")
            # Free the disk early: VGG-16 is 553 MB per opset.
            shutil.rmtree(bundle, ignore_errors=True)
    if failures:
        print(f"FAIL {args.model}: " + "; ".join(f.splitlines()[0] for f in failures))
        return 1
    print(f"PASS {args.model} at opsets {args.opsets}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
