#!/usr/bin/python3
"""torch.onnx.export vs oxport.torch.export on the same model, same opset, one run each.

    meson devenv -C build /usr/bin/python3 benchmarks/torch_vs_oxport.py [--models alexnet,vgg16,resnet50]
                                                                        [--opset 13] [--repeat N] [--keep DIR]

Each exporter runs in a fresh subprocess: load the model (random weights, fixed seed)
and run one eager forward -- that process's peak RSS (VmHWM) is the baseline -- then
export once.  Reported: export wall time; the time above one eager forward (a forward
timed just before the export in the same process; an eager trace runs one, so this is what
the exporter adds); peak RSS above the baseline; file size; node count; and the max abs
difference between ONNX Runtime on the file and PyTorch eager.
oxport runs three times: the default eager trace; trace='fake' (the forward on the meta
device, no kernel computes); and trace='fake' with direct_io=True (the file written with
O_DIRECT, past the page cache).  With --repeat N each export runs N times, each in its own
process, the exporters taking turns (each round starting one worker further on), and the
median time is reported (the machine's load moves single runs a lot).

The "plain write" row is the floor for any exporter: a fresh process that first does
what an exporter's process does before its export (imports torch, builds the model, runs
its forwards), then writes the same number of bytes as oxport's file from one in-memory
buffer to the same directory with os.write (no fsync, like the exporters), timed the same
way.  The setup matters on a VM that hands freed memory back to its host: a write is fast
only into pages that were freed moments before and not yet handed back, and a plain writer
that started without building a model would find pages the exporters never see
(docs/performance.md, "What a write costs on this VM").  The "ceiling" rows divide
torch.onnx.export's time by each plain write's: no exporter that writes the file can be
faster than that in the same run.  The "plain direct write" row
is the same with O_DIRECT (aligned blocks from a page-aligned buffer, the tail buffered):
the floor for direct_io=True.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, ".."))

# one fresh process each, taking turns in this order
WORKERS = ("torch", "oxport", "oxport-fake", "oxport-fake-direct", "plain-write", "plain-write-direct")

# name -> (constructor expression, input shape)
MODELS = {
    "alexnet": ("torchvision.models.alexnet(weights=None)", (1, 3, 224, 224)),
    "vgg16": ("torchvision.models.vgg16(weights=None)", (1, 3, 224, 224)),
    "resnet50": ("torchvision.models.resnet50(weights=None)", (1, 3, 224, 224)),
    "densenet121": ("torchvision.models.densenet121(weights=None)", (1, 3, 224, 224)),
    "inception_v3": ("torchvision.models.inception_v3(weights=None, aux_logits=False, transform_input=False)",
                     (1, 3, 299, 299)),
    "super_resolution": ("oxport.models.super_resolution.SuperResolutionNet(3)", (1, 1, 224, 224)),
    # so small that its forward takes microseconds: the exporters' fixed costs alone
    "mlp": ("torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))", (1, 64)),
    "vit_b_16": ("torchvision.models.vit_b_16(weights=None)", (1, 3, 224, 224)),
    "swin_t": ("torchvision.models.swin_t(weights=None)", (1, 3, 224, 224)),
}


def vm_hwm():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def plain_write(args, model, direct=False):
    """Write args.nbytes to args.out, as the floor of writing a file: buffered, straight
    from the model's own tensors (as an exporter that borrows them does), padded to the
    file's size; direct, from one page-aligned copy (O_DIRECT needs aligned memory)."""
    import mmap

    import numpy as np
    chunk = 8 << 20
    if direct:
        # an anonymous map is page-aligned, as O_DIRECT needs
        mem = mmap.mmap(-1, max(args.nbytes, 1))
        buf = np.frombuffer(mem, dtype=np.uint8, count=args.nbytes)
        buf[:] = np.random.default_rng(0).integers(0, 255, args.nbytes, dtype=np.uint8)
        pieces = [memoryview(mem)[:args.nbytes]]
    else:
        pieces, left = [], args.nbytes
        for t in model.state_dict().values():
            if left <= 0:
                break
            b = memoryview(t.detach().contiguous().numpy()).cast("B")[:left]
            pieces.append(b)
            left -= len(b)
        if left > 0:  # the file's framing and small constants
            pieces.append(memoryview(bytes(left)))
    base = vm_hwm()
    t0 = time.perf_counter()
    tmp = args.out + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (os.O_DIRECT if direct else 0), 0o644)
    try:
        for view in pieces:
            done = 0
            whole = len(view) // 4096 * 4096 if direct else len(view)
            while done < whole:
                done += os.write(fd, view[done:min(whole, done + chunk)])
            if done < len(view):  # the tail, shorter than a block, through the page cache
                import fcntl
                fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_DIRECT)
                while done < len(view):
                    done += os.write(fd, view[done:])
    finally:
        os.close(fd)
    os.rename(tmp, args.out)  # replaced atomically, as the exporters do
    dt = time.perf_counter() - t0
    print(json.dumps({"seconds": dt, "baseline": base, "peak_delta": vm_hwm() - base}))
    return 0


def prepared_model(args):
    """What every worker does before its timed part: the model built, its degenerate
    parts re-drawn, one forward saved for the comparison and one more timed.
    Returns (model, input, seconds of the timed forward)."""
    import numpy as np
    import torch

    import oxport.models.super_resolution  # noqa: F401
    import oxport.torch

    torch.manual_seed(0)
    expr, shape = MODELS[args.model]
    names = {"oxport": oxport, "torch": torch}
    if expr.startswith("torchvision."):
        # only where the model needs it: a process that never imports torchvision is
        # what a user of a plain model has, and an exporter must not make it pay for it
        import torchvision
        names["torchvision"] = torchvision
    model = eval(expr, names).eval()  # noqa: S307 (fixed table)
    with torch.no_grad():
        # A zero-initialised matrix (ViT's head) would make the output, and the ORT
        # comparison, trivially zero: draw it like the others.
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.normal_(0, 0.02)
    x = torch.randn(shape)
    with torch.no_grad():
        y = model(x)
    np.save(os.path.join(args.workdir, "input.npy"), x.numpy())
    np.save(os.path.join(args.workdir, "eager.npy"), y.numpy())
    # One more forward, timed, right before the export: both eager exporters run one,
    # so export time minus this is what the exporter adds to the model's own cost.
    t0 = time.perf_counter()
    with torch.no_grad():
        model(x)
    forward = time.perf_counter() - t0
    return model, x, forward


def worker(args):
    model, x, forward = prepared_model(args)
    if args.worker in ("plain-write", "plain-write-direct"):
        return plain_write(args, model, direct=args.worker == "plain-write-direct")
    import oxport.torch
    import torch

    base = vm_hwm()
    t0 = time.perf_counter()
    if args.worker == "torch":
        torch.onnx.export(model, x, args.out, opset_version=args.opset)
    elif args.worker == "oxport-fake":
        oxport.torch.export(model, x, args.out, opset_version=args.opset, trace="fake")
    elif args.worker == "oxport-fake-direct":
        oxport.torch.export(model, x, args.out, opset_version=args.opset, trace="fake", direct_io=True)
    else:
        oxport.torch.export(model, x, args.out, opset_version=args.opset)
    dt = time.perf_counter() - t0
    peak = vm_hwm()
    print(json.dumps({"seconds": dt, "forward": forward, "baseline": base, "peak_delta": peak - base}))
    return 0


def count_nodes(path):
    import onnx
    return len(onnx.load(path, load_external_data=False).graph.node)


def ort_diff(path, workdir):
    import numpy as np

    sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
    from oxport.torch import _ort

    x = np.load(os.path.join(workdir, "input.npy"))
    want = np.load(os.path.join(workdir, "eager.npy"))
    _names, got = _ort.run(path, [x])
    return float(np.abs(got[0].astype(np.float64) - want).max())


def fmt_bytes(n):
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 1024:.0f} KiB"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="alexnet,vgg16,resnet50")
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--repeat", type=int, default=1, help="exports per exporter (fresh process each); median")
    ap.add_argument("--keep", help="keep the exported files in this directory")
    ap.add_argument("--worker", choices=WORKERS, help=argparse.SUPPRESS)
    ap.add_argument("--nbytes", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(SRC, "hosts", "pytorch") + os.pathsep + env.get("PYTHONPATH", "")
    print(f"{os.cpu_count()} cores; load average at start {load()}; median of {args.repeat} "
          f"run(s) per exporter, each in a fresh process")
    rows = []
    for name in args.models.split(","):
        if name not in MODELS:
            print(f"unknown model {name!r}; one of {', '.join(MODELS)}", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="oxport-bench-") as tmp:
            outdir = args.keep or tmp
            os.makedirs(outdir, exist_ok=True)
            # The exporters take turns, one export each per round, so a drift in the
            # machine's speed over the run falls on all of them alike.  Each round starts
            # one worker further on: how fast a buffered write is here depends on what the
            # worker before it wrote and freed (docs/performance.md, "What a write costs on
            # this VM"), so no worker always follows the same one.
            order = WORKERS
            runs = {which: [] for which in order}
            for rnd in range(args.repeat):
                for which in order[rnd % len(order):] + order[:rnd % len(order)]:
                    if runs[which] is None:
                        continue
                    out = os.path.join(outdir, f"{name}_{which}.onnx")
                    extra = []
                    if which.startswith("plain-write"):
                        if not runs["oxport-fake"]:
                            runs[which] = None
                            continue
                        out = os.path.join(outdir, f"{name}_{which}.bin")
                        extra = ["--nbytes", str(os.path.getsize(os.path.join(outdir, f"{name}_oxport-fake.onnx")))]
                    # Each export starts from the same quiet disk: the previous file of this
                    # exporter is removed and every dirty page written back first, outside the
                    # timed region.  Without it, an export pays for the writeback of the ones
                    # before it (the kernel throttles a writer once dirty pages pile up), and a
                    # run of several 500 MiB files measured the disk's backlog, not the exporter.
                    if os.path.exists(out):
                        os.remove(out)
                    os.sync()
                    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", which, "--model", name,
                                        "--out", out, "--opset", str(args.opset), "--workdir", tmp] + extra,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                    if p.returncode != 0:
                        print(f"{name}: {which} failed:\n{p.stderr[-2000:]}", file=sys.stderr)
                        runs[which] = None
                        continue
                    runs[which].append(json.loads(p.stdout.strip().splitlines()[-1]))
            res = {}
            for which in order:
                if not runs[which]:
                    res[which] = None
                    continue
                out = os.path.join(outdir, f"{name}_{which}.bin" if which.startswith("plain-write") else f"{name}_{which}.onnx")
                r = {"seconds": statistics.median(x["seconds"] for x in runs[which]),
                     "above_forward": statistics.median(x["seconds"] - x.get("forward", 0) for x in runs[which]),
                     "peak_delta": max(x["peak_delta"] for x in runs[which]), "size": os.path.getsize(out)}
                if not which.startswith("plain-write"):
                    r["nodes"] = count_nodes(out)
                    r["diff"] = ort_diff(out, tmp)
                res[which] = r
            rows.append((name, res))
            print_row(name, res, header=len(rows) == 1)
    print(f"load average at end {load()}")
    return 0


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def fmt_seconds(s):
    # milliseconds below a second, so a tiny model's times keep their digits
    return f"{s:.2f} s" if s >= 1 else f"{s * 1000:.1f} ms"


def print_row(name, res, header):
    if header:
        print("| model | exporter | time | time above one eager forward | peak RSS above model+forward | file | nodes "
              "| ORT max abs diff |")
        print("|---|---|---|---|---|---|---|---|")
    t, o, fk, fd = res.get("torch"), res.get("oxport"), res.get("oxport-fake"), res.get("oxport-fake-direct")
    for which, r in (("torch.onnx.export", t), ("oxport.torch.export", o),
                     ("oxport.torch.export(trace='fake')", fk),
                     ("oxport.torch.export(trace='fake', direct_io=True)", fd),
                     ("plain write of as many bytes", res.get("plain-write")),
                     ("plain direct write of as many bytes", res.get("plain-write-direct"))):
        if r is None:
            print(f"| {name} | {which} | failed | | | | | |")
            continue
        if "nodes" not in r:
            print(f"| {name} | {which} | {fmt_seconds(r['seconds'])} | | | {fmt_bytes(r['size'])} | | |")
            continue
        # the execute-free trace runs no forward: the column is for the eager ones
        above = fmt_seconds(r["above_forward"]) if "trace='fake'" not in which else ""
        print(f"| {name} | {which} | {fmt_seconds(r['seconds'])} | {above} | {fmt_bytes(r['peak_delta'])} | {fmt_bytes(r['size'])} "
              f"| {r['nodes']} | {r['diff']:.2g} |")
    if t and o:
        print(f"| {name} | speed-up | {t['seconds'] / max(o['seconds'], 1e-9):.1f}x | | | | | |")
    if t and fk:
        print(f"| {name} | speed-up, trace='fake' | {t['seconds'] / max(fk['seconds'], 1e-9):.1f}x | | | | | |")
    if t and fd:
        print(f"| {name} | speed-up, trace='fake', direct_io=True | {t['seconds'] / max(fd['seconds'], 1e-9):.1f}x "
              "| | | | | |")
    # What no exporter writing these bytes could beat in this run: torch.onnx's time over
    # the plain writes' (each export must at least write its file).
    for label, key in (("buffered", "plain-write"), ("direct", "plain-write-direct")):
        w = res.get(key)
        if t and w:
            print(f"| {name} | ceiling of any speed-up, {label} write (torch.onnx / plain {label} write) | "
                  f"{t['seconds'] / max(w['seconds'], 1e-9):.1f}x | | | | | |")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
