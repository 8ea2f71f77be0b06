"""The operator table: one Row per operator variant (format: optable.py and
docs/testing-operators.md).  Adding an operator test is adding a row here; the runner
(run_table.py) fails when an operator the packs declare has no row at an opset in
COVERAGE_OPSETS.

Rows are grouped like docs/operators.md: elementwise, comparison and logic, reductions,
shape and indexing, factories, neural-network layers, recurrent layers.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from optable import Refuse, Row, T

COVERAGE_OPSETS = (9, 13, 17)
# Below opset 9 (IR version 3) the runner adds these opsets to every row that starts at 9,
# where the row's operator is declared (run_table.extend_to_low_opsets).
LOW_OPSETS = (7, 8)
# Above the newest opset rows name (17), the runner exports every row that passes at 17 at
# the last of these (21) too, and runs it at each of them in full when its lowering there
# differs from 17's (run_table.high_opsets_to_add); `run_table.py --opset N` with N in 18-21
# runs every row at 17 at N.
NEWEST_ROW_OPSET = 17
HIGH_OPSETS = (18, 21)
COVERED_PACKS = ("aten", "nn_functions")

I64, I32, BOOL, F64, F16 = torch.int64, torch.int32, torch.bool, torch.float64, torch.float16
POS = dict(lo=0.25, hi=4.0)           # log, sqrt, rsqrt, pow bases
AWAY = dict(lo=0.5, hi=2.0)           # divisors: away from zero
# Integer operands of ops ONNX defines for floats only at early opsets (Relu before 14, Pow/Max/Min/Clip
# before 12, Pad before 11, ReduceSum never on bool): the .int64/.int32/.bool rows, exact, at each side
# of 11/12 (they were tests/pytorch/test_integer_operands.py).
INT_OPSETS = (9, 11, 13, 17)
ORT_FLOAT64 = "{op} on float64 is valid ONNX, but ONNX Runtime has no such kernel: needs a Cast round trip (#10)"
UINT8_SUB = "Sub on uint8 before opset 14: no Cast round trip (#10)"


def affine_drawn(m):
    """m with its affine weight and bias drawn away from the 1/0 they start at, so a
    comparison sees them (the row's seed draws them)."""
    with torch.no_grad():
        m.weight.uniform_(0.5, 2.0)
        m.bias.uniform_(-1.0, 1.0)
    return m


class ConstantPadNd(torch.autograd.Function):
    """An autograd Function recorded as one fn:: node (the nn_functions pack converts it)."""

    @staticmethod
    def forward(ctx, input, pad, value=0.0):
        return F.pad(input, pad, value=value)


class RnnWithState(nn.Module):
    """A recurrent layer called with its initial state as inputs (h0, or h0 and c0)."""

    def __init__(self, rnn, lstm=False):
        super().__init__()
        self.rnn = rnn
        self.lstm = lstm

    def forward(self, x, h, c=None):
        return self.rnn(x, (h, c) if self.lstm else h)


ROWS = [
    # ---------------------------------------------------------------- elementwise unary
    Row("abs", "aten::abs", lambda x: torch.abs(x), [T(3, 4)]),
    Row("abs.int64", "aten::abs", lambda x: torch.abs(x), [T(3, 4, dtype=I64)]),
    Row("neg", "aten::neg", lambda x: -x, [T(3, 4)]),
    Row("ceil", "aten::ceil", lambda x: torch.ceil(x), [T(3, 4)]),
    Row("floor", "aten::floor", lambda x: torch.floor(x), [T(3, 4)]),
    Row("sign", "aten::sign", lambda x: torch.sign(x), [T(3, 4)]),
    Row("exp", "aten::exp", lambda x: torch.exp(x), [T(3, 4)]),
    Row("log", "aten::log", lambda x: torch.log(x), [T(3, 4, **POS)]),
    Row("sqrt", "aten::sqrt", lambda x: torch.sqrt(x), [T(3, 4, **POS)]),
    Row("rsqrt", "aten::rsqrt", lambda x: torch.rsqrt(x), [T(3, 4, **POS)]),
    Row("reciprocal", "aten::reciprocal", lambda x: torch.reciprocal(x), [T(3, 4, **AWAY)]),
    Row("sin", "aten::sin", lambda x: torch.sin(x), [T(3, 4)]),
    Row("cos", "aten::cos", lambda x: torch.cos(x), [T(3, 4)]),
    Row("atan", "aten::atan", lambda x: torch.atan(x), [T(3, 4, lo=-4.0, hi=4.0)]),
    Row("acos", "aten::acos", lambda x: torch.acos(x), [T(3, 4, lo=-0.95, hi=0.95)]),
    Row("asin", "aten::asin", lambda x: torch.asin(x), [T(3, 4, lo=-0.95, hi=0.95)]),
    Row("tan", "aten::tan", lambda x: torch.tan(x), [T(3, 4, lo=-1.2, hi=1.2)]),
    # ONNX Runtime has no float64 Tan: Sin / Cos.
    Row("tan.float64", "aten::tan", lambda x: torch.tan(x), [T(3, 4, lo=-1.5, hi=1.5, dtype=F64)]),
    Row("tanh", "aten::tanh", lambda x: torch.tanh(x), [T(3, 4)]),
    Row("sigmoid", "aten::sigmoid", lambda x: torch.sigmoid(x), [T(3, 4)]),
    Row("erf", "aten::erf", lambda x: torch.erf(x), [T(3, 4)]),
    Row("relu", "aten::relu", lambda x: torch.relu(x), [T(2, 3, 4)]),
    Row("relu.int64", "aten::relu", lambda x: torch.relu(x), [T(3, 4, dtype=I64)], opsets=INT_OPSETS,
        refuse=Refuse("relu of an integer tensor is exported as Where(x < 0, 0, x), which needs opset 9", below=9)),
    Row("relu.float64", "aten::relu", lambda x: torch.relu(x), [T(3, 4, dtype=F64)]),
    Row("relu.int32", "aten::relu", lambda x: torch.relu(x), [T(3, 4, dtype=I32)], opsets=INT_OPSETS,
        refuse=Refuse("relu of an integer tensor is exported as Where(x < 0, 0, x), which needs opset 9", below=9)),
    Row("leaky_relu", "aten::leaky_relu", lambda x: F.leaky_relu(x, 0.2), [T(3, 4)]),
    Row("threshold", "aten::threshold", lambda x: F.threshold(x, 0.3, -1.5), [T(3, 4)]),
    Row("threshold.int64", "aten::threshold", lambda x: F.threshold(x, 1, 7), [T(3, 4, dtype=I64)]),
    Row("gelu", "aten::gelu", lambda x: F.gelu(x), [T(3, 4)]),
    Row("gelu.tanh", "aten::gelu", lambda x: F.gelu(x, approximate="tanh"), [T(3, 4)]),
    Row("silu", "aten::silu", lambda x: F.silu(x), [T(3, 4)]),
    # ONNX Runtime fuses Mul(x, Sigmoid(x)) into QuickGelu, which has no float64 kernel.
    Row("silu.float64", "aten::silu", lambda x: F.silu(x), [T(3, 4, lo=-40, hi=40, dtype=F64)],
        opsets=(13, 9, 17)),
    Row("hardsigmoid", "aten::hardsigmoid", lambda x: F.hardsigmoid(x), [T(3, 4, lo=-4, hi=4)]),
    Row("hardswish", "aten::hardswish", lambda x: F.hardswish(x), [T(3, 4, lo=-4, hi=4)]),
    Row("hardtanh", "aten::hardtanh", lambda x: F.hardtanh(x, -0.5, 1.0), [T(3, 4)]),
    Row("hardtanh.relu6", "aten::hardtanh", lambda x: F.relu6(x), [T(3, 4, lo=-3, hi=8)]),
    Row("clamp", "aten::clamp", lambda x: torch.clamp(x, -0.5, 0.5), [T(3, 4)]),
    Row("clamp.min", "aten::clamp", lambda x: torch.clamp(x, min=0.25), [T(3, 4)]),
    Row("clamp.int64", "aten::clamp", lambda x: torch.clamp(x, -2, 3), [T(3, 4, dtype=I64)], opsets=INT_OPSETS),
    Row("clamp.max_int64", "aten::clamp", lambda x: torch.clamp(x, max=1), [T(3, 4, dtype=I64)],
        opsets=INT_OPSETS),
    Row("to.float64", "aten::to", lambda x: x.to(torch.float64), [T(3, 4)]),
    Row("to.int64", "aten::to", lambda x: (x * 3).to(torch.int64), [T(3, 4)]),
    Row("contiguous", "aten::contiguous", lambda x: x.transpose(0, 1).contiguous(), [T(3, 4)]),
    Row("dropout.eval", "aten::dropout", lambda x: F.dropout(x, 0.5, training=False), [T(3, 4)]),
    Row("feature_dropout", "aten::feature_dropout", lambda x: F.dropout2d(x, 0.5, training=False), [T(1, 3, 4, 4)]),
    Row("relu.zero_dim", "aten::relu", lambda x: torch.relu(x), [T()]),
    Row("exp.float64", "aten::exp", lambda x: torch.exp(x), [T(3, 4, dtype=F64)]),
    Row("tanh.float64", "aten::tanh", lambda x: torch.tanh(x), [T(3, 4, dtype=F64)]),
    # (torch 1.13 has few float16 CPU kernels: abs, neg, add, mul ...)
    Row("abs.float16", "aten::abs", lambda x: torch.abs(x), [T(3, 4, dtype=F16)]),
    Row("neg.int64", "aten::neg", lambda x: -x, [T(3, 4, dtype=I64)]),
    Row("abs.int32", "aten::abs", lambda x: torch.abs(x), [T(3, 4, dtype=I32)]),
    Row("sign.int64", "aten::sign", lambda x: torch.sign(x), [T(3, 4, dtype=I64)]),
    Row("reciprocal.int64", "aten::reciprocal", lambda x: torch.reciprocal(x), [T(3, 4, dtype=I64, lo=1, hi=5)]),
    Row("leaky_relu.default_slope", "aten::leaky_relu", lambda x: F.leaky_relu(x), [T(3, 4)]),
    # ONNX Runtime has no float64 LeakyRelu outside opsets 16-18, nor float64 HardSigmoid
    # (HardSwish runs as one): spelled out in float64.  Not from opset 9 on (the runner
    # would add 7 and 8, where ONNX Runtime has too few float64 kernels to spell them with).
    Row("leaky_relu.float64", "aten::leaky_relu", lambda x: F.leaky_relu(x, 0.2), [T(3, 4, dtype=F64)],
        opsets=(13, 9, 16, 17)),
    Row("hardsigmoid.float64", "aten::hardsigmoid", lambda x: F.hardsigmoid(x),
        [T(3, 4, lo=-4, hi=4, dtype=F64)], opsets=(13, 9, 17)),
    Row("hardswish.float64", "aten::hardswish", lambda x: F.hardswish(x), [T(3, 4, lo=-4, hi=4, dtype=F64)],
        opsets=(13, 9, 14, 17)),
    Row("gelu.float64", "aten::gelu", lambda x: F.gelu(x), [T(3, 4, dtype=F64)]),
    Row("clamp.tensor_bounds", "aten::clamp", lambda x, lo, hi: torch.clamp(x, lo, hi),
        [T(3, 4), T(3, 4, lo=-2, hi=-0.5), T(3, 4, lo=0.5, hi=2)]),
    Row("clamp.float64", "aten::clamp", lambda x: torch.clamp(x, -0.5, 0.5), [T(3, 4, dtype=F64)]),
    Row("to.float16", "aten::to", lambda x: x.half(), [T(3, 4)]),
    Row("to.from_bool", "aten::to", lambda x: (x > 0).to(torch.float32), [T(3, 4)]),
    Row("to.int32_to_float", "aten::to", lambda x: x.to(torch.float32), [T(3, 4, dtype=I32)]),
    Row("dropout.inplace_eval", "aten::dropout", lambda x: F.dropout(x * 1, 0.5, training=False, inplace=True),
        [T(3, 4)]),

    # ---------------------------------------------------------------- elementwise binary
    Row("add", "aten::add", lambda x, y: x + y, [T(3, 4), T(3, 4)]),
    Row("add.broadcast_alpha", "aten::add", lambda x, y: torch.add(x, y, alpha=2), [T(2, 3, 4), T(4)]),
    Row("add.scalar", "aten::add", lambda x: x + 1.5, [T(3, 4)]),
    Row("add.int64", "aten::add", lambda x, y: x + y, [T(3, 4, dtype=I64), T(3, 4, dtype=I64)]),
    Row("add.float_int64", "aten::add", lambda x, y: x + y, [T(3, 4), T(3, 4, dtype=I64)]),
    Row("add.float64", "aten::add", lambda x, y: x + y, [T(3, 4, dtype=F64), T(3, 4, dtype=F64)]),
    Row("add.float16", "aten::add", lambda x, y: x + y, [T(3, 4, dtype=F16), T(3, 4, dtype=F16)]),
    Row("add.zero_dim", "aten::add", lambda x, y: x + y, [T(3, 4), T()]),
    Row("add.empty", "aten::add", lambda x, y: x + y, [T(0, 4), T(4)], constant=(0,)),
    Row("sub", "aten::sub", lambda x, y: x - y, [T(3, 4), T(3, 4)]),
    Row("sub.alpha_scalar", "aten::sub", lambda x: torch.sub(x, 0.5, alpha=3), [T(3, 4)]),
    Row("rsub", "aten::rsub", lambda x: 1 - x, [T(3, 4)]),
    Row("rsub.tensor_alpha", "aten::rsub", lambda x, y: torch.rsub(x, y, alpha=2), [T(3, 4), T(3, 4)]),
    Row("mul", "aten::mul", lambda x, y: x * y, [T(3, 4), T(1, 4)]),
    Row("mul.scalar", "aten::mul", lambda x: x * 2.5, [T(3, 4)]),
    Row("mul.float_bool", "aten::mul", lambda x, m: x * m, [T(3, 4), T(3, 4, dtype=BOOL)]),
    Row("mul.float16_float32", "aten::mul", lambda x, y: x * y, [T(3, 4, dtype=F16), T(3, 4)]),
    Row("div", "aten::div", lambda x, y: x / y, [T(3, 4), T(3, 4, **AWAY)]),
    Row("div.scalar", "aten::div", lambda x: x / 4.0, [T(3, 4)]),
    Row("div.floor", "aten::div", lambda x, y: torch.div(x, y, rounding_mode="floor"), [T(3, 4), T(3, 4, **AWAY)]),
    Row("floor_divide", "aten::floor_divide", lambda x, y: torch.floor_divide(x, y),
        [T(3, 4, dtype=I64, lo=-9, hi=9), T(3, 4, dtype=I64, lo=1, hi=4)]),
    Row("floor_divide.float", "aten::floor_divide", lambda x, y: torch.floor_divide(x, y),
        [T(3, 4, lo=-4, hi=4), T(3, 4, **AWAY)]),
    Row("remainder", "aten::remainder", lambda x, y: torch.remainder(x, y), [T(3, 4, lo=-4, hi=4), T(3, 4, **AWAY)]),
    Row("remainder.int64", "aten::remainder", lambda x, y: torch.remainder(x, y),
        [T(3, 4, dtype=I64, lo=-9, hi=9), T(3, 4, dtype=I64, lo=1, hi=4)]),
    Row("pow", "aten::pow", lambda x, y: torch.pow(x, y), [T(3, 4, **POS), T(3, 4)]),
    Row("pow.scalar_exponent", "aten::pow", lambda x: x ** 2, [T(3, 4)]),
    Row("pow.int64", "aten::pow", lambda x: x ** 2, [T(3, 4, dtype=I64)], opsets=INT_OPSETS),
    Row("maximum", "aten::maximum", lambda x, y: torch.maximum(x, y), [T(3, 4), T(3, 4)]),
    Row("maximum.int64", "aten::maximum", lambda x, y: torch.maximum(x, y), [T(3, 4, dtype=I64), T(3, 4, dtype=I64)],
        opsets=INT_OPSETS),
    Row("minimum", "aten::minimum", lambda x, y: torch.minimum(x, y), [T(3, 4), T(4)]),
    Row("minimum.int64", "aten::minimum", lambda x, y: torch.minimum(x, y), [T(3, 4, dtype=I64), T(3, 4, dtype=I64)],
        opsets=INT_OPSETS),
    Row("where", "aten::where", lambda c, x, y: torch.where(c, x, y), [T(3, 4, dtype=BOOL), T(3, 4), T(3, 4)]),
    Row("where.scalar", "aten::where", lambda x: torch.where(x > 0, x, 0.0), [T(3, 4)]),
    Row("masked_fill", "aten::masked_fill", lambda x, m: x.masked_fill(m, 0.5), [T(3, 4), T(3, 4, dtype=BOOL)]),
    Row("add.int32_float_scalar", "aten::add", lambda x: x + 1.5, [T(3, 4, dtype=I32)]),
    Row("add.int64_scalar", "aten::add", lambda x: x + 3, [T(3, 4, dtype=I64)]),
    Row("sub.uint8", "aten::sub", lambda x, y: x - y, [T(3, 4, dtype=torch.uint8, lo=5, hi=9),
        T(3, 4, dtype=torch.uint8, lo=0, hi=4)]),
    Row("sub.float64_float32", "aten::sub", lambda x, y: x - y, [T(3, 4, dtype=F64), T(3, 4)]),
    # torch's type promotion (issue 10): mixed operands come out as one valid file
    Row("add.float16_float32", "aten::add", lambda h, x: h + x, [T(3, 4, dtype=F16), T(3, 4)]),
    Row("mul.float64_float32", "aten::mul", lambda d, x: d * x, [T(3, 4, dtype=F64), T(3, 4)]),
    Row("add.uint8_wraps", "aten::add", lambda x, y: x + y, [T(3, 4, dtype=torch.uint8, lo=120, hi=250),
        T(3, 4, dtype=torch.uint8, lo=100, hi=200)]),
    # bool and uint8 operands: no ONNX arithmetic takes bool, none takes uint8 before opset 14
    Row("mul.bool", "aten::mul", lambda a, b: a * b, [T(3, 4, dtype=BOOL), T(3, 4, dtype=BOOL)]),
    Row("add.bool", "aten::add", lambda a, b: a + b, [T(3, 4, dtype=BOOL), T(4, dtype=BOOL)]),
    Row("floor_divide.uint8", "aten::floor_divide", lambda x: x // 7, [T(3, 4, dtype=torch.uint8, lo=0, hi=250)]),
    Row("remainder.uint8", "aten::remainder", lambda x, y: x % y, [T(3, 4, dtype=torch.uint8, lo=0, hi=250),
        T(3, 4, dtype=torch.uint8, lo=1, hi=9)]),
    Row("remainder.int_by_float", "aten::remainder", lambda x: x % 2.5, [T(3, 4, dtype=I32, lo=-9, hi=9)]),
    Row("floor_divide.int_by_float", "aten::floor_divide", lambda x: x // 2.5, [T(3, 4, dtype=I64, lo=-9, hi=9)]),
    Row("rsub.uint8", "aten::rsub", lambda x: 200 - x, [T(3, 4, dtype=torch.uint8, lo=0, hi=200)]),
    Row("maximum.bool", "aten::maximum", lambda a, b: torch.maximum(a, b), [T(3, 4, dtype=BOOL), T(3, 4, dtype=BOOL)]),
    Row("minimum.bool", "aten::minimum", lambda a, b: torch.minimum(a, b), [T(3, 4, dtype=BOOL), T(3, 4, dtype=BOOL)]),
    Row("max.dim_bool", "aten::argmax", lambda a: torch.max(a, 1), [T(3, 4, dtype=BOOL)]),  # amax + argmax
    Row("where.bool", "aten::where", lambda c, x, y: torch.where(c, x, y),
        [T(3, 4, dtype=BOOL), T(3, 4, dtype=BOOL), T(4, dtype=BOOL)]),
    Row("masked_fill.bool", "aten::masked_fill", lambda x, m: x.masked_fill(m, True),
        [T(3, 4, dtype=BOOL), T(3, 4, dtype=BOOL)]),
    Row("tril.bool", "aten::tril", lambda x: x.tril(), [T(4, 4, dtype=BOOL)], since=11),
    Row("mul.int8_int16", "aten::mul", lambda x, y: x * y, [T(3, 4, dtype=torch.int8, lo=-9, hi=9),
        T(3, 4, dtype=torch.int16, lo=-300, hi=300)]),
    Row("mul.int64_scalar", "aten::mul", lambda x: x * 3, [T(3, 4, dtype=I64)]),
    Row("mul.zero_dim_tensor_int", "aten::mul", lambda x, s: x * s, [T(3, 4), T(dtype=I64, lo=1, hi=4)]),
    Row("div.int64", "aten::div", lambda x, y: x / y, [T(3, 4, dtype=I64), T(3, 4, dtype=I64, lo=1, hi=4)]),
    Row("div.trunc", "aten::div", lambda x, y: torch.div(x, y, rounding_mode="trunc"), [T(3, 4), T(3, 4, **AWAY)]),
    Row("div.floor_int64", "aten::div", lambda x, y: torch.div(x, y, rounding_mode="floor"),
        [T(3, 4, dtype=I64, lo=-9, hi=9), T(3, 4, dtype=I64, lo=1, hi=4)]),
    Row("div.trunc_int64_negative", "aten::div", lambda x, y: torch.div(x, y, rounding_mode="trunc"),
        [T(3, 4, dtype=I64, lo=-9, hi=9), T(3, 4, dtype=I64, lo=-4, hi=-1)]),
    Row("div.floor_scalar", "aten::div", lambda x: torch.div(x, 0.7, rounding_mode="floor"), [T(3, 4)]),
    Row("pow.scalar_base", "aten::pow", lambda x: 2 ** x, [T(3, 4)]),
    Row("pow.float64", "aten::pow", lambda x: x ** 3, [T(3, 4, dtype=F64)]),
    Row("clamp.int_float_bound", "aten::clamp", lambda x: x.clamp(max=2.5), [T(3, 4, dtype=I64)]),
    Row("clamp.int_float_bounds", "aten::clamp", lambda x: x.clamp(-1.5, 2.5), [T(3, 4, dtype=I32)]),
    # sizes read in Python as bounds: their rank-0 values, in the tensor's type
    Row("clamp.size_bounds", "aten::clamp", lambda x: torch.clamp(x * 4, -x.size(0), x.size(1)), [T(3, 4)],
        dynamic={"in0": {0: "n", 1: "m"}}),
    Row("clamp.int_size_bound", "aten::clamp", lambda x: x.clamp(max=x.size(1)), [T(3, 4, dtype=I32, lo=-9, hi=9)],
        dynamic={"in0": {0: "n", 1: "m"}}, opsets=INT_OPSETS),
    Row("floor.int64", "aten::floor", lambda x: torch.floor(x), [T(3, 4, dtype=I64)], opsets=INT_OPSETS),
    Row("ceil.int32", "aten::ceil", lambda x: torch.ceil(x), [T(3, 4, dtype=I32)], opsets=INT_OPSETS),
    # torch's promotion: a number base (pow.Scalar), an int tensor to a float power
    Row("pow.number_base", "aten::pow", lambda x: torch.pow(2.0, x), [T(3, 4)]),
    Row("pow.number_base_int", "aten::pow", lambda x: torch.pow(2, x), [T(3, 4, dtype=I64, lo=0, hi=9)],
        opsets=INT_OPSETS),
    Row("pow.int_to_float", "aten::pow", lambda x: x ** 0.5, [T(3, 4, dtype=I32, lo=0, hi=9)]),
    Row("pow.int_to_float_tensor", "aten::pow", lambda x, y: torch.pow(x, y),
        [T(3, 4, dtype=I32, lo=0, hi=9), T(3, 4, **POS)]),
    Row("pow.float_to_int_tensor", "aten::pow", lambda x, y: torch.pow(x, y),
        [T(3, 4, **POS), T(3, 4, dtype=I32, lo=-2, hi=3)]),
    Row("maximum.broadcast", "aten::maximum", lambda x, y: torch.maximum(x, y), [T(2, 3, 4), T(3, 1)]),
    Row("where.int64", "aten::where", lambda c, x, y: torch.where(c, x, y), [T(3, 4, dtype=BOOL),
        T(3, 4, dtype=I64), T(4, dtype=I64)]),
    Row("where.float_int", "aten::where", lambda c, x, y: torch.where(c, x, y), [T(3, 4, dtype=BOOL), T(3, 4),
        T(3, 4, dtype=I64)]),
    Row("masked_fill.broadcast_mask", "aten::masked_fill", lambda x, m: x.masked_fill(m, -1.0), [T(2, 3, 4),
        T(3, 1, dtype=BOOL)]),
    Row("masked_fill.int64", "aten::masked_fill", lambda x, m: x.masked_fill(m, 7), [T(3, 4, dtype=I64),
        T(3, 4, dtype=BOOL)]),
    # a size read in Python as the value: its rank-0 value, cast to the tensor's type
    Row("masked_fill.size_value", "aten::masked_fill", lambda x, m: x.masked_fill(m, x.size(1)),
        [T(3, 4), T(3, 4, dtype=BOOL)], dynamic={"in0": {0: "n", 1: "m"}, "in1": {0: "n", 1: "m"}}),
    Row("masked_fill.tensor_value", "aten::masked_fill", lambda x, m: x.masked_fill(m, x.sum().long()),
        [T(3, 4), T(3, 4, dtype=BOOL)]),
    Row("remainder.scalar", "aten::remainder", lambda x: torch.remainder(x, 1.5), [T(3, 4, lo=-4, hi=4)]),
    Row("floor_divide.scalar", "aten::floor_divide", lambda x: torch.floor_divide(x, 3),
        [T(3, 4, dtype=I64, lo=-9, hi=9)]),

    # ---------------------------------------------------------------- comparison and logic
    Row("eq", "aten::eq", lambda x, y: x == y, [T(3, 4, dtype=I64, lo=0, hi=2), T(3, 4, dtype=I64, lo=0, hi=2)]),
    Row("eq.scalar", "aten::eq", lambda x: x == 1, [T(3, 4, dtype=I64, lo=0, hi=2)]),
    Row("ne", "aten::ne", lambda x, y: x != y, [T(3, 4, dtype=I64, lo=0, hi=2), T(3, 4, dtype=I64, lo=0, hi=2)]),
    Row("gt", "aten::gt", lambda x, y: x > y, [T(3, 4), T(3, 4)]),
    Row("ge", "aten::ge", lambda x, y: x >= y, [T(3, 4), T(4)]),
    Row("lt", "aten::lt", lambda x: x < 0.5, [T(3, 4)]),
    Row("le", "aten::le", lambda x, y: x <= y, [T(3, 4, dtype=I64, lo=0, hi=2), T(3, 4, dtype=I64, lo=0, hi=2)]),
    Row("gt.float_int32", "aten::gt", lambda x, y: x > y, [T(3, 4), T(3, 4, dtype=I32)]),
    Row("lt.float_int64", "aten::lt", lambda x, y: x < y, [T(3, 4), T(3, 4, dtype=I64)]),
    Row("eq.int32_float_scalar", "aten::eq", lambda x: x == 2.0, [T(3, 4, dtype=I32, lo=0, hi=4)]),
    Row("logical_and", "aten::logical_and", lambda a, b: torch.logical_and(a, b), [T(3, 4, dtype=BOOL),
        T(3, 4, dtype=BOOL)]),
    Row("logical_or", "aten::logical_or", lambda a, b: torch.logical_or(a, b), [T(3, 4, dtype=BOOL),
        T(3, 4, dtype=BOOL)]),
    Row("logical_xor", "aten::logical_xor", lambda a, b: torch.logical_xor(a, b), [T(3, 4, dtype=BOOL),
        T(3, 4, dtype=BOOL)]),
    Row("logical_not", "aten::logical_not", lambda a: torch.logical_not(a), [T(3, 4, dtype=BOOL)]),
    Row("eq.float_scalar", "aten::eq", lambda x: torch.floor(x) == 1.0, [T(3, 4)]),
    Row("ne.scalar", "aten::ne", lambda x: x != 0, [T(3, 4, dtype=I64, lo=0, hi=2)]),
    Row("lt.int64_broadcast", "aten::lt", lambda x, y: x < y, [T(2, 3, 4, dtype=I64), T(4, dtype=I64)]),
    Row("ge.float_int_scalar", "aten::ge", lambda x: x >= 1, [T(3, 4)]),
    Row("eq.bool", "aten::eq", lambda a, b: a == b, [T(3, 4, dtype=BOOL), T(3, 4, dtype=BOOL)]),
    Row("logical_and.int64", "aten::logical_and", lambda a, b: torch.logical_and(a, b),
        [T(3, 4, dtype=I64, lo=0, hi=2), T(3, 4, dtype=I64, lo=0, hi=2)]),
    Row("logical_not.float", "aten::logical_not", lambda a: torch.logical_not(torch.floor(a)), [T(3, 4)]),

    # ---------------------------------------------------------------- reductions
    Row("sum", "aten::sum", lambda x: x.sum(1), [T(3, 4, 5)]),
    Row("sum.all", "aten::sum", lambda x: x.sum(), [T(3, 4)]),
    Row("sum.float16", "aten::sum", lambda x: x.sum(0), [T(3, 4, dtype=F16)]),
    Row("sum.keepdim_negative", "aten::sum", lambda x: x.sum(-1, keepdim=True), [T(3, 4, 5)]),
    Row("sum.bool", "aten::sum", lambda x: torch.sum(x > 0, 1), [T(3, 4, dtype=I64)], opsets=INT_OPSETS),
    Row("sum.int32", "aten::sum", lambda x: torch.sum(x, 0), [T(3, 4, dtype=I32)], opsets=INT_OPSETS),
    Row("mean", "aten::mean", lambda x: x.mean((1, 2), keepdim=True), [T(2, 3, 4)]),
    Row("mean.all", "aten::mean", lambda x: x.mean(), [T(3, 4)]),
    Row("amax", "aten::amax", lambda x: torch.amax(x, 1, keepdim=True), [T(3, 4)]),
    Row("amax.all", "aten::amax", lambda x: torch.max(x), [T(3, 4)]),
    Row("amin", "aten::amin", lambda x: torch.amin(x, -1), [T(2, 3, 4)]),
    Row("argmax", "aten::argmax", lambda x: torch.argmax(x, 1), [T(3, 4, distinct=True)]),
    Row("argmax.keepdim", "aten::argmax", lambda x: torch.argmax(x, -1, keepdim=True), [T(2, 3, 4, distinct=True)]),
    Row("argmin", "aten::argmin", lambda x: torch.argmin(x, 0), [T(3, 4, distinct=True)]),
    Row("cumsum", "aten::cumsum", lambda x: torch.cumsum(x, 1), [T(3, 4)], since=11),
    Row("cumsum.opset9", "aten::cumsum", lambda x: torch.cumsum(x, 1), [T(3, 4)], opsets=(9, 10),
        refuse=Refuse("aten::cumsum")),
    Row("topk", "aten::topk", lambda x: torch.topk(x, 2, dim=1), [T(3, 5, distinct=True)]),
    Row("topk.smallest", "aten::topk", lambda x: torch.topk(x, 2, dim=-1, largest=False), [T(3, 5, distinct=True)],
        refuse=Refuse("TopK has no largest attribute before opset 11", below=11)),
    Row("softmax", "aten::softmax", lambda x: F.softmax(x, -1), [T(2, 3, 4)]),
    Row("softmax.inner_dim", "aten::softmax", lambda x: F.softmax(x, 1), [T(2, 3, 4)]),
    Row("log_softmax", "aten::log_softmax", lambda x: F.log_softmax(x, 1), [T(2, 3, 4)]),
    Row("mean.negative_dim", "aten::mean", lambda x: x.mean(-2), [T(2, 3, 4)]),
    Row("mean.float64", "aten::mean", lambda x: x.mean(1), [T(3, 4, dtype=F64)]),
    Row("sum.dtype", "aten::sum", lambda x: x.sum(1, dtype=torch.float64), [T(3, 4)]),
    Row("sum.int64_all", "aten::sum", lambda x: x.sum(), [T(3, 4, dtype=I64)]),
    Row("amax.two_dims", "aten::amax", lambda x: torch.amax(x, (0, -1)), [T(2, 3, 4)]),
    Row("amin.int64", "aten::amin", lambda x: torch.amin(x, 1), [T(3, 4, dtype=I64)]),
    Row("argmax.flattened", "aten::argmax", lambda x: torch.argmax(x), [T(3, 4, distinct=True)]),
    Row("argmax.keepdim_no_dim", "aten::argmax", lambda x: torch.argmax(x, keepdim=True), [T(3, 4, distinct=True)]),
    Row("argmin.keepdim_no_dim_3d", "aten::argmin", lambda x: torch.argmin(x, keepdim=True), [T(2, 3, 4, distinct=True)]),
    Row("argmin.int64", "aten::argmin", lambda x: torch.argmin(x, 1), [T(3, 4, distinct=True)]),
    Row("cumsum.negative_dim_int64", "aten::cumsum", lambda x: torch.cumsum(x, -1), [T(3, 4, dtype=I64)], since=11),
    Row("topk.float64_unsorted_dim0", "aten::topk", lambda x: torch.topk(x, 3, dim=0),
        [T(5, 2, dtype=F64, distinct=True)]),
    Row("softmax.float64", "aten::softmax", lambda x: F.softmax(x, 0), [T(3, 4, dtype=F64)]),
    Row("log_softmax.last_dim", "aten::log_softmax", lambda x: F.log_softmax(x, -1), [T(2, 3, 4)]),

    # ---------------------------------------------------------------- linear algebra
    Row("mm", "aten::mm", lambda a, b: torch.mm(a, b), [T(3, 4), T(4, 5)]),
    Row("bmm", "aten::bmm", lambda a, b: torch.bmm(a, b), [T(2, 3, 4), T(2, 4, 5)]),
    Row("matmul", "aten::matmul", lambda a, b: a @ b, [T(2, 3, 4), T(4, 5)]),
    Row("addmm", "aten::addmm", lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2), [T(5), T(3, 4), T(4, 5)]),
    Row("baddbmm", "aten::baddbmm", lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=2),
        [T(2, 3, 5), T(2, 3, 4), T(2, 4, 5)]),
    Row("linear", "aten::linear", module=lambda: nn.Linear(4, 3), inputs=[T(2, 4)],
        dynamic={"in0": {0: "batch"}, "out0": {0: "batch"}}),
    Row("linear.no_bias", "aten::linear", module=lambda: nn.Linear(4, 3, bias=False), inputs=[T(2, 5, 4)]),
    Row("matmul.vector_vector", "aten::matmul", lambda a, b: a @ b, [T(4), T(4)]),
    Row("matmul.vector_matrix", "aten::matmul", lambda a, b: a @ b, [T(4), T(4, 3)]),
    Row("matmul.broadcast_batch", "aten::matmul", lambda a, b: a @ b, [T(2, 1, 3, 4), T(5, 4, 2)]),
    Row("bmm.float64", "aten::bmm", lambda a, b: torch.bmm(a, b), [T(2, 3, 4, dtype=F64), T(2, 4, 5, dtype=F64)]),
    Row("mm.int64", "aten::mm", lambda a, b: torch.mm(a, b), [T(3, 4, dtype=I64), T(4, 2, dtype=I64)]),
    Row("linear.vector_input", "aten::linear", module=lambda: nn.Linear(4, 3), inputs=[T(4)]),

    # ---------------------------------------------------------------- shape and indexing
    Row("reshape", "aten::reshape", lambda x: x.reshape(4, -1), [T(2, 3, 4)]),
    Row("reshape.dynamic", "aten::reshape", lambda x: x.reshape(x.size(0), -1), [T(2, 3, 4)],
        dynamic={"in0": {0: "batch"}}),
    Row("view", "aten::view", lambda x: x.view(3, 8), [T(2, 3, 4)]),
    Row("flatten", "aten::flatten", lambda x: torch.flatten(x, 1), [T(2, 3, 4)]),
    Row("flatten.middle_dynamic", "aten::flatten", lambda x: torch.flatten(x, 1, 2), [T(2, 3, 2, 4)],
        dynamic={"in0": {0: "batch", 3: "n"}}),
    Row("unflatten", "aten::unflatten", lambda x: x.unflatten(1, (2, -1)), [T(2, 6, 3)]),
    Row("unflatten.dynamic", "aten::unflatten", lambda x: torch.unflatten(x, -1, (2, x.size(-1) // 2)),
        [T(2, 3, 8)], dynamic={"in0": {0: "batch", 2: "n"}}),
    Row("squeeze", "aten::squeeze", lambda x: x.squeeze(1), [T(3, 1, 4)]),
    Row("squeeze.all", "aten::squeeze", lambda x: x.squeeze(), [T(3, 1, 4, 1)]),
    Row("unsqueeze", "aten::unsqueeze", lambda x: x.unsqueeze(-1), [T(3, 4)]),
    Row("permute", "aten::permute", lambda x: x.permute(2, 0, 1), [T(2, 3, 4)]),
    Row("transpose", "aten::transpose", lambda x: x.transpose(0, 2), [T(2, 3, 4)]),
    Row("t", "aten::t", lambda x: x.t(), [T(3, 4)]),
    Row("expand", "aten::expand", lambda x: x.expand(2, 3, 4), [T(3, 1)]),
    Row("expand.minus_one", "aten::expand", lambda x: x.expand(-1, 4), [T(3, 1)]),
    Row("expand.broadcast_to_traced_size", "aten::expand", lambda x, o: torch.broadcast_to(x, (o.size(0), -1)),
        [T(1, 4), T(3, 4)], dynamic={"in1": {0: "n"}, "out0": {0: "n"}}),
    Row("repeat", "aten::repeat", lambda x: x.repeat(2, 1, 3), [T(3, 4)]),
    Row("cat", "aten::cat", lambda x, y: torch.cat([x, y], 1), [T(2, 3), T(2, 4)]),
    Row("stack", "aten::stack", lambda x, y: torch.stack([x, y], -1), [T(2, 3), T(2, 3)]),
    Row("split", "aten::split", lambda x: torch.split(x, 2, 1), [T(2, 5)]),
    Row("split_with_sizes", "aten::split_with_sizes", lambda x: torch.split(x, [1, 3]), [T(4, 2)]),
    Row("chunk", "aten::chunk", lambda x: torch.chunk(x, 3, -1), [T(2, 6)]),
    Row("unbind", "aten::unbind", lambda x: torch.unbind(x, 1), [T(2, 3)]),
    Row("select", "aten::select", lambda x: x[1], [T(3, 4)]),
    Row("select.negative", "aten::select", lambda x: x[:, -1], [T(3, 4)]),
    Row("select.traced_index", "aten::select", lambda x: x.select(0, x.size(0) - 1) * 2 + torch.select(x, 0, x.size(0) - 2),
        [T(3, 4)], dynamic={"in0": {0: "n"}}),
    Row("slice", "aten::slice", lambda x: x[:, 1:3], [T(3, 4)]),
    Row("slice.step", "aten::slice", lambda x: x[:, ::2], [T(3, 4)],
        refuse=Refuse("Slice has no steps before opset 10", below=10)),
    Row("index", "aten::index", lambda x, i: x[i], [T(5, 4), T(2, 3, dtype=I64, lo=0, hi=4)]),
    Row("index.mask", "aten::index", lambda x, m: x[m], [T(3, 4), T(3, 4, dtype=BOOL)]),
    Row("index_put", "aten::index_put", lambda x, i, v: x.index_put((i,), v), [T(5, 4),
        T(2, dtype=I64, lo=0, hi=4), T(4)],
        refuse=Refuse("needs ScatterND; supported from opset 11", below=11)),
    Row("slice_scatter", "aten::slice_scatter", lambda x, y: torch.slice_scatter(x, y, 1, 1, 3, 1), [T(3, 4), T(3, 2)]),
    Row("roll", "aten::roll", lambda x: torch.roll(x, 1, 0), [T(3, 4)]),
    Row("roll.two_dims", "aten::roll", lambda x: torch.roll(x, (-1, 2), (0, 1)), [T(3, 4)]),
    Row("roll.flattened", "aten::roll", lambda x: torch.roll(x, 1), [T(3, 4)],
        refuse=Refuse("rolling the flattened tensor is not exported")),
    Row("tril", "aten::tril", lambda x: torch.tril(x), [T(4, 4)], since=11),
    Row("triu", "aten::triu", lambda x: torch.triu(x, 1), [T(3, 4)], since=11),
    Row("copy", "aten::copy", lambda x, y: (x * 1).copy_(y), [T(3, 4), T(4)]),
    Row("fill", "aten::fill", lambda x: (x * 2).fill_(0.5) + x, [T(3, 4)]),
    Row("zero", "aten::zero", lambda x: (x * 2).zero_() + x, [T(3, 4)]),
    Row("size", "aten::size", lambda x: x.reshape(x.size(0), -1), [T(2, 3, 4)], dynamic={"in0": {0: "batch"}}),
    Row("numel", "aten::numel", lambda x: x * x.numel(), [T(3, 4)]),
    Row("one_hot", "aten::one_hot", lambda i: F.one_hot(i, 5), [T(2, 3, dtype=I64, lo=0, hi=4)]),
    # the class count read from a size: OneHot's depth input follows it
    Row("one_hot.traced_count", "aten::one_hot", lambda x: F.one_hot(x.argmax(-1), x.size(-1)).float() * x,
        [T(2, 4, distinct=True)], dynamic={"in0": [0, 1]}),
    Row("embedding", "aten::embedding", module=lambda: nn.Embedding(10, 4), inputs=[T(2, 3, dtype=I64, lo=0, hi=9)]),
    Row("pixel_shuffle", "aten::pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), [T(1, 8, 3, 3)]),
    # before opset 11 the Reshape targets come from Shape(x): a batch, height and width
    # that vary must reach them (DepthToSpace carries them from 11)
    Row("pixel_shuffle.dynamic", "aten::pixel_shuffle", lambda x: F.pixel_shuffle(x, 3), [T(2, 18, 3, 4)],
        dynamic={"in0": {0: "n", 2: "h", 3: "w"}, "out0": {0: "n", 2: "h3", 3: "w3"}}),
    Row("pixel_shuffle.rank5", "aten::pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), [T(2, 1, 8, 3, 3)],
        refuse=Refuse("pixel_shuffle is exported for rank-4 inputs only (got rank 5)")),
    Row("reshape.int64", "aten::reshape", lambda x: x.reshape(-1), [T(3, 4, dtype=I64)]),
    Row("view.minus_one", "aten::view", lambda x: x.view(-1, 4), [T(2, 3, 4)]),
    Row("flatten.negative", "aten::flatten", lambda x: torch.flatten(x, -2), [T(2, 3, 4)]),
    Row("squeeze.negative", "aten::squeeze", lambda x: x.squeeze(-1), [T(3, 4, 1)]),
    Row("unsqueeze.first", "aten::unsqueeze", lambda x: x.unsqueeze(0), [T(3, 4, dtype=BOOL)]),
    Row("permute.negative", "aten::permute", lambda x: x.permute(-1, 0, -2), [T(2, 3, 4)]),
    Row("transpose.negative", "aten::transpose", lambda x: x.transpose(-1, -2), [T(2, 3, 4)]),
    Row("expand.int64_new_dims", "aten::expand", lambda x: x.expand(2, 3, 4), [T(4, dtype=I64)]),
    Row("repeat.new_rank", "aten::repeat", lambda x: x.repeat(2, 1, 1), [T(4)]),
    Row("repeat.tile_traced_count", "aten::repeat", lambda x: (torch.tile(x[:1], (x.size(0), 1)) - x, x.tile((2,))),
        [T(3, 4)], dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("repeat.tile_fewer_dims", "aten::repeat", lambda x: x.tile((2, 1, 3)), [T(3, 4)]),
    Row("cat.three_negative_dim", "aten::cat", lambda x, y, z: torch.cat([x, y, z], -1), [T(2, 3), T(2, 1), T(2, 2)]),
    Row("cat.int64", "aten::cat", lambda x, y: torch.cat([x, y]), [T(2, 3, dtype=I64), T(1, 3, dtype=I64)]),
    Row("cat.float_int", "aten::cat", lambda x, y: torch.cat([x, y]), [T(2, 3), T(1, 3, dtype=I64)]),
    Row("cat.many_mixed", "aten::cat", lambda x, i: torch.cat([x] * 20 + [i], 1),
        [T(2, 3), T(2, 3, dtype=I64)]),
    Row("stack.first", "aten::stack", lambda x, y: torch.stack([x, y]), [T(2, 3), T(2, 3)]),
    Row("select.int64", "aten::select", lambda x: x[:, 2], [T(3, 4, dtype=I64)]),
    Row("slice.negative_bounds", "aten::slice", lambda x: x[:, -3:-1], [T(3, 4)]),
    Row("slice.past_end", "aten::slice", lambda x: x[1:100], [T(3, 4)]),
    Row("index.negative_indices", "aten::index", lambda x, i: x[i], [T(5, 4), T(3, dtype=I64, lo=-5, hi=-1)]),
    Row("index.two_tensors", "aten::index", lambda x, i, j: x[i, j], [T(5, 4), T(3, dtype=I64, lo=0, hi=4),
        T(3, dtype=I64, lo=0, hi=3)],
        refuse=Refuse("several index tensors (or a boolean mask next to an index tensor) needs GatherND", below=11)),
    Row("index_put.accumulate", "aten::index_put", lambda x, i, v: x.index_put((i,), v, accumulate=True),
        [T(5, 4), T(3, dtype=I64, lo=0, hi=4), T(4)], opsets=(13, 16, 17),
        refuse=Refuse("accumulate=True sums repeated indices, which needs ScatterND's reduction", below=16)),
    Row("roll.negative", "aten::roll", lambda x: torch.roll(x, -2, -1), [T(3, 5)]),
    Row("tril.negative_diagonal", "aten::tril", lambda x: torch.tril(x, -1), [T(2, 3, 4)], since=11),
    Row("triu.int64", "aten::triu", lambda x: torch.triu(x), [T(4, 4, dtype=I64)], since=11),
    # a diagonal computed from a size (a KV-cache step's causal mask) stays a value of the file
    Row("triu.traced_diagonal", "aten::triu", lambda x: (torch.triu(x, x.size(1) - x.size(0) + 1),
                                                         torch.tril(x, 1 - x.size(0))), [T(3, 5)], since=11,
        dynamic={"in0": {0: "q", 1: "k"}, "out0": {0: "q", 1: "k"}, "out1": {0: "q", 1: "k"}}),
    Row("size.negative_dim", "aten::size", lambda x: x.reshape(-1, x.size(-1)), [T(2, 3, 4)],
        dynamic={"in0": {2: "n"}}),
    Row("numel.dynamic", "aten::numel", lambda x: x * x.numel(), [T(3, 4)], dynamic={"in0": {0: "rows"}}),
    Row("one_hot.int32_indices", "aten::one_hot", lambda i: F.one_hot(i.long(), 4).float() * 2,
        [T(3, dtype=I64, lo=0, hi=3)]),
    Row("embedding.padding_idx", "aten::embedding", module=lambda: nn.Embedding(10, 4, padding_idx=0),
        inputs=[T(2, 3, dtype=I64, lo=0, hi=9)]),
    Row("copy.same_shape", "aten::copy", lambda x, y: (x * 1).copy_(y), [T(3, 4), T(3, 4)]),

    # ---------------------------------------------------------------- factories
    Row("zeros", "aten::zeros", lambda x: torch.zeros(x.shape) + x, [T(3, 4)]),
    Row("ones", "aten::ones", lambda x: torch.ones(x.size(0), 2) * x[:, :1], [T(3, 4)]),
    Row("full", "aten::full", lambda x: torch.full(x.shape, 2.0) * x, [T(3, 4)]),
    # a traced fill value: a rank-0 value of the file, expanded to the size
    Row("full.tensor_fill", "aten::full", lambda x: torch.full(x.shape, x.sum()) * x, [T(3, 4)]),
    # A tensor fill is read as a number of its kind: float64 fills the default dtype, int8 int64.
    Row("full.tensor_fill_float64", "aten::full", lambda x: torch.full(x.shape, x.sum()) - x.float(),
        [T(3, 4, dtype=F64)]),
    Row("full.tensor_fill_int8", "aten::full", lambda x: torch.full((3, 4), x.sum(dtype=torch.int8)) * x,
        [T(3, 4, dtype=torch.int8, lo=-3, hi=3)]),
    Row("full.size_fill", "aten::full", lambda x: torch.full((2, x.size(1)), x.size(0), dtype=torch.float32) + x[:2],
        [T(3, 4)], dynamic={"in0": {0: "n", 1: "m"}}),
    Row("full_like.size_fill", "aten::full_like", lambda x: torch.full_like(x, x.size(1)) * x, [T(3, 4)],
        dynamic={"in0": {0: "n", 1: "m"}}),
    Row("new_full.size_fill", "aten::new_full", lambda x: x.new_full((x.size(0), 1), x.size(1)) * x, [T(3, 4)],
        dynamic={"in0": {0: "n", 1: "m"}}),
    Row("zeros_like", "aten::zeros_like", lambda x: torch.zeros_like(x) + x, [T(3, 4)]),
    Row("ones_like", "aten::ones_like", lambda x: torch.ones_like(x) - x, [T(3, 4)]),
    Row("full_like", "aten::full_like", lambda x: torch.full_like(x, 3.0) * x, [T(3, 4)]),
    Row("arange", "aten::arange", lambda x: x + torch.arange(x.size(1)), [T(3, 4, dtype=I64)],
        dynamic={"in0": {1: "n"}}),
    Row("arange.float", "aten::arange", lambda x: torch.arange(x.size(1), dtype=torch.float32) * x, [T(3, 4)],
        dynamic={"in0": {1: "n"}},
        refuse=Refuse("arange with a traced bound needs Range unless it is an integer range with a constant step; "
                      "supported from opset 11", below=11)),
    Row("arange.int64_plus_float", "aten::arange", lambda x: x + torch.arange(x.size(1)), [T(3, 4)]),
    Row("rand_like", "aten::rand_like", lambda x: torch.rand_like(x), [T(3, 4)], tol="shape"),
    Row("randn_like", "aten::randn_like", lambda x: torch.randn_like(x), [T(3, 4)], tol="shape"),
    Row("full.int_fill", "aten::full", lambda x: torch.full(x.shape, 7) + x, [T(3, 4, dtype=I64)]),
    Row("zeros.int64", "aten::zeros", lambda x: torch.zeros(x.shape, dtype=torch.int64) + x, [T(3, 4, dtype=I64)]),
    Row("ones_like.int64", "aten::ones_like", lambda x: torch.ones_like(x) + x, [T(3, 4, dtype=I64)]),
    Row("zeros_like.dtype", "aten::zeros_like", lambda x: torch.zeros_like(x, dtype=torch.float64) + x, [T(3, 4)]),
    Row("arange.start_step", "aten::arange", lambda x: x + torch.arange(1, x.size(1) * 2 + 1, 2),
        [T(3, 4, dtype=I64)], since=11),
    Row("rand_like.float64", "aten::rand_like", lambda x: torch.rand_like(x, dtype=torch.float64),
        [T(3, 4)], tol="shape"),

    # ---------------------------------------------------------------- padding
    Row("constant_pad_nd", "aten::constant_pad_nd", lambda x: F.pad(x, (1, 2), value=0.5), [T(2, 3, 4)]),
    Row("constant_pad_nd.int64", "aten::constant_pad_nd", lambda x: F.pad(x, (1, 2), value=7), [T(3, 4, dtype=I64)],
        opsets=INT_OPSETS),
    Row("reflection_pad1d", "aten::reflection_pad1d", lambda x: F.pad(x, (2, 1), mode="reflect"), [T(1, 3, 6)]),
    Row("reflection_pad2d", "aten::reflection_pad2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"),
        [T(1, 2, 4, 5)]),
    Row("replication_pad1d", "aten::replication_pad1d", lambda x: F.pad(x, (2, 1), mode="replicate"), [T(1, 3, 6)]),
    Row("replication_pad2d", "aten::replication_pad2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="replicate"),
        [T(1, 2, 4, 5)]),
    Row("replication_pad3d", "aten::replication_pad3d", lambda x: F.pad(x, (1, 0, 0, 1, 1, 1), mode="replicate"),
        [T(1, 2, 3, 4, 3)]),
    Row("fn.ConstantPadNd", "fn::ConstantPadNd", lambda x: ConstantPadNd.apply(x, (1, 1, 0, 2), 0.25), [T(1, 2, 3, 3)]),
    Row("constant_pad_nd.negative_crop", "aten::constant_pad_nd", lambda x: F.pad(x, (-1, 2)), [T(2, 3, 4)]),
    Row("constant_pad_nd.two_dims", "aten::constant_pad_nd", lambda x: F.pad(x, (1, 0, 2, 1)), [T(2, 3, 4)]),
    Row("reflection_pad2d.three_d_input", "aten::reflection_pad2d",
        lambda x: F.pad(x, (1, 1, 2, 0), mode="reflect"), [T(2, 4, 5)]),
    Row("replication_pad1d.two_d_input", "aten::replication_pad1d", lambda x: F.pad(x, (0, 3), mode="replicate"),
        [T(3, 4)]),

    # ---------------------------------------------------------------- convolution and pooling
    Row("conv1d", "aten::conv1d", module=lambda: nn.Conv1d(3, 4, 3, padding=1), inputs=[T(1, 3, 8)]),
    Row("conv2d", "aten::conv2d", module=lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1), inputs=[T(1, 3, 8, 8)],
        dynamic={"in0": {0: "batch"}, "out0": {0: "batch"}}),
    Row("conv2d.groups_dilation", "aten::conv2d", module=lambda: nn.Conv2d(4, 4, 3, dilation=2, groups=2, bias=False),
        inputs=[T(1, 4, 9, 9)]),
    Row("conv3d", "aten::conv3d", module=lambda: nn.Conv3d(2, 3, 3, padding=1), inputs=[T(1, 2, 4, 5, 5)]),
    Row("conv_transpose2d", "aten::conv_transpose2d", module=lambda: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1),
        inputs=[T(1, 3, 4, 4)]),
    Row("convolution", "aten::convolution",
        lambda x, w: torch.convolution(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
        [T(1, 3, 6, 6), T(2, 3, 3, 3)]),
    Row("max_pool2d", "aten::max_pool2d", lambda x: F.max_pool2d(x, 2), [T(1, 3, 8, 8, distinct=True)]),
    Row("max_pool2d.stride_padding", "aten::max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1),
        [T(1, 2, 7, 7, distinct=True)]),
    Row("max_pool2d.ceil_mode", "aten::max_pool2d", lambda x: F.max_pool2d(x, 2, ceil_mode=True),
        [T(1, 2, 7, 7, distinct=True)]),
    Row("avg_pool2d", "aten::avg_pool2d", lambda x: F.avg_pool2d(x, 2), [T(1, 3, 8, 8)]),
    Row("avg_pool2d.padding_exclude", "aten::avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        [T(1, 2, 7, 7)]),
    Row("avg_pool2d.divisor_override", "aten::avg_pool2d", lambda x: F.avg_pool2d(x, 2, divisor_override=3),
        [T(1, 2, 4, 4)], refuse=Refuse("AveragePool has no divisor_override")),
    Row("adaptive_avg_pool2d", "aten::adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 1), [T(1, 3, 5, 5)]),
    Row("adaptive_avg_pool2d.multiple", "aten::adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
        [T(1, 3, 4, 6)]),
    Row("upsample_nearest2d", "aten::upsample_nearest2d", lambda x: F.interpolate(x, scale_factor=2), [T(1, 2, 3, 4)]),
    Row("upsample_bilinear2d", "aten::upsample_bilinear2d",
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False), [T(1, 2, 3, 4)]),
    Row("upsample_bilinear2d.align_corners", "aten::upsample_bilinear2d",
        lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True), [T(1, 2, 3, 4)]),
    Row("conv1d.stride_dilation", "aten::conv1d",
        module=lambda: nn.Conv1d(2, 4, 3, stride=2, dilation=2, bias=False), inputs=[T(2, 2, 11)]),
    Row("conv2d.padding_same", "aten::conv2d", module=lambda: nn.Conv2d(3, 2, 3, padding="same"),
        inputs=[T(1, 3, 6, 6)]),
    Row("conv2d.padding_mode_reflect", "aten::conv2d",
        module=lambda: nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect"), inputs=[T(1, 2, 5, 5)]),
    Row("conv2d.float64", "aten::conv2d", module=lambda: nn.Conv2d(2, 3, 3).double(), inputs=[T(1, 2, 5, 5, dtype=F64)]),
    Row("conv3d.stride", "aten::conv3d", module=lambda: nn.Conv3d(2, 2, 2, stride=2), inputs=[T(1, 2, 4, 4, 4)]),
    Row("conv_transpose2d.output_padding_groups", "aten::conv_transpose2d",
        module=lambda: nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1, groups=2), inputs=[T(1, 4, 3, 3)]),
    Row("max_pool2d.dilation", "aten::max_pool2d", lambda x: F.max_pool2d(x, 2, dilation=2),
        [T(1, 2, 7, 7, distinct=True)],
        refuse=Refuse("MaxPool has no dilations attribute before opset 10", below=10)),
    Row("max_pool2d.three_d_input", "aten::max_pool2d", lambda x: F.max_pool2d(x, 2), [T(2, 6, 6, distinct=True)]),
    Row("avg_pool2d.ceil_mode", "aten::avg_pool2d", lambda x: F.avg_pool2d(x, 2, ceil_mode=True), [T(1, 2, 7, 7)]),
    Row("adaptive_avg_pool2d.not_multiple", "aten::adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 2)),
        [T(1, 2, 5, 5)]),
    Row("upsample_nearest2d.size", "aten::upsample_nearest2d", lambda x: F.interpolate(x, size=(6, 12)),
        [T(1, 2, 3, 4)]),
    Row("upsample_nearest2d.scale3", "aten::upsample_nearest2d", lambda x: F.interpolate(x, scale_factor=3),
        [T(1, 1, 2, 3)]),

    # ---------------------------------------------------------------- normalization
    Row("batch_norm", "aten::batch_norm", module=lambda: nn.BatchNorm2d(3), inputs=[T(2, 3, 4, 4)]),
    Row("instance_norm", "aten::instance_norm", module=lambda: nn.InstanceNorm2d(3, affine=True),
        inputs=[T(2, 3, 4, 4)]),
    # track_running_stats in eval: every sample normalised with the running statistics
    Row("instance_norm.running_stats", "aten::instance_norm",
        module=lambda: nn.InstanceNorm2d(3, track_running_stats=True), inputs=[T(2, 3, 4, 4)]),
    Row("instance_norm.running_stats_affine", "aten::instance_norm",
        module=lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True), inputs=[T(2, 3, 5)],
        dynamic={"in0": [0, 2]}),
    Row("instance_norm.running_stats_float64", "aten::instance_norm",
        module=lambda: nn.InstanceNorm1d(3, track_running_stats=True).double(), inputs=[T(2, 3, 5, dtype=F64)]),
    Row("layer_norm", "aten::layer_norm", module=lambda: nn.LayerNorm(4), inputs=[T(2, 3, 4)]),
    Row("layer_norm.two_dims", "aten::layer_norm", module=lambda: nn.LayerNorm((3, 4), elementwise_affine=False),
        inputs=[T(2, 3, 4)]),
    Row("group_norm", "aten::group_norm", module=lambda: nn.GroupNorm(2, 4), inputs=[T(2, 4, 3, 3)]),
    Row("batch_norm.1d", "aten::batch_norm", module=lambda: nn.BatchNorm1d(4), inputs=[T(3, 4)]),
    Row("batch_norm.1d_sequence", "aten::batch_norm", module=lambda: nn.BatchNorm1d(4, affine=False),
        inputs=[T(2, 4, 5)]),
    Row("batch_norm.3d", "aten::batch_norm", module=lambda: nn.BatchNorm3d(2), inputs=[T(1, 2, 3, 3, 3)]),
    Row("instance_norm.no_affine", "aten::instance_norm", module=lambda: nn.InstanceNorm1d(3), inputs=[T(2, 3, 6)]),
    # ONNX Runtime runs InstanceNormalization in float32 only: other types by formula.
    Row("instance_norm.no_affine_float64", "aten::instance_norm", module=lambda: nn.InstanceNorm1d(3).double(),
        inputs=[T(2, 3, 6, dtype=F64)]),
    Row("instance_norm.affine_float64", "aten::instance_norm",
        module=lambda: affine_drawn(nn.InstanceNorm2d(3, affine=True)).double(), inputs=[T(2, 3, 4, 5, dtype=F64)]),
    Row("group_norm.no_affine", "aten::group_norm", module=lambda: nn.GroupNorm(3, 6, affine=False),
        inputs=[T(2, 6, 4)]),

    # ---------------------------------------------------------------- recurrent layers
    Row("lstm", "aten::lstm", module=lambda: nn.LSTM(4, 5), inputs=[T(3, 2, 4)]),
    Row("lstm.proj_size", "aten::lstm", module=lambda: nn.LSTM(4, 5, 2, bidirectional=True, proj_size=3),
        inputs=[T(3, 2, 4)], refuse=Refuse("lstm with proj_size (a projection of the hidden state) is not exported")),
    Row("lstm.two_layers_bidirectional", "aten::lstm", module=lambda: nn.LSTM(4, 5, 2, bidirectional=True),
        inputs=[T(3, 2, 4)]),
    Row("gru", "aten::gru", module=lambda: nn.GRU(4, 5, batch_first=True), inputs=[T(2, 3, 4)]),
    Row("rnn_tanh", "aten::rnn_tanh", module=lambda: nn.RNN(4, 5), inputs=[T(3, 2, 4)]),
    Row("rnn_relu", "aten::rnn_relu", module=lambda: nn.RNN(4, 5, nonlinearity="relu"), inputs=[T(3, 2, 4)]),
    Row("lstm.batch_first_initial_state", "aten::lstm",
        module=lambda: RnnWithState(nn.LSTM(4, 5, batch_first=True), lstm=True),
        inputs=[T(2, 3, 4), T(1, 2, 5), T(1, 2, 5)]),
    Row("gru.two_layers_bidirectional", "aten::gru", module=lambda: nn.GRU(4, 3, 2, bidirectional=True),
        inputs=[T(3, 2, 4)]),
    Row("gru.initial_state", "aten::gru", module=lambda: RnnWithState(nn.GRU(4, 5)), inputs=[T(3, 2, 4), T(1, 2, 5)]),
    Row("rnn_tanh.bidirectional", "aten::rnn_tanh", module=lambda: nn.RNN(4, 5, bidirectional=True),
        inputs=[T(3, 2, 4)]),
]


def _more_rows():
    """Rows kept in tests/ops/rows/*.py, one file per operator family added after the table's
    first form, so that families added in parallel do not edit one list.  Each file defines
    ROWS (a list of Row) and may use this module's names (T, Row, Refuse, I64, ...)."""
    import importlib.util
    import os
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rows")
    rows = []
    for name in sorted(os.listdir(here)) if os.path.isdir(here) else []:
        if not name.endswith(".py") or name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"oxport_rows_{name[:-3]}", os.path.join(here, name))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        if not isinstance(getattr(mod, "ROWS", None), list):
            raise SystemExit(f"tests/ops/rows/{name}: defines no ROWS list")
        rows.extend(mod.ROWS)
    return rows


ROWS += _more_rows()
