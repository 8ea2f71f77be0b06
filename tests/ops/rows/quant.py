"""Rows of the quant helper's families (issue #10): fake quantization (QuantizeLinear and
DequantizeLinear) and embedding with max_norm.  Format: docs/testing-operators.md."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from optable import Refuse, Row, T

F64, F16, I32 = torch.float64, torch.float16, torch.int32


def _fq(scale=0.05, zp=3, qmin=-128, qmax=127):
    return lambda x: torch.fake_quantize_per_tensor_affine(x, scale, zp, qmin, qmax)


def _fq_tensor(scale, zp, qmin, qmax):
    """The .tensor_qparams overload (torch.ao's FakeQuantize modules call it)."""
    return lambda x: torch.fake_quantize_per_tensor_affine(x, torch.tensor(scale), torch.tensor(zp, dtype=I32),
                                                         qmin, qmax)


def _fq_channel(scales, zps, axis, qmin=-128, qmax=127, zp_dtype=I32):
    return lambda x: torch.fake_quantize_per_channel_affine(x, torch.tensor(scales), torch.tensor(zps, dtype=zp_dtype),
                                                          axis, qmin, qmax)


class _LearnedQParams(nn.Module):
    """Scale and zero point as buffers (initializers), as a quantization-aware model holds them."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor([0.04]))
        self.register_buffer("zero_point", torch.tensor([128], dtype=I32))

    def forward(self, x):
        return torch.fake_quantize_per_tensor_affine(x, self.scale, self.zero_point, 0, 255)


def _calibrated(per_channel):
    """torch.ao's FakeQuantize after calibration, its observer frozen: what a
    quantization-aware model holds at export."""
    from torch.ao import quantization as tq
    if per_channel:
        fq = tq.FakeQuantize(observer=tq.MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
                             dtype=torch.qint8, qscheme=torch.per_channel_symmetric, ch_axis=1)
    else:
        fq = tq.FakeQuantize()
    fq(torch.linspace(-2, 2, 24).reshape(4, 6) * torch.linspace(0.5, 1, 6))
    fq.disable_observer()
    return fq


def _q_round_trip(scale, zp, dtype):
    """quantize_per_tensor, then both readings of the quantized tensor."""
    def f(x):
        q = torch.quantize_per_tensor(x, scale, zp, dtype)
        return q.dequantize(), q.int_repr()
    return f


def _qc_round_trip(scales, zps, axis, dtype):
    def f(x):
        q = torch.quantize_per_channel(x, torch.tensor(scales, dtype=torch.float64), torch.tensor(zps), axis, dtype)
        return q.dequantize(), q.int_repr()
    return f


def _fused_observer(per_channel):
    """QAT's default fake quantizers (they call fused_moving_avg_obs_fake_quant; per channel
    along axis 0, the only one it takes), calibrated on one batch, then the observer off."""
    from torch.ao import quantization as tq
    fq = (tq.default_fused_per_channel_wt_fake_quant if per_channel else tq.default_fused_act_fake_quant)()
    fq(torch.linspace(-2, 2, 24).reshape(4, 6) * torch.linspace(0.5, 1, 6))
    fq.disable_observer()
    return fq.eval()


QOPSETS = (10, 12, 13, 17)
NO_RENORM_IN_TORCH_ONNX = "torch.onnx 1.13 leaves embedding(max_norm=)'s renorm out of its file"
I64 = torch.int64


def _renorm_and_weight(max_norm, p):
    """The lookup and the renormed weight: rows the indices do not name stay as they were."""
    def f(i, w):
        w = w * 2
        return F.embedding(i, w, max_norm=max_norm, norm_type=p), w
    return f

ROWS = [
    # ---------------------------------------------------------------- per tensor
    Row("fake_quantize_per_tensor_affine", "aten::fake_quantize_per_tensor_affine", _fq(), [T(3, 4)],
        opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.uint8", "aten::fake_quantize_per_tensor_affine", _fq(0.02, 128, 0, 255),
        [T(2, 3, 4)], opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.saturating", "aten::fake_quantize_per_tensor_affine", _fq(0.01, -20),
        [T(3, 4, lo=-3, hi=3)], opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.tensor_qparams", "aten::fake_quantize_per_tensor_affine",
        _fq_tensor([0.05], [10], -128, 127), [T(3, 4)], opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.tensor_qparams_rank0", "aten::fake_quantize_per_tensor_affine",
        _fq_tensor(0.03, 100, 0, 255), [T(3, 4)], opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.buffers", "aten::fake_quantize_per_tensor_affine",
        module=_LearnedQParams, inputs=[T(2, 5)], opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.ao_module", "aten::fake_quantize_per_tensor_affine",
        module=lambda: _calibrated(False), inputs=[T(3, 6)], opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.reduced_range", "aten::fake_quantize_per_tensor_affine",
        _fq(0.02, 20, 0, 127), [T(3, 4)], opsets=(12, 13, 17)),
    Row("fake_quantize_per_tensor_affine.reduced_range_refused", "aten::fake_quantize_per_tensor_affine",
        _fq(0.02, 20, 0, 127), [T(3, 4)], opsets=(10, 11, 12),
        refuse=Refuse("the reduced range (0, 127) clips the quantized uint8 values with Clip", below=12)),
    Row("fake_quantize_per_tensor_affine.float64", "aten::fake_quantize_per_tensor_affine", _fq(),
        [T(3, 4, dtype=F64)], opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.zero_dim", "aten::fake_quantize_per_tensor_affine", _fq(), [T()],
        opsets=QOPSETS),
    Row("fake_quantize_per_tensor_affine.dynamic", "aten::fake_quantize_per_tensor_affine", _fq(), [T(2, 3)],
        opsets=QOPSETS, dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("fake_quantize_per_tensor_affine.range_refused", "aten::fake_quantize_per_tensor_affine",
        _fq(0.1, 0, 0, 15), [T(3, 4)], opsets=(10, 17),
        refuse=Refuse("(quant_min, quant_max) is (0, 15); ONNX quantizes to uint8 (0, 255), int8 (-128, 127) "
                      "or reduced-range uint8 (0, 127) only")),
    Row("fake_quantize_per_tensor_affine.opset9_refused", "aten::fake_quantize_per_tensor_affine", _fq(),
        [T(3, 4)], opsets=(9,), refuse=Refuse("aten::fake_quantize_per_tensor_affine has no symbolic at this opset (scope: Fn); supported from opset 10")),
    # ---------------------------------------------------------------- per channel
    Row("fake_quantize_per_channel_affine", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.05, 0.02, 0.1], [0, 3, -2], 1), [T(2, 3, 4)], opsets=(13, 17)),
    Row("fake_quantize_per_channel_affine.ao_module", "aten::fake_quantize_per_channel_affine",
        module=lambda: _calibrated(True), inputs=[T(3, 6)], opsets=(13, 17)),
    Row("fake_quantize_per_channel_affine.axis0_uint8", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.02, 0.03, 0.01, 0.05], [128, 100, 0, 255], 0, 0, 255), [T(4, 5)], opsets=(13, 17)),
    Row("fake_quantize_per_channel_affine.last_axis", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.05, 0.02], [1, -1], 2), [T(3, 4, 2)], opsets=(13, 17)),
    Row("fake_quantize_per_channel_affine.reduced_range", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.02, 0.01, 0.03], [10, 64, 0], 1, 0, 127), [T(2, 3)], opsets=(13, 17)),
    Row("fake_quantize_per_channel_affine.float64", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.05, 0.02, 0.1], [0, 3, -2], 0), [T(3, 4, dtype=F64)], opsets=(13, 17)),
    Row("fake_quantize_per_channel_affine.dynamic", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.05, 0.02, 0.1], [0, 3, -2], 1), [T(2, 3, 4)], opsets=(13, 17),
        dynamic={"in0": {0: "n", 2: "w"}, "out0": {0: "n", 2: "w"}}),
    Row("fake_quantize_per_channel_affine.float_zero_point_refused", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.05, 0.02, 0.1], [0.5, 3, -2], 1, zp_dtype=torch.float32), [T(2, 3, 4)], opsets=(13, 17),
        refuse=Refuse("zero_point is a floating tensor (learnable fake quantization); ONNX's zero point is an "
                      "integer")),
    Row("fake_quantize_per_channel_affine.range_refused", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.05, 0.02, 0.1], [0, 3, 2], 1, 0, 63), [T(2, 3, 4)], opsets=(13, 17),
        refuse=Refuse("(quant_min, quant_max) is (0, 63)")),
    Row("fake_quantize_per_channel_affine.opset12_refused", "aten::fake_quantize_per_channel_affine",
        _fq_channel([0.05, 0.02, 0.1], [0, 3, -2], 1), [T(2, 3, 4)], opsets=(12,),
        refuse=Refuse("aten::fake_quantize_per_channel_affine has no symbolic at this opset (scope: Fn); supported from opset 13")),
    # ---------------------------------------------------------------- quantized tensors (quantized.c)
    # A quantized tensor is its integer form; the rows return the dequantized value and the
    # integers themselves (int_repr), so both the scale and the rounding are compared.
    Row("quantize_per_tensor", "aten::quantize_per_tensor", _q_round_trip(0.05, 3, torch.qint8), [T(3, 4)],
        opsets=QOPSETS + (21,)),
    Row("quantize_per_tensor.quint8", "aten::quantize_per_tensor", _q_round_trip(0.02, 128, torch.quint8),
        [T(2, 3, 4, lo=-3, hi=3)], opsets=QOPSETS),
    Row("quantize_per_tensor.dynamic", "aten::quantize_per_tensor", _q_round_trip(0.05, 3, torch.qint8),
        [T(2, 3)], opsets=(10, 13, 17), dynamic={"in0": {0: "n"}, "out0": {0: "n"}, "out1": {0: "n"}}),
    Row("quantize_per_tensor.qint32_refused", "aten::quantize_per_tensor", _q_round_trip(0.05, 0, torch.qint32),
        [T(3, 4)], opsets=(13,), refuse=Refuse("dtype is torch.qint32; QuantizeLinear produces uint8")),
    Row("quantize_per_tensor.opset9_refused", "aten::quantize_per_tensor", _q_round_trip(0.05, 3, torch.qint8),
        [T(3, 4)], opsets=(9,), refuse=Refuse("supported from opset 10")),
    Row("dequantize", "aten::dequantize", lambda x: torch.quantize_per_tensor(x, 0.1, 0, torch.quint8).dequantize(),
        [T(4, 5)], opsets=QOPSETS),
    Row("quantize_per_channel", "aten::quantize_per_channel",
        _qc_round_trip([0.05, 0.02, 0.1], [0, 3, -2], 1, torch.qint8), [T(2, 3, 4)], opsets=(13, 17, 21)),
    Row("quantize_per_channel.quint8_axis0", "aten::quantize_per_channel",
        _qc_round_trip([0.02, 0.03, 0.01, 0.05], [128, 100, 0, 255], 0, torch.quint8), [T(4, 5)], opsets=(13, 17)),
    Row("quantize_per_channel.opset12_refused", "aten::quantize_per_channel",
        _qc_round_trip([0.05, 0.02, 0.1], [0, 3, -2], 1, torch.qint8), [T(2, 3, 4)], opsets=(12,),
        refuse=Refuse("supported from opset 13")),
    Row("fused_moving_avg_obs_fake_quant.observer_off", "aten::fake_quantize_per_tensor_affine",
        module=lambda: _fused_observer(False), inputs=[T(3, 6)], opsets=QOPSETS),
    Row("fused_moving_avg_obs_fake_quant.per_channel", "aten::fake_quantize_per_channel_affine",
        module=lambda: _fused_observer(True), inputs=[T(4, 6)], opsets=(13, 17)),
    # ---------------------------------------------------------------- embedding with max_norm
    # The weight is an input (times 2, so most rows exceed the norm): the file must
    # renorm it; a module's weight is renormed in place by each eager run.  torch.onnx
    # 1.13's file leaves the renorm out (off by 2.4-3.3 on these inputs), so it cannot excuse
    # an error here: the rows compare against eager alone.
    Row("embedding_renorm", "aten::embedding_renorm", lambda i, w: F.embedding(i, w * 2, max_norm=1.0),
        [T(2, 3, dtype=I64, lo=0, hi=9), T(10, 4)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.new_weight", "aten::embedding_renorm", _renorm_and_weight(1.5, 2.0),
        [T(5, dtype=I64, lo=0, hi=4), T(8, 3)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.repeated_indices", "aten::embedding_renorm", _renorm_and_weight(1.0, 2.0),
        [T(12, dtype=I64, lo=0, hi=2), T(6, 4)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    # max_norm inside the rows' norms (2-norms of 4 values in [-4, 4) spread over ~1..7):
    # rows below it stay as they are, rows above are scaled, both looked up repeatedly
    Row("embedding_renorm.some_below", "aten::embedding_renorm", _renorm_and_weight(4.0, 2.0),
        [T(16, dtype=I64, lo=0, hi=7), T(8, 4)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.l1", "aten::embedding_renorm", lambda i, w: F.embedding(i, w * 2, max_norm=2.0,
                                                                                  norm_type=1.0),
        [T(4, dtype=I64, lo=0, hi=9), T(10, 4)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.p3", "aten::embedding_renorm", _renorm_and_weight(1.0, 3.0),
        [T(6, dtype=I64, lo=0, hi=6), T(7, 4)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.inf", "aten::embedding_renorm", _renorm_and_weight(0.5, float("inf")),
        [T(6, dtype=I64, lo=0, hi=6), T(7, 4)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.int32_indices", "aten::embedding_renorm", lambda i, w: F.embedding(i, w * 2, max_norm=1.0),
        [T(2, 3, dtype=I32, lo=0, hi=9), T(10, 4)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.float64", "aten::embedding_renorm", _renorm_and_weight(1.0, 2.0),
        [T(5, dtype=I64, lo=0, hi=5), T(6, 4, dtype=F64)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.module", "aten::embedding_renorm", module=lambda: nn.Embedding(10, 4, max_norm=1.0),
        inputs=[T(2, 3, dtype=I64, lo=0, hi=9)], since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.module_padding_idx", "aten::embedding_renorm",
        module=lambda: nn.Embedding(10, 4, padding_idx=0, max_norm=0.5), inputs=[T(2, 3, dtype=I64, lo=0, hi=9)],
        since=11, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.dynamic", "aten::embedding_renorm", lambda i, w: F.embedding(i, w * 2, max_norm=1.0),
        [T(2, 3, dtype=I64, lo=0, hi=9), T(10, 4)], since=11,
        dynamic={"in0": {0: "b", 1: "s"}, "out0": {0: "b", 1: "s"}}, eager_only=NO_RENORM_IN_TORCH_ONNX),
    Row("embedding_renorm.opset10_refused", "aten::embedding_renorm",
        lambda i, w: F.embedding(i, w * 2, max_norm=1.0), [T(2, 3, dtype=I64, lo=0, hi=9), T(10, 4)],
        opsets=(9, 10), refuse=Refuse("aten::embedding_renorm_ has no symbolic at this opset (scope: Fn); "
                                      "supported from opset 11")),
    Row("embedding_renorm.norm_type_refused", "aten::embedding_renorm",
        lambda i, w: F.embedding(i, w * 2, max_norm=1.0, norm_type=-1.0),
        [T(2, 3, dtype=I64, lo=0, hi=9), T(10, 4)], opsets=(11, 17),
        refuse=Refuse("embedding_renorm norm_type -1 is not positive; max_norm is exported for p-norms with "
                      "p > 0 (and inf)")),
    # ---------------------------------------------------------------- comparisons met on the way
    # torch.ao's FakeQuantize tests its uint8 enable flags with ==: Equal takes
    # uint8/int8/int16 only from opset 11.
    Row("eq.uint8", "aten::eq", lambda x, y: x == y, [T(3, 4, dtype=torch.uint8, lo=0, hi=2),
                                                      T(3, 4, dtype=torch.uint8, lo=0, hi=2)]),
    Row("eq.uint8_scalar", "aten::eq", lambda x: x == 1, [T(3, 4, dtype=torch.uint8, lo=0, hi=2)]),
    Row("ne.int8", "aten::ne", lambda x, y: x != y, [T(3, 4, dtype=torch.int8, lo=-1, hi=1),
                                                     T(3, 4, dtype=torch.int8, lo=-1, hi=1)]),
    Row("eq.int16", "aten::eq", lambda x, y: x == y, [T(3, 4, dtype=torch.int16, lo=0, hi=2),
                                                      T(3, 4, dtype=torch.int16, lo=0, hi=2)]),
]
