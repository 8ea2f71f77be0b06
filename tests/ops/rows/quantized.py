"""Rows of the quantized modules' integer kernels (quantized.c): quantized conv and
linear layers from eager-mode post-training quantization, between a QuantStub and a
DeQuantStub, so the row's output is the dequantized result.  Each module is calibrated on
inputs drawn like the row's own (uniform in [-2, 2)).  A value on a rounding tie may come
out one quantization step apart from eager's (tests/pytorch/test_quantized.py says why):
the rows compare with tol="step", within one step of eager's output grid.
Format: docs/testing-operators.md."""

import torch
import torch.nn as nn
import torch.ao.quantization as tq

from optable import Row, T


class _Stubbed(nn.Module):
    def __init__(self, body):
        super().__init__()
        self.quant, self.dequant, self.body = tq.QuantStub(), tq.DeQuantStub(), body

    def forward(self, x):
        return self.dequant(self.body(self.quant(x)))


def _quantized(body, shape, qconfig=None, fuse=False):
    """body (a float layer, or Sequential(layer, ReLU) with fuse) quantized statically."""
    def make():
        torch.manual_seed(0)
        m = _Stubbed(body()).eval()
        if fuse:
            tq.fuse_modules(m, [["body.0", "body.1"]], inplace=True)
        m.qconfig = qconfig or tq.get_default_qconfig("fbgemm")
        tq.prepare(m, inplace=True)
        g = torch.Generator().manual_seed(3)
        with torch.no_grad():
            for _ in range(4):
                m(torch.rand(shape, generator=g) * 4 - 2)
        tq.convert(m, inplace=True)
        return m
    return make


def _relu(layer):
    return lambda: nn.Sequential(layer(), nn.ReLU())


C1 = (2, 3, 10)
C2 = (2, 3, 7, 7)
C3 = (1, 3, 4, 5, 5)

ROWS = [
    Row("quantized.conv2d", "quantized::conv2d", module=_quantized(lambda: nn.Conv2d(3, 4, 3, padding=1), C2),
        inputs=[T(*C2)], since=10, tol="step"),
    Row("quantized.conv2d.strided_grouped_per_tensor", "quantized::conv2d",
        module=_quantized(lambda: nn.Conv2d(3, 6, 3, stride=2, padding=2, dilation=2, groups=3), C2,
                          tq.default_qconfig), inputs=[T(*C2)], since=10, tol="step"),
    Row("quantized.conv2d_relu", "quantized::conv2d_relu",
        module=_quantized(_relu(lambda: nn.Conv2d(3, 4, 3)), C2, fuse=True), inputs=[T(*C2)], since=10, tol="step"),
    Row("quantized.conv1d", "quantized::conv1d", module=_quantized(lambda: nn.Conv1d(3, 4, 3, padding=1), C1),
        inputs=[T(*C1)], since=10, tol="step"),
    Row("quantized.conv1d_relu", "quantized::conv1d_relu",
        module=_quantized(_relu(lambda: nn.Conv1d(3, 4, 3)), C1, fuse=True), inputs=[T(*C1)], since=10, tol="step"),
    Row("quantized.conv3d", "quantized::conv3d", module=_quantized(lambda: nn.Conv3d(3, 4, 3, padding=1), C3),
        inputs=[T(*C3)], since=10, tol="step"),
    Row("quantized.conv3d_relu", "quantized::conv3d_relu",
        module=_quantized(_relu(lambda: nn.Conv3d(3, 4, 3)), C3, fuse=True), inputs=[T(*C3)], since=10, tol="step"),
    Row("quantized.linear", "quantized::linear", module=_quantized(lambda: nn.Linear(6, 5), (4, 6)),
        inputs=[T(4, 6)], since=10, tol="step"),
    Row("quantized.linear.no_bias_3d", "quantized::linear",
        module=_quantized(lambda: nn.Linear(6, 5, bias=False), (2, 3, 6)), inputs=[T(2, 3, 6)], since=10, tol="step"),
    Row("quantized.linear_relu", "quantized::linear_relu",
        module=_quantized(_relu(lambda: nn.Linear(6, 5)), (4, 6), fuse=True), inputs=[T(4, 6)], since=10, tol="step"),
]
