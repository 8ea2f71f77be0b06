"""Operator-table rows: joining along a dim (join.c) beyond aten_ops.py's cat and stack rows."""

import torch

from optable import Row, T

ROWS = [
    # torch.cat skips 1-D tensors of size 0 among tensors of another rank (its legacy empty
    # tensor; torchaudio's Emformer concatenates an empty memory bank so)
    Row("cat.legacy_empty", "aten::cat", lambda x: torch.cat([torch.empty(0), x, torch.empty(0)], 1), [T(2, 3)]),
    Row("cat.legacy_empty_traced", "aten::cat", lambda x, e: torch.cat([e * 2, x], 0), [T(2, 3), T(0)]),
    Row("cat.legacy_empty_only_1d", "aten::cat", lambda x: torch.cat([x, torch.empty(0), x]), [T(3)]),
]
