"""Rows of the running products, extrema and log-sum-exps (plugins/aten/cumulative.c): a Scan
along the dim carrying torch's own recurrence.  Format: docs/testing-operators.md."""

import torch

from optable import Row, T

I64, I32, I8, BOOL, F64 = torch.int64, torch.int32, torch.int8, torch.bool, torch.float64
# the scanned dim and another one dynamic: the Scan's length comes from the run-time shape
DYN = {"in0": {0: "batch", 1: "n"}, "out0": {0: "batch", 1: "n"}}

ROWS = [
    # ---- cumprod
    Row("cumprod", "aten::cumprod", lambda x: x.cumprod(1), [T(3, 5)], dynamic=DYN),
    # small integers as floats: zeros and negative values at input-dependent places (a zero
    # zeroes the rest of its row, signs alternate), where exp(cumsum(log x)) is wrong
    Row("cumprod.zeros_negatives", "aten::cumprod", lambda x: x.float().cumprod(-1),
        [T(4, 6, dtype=I64, lo=-3, hi=3)], dynamic={"in0": {1: "n"}, "out0": {1: "n"}}),
    Row("cumprod.dim0_rank3", "aten::cumprod", lambda x: torch.cumprod(x, 0), [T(4, 2, 3)]),
    # integers multiply exactly, as int64 (torch's type for bool and integer products)
    Row("cumprod.int64", "aten::cumprod", lambda x: x.cumprod(1), [T(3, 6, dtype=I64, lo=-4, hi=4)]),
    Row("cumprod.int32", "aten::cumprod", lambda x: x.cumprod(0), [T(5, 3, dtype=I32, lo=-3, hi=3)]),
    Row("cumprod.bool", "aten::cumprod", lambda x: x.cumprod(1), [T(3, 5, dtype=BOOL)]),
    Row("cumprod.dtype_float64", "aten::cumprod", lambda x: x.cumprod(1, dtype=F64), [T(3, 5)]),
    # int8 products wrap at 8 bits in torch, and so in the file
    Row("cumprod.dtype_int8_wraps", "aten::cumprod", lambda x: x.cumprod(1, dtype=I8),
        [T(3, 6, dtype=I64, lo=-9, hi=9)], opsets=(9, 13, 14, 17)),
    Row("cumprod.rank1", "aten::cumprod", lambda x: x.cumprod(0), [T(7)], dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("cumprod.rank0", "aten::cumprod", lambda x: x.cumprod(0), [T()]),
    Row("cumprod.empty_dim", "aten::cumprod", lambda x: x.cumprod(1), [T(3, 0)], constant=(0,)),
]
