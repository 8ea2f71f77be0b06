"""Helpers for Python symbolics, named as in the seed and torch.onnx.symbolic_helper.

    from oxport.torch.symbolic_helper import _scalar, _if_scalar_type_as, parse_args

`parse_args` is torch.onnx's own decorator: oxport hands a symbolic its non-tensor
arguments as Python values already, which that decorator passes through unchanged, so a
symbolic written for torch.onnx keeps working.
"""

from torch.onnx.symbolic_helper import parse_args  # noqa: F401

from ._symbolic import Graph, SymbolicError, Type, Value, _if_scalar_type_as, _scalar  # noqa: F401

__all__ = ["_scalar", "_if_scalar_type_as", "parse_args", "Graph", "Value", "Type", "SymbolicError"]
