"""In-place writes through views, and assignment with traced keys.

The trace maps each tensor to one value.  A write through a view (`x[:, 0] = y`,
`x[idx] += 1`, `v.copy_(y)`, `v.fill_(0)`, `masked_fill_`/`index_put_` on a view)
gives the view its new value; ViewTracker then gives the view's base (the tensor that
owns the storage) its new value too, and re-derives every other view of that base
from the new value the next time one is read:

- every recorded op whose output is a view (`o._base` is set) is remembered with the
  chain of view ops that leads from the base to it (each link: the kind and its
  arguments, as recorded);
- a write through a view records, from the innermost link out, the op that puts the
  new child value into its parent: slice -> aten::slice_scatter, select ->
  unsqueeze + slice_scatter, unsqueeze -> squeeze, view/reshape/flatten/squeeze ->
  reshape to the parent's (traced) shape, transpose/t/permute -> their inverse;
  the last one is the base's new value.  So the file holds Scatter/Expand ops on
  the base, and the shapes stay traced (dynamic axes hold);
- each base has a version, bumped by every write to it or through any of its views;
  a view whose version is behind is re-derived (its chain replayed on the base's
  current value) when it is next used.

A view whose chain oxport cannot replay or invert (one made by as_strided,
diagonal, unfold, or made before its base was traced) is written back by its
storage positions: the base flattened, the view's positions (read from its strides)
scattered, reshaped back.  Those positions are the example's, so a TracerWarning
says the write is fixed to this input's shape.
"""

import weakref

import torch

from .. import _engine as E
from . import _index_keys as K
from . import _lowering as L
from . import _sizes as S

T = torch.Tensor

# Views whose write-back is an op on the parent (see _inverse).
_RESHAPES = {"aten::view", "aten::reshape", "aten::flatten", "aten::squeeze", "aten::_unsafe_view",
             "aten::_reshape_alias", "aten::unflatten"}
_INVERTIBLE = {"aten::slice", "aten::select", "aten::unsqueeze", "aten::transpose", "aten::t",
               "aten::permute"} | _RESHAPES


class _Link:
    """One view op: how a view was made from its parent."""

    __slots__ = ("kind", "resolved", "self_pos", "shape", "dtype")

    def __init__(self, kind, resolved, self_pos, shape, dtype):
        self.kind = kind
        self.resolved = resolved
        self.self_pos = self_pos
        self.shape = shape
        self.dtype = dtype

    def arg(self, name, default=None):
        for n, k, v in self.resolved:
            if n == name:
                return (k, v)
        return default

    def on(self, vid):
        r = list(self.resolved)
        n, _k, _v = r[self.self_pos]
        r[self.self_pos] = (n, E.ARG_TENSOR, vid)
        return r


class _View:
    __slots__ = ("ref", "root", "chain", "version", "opaque")

    def __init__(self, ref, root, chain, version, opaque):
        self.ref = ref
        self.root = root
        self.chain = chain        # tuple of _Link from the root, or None (not reached)
        self.version = version    # the write clock its value was derived at
        self.opaque = opaque      # why the chain cannot be replayed/inverted, or None


def _quiet(method):
    """Run a tracker method with the recorders idle: the shapes, numel and _base it
    reads are bookkeeping, not the model's (x.shape would record aten::size)."""
    def m(self, *args):
        self.rec.suppress += 1
        try:
            return method(self, *args)
        finally:
            self.rec.suppress -= 1
    m.__name__ = method.__name__
    m.__doc__ = method.__doc__
    return m


def _self_pos(resolved):
    for i, (n, k, _v) in enumerate(resolved):
        if k == E.ARG_TENSOR and n in ("self", "input"):
            return i
    return None


_WHOLE = object()   # before_write's mark: the view covers its base, element for element


def _covers(view, root):
    """Whether `view` holds every element of `root` in root's own row-major order."""
    return (view.dtype == root.dtype and view.numel() == root.numel()
            and view.storage_offset() == root.storage_offset()
            and view.is_contiguous() and root.is_contiguous())


def _same_memory(a, b):
    """Are `a` and `b` the same elements of the same storage (on the meta device too,
    where data pointers are all 0)?"""
    try:
        return a._storage()._cdata == b._storage()._cdata and a.storage_offset() == b.storage_offset() \
            and a.shape == b.shape and a.stride() == b.stride() and a.dtype == b.dtype
    except (RuntimeError, NotImplementedError):  # sparse and other storage-less layouts
        return False


class ViewTracker:
    """Views of traced tensors, their bases' last writes, and write-back (module doc).

    A view's base is known only once the op that made it has returned to Python
    (autograd sets `_base` above the dispatcher, where ops are recorded), so each
    recorded op only notes which value it was computed from; a tensor's chain is
    worked out when it is first written through or read after a write."""

    def __init__(self, rec):
        self.rec = rec
        self.views = {}      # id(view) -> _View, worked out
        self.made = {}       # id(tensor) -> (weakref, vid, clock): recorded, not yet worked out
        self.parent = {}     # vid -> (vid of the value it was computed from, _Link)
        self.owner = {}      # vid -> id(tensor) that held it
        self.writes = {}     # id(root) -> (weakref(root), clock of its last write)
        self.clock = 0       # counts writes
        self.static_roots = {}  # id(root) -> weakref: constants before a write by positions
        # id(base) -> (weakref(base), weakref(output)): a recorded op's output that is a
        # whole, untraced base in its own order (F.linear's 3-D output over its matmul)
        self.covered_bases = {}
        # id(tensor) -> the shared list of weakrefs to the tensors that are it under another
        # Python object (x.detach(), x.data, aten::alias): one memory, so a write to any of
        # them is a write to all (F.embedding's max_norm renorms weight.detach() in place)
        self.aliases = {}

    # ------------------------------------------------------------ bookkeeping

    def last_write(self, root):
        ent = self.writes.get(id(root))
        if ent is None or ent[0]() is not root:
            return 0
        return ent[1]

    def _wrote(self, root):
        self.clock += 1
        self.writes[id(root)] = (weakref.ref(root), self.clock)

    def _known(self, tensor):
        info = self.views.get(id(tensor))
        return info is not None and info.ref() is tensor

    def _info(self, tensor):
        info = self.views.get(id(tensor))
        if info is not None and info.ref() is tensor:
            return info
        m = self.made.get(id(tensor))
        if m is None or m[0]() is not tensor:
            return None
        del self.made[id(tensor)]
        base = tensor._base
        if base is None:
            return None
        chain = self._walk(m[1], base)
        opaque = None
        if chain is None:
            opaque = "an operator oxport did not record"
        elif any(link.kind not in _INVERTIBLE for link in chain):
            opaque = next(link.kind for link in chain if link.kind not in _INVERTIBLE)
        info = _View(weakref.ref(tensor), weakref.ref(base), chain, m[2], opaque)
        self.views[id(tensor)] = info
        return info

    def _walk(self, vid, base):
        """The links from `base` to the value `vid`, or None if it is not reached."""
        rec = self.rec
        chain = []
        for _ in range(10000):
            if vid == rec.lookup(base) or self.owner.get(vid) == id(base):
                return tuple(reversed(chain))
            p = self.parent.get(vid)
            if p is None:
                return None
            chain.append(p[1])
            vid = p[0]
        return None

    @_quiet
    def on_emit(self, kind, resolved, outs):
        rec = self.rec
        for o in outs:
            self.owner[rec.lookup(o)] = id(o)
        if len(outs) != 1:
            return
        o = outs[0]
        vid = rec.lookup(o)
        pos = _self_pos(resolved)
        if pos is not None:
            link = _Link(kind, list(resolved), pos, tuple(o.shape), o.dtype)  # a tensor's shape holds ints
            self.parent[vid] = (resolved[pos][2], link)
        if not self._known(o):
            self.made[id(o)] = (weakref.ref(o), vid, self.clock)
        base = o._base
        if base is not None and rec.lookup(base) is None and _covers(o, base):
            self.covered_bases[id(base)] = (weakref.ref(base), weakref.ref(o))

    def _cover_value(self, root):
        """The value of an untraced base that a recorded output covers, reshaped from
        that output's current value (rather than the base's bytes, a constant)."""
        ent = self.covered_bases.get(id(root))
        if ent is None or ent[0]() is not root or ent[1]() is None or self.rec.lookup(ent[1]()) is None:
            return None
        whole = ent[1]()
        return self._emit("aten::reshape", [("self", E.ARG_TENSOR, self.rec.vid(whole)),
                                            ("shape", E.ARG_INTS, [S.plain(v) for v in root.shape])],
                          tuple(root.shape), root.dtype)

    @_quiet
    def on_alias(self, src, dst):
        vid = self.rec.lookup(dst)
        self.owner.setdefault(vid, id(src))
        if not self._known(dst):
            self.made[id(dst)] = (weakref.ref(dst), vid, self.clock)
        # A view (x[:]) is written back through its _base; a copy (aten::clone, a
        # to() that copies) is not the same memory.  What is left is the same memory
        # under another object: the tensors are joined, so writes reach all of them.
        if dst is not src and dst._base is None and _same_memory(src, dst):
            group = self._alias_group(src)
            if group is None:
                group = [weakref.ref(src)]
                self.aliases[id(src)] = group
            group.append(weakref.ref(dst))
            self.aliases[id(dst)] = group

    def _alias_group(self, tensor):
        group = self.aliases.get(id(tensor))
        if group is None or not any(r() is tensor for r in group):
            return None
        return group

    def _aliases_of(self, tensor):
        """The live tensors that are `tensor`'s memory under another object."""
        group = self._alias_group(tensor)
        if group is None:
            return []
        group[:] = [r for r in group if r() is not None]
        return [t for t in (r() for r in group) if t is not tensor and _same_memory(t, tensor)]

    # ------------------------------------------------------------ emitting

    def _emit(self, kind, resolved, shape, dtype):
        rec = self.rec
        rec.suppress += 1
        try:
            meta = torch.empty(tuple(shape), dtype=dtype, device="meta")
        finally:
            rec.suppress -= 1
        rec.emit(kind, resolved, meta)
        return rec.lookup(meta)

    def _traced_shape_of(self, vid, shape):
        """[TracedInt, ...]: the run-time sizes of value `vid` (example sizes `shape`)."""
        rec = self.rec
        out = []
        for i, n in enumerate(shape):
            key = (vid, i)
            sv = rec.size_vids.get(key)
            if sv is None:
                sv = rec._emit_ints("aten::size", [("self", E.ARG_TENSOR, vid), ("dim", E.ARG_INT, i)])
                rec.size_vids[key] = sv
            out.append(S.TracedInt(n, rec, sv))
        return out

    def _replay(self, chain, vid):
        for link in chain:
            vid = self._emit(link.kind, link.on(vid), link.shape, link.dtype)
        return vid

    # ------------------------------------------------------------ reading

    @_quiet
    def refresh(self, tensor):
        """Re-derive a view whose base was written since its value was recorded."""
        if not self.writes:
            return
        info = self._info(tensor)
        if info is None:
            return
        root = info.root()
        if root is None or self.last_write(root) <= info.version:
            return
        rec = self.rec
        if info.chain is not None:
            # Replaying needs no inverse: any recorded view op can be re-emitted.
            vid = self._replay(info.chain, rec.vid(root))
        else:
            vid = self._gather_positions(root, tensor, info.opaque)
        rec.set_vid(tensor, vid)
        self.owner[vid] = id(tensor)
        info.version = self.clock

    # ------------------------------------------------------------ writing

    @_quiet
    def before_write(self, mutated):
        """Called before an in-place op runs on `mutated`; returns what after_write needs."""
        if mutated is None:
            return None
        # the tensors that are the same memory are written too: each gets the op's new
        # value, and the base of one that is a view gets it written back
        return (self._before_one(mutated), [(a, self._before_one(a)) for a in self._aliases_of(mutated)])

    @_quiet
    def after_write(self, token):
        if token is None:
            return
        own, aliases = token
        self._after_one(own)
        new = self.rec.lookup(own[0])
        for a, tok in aliases:
            if new is not None:
                self.rec.set_vid(a, new)
            self._after_one(tok)

    def _before_one(self, mutated):
        rec = self.rec
        old = rec.lookup(mutated)
        if old is not None:
            self.owner.setdefault(old, id(mutated))
        root = mutated._base
        if root is None:
            return (mutated, None, None, old)
        info = self._info(mutated)
        if info is None or info.root() is not root:
            info = _View(weakref.ref(mutated), weakref.ref(root), None, self.clock,
                         "an operator oxport did not record")
            self.views[id(mutated)] = info
        if info.opaque is None:
            return (mutated, root, info.chain, old)
        if rec.lookup(root) is None and _covers(mutated, root):
            # The view is its whole base in the same element order and the base is
            # untraced (nn.Linear's 3-D output over the matmul inside F.linear): the
            # base's new value is the view's, reshaped; its old value is not read.
            return (mutated, root, _WHOLE, old)
        # By positions: capture the root's value before the write changes its bytes.
        # An untraced root that a recorded output covers is that output's value; one
        # that was a constant has the example's shape in any case: no warning.
        if rec.lookup(root) is None and id(root) not in rec.param_names:
            covered = self._cover_value(root)
            if covered is not None:
                rec.set_vid(root, covered)
                self.owner[covered] = id(root)
            else:
                self.static_roots[id(root)] = weakref.ref(root)
        rec.vid(root)
        return (mutated, root, info.opaque, old)

    def _after_one(self, token):
        mutated, root, how, old = token
        rec = self.rec
        if root is None:
            self._wrote(mutated)
            return
        new = rec.lookup(mutated)
        if new is None:
            return
        if how is _WHOLE:
            base_vid = self._emit("aten::reshape", [("self", E.ARG_TENSOR, new),
                                                    ("shape", E.ARG_INTS, [S.plain(v) for v in root.shape])],
                                  tuple(root.shape), root.dtype)
        elif isinstance(how, tuple):
            base_vid = self._write_back(how, rec.vid(root), tuple(S.plain(v) for v in root.shape), new)
        else:
            base_vid = self._scatter_positions(root, mutated, new, how)
        rec.set_vid(root, base_vid)
        self.owner[base_vid] = id(root)
        self._wrote(root)
        self._info(mutated).version = self.clock
        # Views taken from the view later walk back through its old links.
        if old in self.parent:
            self.parent[new] = self.parent[old]

    def _write_back(self, chain, root_vid, root_shape, child):
        parents = [(root_vid, root_shape)]
        for link in chain[:-1]:
            parents.append((self._emit(link.kind, link.on(parents[-1][0]), link.shape, link.dtype), link.shape))
        if not chain:
            return child
        dtype = chain[0].dtype
        for link, (pvid, pshape) in zip(reversed(chain), reversed(parents)):
            child = self._inverse(link, pvid, pshape, child, dtype)
        return child

    def _inverse(self, link, parent, pshape, child, dtype):
        """The parent's value with `child` (the new value of link's view) written in."""
        k = link.kind
        rank = len(pshape)
        if k == "aten::slice":
            args = [("self", E.ARG_TENSOR, parent), ("src", E.ARG_TENSOR, child)]
            args += [(n, *link.arg(n, (E.ARG_NONE, 0))) for n in ("dim", "start", "end")]
            args.append(("step", *link.arg("step", (E.ARG_INT, 1))))
            return self._emit("aten::slice_scatter", args, pshape, dtype)
        if k == "aten::select":
            dim = link.arg("dim")[1] % rank
            kind, index = link.arg("index")
            src = self._emit("aten::unsqueeze", [("self", E.ARG_TENSOR, child), ("dim", E.ARG_INT, dim)],
                             pshape[:dim] + (1,) + pshape[dim + 1:], dtype)
            if kind == E.ARG_TENSOR:
                end = (E.ARG_TENSOR, self.rec._emit_ints("aten::add", [
                    ("self", E.ARG_TENSOR, index), ("other", E.ARG_INT, 1), ("alpha", E.ARG_INT, 1)]))
            else:
                end = (E.ARG_NONE, 0) if index == -1 else (E.ARG_INT, index + 1)
            return self._emit("aten::slice_scatter", [
                ("self", E.ARG_TENSOR, parent), ("src", E.ARG_TENSOR, src), ("dim", E.ARG_INT, dim),
                ("start", kind, index), ("end", *end), ("step", E.ARG_INT, 1)], pshape, dtype)
        if k == "aten::unsqueeze":
            return self._emit("aten::squeeze", [("self", E.ARG_TENSOR, child),
                                                ("dim", E.ARG_INT, link.arg("dim")[1])], pshape, dtype)
        if k in ("aten::transpose", "aten::t"):
            args = [("self", E.ARG_TENSOR, child)] + [a for a in link.resolved if a[0] in ("dim0", "dim1")]
            return self._emit(k, args, pshape, dtype)
        if k == "aten::permute":
            dims = [d % rank for d in link.arg("dims")[1]]
            inv = [dims.index(i) for i in range(rank)]
            return self._emit("aten::permute", [("self", E.ARG_TENSOR, child), ("dims", E.ARG_INTS, inv)],
                              pshape, dtype)
        # A reshape of the parent: reshape back to its (run-time) shape.
        shape = self.rec.int_list(self._traced_shape_of(parent, pshape)) if pshape else None
        args = [("self", E.ARG_TENSOR, child)]
        args.append(("shape", E.ARG_TENSOR, shape) if shape is not None else ("shape", E.ARG_INTS, []))
        return self._emit("aten::reshape", args, pshape, dtype)

    # ------------------------------------------------------------ by storage positions

    def _positions(self, root, view):
        """The flat (row-major) positions in `root` of each element of `view`."""
        rec = self.rec
        rec.suppress += 1
        try:
            with torch.no_grad():
                lin = torch.empty_strided(root.size(), root.stride(), dtype=torch.int64)
                lin.copy_(torch.arange(root.numel(), dtype=torch.int64).view(root.size()))
                pos = torch.as_strided(lin, view.size(), view.stride(),
                                       view.storage_offset() - root.storage_offset()).clone()
        finally:
            rec.suppress -= 1
        return pos

    def _warn_positions(self, root, what):
        ref = self.static_roots.get(id(root))
        if ref is not None and ref() is root:
            return
        S.warn_fixed(self.rec, f"a view made by {what} shares its base's storage; oxport follows the "
                               f"write or read through the view's storage positions, which are this "
                               f"input's shape")

    def _flat(self, vid, n, dtype):
        return self._emit("aten::reshape", [("self", E.ARG_TENSOR, vid), ("shape", E.ARG_INTS, [-1])],
                          (n,), dtype)

    def _scatter_positions(self, root, view, new, what):
        self._warn_positions(root, what)
        rec = self.rec
        pos = self._positions(root, view).reshape(-1)
        n = root.numel()
        flat = self._flat(rec.vid(root), n, root.dtype)
        src = self._flat(new, view.numel(), view.dtype)
        rec.keepalive.append(pos)
        put = self._emit("aten::index_put", [
            ("self", E.ARG_TENSOR, flat), ("indices", E.ARG_TENSOR_LIST, [rec.const(pos)]),
            ("values", E.ARG_TENSOR, src), ("accumulate", E.ARG_BOOL, 0)], (n,), root.dtype)
        return self._emit("aten::reshape", [("self", E.ARG_TENSOR, put),
                                            ("shape", E.ARG_INTS, [S.plain(v) for v in root.shape])],
                          tuple(root.shape), root.dtype)

    def _gather_positions(self, root, view, what):
        self._warn_positions(root, what)
        rec = self.rec
        pos = self._positions(root, view)
        rec.keepalive.append(pos)
        flat = self._flat(rec.vid(root), root.numel(), root.dtype)
        return self._emit("aten::index", [("self", E.ARG_TENSOR, flat),
                                          ("indices", E.ARG_TENSOR_LIST, [rec.const(pos)])],
                          tuple(view.shape), view.dtype)


# ---------------------------------------------------------------- keys with traced bounds

def _basic(k):
    return k is None or k is Ellipsis or isinstance(k, slice) or (isinstance(k, int) and not isinstance(k, bool))


def _traced_key(key):
    for k in key:
        if isinstance(k, S.TracedInt):
            return True
        if isinstance(k, slice) and S.any_traced((k.start, k.stop, k.step)):
            return True
    return False


def _split_key(x, key):
    """An advanced key as torch applies it: the basic part (ints, slices, None, the
    index tensors' dims taken whole) first, then aten::index/index_put on the result
    with the index tensors in their slots.  As torch 1.13 counts them, a mask of rank r
    takes one dim of the basic part and one slot (the indices list expands it to r
    index tensors from that slot), while an Ellipsis spans the dims left after all of
    a mask's r.  None when the key has a form this does not cover."""
    n_real = 0
    for k in key:
        if isinstance(k, torch.Tensor):
            if k.dtype in (torch.bool, torch.uint8):
                if k.dim() == 0:
                    return None  # a 0-d mask adds a dim: torch's own path records it
                n_real += k.dim()
                continue
            n_real += 1
        elif k is not None and k is not Ellipsis:
            if not _basic(k):
                return None
            n_real += 1
    if sum(1 for k in key if k is Ellipsis) > 1:
        return None
    basic, slots = [], []
    for k in key:
        if k is Ellipsis:
            fill = x.dim() - n_real
            basic.extend([slice(None)] * fill)
            slots.extend([None] * fill)
        elif isinstance(k, torch.Tensor):
            basic.append(slice(None))
            slots.append(k)
        elif k is None or isinstance(k, slice):
            basic.append(k)
            slots.append(None)
        else:
            basic.append(k)
    while slots and slots[-1] is None:
        slots.pop()
    return tuple(basic), slots


def _advanced_with_traced_bounds(rec, x, key):
    if all(_basic(k) for k in key) or not _traced_key(key):
        return None
    split = _split_key(x, key)
    if split is None:
        return None
    basic, slots = split
    view = _basic_getitem(rec, _BASE_GETITEM, (x, basic), {})
    if view is NotImplemented:
        return None
    return view, slots


def _getitem(rec, func, args, kwargs):
    """x[key]: basic keys as _lowering records them; a key mixing index tensors with
    traced slice bounds as its basic part (bounds traced) followed by aten::index."""
    res = _basic_getitem(rec, func, args, kwargs)
    if res is not NotImplemented:
        return res
    x, key = args
    key = key if isinstance(key, tuple) else (key,)
    split = _advanced_with_traced_bounds(rec, x, key)
    if split is None:
        return NotImplemented
    view, slots = split
    return rec.record("aten::index", [("self", view), ("indices", slots)],
                      torch.ops.aten.index.Tensor, (view, slots), {})


_basic_getitem = L._getitem


def _size_value(rec, n, x):
    """A size read in Python written into x (`x[..., i] = x.size(0)`): a 0-d tensor
    standing for its recorded rank-0 int64 value, cast to x's type as torch writes it."""
    v = S.plain(n)
    s = torch.tensor(v, device=x.device)
    rec.set_vid(s, n._ox_vid)
    if x.dtype == torch.int64:
        return s
    out = s.to(x.dtype)  # inside a handler: not recorded again
    rec.emit("aten::to", rec.resolve([("self", s), ("dtype", x.dtype)]), out)
    return out


def _number_into_meta(rec, x, key, value):
    """x[key] = number under trace='fake'.  On the CPU torch makes the number a 0-d CPU
    tensor of x's dtype and fills the view with it (aten::fill_); on the meta device it
    makes it a meta tensor, expands it and copies (aten::copy_ of a constant the size of
    the view), a recording of other ops and constants than the eager trace's.  Given the
    0-d CPU tensor itself, torch takes its CPU path on meta too, and the dispatcher-level
    recorder records what it records in eager."""
    rec.suppress += 1
    try:
        v = torch.tensor(value, dtype=x.dtype)
    finally:
        rec.suppress -= 1
    rec.inside -= 1  # the handler's own count: the setitem's ops are recorded as in eager
    try:
        _BASE_SETITEM(x, key, v)
    finally:
        rec.inside += 1


def _setitem(rec, func, args, kwargs):
    """x[key] = value with traced bounds in the key, or a size read in Python as the
    value: the view recorded with those bounds (as x[key] reads it), then copy_/fill_
    into it (a traced size filled as its rank-0 value), or index_put_ when the key also
    holds index tensors.  Other keys and values are left to the dispatcher, which
    records the same ops (select/slice + copy_/fill_, or index_put_)."""
    x, key, value = args
    key = key if isinstance(key, tuple) else (key,)
    sized = isinstance(value, S.TracedInt)
    if rec.fake and not sized and isinstance(value, (bool, int, float)) and isinstance(x, torch.Tensor) \
            and x.is_meta and not _traced_key(key):
        _number_into_meta(rec, x, key, value)
        return None
    if not _traced_key(key) and not sized:
        return NotImplemented
    if all(_basic(k) for k in key):
        view = _basic_getitem(rec, _BASE_GETITEM, (x, key), {})
        if view is NotImplemented:
            return NotImplemented
        if isinstance(value, torch.Tensor):
            rec.record("aten::copy_", [("self", view), ("src", value), ("non_blocking", False)],
                       T.copy_, (view, value), {}, mutated=view)
        else:
            rec.record("aten::fill_", [("self", view), ("value", L.Dyn(value) if sized else value)],
                       T.fill_, (view, S.plain(value)), {}, mutated=view)
        return None
    if _traced_key(key):
        split = _advanced_with_traced_bounds(rec, x, key)
    else:
        parts = _split_key(x, key)
        view = None if parts is None else _basic_getitem(rec, _BASE_GETITEM, (x, parts[0]), {})
        split = None if view is None or view is NotImplemented else (view, parts[1])
    if split is None:
        return NotImplemented
    view, slots = split
    if sized:
        value = _size_value(rec, value, view)
    elif not isinstance(value, torch.Tensor):
        rec.suppress += 1
        try:
            value = torch.tensor(S.plain(value), dtype=x.dtype)
        finally:
            rec.suppress -= 1
    rec.record("aten::index_put_", [("self", view), ("indices", slots), ("values", value),
                                    ("accumulate", False)],
               torch.ops.aten.index_put_.default, (view, slots, value), {}, mutated=view)
    return None


_BASE_GETITEM = torch._C._TensorBase.__getitem__
_BASE_SETITEM = torch._C._TensorBase.__setitem__


def _setitem_tuple_key(self, key, value):
    return _BASE_SETITEM(self, K.tuple_key(key), value)


class setitem_keys:
    """As _recorder.tuple_keys for reads: during the trace `x[key] = v` goes through a
    Python method, so the function-level recorder sees it (with its traced bounds)."""

    def __enter__(self):
        self.had = "__setitem__" in torch.Tensor.__dict__
        self.saved = torch.Tensor.__dict__.get("__setitem__")
        torch.Tensor.__setitem__ = _setitem_tuple_key

    def __exit__(self, *exc):
        if self.had:
            torch.Tensor.__setitem__ = self.saved
        else:
            del torch.Tensor.__setitem__


L.HANDLERS[_setitem_tuple_key] = _setitem
L.HANDLERS[T.__setitem__] = _setitem
L.HANDLERS[T.__getitem__] = _getitem  # _recorder maps its tuple-key method to this entry
