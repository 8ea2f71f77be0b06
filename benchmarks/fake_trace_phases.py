#!/usr/bin/python3
"""Where the time of one oxport.torch.export(trace='fake') goes, phase by phase.

    meson devenv -C build /usr/bin/python3 benchmarks/fake_trace_phases.py [--models resnet50,vit_b_16]
                                                                          [--repeat 5] [--dir /var/tmp]

Each export runs in a fresh process (an export is usually its process's first) and
prints, in milliseconds:
  context   _engine.Context() and its load (YAML descriptors, packs)
  trace     the meta-device forward and its recording (_recorder.trace)
  engine    ox_export writing to /dev/null: pre-scan, conversion, passes, encoding
  export    the whole export to a file in --dir (what torch_vs_oxport.py times)
and, as the floor of any recording, the same meta forward with a pass-through
TorchFunctionMode and TorchDispatchMode and a forward pre-hook and hook on every module
("floor"), as the recorder has; the rest of "trace" is the recording itself.
Medians over --repeat processes.  Not a test: it asserts nothing.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, ".."))


def worker(name, outdir):
    import torch
    import torchvision

    from oxport import _engine
    from oxport.torch import _recorder
    import oxport.torch

    times = {}

    def timed(obj, attr, key):
        f = getattr(obj, attr)

        def w(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                times[key] = times.get(key, 0.0) + time.perf_counter() - t
        setattr(obj, attr, w)

    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    timed(_engine.Context, "load", "context")
    timed(_engine, "Context", "context")
    timed(_recorder, "trace", "trace")
    lib = _engine.lib()
    timed(lib, "ox_export", "ox_export")
    out = os.path.join(outdir, f"{name}-phases.onnx")
    if os.path.exists(out):
        os.remove(out)
    t0 = time.perf_counter()
    oxport.torch.export(model, x, out, trace="fake")
    export = time.perf_counter() - t0
    os.remove(out)
    file_ox_export = times.pop("ox_export")
    first = dict(times)
    times.clear()
    oxport.torch.export(model, x, os.devnull, trace="fake")
    engine = times["ox_export"]
    floor = meta_forward_floor(model, x)
    res = {"context": first["context"], "trace": first["trace"], "engine": engine,
           "write": file_ox_export - engine, "export": export, "floor": floor}
    print(json.dumps(res))


def meta_forward_floor(model, x):
    """The meta forward under pass-through modes and hooks like the recorder's."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class PassF(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class PassA(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    m = model.to("meta")
    xm = torch.empty_like(x, device="meta")
    hooks = []
    for mod in m.modules():
        hooks.append(mod.register_forward_pre_hook(lambda *_: None))
        hooks.append(mod.register_forward_hook(lambda *_: None))
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        with torch.no_grad(), PassF(), PassA():
            m(xm)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    for h in hooks:
        h.remove()
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="resnet50,vit_b_16,vgg16")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.dir)
        return 0
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(SRC, "hosts", "pytorch") + os.pathsep + env.get("PYTHONPATH", "")
    print(f"{os.cpu_count()} cores; load average {' '.join(open('/proc/loadavg').read().split()[:3])}; "
          f"median of {args.repeat} fresh processes, milliseconds")
    cols = ("context", "trace", "floor", "engine", "write", "export")
    print("| model | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for name in args.models.split(","):
        runs = []
        for _ in range(args.repeat):
            os.sync()
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name, "--dir", args.dir],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            if p.returncode != 0:
                print(f"{name}: failed:\n{p.stderr[-2000:]}", file=sys.stderr)
                return 1
            runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
        med = {c: statistics.median(r[c] for r in runs) * 1000 for c in cols}
        print(f"| {name} | " + " | ".join(f"{med[c]:.1f}" for c in cols) + " |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
