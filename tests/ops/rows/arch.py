"""Rows for what real architectures (tests/pytorch/test_zoo_arch.py) found missing: the
float-only unary ops on integer and bool tensors, which torch computes in the default
float type (RAFT divides its correlation by torch.sqrt(torch.tensor(channels))).
Format: docs/testing-operators.md."""

import torch

from optable import Row, T

I64, I32, BOOL = torch.int64, torch.int32, torch.bool

ROWS = [
    Row("sqrt.int64", "aten::sqrt", lambda x: torch.sqrt(x), [T(3, 4, dtype=I64, lo=0, hi=9)]),
    Row("rsqrt.int64", "aten::rsqrt", lambda x: torch.rsqrt(x), [T(3, 4, dtype=I64, lo=1, hi=9)]),
    Row("exp.bool", "aten::exp", lambda x: torch.exp(x), [T(3, 4, dtype=BOOL)]),
    Row("log.int32", "aten::log", lambda x: torch.log(x), [T(3, 4, dtype=I32, lo=1, hi=9)]),
    Row("sin.int64", "aten::sin", lambda x: torch.sin(x), [T(3, 4, dtype=I64)]),
    Row("cos.int32", "aten::cos", lambda x: torch.cos(x), [T(3, 4, dtype=I32)]),
]
