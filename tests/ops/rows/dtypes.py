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
    Row("stack.float_int32", "aten::stack", lambda x, i: torch.stack([x, i]), [T(3, 4), T(3, 4, dtype=I32)]),
    Row("stack.bool_int64", "aten::stack", lambda b, i: torch.stack([b, i], 1), [T(3, 4, dtype=BOOL), T(3, 4, dtype=I64)]),
    Row("masked_fill.int8", "aten::masked_fill", lambda x, m: x.masked_fill(m, 3),
        [T(3, 4, dtype=I8), T(3, 4, dtype=BOOL)]),
    Row("where.int16", "aten::where", lambda c, x, y: torch.where(c, x, y),
        [T(3, 4, dtype=BOOL), T(3, 4, dtype=I16), T(4, dtype=I16)]),
    Row("tril.int8", "aten::tril", lambda x: x.tril(), [T(4, 4, dtype=I8)], opsets=(11, 13, 14, 17)),
    Row("argmax.int16", "aten::argmax", lambda x: torch.argmax(x, 1), [T(3, 4, dtype=I16, lo=-300, hi=300)]),
    Row("full.bool_fill", "aten::full", lambda x: x ^ torch.full((x.size(0), 4), True), [T(3, 4, dtype=BOOL)],
        dynamic={"in0": {0: "n"}}),
]
