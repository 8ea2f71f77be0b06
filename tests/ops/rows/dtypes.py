"""Rows of dtype and type-promotion cases: operands of mixed dtypes in torch's promoted type,
integer types ONNX allows but ONNX Runtime has no kernel for (int8, int16: computed in int32,
cast back), integer inputs of float-only functions, and fill values whose type decides the
result's.  Each compares dtype and values with eager PyTorch on two inputs (the runner's rule).
Format: docs/testing-operators.md."""

import torch
import torch.nn.functional as F

from optable import Refuse, Row, T

I8, I16, I32, I64, U8, BOOL, F16 = torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool, torch.float16
INT_OPSETS = (9, 11, 13, 17)

ROWS = [
    # ---------------------------------------------------------------- mixed operands: torch's promotion
    Row("stack.float_int32", "aten::stack", lambda x, i: torch.stack([x, i]), [T(3, 4), T(3, 4, dtype=I32)]),
    Row("stack.bool_int64", "aten::stack", lambda b, i: torch.stack([b, i], 1), [T(3, 4, dtype=BOOL), T(3, 4, dtype=I64)]),
    Row("maximum.int64_float", "aten::maximum", lambda i, x: torch.maximum(i, x), [T(3, 4, dtype=I64), T(3, 4)],
        opsets=INT_OPSETS),
    Row("maximum.float16_float32", "aten::maximum", lambda h, x: torch.maximum(h, x), [T(3, 4, dtype=F16), T(3, 4)]),
    Row("minimum.bool_int64", "aten::minimum", lambda b, i: torch.minimum(b, i), [T(3, 4, dtype=BOOL), T(4, dtype=I64)],
        opsets=INT_OPSETS),
    Row("minimum.uint8_int32", "aten::minimum", lambda u, i: torch.minimum(u, i),
        [T(3, 4, dtype=U8, lo=0, hi=9), T(3, 4, dtype=I32)], opsets=INT_OPSETS),

    # ---------------------------------------------------------------- int8/uint8/int16 where ONNX or ORT lacks them
    # Pow's base takes int32/int64 only; Neg no unsigned type (-x of uint8 wraps to 256 - x)
    Row("pow.int8", "aten::pow", lambda x: x ** 2, [T(3, 4, dtype=I8)], opsets=INT_OPSETS),
    Row("pow.number_base_int16", "aten::pow", lambda x: 2 ** x, [T(3, 4, dtype=I16, lo=0, hi=9)], opsets=INT_OPSETS),
    Row("neg.uint8", "aten::neg", lambda x: -x, [T(3, 4, dtype=U8, lo=0, hi=200)]),
    # ONNX Runtime has no int8/int16 Where, no int16 Max/Min/Clip/ArgMax, no int8/int16 Trilu
    Row("masked_fill.int8", "aten::masked_fill", lambda x, m: x.masked_fill(m, 3),
        [T(3, 4, dtype=I8), T(3, 4, dtype=BOOL)]),
    Row("where.int16", "aten::where", lambda c, x, y: torch.where(c, x, y),
        [T(3, 4, dtype=BOOL), T(3, 4, dtype=I16), T(4, dtype=I16)]),
    Row("relu.int8", "aten::relu", lambda x: torch.relu(x), [T(3, 4, dtype=I8)], opsets=INT_OPSETS,
        refuse=Refuse("relu of an integer tensor is exported as Where(x < 0, 0, x), which needs opset 9", below=9)),
    Row("threshold.int16", "aten::threshold", lambda x: F.threshold(x, 1, 7), [T(3, 4, dtype=I16)]),
    Row("tril.int8", "aten::tril", lambda x: x.tril(), [T(4, 4, dtype=I8)], opsets=(11, 13, 14, 17)),
    Row("clamp.int16", "aten::clamp", lambda x: x.clamp(-2, 3), [T(3, 4, dtype=I16)], opsets=INT_OPSETS),
    Row("clamp.int8_tensor_bound", "aten::clamp", lambda x, lo: x.clamp(lo), [T(3, 4, dtype=I8), T(3, 4, dtype=I8)],
        opsets=INT_OPSETS),
    Row("maximum.int16", "aten::maximum", lambda x, y: torch.maximum(x, y), [T(3, 4, dtype=I16), T(3, 4, dtype=I16)],
        opsets=INT_OPSETS),
    Row("argmax.int16", "aten::argmax", lambda x: torch.argmax(x, 1), [T(3, 4, dtype=I16, lo=-300, hi=300)]),

    # ---------------------------------------------------------------- float-only functions of integers: float
    Row("sigmoid.int64", "aten::sigmoid", lambda x: torch.sigmoid(x), [T(3, 4, dtype=I64)]),
    Row("tanh.int32", "aten::tanh", lambda x: torch.tanh(x), [T(3, 4, dtype=I32, lo=-2, hi=2)]),
    Row("tanh.bool", "aten::tanh", lambda x: torch.tanh(x), [T(3, 4, dtype=BOOL)]),
    Row("erf.int64", "aten::erf", lambda x: torch.erf(x), [T(3, 4, dtype=I64, lo=-2, hi=2)]),
    Row("tanhshrink.int64", "aten::tanhshrink", lambda x: F.tanhshrink(x), [T(3, 4, dtype=I64)]),
    Row("sign.bool", "aten::sign", lambda x: torch.sign(x), [T(3, 4, dtype=BOOL)]),

    # ---------------------------------------------------------------- fill values
    # torch.full of True is bool (torch 1.13 infers int64 under a dispatch mode)
    Row("full.bool_fill", "aten::full", lambda x: x ^ torch.full((x.size(0), 4), True), [T(3, 4, dtype=BOOL)],
        dynamic={"in0": {0: "n"}}),
]
