"""Rows that record an ATen operator as is: `aten("clamp_min", x, 0.5)` in a row's call.

The PyTorch host records some operators under another name (clamp_min as aten::clamp,
relu6 as hardtanh, type_as as to) or never sees them (PyTorch decomposes view_as,
movedim, meshgrid ... before the dispatcher).  A C host, or another framework's host,
records the name itself -- torch.onnx's TorchScript graphs hold exactly these names -- so
the packs convert them, and the table tests them by recording the name directly.

aten(name, *args, **kwargs) calls `torch.ops.aten.<name>` (an overload may be named:
"max.dim") eagerly, which is the row's reference.  While the oxport recorder traces it
(both table routes: oxport.torch.export and the capture the C host replays), the call
reaches the recorder's function level as a torch function, and is recorded as one node
of the schema's kind (aten::max), its arguments by the schema's names in schema order
with the schema's defaults filled in -- the same binding the dispatcher-level recorder
uses (oxport.torch._recorder.schema_arglist) -- and its outputs those of the eager call.
Nothing inside the call is recorded.  A list result (meshgrid, tensor_split) becomes a
tuple, one output each."""

import torch
from torch.overrides import handle_torch_function, has_torch_function

from oxport.torch import _lowering, _recorder


def _overload(name):
    base, _, overload = name.partition(".")
    packet = getattr(torch.ops.aten, base)
    return getattr(packet, overload or "default")


def _result(value):
    return tuple(value) if isinstance(value, list) else value


def aten(name, *args, **kwargs):
    """torch.ops.aten.<name>(*args, **kwargs), recorded as one aten::<name> node when traced."""
    tensors = tuple(_recorder.tensors_in((args, kwargs)))
    if has_torch_function(tensors):
        return handle_torch_function(aten, tensors, name, *args, **kwargs)
    return _result(_overload(name)(*args, **kwargs))


def _record_as_is(rec, _func, args, kwargs):
    name, args = args[0], args[1:]
    op = _overload(name)
    arglist = _recorder.schema_arglist(op._schema, args, kwargs)
    return _result(rec.record(op._schema.name, arglist, op, args, kwargs))


_lowering.HANDLERS[aten] = _record_as_is
