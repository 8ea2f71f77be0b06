#!/usr/bin/python3
"""A model past protobuf's 2 GiB: oxport.torch.export vs torch.onnx.export, one run each.

    meson devenv -C build /usr/bin/python3 $PWD/benchmarks/large_decoder.py \\
        [--layers 16] [--dim 2048] [--hidden 5504] [--vocab 32000] [--dir /var/tmp] [--skip-torch]

The LLaMA-style decoder of oxport.models.decoder at the given size (the defaults give
about 0.94 B parameters, 3.8 GB in fp32) is built with random weights in a fresh
process per exporter; that process's peak RSS after building the model and running one
forward (VmHWM) is the baseline.  Reported per exporter: export wall time, peak RSS above
the baseline (absolute and as a share of the weights), the files written, and for
oxport's file the max abs difference between ONNX Runtime and eager on the same tokens.
torch.onnx.export runs in its own process after oxport's, so each has the machine to
itself; if it fails, its error is printed in the table.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, ".."))


def vm_kib(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {key} in /proc/self/status")


def build(args):
    import torch
    from oxport.models.decoder import Decoder

    torch.manual_seed(0)
    with torch.no_grad():
        model = Decoder(vocab=args.vocab, dim=args.dim, layers=args.layers, heads=args.heads,
                        hidden=args.hidden).eval()
        for p in model.parameters():
            p.mul_(0.5)  # keep activations moderate through many random layers
    tokens = torch.randint(0, args.vocab, (1, 16), generator=torch.Generator().manual_seed(1))
    return model, tokens


def worker(args):
    import numpy as np
    import torch

    model, tokens = build(args)
    with torch.no_grad():
        ref = model(tokens)
    np.save(os.path.join(args.dir, "tokens.npy"), tokens.numpy())
    np.save(os.path.join(args.dir, "eager.npy"), ref.numpy())
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    base = vm_kib("VmHWM")
    t0 = time.perf_counter()
    err = None
    try:
        if args.worker == "torch":
            torch.onnx.export(model, (tokens,), args.out, opset_version=17)
        else:
            import oxport.torch
            oxport.torch.export(model, (tokens,), args.out, opset_version=17)
    except Exception as e:  # report what the exporter does, whatever it is
        err = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    dt = time.perf_counter() - t0
    print(json.dumps({"seconds": dt, "peak_delta": vm_kib("VmHWM") - base, "weights": weights,
                      "params": sum(p.numel() for p in model.parameters()), "error": err}))
    return 0


def ort_diff(path, workdir):
    import numpy as np
    sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
    from oxport.torch import _ort

    tokens = np.load(os.path.join(workdir, "tokens.npy"))
    want = np.load(os.path.join(workdir, "eager.npy"))
    _names, got = _ort.run(path, [tokens])
    return float(np.abs(got[0].astype(np.float64) - want).max()), float(np.abs(want).max())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--dim", type=int, default=2048)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=5504)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--worker", choices=["torch", "oxport"], help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(SRC, "hosts", "pytorch") + os.pathsep + env.get("PYTHONPATH", "")
    print(f"{os.cpu_count()} cores; files in {args.dir}\n")
    print("| exporter | time | peak RSS above model+forward | share of weights | files | ORT max abs diff |")
    print("|---|---|---|---|---|---|")
    for which in ("oxport", "torch") if not args.skip_torch else ("oxport",):
        work = os.path.join(args.dir, f"oxport-large-{which}-{os.getpid()}")
        os.makedirs(work, exist_ok=True)
        out = os.path.join(work, "decoder.onnx")
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", which, "--out", out, "--dir", work,
               "--layers", str(args.layers), "--dim", str(args.dim), "--heads", str(args.heads),
               "--hidden", str(args.hidden), "--vocab", str(args.vocab)]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        if p.returncode != 0:
            print(f"| {which} | process failed (exit {p.returncode}): {p.stderr.strip().splitlines()[-1][:200]} "
                  f"| | | | |")
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        names = [f for f in os.listdir(work) if f not in ("tokens.npy", "eager.npy")]
        sizes = {f: os.path.getsize(os.path.join(work, f)) for f in names}
        files = ", ".join(f"{f} {sizes[f] / 2**30:.2f} GiB" for f in sorted(names)) if len(names) <= 3 else \
            f"{len(names)} files, {sum(sizes.values()) / 2**30:.2f} GiB in all"
        diff = ""
        if r["error"] is None and which == "oxport":
            d, scale = ort_diff(out, work)
            diff = f"{d:.2g} (outputs up to {scale:.2g})"
        status = f"{r['seconds']:.1f} s" if r["error"] is None else f"failed after {r['seconds']:.1f} s: {r['error']}"
        print(f"| {which} ({r['params'] / 1e9:.2f} B params, {r['weights'] / 2**30:.2f} GiB) | {status} "
              f"| {r['peak_delta'] / 2**20:.0f} MiB | {100 * r['peak_delta'] / r['weights']:.1f}% | {files} | {diff} |")
        sys.stdout.flush()
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
        os.rmdir(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
