"""Rows of the unary helper's families (issue #10): ELU-family, shrinkage and gated
activations; pointwise math (logarithms, rounding, fmod, nan/inf tests, lerp, addcmul);
bitwise logic and shifts; identity-like operators.  Format: docs/testing-operators.md."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from optable import Refuse, Row, T

I64, I32, BOOL, F64, U8 = torch.int64, torch.int32, torch.bool, torch.float64, torch.uint8

ROWS = [
    # ---------------------------------------------------------------- activations
    Row("elu", "aten::elu", lambda x: F.elu(x), [T(2, 3, 4)]),
    Row("elu.alpha", "aten::elu", lambda x: F.elu(x, alpha=0.5), [T(3, 4)]),
    Row("elu.inplace", "aten::elu", lambda x: F.elu(x * 1, inplace=True), [T(3, 4)]),
    Row("elu.float64", "aten::elu", lambda x: F.elu(x), [T(3, 4, dtype=F64)]),
    Row("elu.zero_dim", "aten::elu", lambda x: F.elu(x), [T()]),
    Row("elu.dynamic", "aten::elu", lambda x: F.elu(x), [T(2, 3)], dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("celu", "aten::celu", lambda x: F.celu(x), [T(3, 4)]),
    Row("celu.alpha", "aten::celu", lambda x: F.celu(x, alpha=0.5), [T(3, 4)], opsets=(9, 11, 12, 13, 17)),
    Row("celu.float64", "aten::celu", lambda x: F.celu(x, alpha=2.0), [T(3, 4, dtype=F64)]),
    Row("selu", "aten::selu", lambda x: F.selu(x), [T(3, 4)]),
    Row("selu.module_inplace", "aten::selu", module=lambda: nn.Sequential(nn.Linear(4, 4), nn.SELU(inplace=True)),
        inputs=[T(3, 4)]),
    Row("softplus", "aten::softplus", lambda x: F.softplus(x), [T(3, 4, lo=-30, hi=30)]),
    Row("softplus.beta_threshold", "aten::softplus", lambda x: F.softplus(x, beta=2, threshold=1.0), [T(3, 4)]),
    Row("softplus.float64", "aten::softplus", lambda x: F.softplus(x, beta=0.5), [T(3, 4, dtype=F64)]),
    Row("mish", "aten::mish", lambda x: F.mish(x), [T(3, 4, lo=-4, hi=4)]),
    Row("hardshrink", "aten::hardshrink", lambda x: F.hardshrink(x), [T(3, 4)]),
    Row("hardshrink.lambd", "aten::hardshrink", lambda x: F.hardshrink(x, 1.0), [T(3, 4)]),
    Row("softshrink", "aten::softshrink", lambda x: F.softshrink(x), [T(3, 4)]),
    Row("softshrink.lambd_float64", "aten::softshrink", lambda x: F.softshrink(x, 1.0), [T(3, 4, dtype=F64)]),
    Row("tanhshrink", "aten::tanhshrink", lambda x: F.tanhshrink(x), [T(3, 4)]),
    Row("log_sigmoid", "aten::log_sigmoid", lambda x: F.logsigmoid(x), [T(3, 4, lo=-8, hi=8)]),
    Row("log_sigmoid.module", "aten::log_sigmoid", module=lambda: nn.LogSigmoid(), inputs=[T(3, 4)]),
    Row("glu", "aten::glu", lambda x: F.glu(x), [T(3, 4)]),
    Row("glu.dim0", "aten::glu", lambda x: F.glu(x, 0), [T(4, 3)]),
    Row("glu.negative_dim", "aten::glu", lambda x: F.glu(x, -2), [T(2, 6, 3)]),
    Row("glu.dynamic", "aten::glu", lambda x: F.glu(x, 1), [T(2, 6)], dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("prelu", "aten::prelu", module=lambda: nn.PReLU(), inputs=[T(2, 3, 4)]),
    Row("prelu.rank1_shared", "aten::prelu", module=lambda: nn.PReLU(), inputs=[T(5)]),
    Row("prelu.rank2_channels", "aten::prelu", module=lambda: nn.PReLU(4, 0.1), inputs=[T(3, 4)]),
    Row("prelu.rank3_channels", "aten::prelu", module=lambda: nn.PReLU(3, 0.3), inputs=[T(2, 3, 5)]),
    Row("prelu.rank4_channels", "aten::prelu", module=lambda: nn.PReLU(3, 0.3), inputs=[T(2, 3, 4, 4)],
        dynamic={"in0": {0: "b", 2: "h"}, "out0": {0: "b", 2: "h"}}),
    Row("prelu.zero_dim", "aten::prelu", module=lambda: nn.PReLU(), inputs=[T()]),
    Row("prelu.float64", "aten::prelu", module=lambda: nn.PReLU(3).double(), inputs=[T(2, 3, 4, dtype=F64)]),
    Row("rrelu", "aten::rrelu", lambda x: F.rrelu(x), [T(3, 4)]),
    Row("rrelu.bounds", "aten::rrelu", module=lambda: nn.RReLU(0.1, 0.5).eval(), inputs=[T(3, 4)]),
    Row("rrelu.training", "aten::rrelu", lambda x: F.rrelu(x, 0.1, 0.5, training=True), [T(3, 4)], tol="shape"),
]
ROWS += [
    Row("mish.float64", "aten::mish", lambda x: F.mish(x), [T(3, 4, dtype=F64, lo=-4, hi=4)]),
    Row("log_sigmoid.float64", "aten::log_sigmoid", lambda x: F.logsigmoid(x), [T(3, 4, dtype=F64, lo=-8, hi=8)]),
    Row("rrelu.float64", "aten::rrelu", lambda x: F.rrelu(x), [T(3, 4, dtype=F64)]),
    Row("selu.float64", "aten::selu", lambda x: F.selu(x), [T(3, 4, dtype=F64)]),
    Row("softplus.large", "aten::softplus", lambda x: F.softplus(x, beta=3), [T(3, 4, lo=-40, hi=40)]),
]

ROWS += [
    Row("alpha_dropout.eval", "aten::alpha_dropout", lambda x: F.alpha_dropout(x, 0.5, training=False) * 2, [T(3, 4)]),
    Row("alpha_dropout.module_eval", "aten::alpha_dropout", module=lambda: nn.Sequential(nn.Linear(4, 4),
        nn.AlphaDropout(0.2)), inputs=[T(3, 4)]),
    Row("alpha_dropout.training", "aten::alpha_dropout", lambda x: F.alpha_dropout(x, 0.5, training=True),
        [T(3, 4)], refuse=Refuse("alpha dropout in training mode is not exported")),
    Row("feature_alpha_dropout.eval", "aten::feature_alpha_dropout",
        lambda x: F.feature_alpha_dropout(x, 0.5, training=False) + 1, [T(1, 3, 4, 4)]),
    Row("feature_alpha_dropout.training", "aten::feature_alpha_dropout",
        lambda x: F.feature_alpha_dropout(x, 0.5, training=True), [T(1, 3, 4, 4)],
        refuse=Refuse("alpha dropout in training mode is not exported")),
    Row("native_dropout.eval", "aten::native_dropout", lambda x: torch.native_dropout(x, 0.5, False), [T(3, 4)],
        constant=(1,)),
]

# ---------------------------------------------------------------- pointwise math
POS = dict(lo=0.25, hi=4.0)
AWAY = dict(lo=0.5, hi=2.0)
INF = float("inf")


def with_specials(x):
    """x with +inf above 1.2, -inf below -1.2 and nan where |x| < 0.3 (inputs are uniform
    in [-2, 2)), so where the special values fall varies with the input."""
    return torch.where(x > 1.2, INF, torch.where(x < -1.2, -INF, torch.where(x.abs() < 0.3, float("nan"), x)))


def clip_to_inf(x):
    """x with +inf above 1.5 and -inf below -1.5, finite elsewhere (no nan)."""
    return torch.where(x > 1.5, INF, torch.where(x < -1.5, -INF, x))


ATAN2_DYN = {"in0": {0: "n"}, "in1": {0: "n"}, "out0": {0: "n"}}

ROWS += [
    # atan2: every quadrant from uniform inputs; small integers (as float) put zeros of
    # either operand at input-dependent places: x == 0 with y of both signs, y == 0 with x
    # of both signs, and both 0
    Row("atan2", "aten::atan2", lambda y, x: torch.atan2(y, x), [T(4, 6), T(4, 6)], dynamic=ATAN2_DYN),
    Row("atan2.zeros", "aten::atan2", lambda y, x: torch.atan2(y.float(), x.float()),
        [T(5, 6, dtype=I64, lo=-2, hi=2), T(5, 6, dtype=I64, lo=-2, hi=2)], dynamic=ATAN2_DYN),
    # -0 (a negated integer zero): atan2(+-0, -0) is +-pi, atan2(-0, x > 0) is -0
    Row("atan2.signed_zeros", "aten::atan2", lambda y, x: torch.atan2(y.float().neg(), x.float().neg()),
        [T(5, 6, dtype=I64, lo=-2, hi=2), T(5, 6, dtype=I64, lo=-2, hi=2)]),
    Row("atan2.infinities", "aten::atan2", lambda y, x: torch.atan2(clip_to_inf(y), clip_to_inf(x)),
        [T(5, 6), T(5, 6)]),
    # integer operands compute in float32 as torch's; a float64 operand makes float64
    Row("atan2.int64", "aten::atan2", lambda y, x: torch.atan2(y, x),
        [T(5, 6, dtype=I64, lo=-3, hi=3), T(5, 6, dtype=I64, lo=-3, hi=3)]),
    Row("atan2.float64", "aten::atan2", lambda y, x: torch.atan2(y, x), [T(4, 6, dtype=F64), T(4, 6, dtype=F64)],
        dynamic=ATAN2_DYN),
    Row("atan2.float64_zeros", "aten::atan2", lambda y, x: torch.atan2(y.double(), x.double().neg()),
        [T(5, 6, dtype=I64, lo=-2, hi=2), T(5, 6, dtype=I64, lo=-2, hi=2)]),
    # float64 atan, asin, acos: at_atan2's float64 series (ONNX Runtime has no float64 Atan,
    # Asin, Acos); clamping makes exact +-1 at input-dependent places
    Row("atan.float64", "aten::atan", lambda x: torch.atan(x), [T(3, 5, dtype=F64, lo=-6, hi=6)],
        opsets=(7, 8, 9, 13, 17),
        xfail={o: "ONNX Runtime has no float64 Atan, and the float64 series needs Where (opset 9)" for o in (7, 8)}),
    Row("asin.float64", "aten::asin", lambda x: torch.asin(x.clamp(-1, 1)), [T(3, 5, dtype=F64, lo=-1.2, hi=1.2)]),
    Row("acos.float64", "aten::acos", lambda x: torch.acos(x.clamp(-1, 1)), [T(3, 5, dtype=F64, lo=-1.2, hi=1.2)]),
    Row("atan2.broadcast_mixed", "aten::atan2", lambda y, x: torch.atan2(y, x), [T(3, 1, 4), T(5, 4, dtype=F64)]),
]

ROWS += [
    Row("log10", "aten::log10", lambda x: torch.log10(x), [T(3, 4, **POS)]),
    Row("log10.int64", "aten::log10", lambda x: torch.log10(x), [T(3, 4, dtype=I64, lo=1, hi=1000)]),
    Row("log10.float64", "aten::log10", lambda x: torch.log10(x), [T(3, 4, dtype=F64, **POS)]),
    Row("log2", "aten::log2", lambda x: torch.log2(x), [T(3, 4, **POS)]),
    Row("log2.int32", "aten::log2", lambda x: torch.log2(x), [T(3, 4, dtype=I32, lo=1, hi=64)]),
    Row("log1p", "aten::log1p", lambda x: torch.log1p(x), [T(3, 4, lo=-0.5, hi=3)]),
    Row("log1p.float64", "aten::log1p", lambda x: torch.log1p(x), [T(3, 4, dtype=F64, lo=-0.5, hi=3)]),
    Row("log1p.zero_dim", "aten::log1p", lambda x: torch.log1p(x), [T(**POS)]),
    Row("round", "aten::round", lambda x: torch.round(x * 4) / 4 + torch.round(x), [T(3, 4, lo=-5, hi=5)], since=11),
    Row("round.half_to_even", "aten::round", lambda x: torch.round(torch.floor(x) + 0.5), [T(3, 4, lo=-5, hi=5)],
        since=11),
    Row("round.decimals", "aten::round", lambda x: torch.round(x, decimals=2), [T(3, 4, lo=-50, hi=50)], since=11),
    Row("round.negative_decimals", "aten::round", lambda x: torch.round(x, decimals=-1), [T(3, 4, lo=-500, hi=500)],
        since=11),
    Row("round.int64", "aten::round", lambda x: torch.round(x), [T(3, 4, dtype=I64)], since=11),
    Row("round.float64", "aten::round", lambda x: torch.round(x, decimals=1), [T(3, 4, dtype=F64)], since=11),
    Row("round.opset10", "aten::round", lambda x: torch.round(x), [T(3, 4)], opsets=(9, 10),
        refuse=Refuse("aten::round has no symbolic at this opset (scope: Fn); supported from opset 11")),
    Row("fmod", "aten::fmod", lambda x, y: torch.fmod(x, y), [T(3, 4, lo=-6, hi=6), T(3, 4, lo=0.5, hi=2)], since=10),
    Row("fmod.scalar", "aten::fmod", lambda x: torch.fmod(x, 1.5), [T(3, 4, lo=-6, hi=6)], since=10),
    Row("fmod.negative_divisor_broadcast", "aten::fmod", lambda x, y: torch.fmod(x, y),
        [T(3, 4, lo=-6, hi=6), T(4, lo=-2, hi=-0.5)], since=10),
    Row("fmod.int64", "aten::fmod", lambda x, y: torch.fmod(x, y), [T(3, 4, dtype=I64, lo=-20, hi=20),
        T(3, 4, dtype=I64, lo=1, hi=6)], since=10),
    Row("fmod.int_float", "aten::fmod", lambda x, y: torch.fmod(x, y), [T(3, 4, dtype=I32, lo=-20, hi=20),
        T(3, 4, lo=0.5, hi=3)], since=10),
    Row("fmod.float64", "aten::fmod", lambda x: torch.fmod(x, 0.75), [T(3, 4, dtype=F64, lo=-6, hi=6)], since=10),
    Row("fmod.opset9", "aten::fmod", lambda x: torch.fmod(x, 1.5), [T(3, 4)], opsets=(9,), refuse=Refuse("aten::fmod has no symbolic at this opset (scope: Fn); supported from opset 10")),
    Row("isnan", "aten::isnan", lambda x: torch.isnan(with_specials(x)), [T(3, 4)]),
    Row("isnan.float64", "aten::isnan", lambda x: torch.isnan(with_specials(x)), [T(3, 4, dtype=F64)]),
    Row("isnan.int64", "aten::isnan", lambda x: torch.isnan(x), [T(3, 4, dtype=I64)], constant=(0,)),
    Row("isinf", "aten::isinf", lambda x: torch.isinf(with_specials(x)), [T(3, 4)], opsets=(9, 10, 13, 17)),
    Row("isinf.float64", "aten::isinf", lambda x: torch.isinf(with_specials(x)), [T(3, 4, dtype=F64)]),
    Row("isinf.int32", "aten::isinf", lambda x: torch.isinf(x), [T(3, 4, dtype=I32)], constant=(0,)),
    # (clamped: the defaults are the type's largest finite values, whose scale would hide the rest)
    Row("nan_to_num", "aten::nan_to_num", lambda x: torch.nan_to_num(with_specials(x)).clamp(-10, 10), [T(3, 4)]),
    Row("isfinite", "aten::isfinite", lambda x: torch.isfinite(with_specials(x)), [T(3, 4)]),
    Row("isfinite.float64", "aten::isfinite", lambda x: with_specials(x).isfinite(), [T(3, 4, dtype=F64)]),
    Row("isfinite.int64", "aten::isfinite", lambda x: torch.isfinite(x), [T(3, 4, dtype=I64)], constant=(0,)),
    Row("square", "aten::square", lambda x: torch.square(x), [T(3, 4)]),
    Row("square.int64", "aten::square", lambda x: x.square(), [T(3, 4, dtype=I64)]),
    Row("square.int8", "aten::square", lambda x: torch.square(x), [T(3, 4, dtype=torch.int8, lo=-11, hi=11)],
        opsets=(9, 13, 14, 17)),
    Row("square.bool", "aten::square", lambda x: torch.square(x > 0), [T(3, 4)]),
    Row("square.inplace", "aten::square", lambda x: (x * 1).square_(), [T(3, 4)]),
    Row("nan_to_num.values", "aten::nan_to_num", lambda x: torch.nan_to_num(with_specials(x), 1.0, 100.0, -100.0),
        [T(3, 4)]),
    Row("nan_to_num.float64", "aten::nan_to_num", lambda x: torch.nan_to_num(with_specials(x), posinf=7.0).clamp(-9, 9),
        [T(3, 4, dtype=F64)]),
    Row("nan_to_num.int64", "aten::nan_to_num", lambda x: torch.nan_to_num(x), [T(3, 4, dtype=I64)]),
    Row("lerp", "aten::lerp", lambda x, y: torch.lerp(x, y, 0.3), [T(3, 4), T(3, 4)]),
    Row("lerp.high_weight", "aten::lerp", lambda x, y: torch.lerp(x, y, 0.75), [T(3, 4), T(3, 4)]),
    Row("lerp.tensor_weight", "aten::lerp", lambda x, y, w: torch.lerp(x, y, w), [T(3, 4), T(3, 4), T(3, 4, lo=0, hi=1)]),
    Row("lerp.broadcast_weight", "aten::lerp", lambda x, y, w: torch.lerp(x, y, w), [T(2, 3, 4), T(3, 4), T(4, lo=0, hi=1)]),
    Row("lerp.float64", "aten::lerp", lambda x, y: torch.lerp(x, y, 0.6), [T(3, 4, dtype=F64), T(3, 4, dtype=F64)]),
    Row("true_divide", "aten::true_divide", lambda x, y: torch.true_divide(x, y), [T(3, 4), T(3, 4, **AWAY)]),
    Row("true_divide.int64", "aten::true_divide", lambda x, y: x.true_divide(y),
        [T(3, 4, dtype=I64), T(3, 4, dtype=I64, lo=1, hi=5)]),
    Row("true_divide.scalar", "aten::true_divide", lambda x: torch.true_divide(x, 4), [T(3, 4, dtype=I32)]),
    Row("true_divide.inplace", "aten::true_divide", lambda x, y: (x * 1).true_divide_(y), [T(3, 4), T(4, **AWAY)]),
    Row("addcmul", "aten::addcmul", lambda x, a, b: torch.addcmul(x, a, b), [T(3, 4), T(3, 4), T(3, 4)]),
    Row("addcmul.value_broadcast", "aten::addcmul", lambda x, a, b: torch.addcmul(x, a, b, value=-0.5),
        [T(3, 4), T(4), T(3, 1)]),
    Row("addcmul.int64", "aten::addcmul", lambda x, a, b: torch.addcmul(x, a, b, value=3),
        [T(3, 4, dtype=I64), T(3, 4, dtype=I64), T(3, 4, dtype=I64)]),
    Row("addcmul.int32", "aten::addcmul", lambda x, a, b: torch.addcmul(x, a, b),
        [T(3, 4, dtype=I32), T(3, 4, dtype=I32), T(3, 4, dtype=I32)]),
    Row("addcmul.float64", "aten::addcmul", lambda x, a, b: torch.addcmul(x, a, b, value=2),
        [T(3, 4, dtype=F64), T(3, 4, dtype=F64), T(3, 4, dtype=F64)]),
    Row("addcdiv", "aten::addcdiv", lambda x, a, b: torch.addcdiv(x, a, b, value=0.5),
        [T(3, 4), T(3, 4), T(3, 4, lo=0.5, hi=2)]),
    Row("addcdiv.default_value", "aten::addcdiv", lambda x, a, b: torch.addcdiv(x, a, b), [T(3, 4), T(3, 4), T(4, lo=0.5, hi=2)]),
]

# ---------------------------------------------------------------- clamp's bounds (clamp_min/clamp_max record as clamp)
ROWS += [
    Row("clamp.clamp_min_tensor", "aten::clamp", lambda x, lo: torch.clamp_min(x, lo), [T(3, 4), T(4, lo=-1, hi=1)]),
    Row("clamp.clamp_max_number", "aten::clamp", lambda x: torch.clamp_max(x, 0.3), [T(3, 4)]),
    Row("clamp.clamp_min_number_float64", "aten::clamp", lambda x: torch.clamp_min(x, -0.3), [T(3, 4, dtype=F64)]),
    Row("clamp.tensor_max_only", "aten::clamp", lambda x, hi: torch.clamp(x, max=hi), [T(2, 3, 4), T(3, 1, lo=-1, hi=1)]),
    Row("clamp.tensor_bounds_int64", "aten::clamp", lambda x, lo, hi: torch.clamp(x, lo, hi),
        [T(3, 4, dtype=I64), T(3, 4, dtype=I64, lo=-5, hi=-1), T(4, dtype=I64, lo=0, hi=4)], opsets=(9, 11, 12, 13, 17)),
    Row("clamp.int_tensor_float_bound", "aten::clamp", lambda x, lo: torch.clamp(x, min=lo),
        [T(3, 4, dtype=I32), T(3, 4, lo=-2, hi=2)], opsets=(9, 11, 12, 13, 17)),
    Row("clamp.tensor_bounds_dynamic", "aten::clamp", lambda x, lo, hi: torch.clamp(x, lo, hi),
        [T(2, 4), T(4, lo=-2, hi=-0.5), T(4, lo=0.5, hi=2)], dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
]

# ---------------------------------------------------------------- bitwise logic and shifts
SHIFT = dict(dtype=I64, lo=0, hi=12)
ROWS += [
    Row("bitwise_not.bool", "aten::bitwise_not", lambda x: ~(x > 0), [T(3, 4)]),
    Row("bitwise_not.int64", "aten::bitwise_not", lambda x: ~x, [T(3, 4, dtype=I64, lo=-100, hi=100)]),
    Row("bitwise_not.int32", "aten::bitwise_not", lambda x: torch.bitwise_not(x), [T(3, 4, dtype=I32, lo=-100, hi=100)]),
    Row("bitwise_not.uint8", "aten::bitwise_not", lambda x: ~x, [T(3, 4, dtype=U8, lo=0, hi=255)], opsets=(9, 13, 14, 17)),
    Row("bitwise_not.int8", "aten::bitwise_not", lambda x: ~x, [T(3, 4, dtype=torch.int8, lo=-128, hi=127)],
        opsets=(9, 13, 14, 17)),
    Row("bitwise_and.bool", "aten::bitwise_and", lambda x, y: (x > 0) & (y > 0), [T(3, 4), T(3, 4)]),
    Row("bitwise_and.bool_scalar", "aten::bitwise_and", lambda x: (x > 0) & True, [T(3, 4)]),
    Row("bitwise_or.bool_broadcast", "aten::bitwise_or", lambda x, y: (x > 0) | (y > 0), [T(2, 3, 4), T(4)]),
    Row("bitwise_xor.bool", "aten::bitwise_xor", lambda x, y: torch.bitwise_xor(x > 0, y > 0), [T(3, 4), T(3, 4)]),
    Row("bitwise_and.int64", "aten::bitwise_and", lambda x, y: x & y, [T(3, 4, dtype=I64), T(3, 4, dtype=I64)],
        opsets=(9, 13, 17, 18, 21), refuse=Refuse("bitwise_and of integer tensors needs ONNX's BitwiseAnd (opset 18)", below=18)),
    Row("bitwise_or.bool_int", "aten::bitwise_or", lambda x, y: (x > 0) | y, [T(3, 4), T(3, 4, dtype=I32)],
        opsets=(9, 13, 17, 18, 21), refuse=Refuse("bitwise_or of integer tensors needs ONNX's BitwiseOr (opset 18)", below=18)),
    Row("bitwise_xor.int_scalar", "aten::bitwise_xor", lambda x: x ^ 5, [T(3, 4, dtype=I64)],
        opsets=(9, 13, 17, 18, 21), refuse=Refuse("bitwise_xor of integer tensors needs ONNX's BitwiseXor (opset 18)", below=18)),
    Row("__lshift__", "aten::__lshift__", lambda x, k: x << k, [T(3, 4, dtype=I64, lo=-100, hi=100), T(3, 4, **SHIFT)]),
    Row("__lshift__.scalar", "aten::__lshift__", lambda x: x << 3, [T(3, 4, dtype=I64, lo=-100, hi=100)]),
    Row("__lshift__.int32_broadcast", "aten::__lshift__", lambda x, k: x << k,
        [T(3, 4, dtype=I32, lo=-100, hi=100), T(4, dtype=I32, lo=0, hi=8)]),
    Row("__lshift__.uint8_wraps", "aten::__lshift__", lambda x, k: x << k,
        [T(3, 4, dtype=U8, lo=0, hi=255), T(3, 4, dtype=U8, lo=0, hi=7)], opsets=(9, 10, 11, 13, 17)),
    Row("__rshift__", "aten::__rshift__", lambda x, k: x >> k, [T(3, 4, dtype=I64, lo=-1000, hi=1000), T(3, 4, **SHIFT)]),
    Row("__rshift__.scalar_negative_floors", "aten::__rshift__", lambda x: x >> 2, [T(3, 4, dtype=I64, lo=-50, hi=50)]),
    Row("__rshift__.int8", "aten::__rshift__", lambda x, k: x >> k,
        [T(3, 4, dtype=torch.int8, lo=-128, hi=127), T(3, 4, dtype=torch.int8, lo=0, hi=7)], opsets=(9, 13, 14, 17)),
    Row("__rshift__.uint8", "aten::__rshift__", lambda x, k: x >> k,
        [T(3, 4, dtype=U8, lo=0, hi=255), T(3, 4, dtype=U8, lo=0, hi=7)], opsets=(9, 10, 11, 13, 17)),
    Row("__rshift__.dynamic", "aten::__rshift__", lambda x: x >> 1, [T(2, 4, dtype=I32, lo=-64, hi=64)],
        dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
]
ROWS += [
    Row("bitwise_or.reflected_bool_scalar", "aten::bitwise_or", lambda x: False | (x > 1), [T(3, 4)]),
    Row("bitwise_xor.inplace", "aten::bitwise_xor", lambda x, y: (x > 0).__ixor__(y > 0), [T(3, 4), T(3, 4)]),
]

# ---------------------------------------------------------------- identity-like
ROWS += [
    Row("lift", "aten::lift", lambda x: torch.ops.aten.lift(x) * 2, [T(3, 4)]),
    Row("lift.int64", "aten::lift", lambda x: torch.ops.aten.lift(x) + 1, [T(3, 4, dtype=I64)]),
]

# ---------------------------------------------------------------- float64 where ONNX Runtime lacks the kernel
ROWS += [
    Row("erf.float64", "aten::erf", lambda x: torch.erf(x), [T(3, 4, dtype=F64, lo=-4, hi=4)]),
    Row("erf.float64_dynamic", "aten::erf", lambda x: torch.erf(x), [T(2, 5, dtype=F64, lo=-3, hi=3)],
        dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("gelu.float64_wide", "aten::gelu", lambda x: F.gelu(x), [T(3, 4, dtype=F64, lo=-6, hi=6)]),
]
