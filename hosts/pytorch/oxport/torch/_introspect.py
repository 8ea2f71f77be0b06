"""What the engine can export, asked of liboxport's introspection calls (oxport.h): the
symbolic packs loaded (with the register_custom_op_symbolic registrations), the operators
each opset supports with their parameters and limitations, and the check of a pack file
that `oxport plugins --check FILE.so` prints.  The same data `oxport ops` and
`oxport plugins` list, as Python objects."""

import ctypes
import os

from .. import _engine
from . import _custom_ops


OX_EPLUGIN = 6


class IntrospectionError(RuntimeError):
    """The engine could not load or answer what it was asked about (a pack, a descriptor,
    the config, an opset out of range); the message is the engine's, `status` its
    ox_status name, `call` the C function that failed."""

    def __init__(self, message, status="", call=""):
        self.status = status
        self.call = call
        super().__init__(message)


def _text(b):
    return b.decode(errors="replace") if b is not None else None


def _context(config):
    try:
        ctx = _engine.Context(config=config)
        _custom_ops.add_packs(ctx, None, None)
    except _engine.EngineError as e:
        raise IntrospectionError(e.message, e.status_name, e.call) from None
    except _custom_ops.RegistrationError as e:
        raise IntrospectionError(str(e), "OX_EINVAL") from None
    return ctx


def _call(ctx, status, call):
    if status != _engine.OX_OK:
        raise IntrospectionError(ctx.errmsg(), _engine.STATUS_NAMES.get(status, str(status)), call)


def _kinds(L, mask):
    return [_text(L.ox_arg_kind_name(k)) for k in range(32) if mask & (1 << k)]


def _param(L, p):
    if p.kind_text is None:  # a descriptor's name only: no loaded pack declares the operator
        return {"name": _text(p.name), "kind": None, "alt_kinds": [], "optional": None, "default": None}
    return {"name": _text(p.name), "kind": _text(L.ox_arg_kind_name(p.kind)),
            "alt_kinds": _kinds(L, p.alt_kinds), "optional": bool(p.optional),
            "default": _text(p.default_value)}


def _op(ctx, i):
    L = ctx.L
    op = _engine.info(_engine.OxOpInfo)
    _call(ctx, L.ox_context_op(ctx.h, i, ctypes.byref(op)), "ox_context_op")
    params = []
    for k in range(op.n_params):
        p = _engine.info(_engine.OxParamInfo)
        _call(ctx, L.ox_context_op_param(ctx.h, i, k, ctypes.byref(p)), "ox_context_op_param")
        params.append(_param(L, p))
    return op, params


def packs(config=None):
    """The symbolic packs the engine loads, in search order: a list of dicts with name,
    version, description, path (the .so, or a Python registration's origin), abi
    ((major, minor)), configured (False for a built-in pack), n_overrides (operators of
    another pack it replaces) and operators (name,
    since_opset, n_outputs, params, overrides: the path of the pack it replaces or None)."""
    ctx = _context(config)
    try:
        L = ctx.L
        n_packs, n_ops = ctypes.c_size_t(), ctypes.c_size_t()
        _call(ctx, L.ox_context_pack_count(ctx.h, ctypes.byref(n_packs)), "ox_context_pack_count")
        _call(ctx, L.ox_context_op_count(ctx.h, ctypes.byref(n_ops)), "ox_context_op_count")
        out = []
        for i in range(n_packs.value):
            pk = _engine.info(_engine.OxPackInfo)
            _call(ctx, L.ox_context_pack(ctx.h, i, ctypes.byref(pk)), "ox_context_pack")
            out.append({"name": _text(pk.name), "version": _text(pk.version),
                        "description": _text(pk.description), "path": _text(pk.path),
                        "abi": (pk.abi_major, pk.abi_minor), "configured": bool(pk.configured),
                        "n_overrides": pk.n_overrides, "operators": []})
        for i in range(n_ops.value):
            op, params = _op(ctx, i)
            out[op.pack]["operators"].append({"name": _text(op.name), "since_opset": op.since_opset,
                                              "n_outputs": op.n_outputs,
                                              "outputs_as_recorded": bool(op.outputs_as_recorded),
                                              "has_check": bool(op.has_check), "params": params,
                                              "overrides": _text(op.overrides)})
        return out
    finally:
        ctx.close()


def supported_operators(opset=None, config=None, include_unsupported=False):
    """The operators exported at `opset` (default: the config's target opset), sorted by
    name: a list of dicts with name, doc, since_opset and pack (of the symbolic used),
    n_outputs (the least count when outputs_as_recorded), has_check (a check hook reports
    limitations too), descriptor ("opset_N.yaml", or None when only a pack declares it),
    params as the pack declares them (name, kind, alt_kinds, optional, default: Python's
    spelling, or None) and limitations (arg, when, message, lifted_at_opset: the opset
    that supports it, or None).  With include_unsupported the
    operators a descriptor declares but no symbolic exports at this opset come too, with
    supported=False, since_opset None and symbolic_from_opset / disabled_by saying why."""
    ctx = _context(config)
    try:
        L = ctx.L
        if opset is None:
            try:
                ctx.load()
            except _engine.EngineError as e:
                raise IntrospectionError(e.message, e.status_name, e.call) from None
            opset = ctx.target_opset()
        if isinstance(opset, bool) or not isinstance(opset, int):
            raise TypeError(f"supported_operators: opset must be an int, got {opset!r}")
        n = ctypes.c_size_t()
        _call(ctx, L.ox_context_opset_op_count(ctx.h, opset, ctypes.byref(n)), "ox_context_opset_op_count")
        out = []
        for i in range(n.value):
            o = _engine.info(_engine.OxOpsetOpInfo)
            _call(ctx, L.ox_context_opset_op(ctx.h, opset, i, ctypes.byref(o)), "ox_context_opset_op")
            if not o.supported and not include_unsupported:
                continue
            params = []
            for k in range(o.n_params):
                p = _engine.info(_engine.OxParamInfo)
                _call(ctx, L.ox_context_opset_param(ctx.h, opset, i, k, ctypes.byref(p)),
                      "ox_context_opset_param")
                params.append(_param(L, p))
            limitations = []
            for k in range(o.n_limitations):
                li = _engine.info(_engine.OxLimitationInfo)
                _call(ctx, L.ox_context_opset_limitation(ctx.h, opset, i, k, ctypes.byref(li)),
                      "ox_context_opset_limitation")
                limitations.append({"arg": _text(li.arg), "when": _text(li.when), "message": _text(li.message),
                                    "lifted_at_opset": li.lifted_at_opset or None})
            impl = _op(ctx, o.op)[0] if o.has_symbolic else None
            row = {"name": _text(o.name), "doc": _text(o.doc),
                   "since_opset": impl.since_opset if impl else None,
                   "pack": _text(impl.pack_name) if impl else None,
                   "n_outputs": impl.n_outputs if impl else None,
                   "outputs_as_recorded": bool(impl.outputs_as_recorded) if impl else None,
                   "has_check": bool(impl.has_check) if impl else None,
                   "descriptor": f"opset_{o.declared_in}.yaml" if o.declared_in else None,
                   "params": params, "limitations": limitations}
            if include_unsupported:
                row.update(supported=bool(o.supported), symbolic_from_opset=o.symbolic_from_opset or None,
                           disabled_by=_text(o.disabled_by))
            out.append(row)
        return out
    finally:
        ctx.close()


def check_pack(path):
    """Validate a pack file without loading it for good: the list of problems (the lines
    `oxport plugins --check FILE.so` prints), empty when the engine would load it."""
    try:
        ctx = _engine.Context()
    except _engine.EngineError as e:
        raise IntrospectionError(e.message, e.status_name) from None
    try:
        lines = []
        fn = _engine.MESSAGE_FN(lambda user, line: lines.append(_text(line)))
        st = ctx.L.ox_pack_check_file(ctx.h, os.fsencode(path), fn, None, None)
        if st not in (_engine.OX_OK, OX_EPLUGIN):  # OX_EPLUGIN: the problems are the answer
            _call(ctx, st, "ox_pack_check_file")
        return lines
    finally:
        ctx.close()
