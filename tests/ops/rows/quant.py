"""Rows of the quant helper's families (issue #10): fake quantization (QuantizeLinear and
DequantizeLinear) and embedding with max_norm.  Format: docs/testing-operators.md."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from optable import Refuse, Row, T

ROWS = [
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
