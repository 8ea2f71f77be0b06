"""Index keys as torch 1.13 reads them, for the trace's own __getitem__/__setitem__.

During a trace `x[key]` and `x[key] = v` go through Python methods (_recorder.tuple_keys,
_indexing.setitem_keys) that pass the key as a tuple, so the function-level recorder sees
every key.  Wrapping must not change what the key means, and torch's C++ indexing reads a
non-tuple key in two ways (python_variable_indexing.cpp, treatSequenceAsTuple): a sequence
shorter than 32 holding a tensor, a sequence, a slice, Ellipsis or None is a tuple of
indices (`x[[[0, 1], [1, 2]]]` is `x[[0, 1], [1, 2]]`), anything else is one index.

A list of Python ints or bools in a key is turned into an index tensor here, with the
values and the dtype C++ would give it (int64, or bool for a mask).  C++ makes that
tensor on the indexed tensor's device below any recorder: under trace='fake' it would be
a meta tensor whose values nobody kept (nanoGPT's `x[:, [-1], :]`).  Made here, it is a
CPU tensor, which the recorders capture as a constant and which indexes a meta tensor as
it indexes a CPU one; the eager trace records the same constant as before.
"""

import torch


def _is_sequence(obj):
    """CPython's PySequence_Check, as torch asks it: anything indexable but a dict."""
    return not isinstance(obj, dict) and hasattr(type(obj), "__getitem__")


def _sequence_as_tuple(key):
    """torch 1.13's treatSequenceAsTuple for a key that is not a tuple."""
    if isinstance(key, torch.Tensor) or not _is_sequence(key):
        return False
    try:
        n = len(key)
    except TypeError:
        return False
    if n >= 32:
        return False
    for i in range(n):
        try:
            obj = key[i]
        except Exception:  # noqa: BLE001 -- torch treats any failure as "not a tuple"
            return False
        if isinstance(obj, (torch.Tensor, slice)) or obj is Ellipsis or obj is None or _is_sequence(obj):
            return True
    return False


def _leaf_kind(obj):
    """int or bool when `obj` is a non-empty (nested) list of only Python ints or only
    bools, else None (traced sizes, floats, tensors, empty lists: left to torch)."""
    if type(obj) is list:
        kinds = {_leaf_kind(v) for v in obj}
        return kinds.pop() if len(kinds) == 1 and None not in kinds else None
    return type(obj) if type(obj) in (int, bool) else None


def _as_index(obj):
    return torch.tensor(obj) if type(obj) is list and _leaf_kind(obj) is not None else obj


def tuple_key(key):
    """The key torch would read, as a tuple, with lists of numbers made index tensors."""
    if isinstance(key, tuple):
        items = key
    elif _sequence_as_tuple(key):
        items = tuple(key)
    else:
        items = (key,)
    return tuple(_as_index(k) for k in items)
