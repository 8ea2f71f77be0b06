"""register_custom_op_symbolic / unregister_custom_op_symbolic, as in torch.onnx 1.13.

A registration maps "<domain>::<op>" and an opset version to a Python symbolic
`fn(g, *inputs)`.  Like torch.onnx, the function serves every target opset from
`opset_version` up to the next registration of the same name (the engine's own dispatch:
highest since_opset <= target), and it takes precedence over the built-in symbolic of the
same name ("aten::relu" overrides the ATen pack's) from there up; below it the built-in one
still serves.  As in torch.onnx, the lowest registration at opset 9 or below serves opsets
7 and 8 as well.  Each export turns the registrations
into one in-process pack (ox_context_add_pack) whose origin names the Python function, so
the export report and `oxport.torch.plugins()` show where an override comes from.

The parameters the engine hands the function are the operator's schema arguments (from
torch's operator registry, e.g. a `torch.library` definition of `mylib::foo`), in schema
order: tensors as graph values, other arguments as Python values (what torch.onnx's
`parse_args` would have produced, so a symbolic decorated with it works unchanged).
"""

import re

import torch

from . import _symbolic

_registry = {}  # name -> {opset_version: fn}
_BASE_OPSET = 9    # torch.onnx's ONNX_BASE_OPSET
_LEGACY_OPSET = 7  # the lowest opset torch.onnx 1.13 exports


class RegistrationError(ValueError):
    """A registration cannot become a pack (torch knows no such operator)."""

_NAME = re.compile(r"^[a-zA-Z0-9-_]+::[a-zA-Z-_]+[a-zA-Z0-9-_]*$")


def _canonical(symbolic_name):
    if not isinstance(symbolic_name, str):
        raise TypeError(f"symbolic_name must be a str, not {type(symbolic_name).__name__}")
    if symbolic_name.startswith("::"):
        symbolic_name = f"aten{symbolic_name}"
    if not _NAME.match(symbolic_name):
        raise ValueError(f"Failed to register operator {symbolic_name}. The symbolic name must match the "
                         f"format domain::name, and should start with a letter and contain only "
                         f"alphanumerical characters")
    if symbolic_name.split("::")[0] == "onnx":
        raise ValueError(f"Failed to register operator {symbolic_name}. onnx domain cannot be modified.")
    return symbolic_name


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Register `symbolic_fn(g, *inputs)` for "<domain>::<op>" from `opset_version` on.
    A name starting with "::" means "aten::".  Registering the same (name, opset) again
    replaces the function."""
    name = _canonical(symbolic_name)
    if not callable(symbolic_fn):
        raise TypeError(f"register_custom_op_symbolic({name!r}): symbolic_fn must be callable, not "
                        f"{type(symbolic_fn).__name__}")
    if isinstance(opset_version, bool) or not isinstance(opset_version, int) or opset_version < 1:
        raise ValueError(f"register_custom_op_symbolic({name!r}): opset_version must be an integer >= 1, "
                         f"not {opset_version!r}")
    _registry.setdefault(name, {})[opset_version] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Remove the registration of (name, opset_version); as torch.onnx 1.13 does, a
    registration that does not exist is silently ignored."""
    name = _canonical(symbolic_name)
    versions = _registry.get(name)
    if versions is not None:
        versions.pop(opset_version, None)
        if not versions:
            del _registry[name]


def registered():
    """{name: {opset: fn}} (a copy), for listings."""
    return {n: dict(v) for n, v in _registry.items()}


# ---------------------------------------------------------------- schema -> declaration

def _schema_kind(jit_type):
    t = str(jit_type)
    opt = t.startswith("Optional[")
    if opt:
        t = t[len("Optional["):-1]
    if t == "Tensor":
        return "opt_tensor" if opt else "tensor"
    if t in ("List[Tensor]", "List[Optional[Tensor]]"):
        return "tensors"
    if t in ("int", "SymInt"):
        return "int"
    if t == "float":
        return "float"
    if t == "bool":
        return "bool"
    if t == "str":
        return "str"
    if t == "number":
        return "scalar"
    if t in ("List[int]", "List[SymInt]"):
        return "ints"
    if t == "List[float]":
        return "floats"
    if t == "ScalarType":
        return "dtype"
    return None  # devices, layouts, generators ...: hosts do not record them


def _union(kinds):
    ks = set(kinds)
    if len(ks) == 1:
        return kinds[0]
    if ks <= {"tensor", "opt_tensor"}:
        return "opt_tensor"
    if ks <= {"int", "float", "bool", "scalar"}:
        return "scalar"
    if ks <= {"tensor", "opt_tensor", "int", "float", "bool", "scalar"}:
        return "tensor_or_scalar"
    return kinds[0]


def declaration(name):
    """(params [(name, kind)], n_outputs) from torch's schemas for `name`, out= overloads
    left aside.  Raises ValueError when torch knows no such operator."""
    schemas = [s for s in torch._C._jit_get_schemas_for_operator(name)
               if not any(a.name == "out" for a in s.arguments)]
    with_tensors = [s for s in schemas if any("Tensor" in str(a.type) for a in s.arguments)]
    schemas = with_tensors or schemas
    if not schemas:
        raise RegistrationError(f"register_custom_op_symbolic: torch has no operator {name} (define it with "
                         f"torch.library before exporting)")
    order, kinds = [], {}
    for s in schemas:
        for a in s.arguments:
            k = _schema_kind(a.type)
            if k is None:
                continue
            if k == "int" and a.name == "dtype":
                k = "dtype"  # the JIT schema types a ScalarType as int; hosts record a dtype
            if a.name not in kinds:
                order.append(a.name)
                kinds[a.name] = []
            kinds[a.name].append(k)
    default = next((s for s in schemas if s.overload_name == ""), schemas[0])
    return [(n, _union(kinds[n])) for n in order], max(len(default.returns), 1)


def _label(fn):
    mod = getattr(fn, "__module__", None) or "?"
    return f"{mod}.{getattr(fn, '__qualname__', getattr(fn, '__name__', repr(fn)))}"


def registered_packs():
    """One in-process pack per registered name, each version one declaration, with the
    origin naming the functions (None entries never occur; empty when nothing is
    registered)."""
    packs = []
    for name in sorted(_registry):
        params, n_out = declaration(name)
        pack = _symbolic.InProcessPack(f"python:{name}", f"register_custom_op_symbolic({name!r}, ...)")
        labels = []
        for i, (opset, fn) in enumerate(sorted(_registry[name].items())):
            # torch.onnx 1.13 serves opsets 7 and 8 with the lowest registration up to its
            # base opset 9: registered at 9, the function converts at 7 and 8 too (declared
            # from there, it overrides the built-in symbolic there as well)
            since = min(opset, _LEGACY_OPSET) if i == 0 and opset <= _BASE_OPSET else opset
            pack.add(name, since, params, n_out, fn, _label(fn))
            labels.append(f"{_label(fn)} (opset {opset})")
        packs.append((pack, f"python:register_custom_op_symbolic: {', '.join(labels)}"))
    return packs


def add_packs(ctx, rec, custom_opsets):
    """Add this export's Python symbolics to the context: the autograd Functions' symbolic
    staticmethods seen in the trace, and the register_custom_op_symbolic registrations."""
    opsets = dict(custom_opsets or {})
    for pack, origin in _symbolic.function_packs(rec) if rec is not None else []:
        pack.add_to(ctx, origin, opsets)
    for pack, origin in registered_packs():
        pack.add_to(ctx, origin, opsets)
