"""Argument checks of oxport.torch.export, before anything reaches the engine.

ctypes silently truncates a string at a NUL byte and wraps an integer that does not fit a C
int (opset_version=2**40 became 0, "the context default"), so every value is checked here
and refused with a message naming the argument and the value, never replaced by another.
"""

import operator
import os

# The engine takes the opset as a C int; which opsets are supported is its call (it
# refuses an unsupported one naming the range).
_INT_MAX = 2**31 - 1


class ArgumentError(ValueError):
    """An argument of oxport.torch.export is out of range or malformed."""


def _fail(msg):
    raise ArgumentError(f"oxport.torch.export: {msg}")


def _integer(name, value):
    """An int (or anything with __index__, like a numpy integer), never a bool or a float."""
    if isinstance(value, bool):
        _fail(f"{name} must be an integer, not a bool ({value!r})")
    try:
        return operator.index(value)
    except TypeError:
        _fail(f"{name} must be an integer, got {type(value).__name__} {value!r}")


def opset_version(value):
    """None (the config's target opset) or an integer the engine can be asked about."""
    if value is None:
        return None
    v = _integer("opset_version", value)
    if not 1 <= v <= _INT_MAX:
        _fail(f"opset_version must be a positive ONNX opset number (such as 13), got {v}")
    return v


def path(name, value):
    """A str/bytes/PathLike path without NUL bytes (the C side would cut the path there)."""
    raw = os.fsencode(value)
    if not raw:
        _fail(f"{name} is an empty path")
    nul = raw.find(b"\0")
    if nul >= 0:
        _fail(f"{name} {os.fsdecode(raw)!r} contains a NUL byte at offset {nul}; a file "
              f"name cannot hold one")
    return raw


def names(arg, values):
    """input_names / output_names: a list of str without NUL bytes."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        _fail(f"{arg} must be a list of names, not a single string ({values!r})")
    out = list(values)
    for i, n in enumerate(out):
        if not isinstance(n, str):
            _fail(f"{arg}[{i}] must be a str, got {type(n).__name__} {n!r}")
        if "\0" in n:
            _fail(f"{arg}[{i}] {n!r} contains a NUL byte")
    return out


def dynamic_axes_shape(dynamic_axes):
    """The form of dynamic_axes, checked before the model runs: {name: {axis: dim_name}} or
    {name: [axes]}, axes non-negative integers, dim names str.  Returns
    {name: [(axis, dim_name or None)]}."""
    if dynamic_axes is None:
        return {}
    if not isinstance(dynamic_axes, dict):
        _fail(f"dynamic_axes must be a dict of {{name: {{axis: dim_name}}}} or {{name: [axes]}}, "
              f"got {type(dynamic_axes).__name__}")
    out = {}
    for key, axes in dynamic_axes.items():
        if not isinstance(key, str):
            _fail(f"dynamic_axes key {key!r} must be an input or output name (a str)")
        if isinstance(axes, dict):
            items = list(axes.items())
        elif isinstance(axes, (list, tuple)):
            items = [(a, None) for a in axes]
        else:
            _fail(f"dynamic_axes[{key!r}] must be a dict {{axis: dim_name}} or a list of axes, "
                  f"got {type(axes).__name__} {axes!r}")
        pairs = []
        for a, dim in items:
            if isinstance(a, bool):
                _fail(f"dynamic_axes[{key!r}]: axis {a!r} must be an integer, not a bool")
            try:
                axis = operator.index(a)
            except TypeError:
                _fail(f"dynamic_axes[{key!r}]: axis {a!r} must be an integer, got {type(a).__name__}")
            if axis < 0:
                _fail(f"dynamic_axes[{key!r}]: axis {axis} must be non-negative (0 is the first "
                      f"dimension)")
            if dim is not None and (not isinstance(dim, str) or not dim or "\0" in dim):
                _fail(f"dynamic_axes[{key!r}][{axis}]: the dimension name must be a non-empty str "
                      f"without NUL bytes, got {dim!r}")
            pairs.append((axis, dim))
        out[key] = pairs
    return out


def dynamic_axes_ranks(axes, input_names, output_names, input_ranks, output_ranks):
    """After tracing, when ranks are known: every axis exists on its input or output."""
    for key, pairs in axes.items():
        where = None
        if input_names and key in input_names:
            i = list(input_names).index(key)
            if i < len(input_ranks):
                where = ("input", input_ranks[i])
        if where is None and output_names and key in output_names:
            i = list(output_names).index(key)
            if i < len(output_ranks):
                where = ("output", output_ranks[i])
        if where is None:
            continue  # not a name of the graph: export() warns and ignores it
        kind, rank = where
        for axis, _ in pairs:
            if axis >= rank:
                valid = f"axes 0 to {rank - 1}" if rank else "no axes"
                _fail(f"dynamic_axes[{key!r}] names axis {axis}, but {kind} {key!r} has rank "
                      f"{rank} ({valid})")
