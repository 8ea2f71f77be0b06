"""Record a row's call as a trace file that a C host can replay (replay_trace.c).

The PyTorch host's recorder runs against a stand-in for liboxport's tracer API
(tests/pytorch/fake_engine.py) that writes every call down, in order, with the values a C
host would pass: dtypes, sizes, argument kinds and values, output types, and the bytes of
parameters and constants (to a side file).  replay_trace.c makes the same calls through
the public C API, so the table also tests the packs as a C host meets them, without the
Python host in between.

Format (one call per line, fields separated by one space; names are written as `=name`,
or `-` for none, with %XX for space, %, newline and any byte outside printable ASCII):

    oxtrace 1
    begin NAME
    input ID DTYPE RANK DIMS... NAME
    param ID DTYPE RANK DIMS... OFFSET NBYTES NAME
    const ID DTYPE RANK DIMS... OFFSET NBYTES
    op KIND N_ARGS N_OUTPUTS          followed by N_OUTPUTS `out` lines, then N_ARGS `arg` lines
    out ID DTYPE RANK DIMS...
    arg NAME KIND VALUE...            KIND: none, tensor ID, int V, bool V, float V, string S,
                                      dtype V, ints N V..., floats N V..., tensors N ID...
    push NAME / pop
    output ID NAME
    dim ID AXIS NAME                  a dynamic axis (ox_graph_set_dim_param)

IDs are the stand-in's value ids; the replay maps them to the engine's."""

import ctypes
import warnings

import torch

from fake_engine import FakeContext, FakeLib
from oxport import _engine as E
from oxport.torch import _recorder

ELEM_SIZE = {1: 4, 2: 1, 3: 1, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 16: 2}
ARG_KINDS = {E.ARG_NONE: "none", E.ARG_TENSOR: "tensor", E.ARG_TENSOR_LIST: "tensors", E.ARG_INT: "int",
             E.ARG_FLOAT: "float", E.ARG_BOOL: "bool", E.ARG_STRING: "string", E.ARG_INTS: "ints",
             E.ARG_FLOATS: "floats", E.ARG_DTYPE: "dtype"}


def name(text):
    if text is None:
        return "-"
    raw = text.encode() if isinstance(text, str) else bytes(text)
    return "=" + "".join(chr(b) if 0x21 <= b <= 0x7e and b != 0x25 else f"%{b:02X}" for b in raw)


class CaptureLib(FakeLib):
    """FakeLib that also writes every call down as a line of the trace format."""

    def __init__(self):
        super().__init__()
        self.lines = ["oxtrace 1"]
        self.blob = bytearray()

    def _sizes(self, rank, sizes):
        return [int(sizes[i]) for i in range(rank)]

    def _bytes(self, dt, dims, ptr):
        n = ELEM_SIZE[dt]
        for d in dims:
            n *= d
        off = len(self.blob)
        if n:
            self.blob += ctypes.string_at(ptr, n)
        return off, n

    def ox_trace_begin(self, h, model, out):
        st = super().ox_trace_begin(h, model, out)
        self.lines.append(f"begin {name(model)}")
        return st

    def ox_trace_input(self, t, nm, dt, rank, sizes, out):
        st = super().ox_trace_input(t, nm, dt, rank, sizes, out)
        dims = self._sizes(rank, sizes)
        self.lines.append(" ".join(["input", str(out._obj.value), str(dt), str(rank)] + [str(d) for d in dims]
                                   + [name(nm)]))
        return st

    def ox_trace_param(self, t, nm, dt, rank, sizes, ptr, own, out):
        st = super().ox_trace_param(t, nm, dt, rank, sizes, ptr, own, out)
        dims = self._sizes(rank, sizes)
        off, n = self._bytes(dt, dims, ptr)
        self.lines.append(" ".join(["param", str(out._obj.value), str(dt), str(rank)] + [str(d) for d in dims]
                                   + [str(off), str(n), name(nm)]))
        return st

    def ox_trace_const(self, t, dt, rank, sizes, ptr, own, out):
        st = super().ox_trace_const(t, dt, rank, sizes, ptr, own, out)
        dims = self._sizes(rank, sizes)
        off, n = self._bytes(dt, dims, ptr)
        self.lines.append(" ".join(["const", str(out._obj.value), str(dt), str(rank)] + [str(d) for d in dims]
                                   + [str(off), str(n)]))
        return st

    def ox_trace_op(self, t, kind, n, args, nout, descs, ids):
        st = super().ox_trace_op(t, kind, n, args, nout, descs, ids)
        self.lines.append(f"op {name(kind)} {n} {nout}")
        for i in range(nout):
            d = descs[i]
            dims = self._sizes(d.rank, d.sizes)
            self.lines.append(" ".join(["out", str(ids[i]), str(d.dtype), str(d.rank)] + [str(x) for x in dims]))
        node = self.nodes[-1]
        for (arg_name, k, v) in node.args:
            words = ["arg", name(arg_name), ARG_KINDS[k]]
            if k in (E.ARG_INTS, E.ARG_FLOATS, E.ARG_TENSOR_LIST):
                words += [str(len(v))] + [repr(float(x)) if k == E.ARG_FLOATS else str(int(x or 0)) for x in v]
            elif k == E.ARG_FLOAT:
                words.append(repr(float(v)))
            elif k == E.ARG_STRING:
                words.append(name(v))
            elif k != E.ARG_NONE:
                words.append(str(int(v)))
            self.lines.append(" ".join(words))
        return st

    def ox_trace_push_scope(self, t, seg):
        st = super().ox_trace_push_scope(t, seg)
        self.lines.append(f"push {name(seg)}")
        return st

    def ox_trace_pop_scope(self, t):
        st = super().ox_trace_pop_scope(t)
        self.lines.append("pop")
        return st

    def ox_trace_output(self, t, v, nm):
        st = super().ox_trace_output(t, v, nm)
        self.lines.append(f"output {v} {name(nm)}")
        return st


class CaptureContext(FakeContext):
    def __init__(self):
        super().__init__()
        self.L = CaptureLib()


def capture(model, args, opset, input_names, output_names, dynamic_axes, trace_path, blob_path):
    """Record model(*args) as the export at `opset` would, and write the trace file and the
    bytes file.  Returns the recorded kinds."""
    ctx = CaptureContext()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec, _g, _outs = _recorder.trace(ctx, model, args, {}, input_names, opset=opset,
                                         dynamic=bool(dynamic_axes))
    L = ctx.L
    # oxport.torch names the outputs through the export options; a C host names them when
    # it marks them, which is what the replay does.
    out_lines, k = [], 0
    for line in L.lines:
        if line.startswith("output "):
            vid = line.split()[1]
            out_lines.append(f"output {vid} {name(output_names[k]) if k < len(output_names) else '-'}")
            k += 1
        else:
            out_lines.append(line)
    in_vids = list(L.inputs)
    out_vids = list(L.outputs)
    for key, axes in (dynamic_axes or {}).items():
        if key.startswith("in"):
            vid = in_vids[int(key[2:])]
        else:
            vid = out_vids[int(key[3:])]
        # a list of axes gets the names oxport.torch.export gives them
        pairs = (axes.items() if isinstance(axes, dict)
                 else [(a, f"{key}_dynamic_axes_{i + 1}") for i, a in enumerate(axes)])
        for axis, dim_name in pairs:
            out_lines.append(f"dim {vid} {int(axis)} {name(dim_name)}")
    with open(trace_path, "w") as f:
        f.write("\n".join(out_lines) + "\n")
    with open(blob_path, "wb") as f:
        f.write(bytes(L.blob))
    return [n.kind for n in L.nodes]
