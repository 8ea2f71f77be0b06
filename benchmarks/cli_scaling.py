#!/usr/bin/python3
"""How the CLI's file tools scale with a file's width: each case of
tests/tools/wide_models.py (many initializers, op types, attributes, opset imports,
modules) run at n and 4n items, fresh process each, best of --repeat runs.

    /usr/bin/python3 benchmarks/cli_scaling.py [--oxport build/tools/oxport] [--repeat 3]

Linear work grows about 4 times from n to 4n (less where process start and reading
dominate); a scan of the other items per item grows 16 times.  Not a test: it asserts
nothing, it prints the times and their ratio side by side."""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "tools"))

import onnx  # noqa: E402

import wide_models  # noqa: E402


def best_time(cmd, repeat):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.perf_counter() - t
        if r.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr[-500:]}")
        best = dt if best is None else min(best, dt)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oxport", default=os.path.join(HERE, "..", "build", "tools", "oxport"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    print(f"{'case':<26} {'n':>7} {'time at n':>10} {'time at 4n':>11} {'ratio':>6}")
    with tempfile.TemporaryDirectory(prefix="oxport-cli-scaling-") as tmp:
        for name, make, n, cli in wide_models.CASES:
            times = []
            for k in (n, 4 * n):
                path = os.path.join(tmp, f"{name}-{k}.onnx")
                onnx.save(make(k), path)
                times.append(best_time([args.oxport, *(path if a == "{}" else a for a in cli)], args.repeat))
            print(f"{name:<26} {n:>7} {times[0]:>9.3f}s {times[1]:>10.3f}s {times[1] / times[0]:>5.1f}x", flush=True)


if __name__ == "__main__":
    main()
