#!/usr/bin/python3
"""Quantized models exported by oxport and by torch.onnx 1.13, side by side: export time,
node count, the integer kernels in the file, and the largest error against eager PyTorch
in ONNX Runtime (in output quantization steps) on two inputs.

    PYTHONPATH=hosts/pytorch:tests/py OXPORT_...=... /usr/bin/python3 benchmarks/quantized_vs_torch_onnx.py

(the environment of tests/pytorch/meson.build).  Models: torchvision's quantizable
ResNet-18 and MobileNet v2 (random init, BatchNorm calibrated, eager-mode post-training
quantization with fbgemm's qconfig on random data, 64x64 inputs) and the same ResNet-18
after quantization-aware training (fake-quantized, observers off)."""

import os
import sys
import tempfile
import time
import warnings

import numpy as np
import onnx
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "py"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "pytorch"))
import onnxval  # noqa: E402
import oxport.torch as ox  # noqa: E402
import test_quantized as tqz  # noqa: E402  (the test's model builders, so both measure one thing)


def best_of(n, fn):
    best = None
    for _ in range(n):
        t = time.perf_counter()
        fn()
        best = min(best or 1e9, time.perf_counter() - t)
    return best


def measure(label, model, xs, step, path):
    feeds = [{"x": x.numpy()} for x in xs]
    wants = [[model(x).detach().numpy()] for x in xs]
    row = [label]
    for name, export in (("oxport", lambda: ox.export(model, (xs[0],), path, opset_version=13, input_names=["x"])),
                         ("torch.onnx", lambda: torch.onnx.export(model, (xs[0],), path, opset_version=13,
                                                                  input_names=["x"]))):
        try:
            secs = best_of(3, export)
        except Exception as e:  # torch.onnx raises many types for what it cannot export
            row.append(f"{name}: cannot export ({type(e).__name__}: {str(e).splitlines()[0][:70]})")
            continue
        ops = [n.op_type for n in onnx.load(path).graph.node]
        err = tqz.max_error(onnxval.run_ort_many(path, feeds), wants)
        kernels = ", ".join(f"{ops.count(k)} {k}" for k in ("QLinearConv", "QLinearMatMul", "MatMulInteger",
                                                             "QuantizeLinear") if ops.count(k))
        row.append(f"{name}: {secs * 1000:.0f} ms, {len(ops)} nodes ({kernels}), max error {err / step:.2f} steps")
    print(" | ".join(row), flush=True)


def main():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tmp = tempfile.TemporaryDirectory()
        path = os.path.join(tmp.name, "m.onnx")
        xs = tqz.two_inputs((2, 3, 64, 64))
        for name in ("resnet18", "mobilenet_v2"):
            m = tqz.tv_quantized(name, (2, 3, 64, 64))
            _, steps = tqz.output_steps(m, xs[0])
            measure(f"static {name}", m, xs, steps[-1], path)
        qat_case = tqz.QuantizationAwareTraining()
        qat = qat_case.qat_resnet18()
        qat.apply(torch.ao.quantization.disable_observer)
        qxs = tqz.two_inputs(qat_case.SHAPE)
        measure("QAT resnet18 (fake-quantized)", qat, qxs, float(qat.fc.activation_post_process.scale), path)
        tmp.cleanup()


if __name__ == "__main__":
    main()
