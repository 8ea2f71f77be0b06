"""The operator table's row format (docs/testing-operators.md describes it for users).

One Row is one operator variant: what to call, on which inputs, at which opsets, and what
must happen — the exported file matches eager PyTorch, or the export is refused with a
given message, or it fails for a known oxport bug (xfail, with the reason).  The runner
(run_table.py) turns every row into export + onnx.checker + ONNX Runtime runs; a row
never carries code of its own beyond the call it tests.
"""

import zlib

import torch

OPSETS = (9, 13, 17)


class T:
    """An input tensor: its shape, dtype and value range.

    Floats are drawn uniformly in [lo, hi); integers uniformly in [lo, hi] (inclusive, so
    an index input stays a valid index); bool inputs are fair coin flips.  distinct=True
    draws floats without repeats (a shuffled grid in [lo, hi)), for operators whose
    integer outputs are positions of extremes (argmax, topk, max_pool indices) and would
    be decided by ties otherwise."""

    def __init__(self, *shape, dtype=torch.float32, lo=None, hi=None, distinct=False):
        self.shape = tuple(shape)
        self.dtype = dtype
        floating = dtype.is_floating_point
        self.lo = lo if lo is not None else (-2.0 if floating else -5)
        self.hi = hi if hi is not None else (2.0 if floating else 5)
        self.distinct = distinct

    def make(self, gen, shape=None):
        shape = self.shape if shape is None else tuple(shape)
        if self.dtype == torch.bool:
            return torch.randint(0, 2, shape, generator=gen).bool()
        if self.dtype.is_floating_point:
            if self.distinct:
                n = 1
                for s in shape:
                    n *= s
                grid = torch.arange(n, dtype=torch.float64) / max(n, 1)
                vals = grid[torch.randperm(n, generator=gen)].reshape(shape)
            else:
                vals = torch.rand(shape, generator=gen, dtype=torch.float64)
            return (self.lo + vals * (self.hi - self.lo)).to(self.dtype)
        return torch.randint(int(self.lo), int(self.hi) + 1, shape, generator=gen, dtype=self.dtype)

    def __repr__(self):
        dt = str(self.dtype).replace("torch.", "")
        return f"{dt}{list(self.shape)}"


class Refuse:
    """The export must fail with an error message containing `match`: at every opset of
    the row, or (below=N) only at the opsets < N, where the row must pass from N on."""

    def __init__(self, match, below=None):
        if not match:
            raise ValueError("Refuse needs the message text to look for")
        self.match = match
        self.below = below

    def applies(self, opset):
        return self.below is None or opset < self.below


class Row:
    """One operator variant.

    id       unique name, "<operator>" or "<operator>.<variant>" (failures name it)
    op       the ATen operator the row covers, e.g. "aten::add"; the runner checks that
             the recording holds a node of this kind, so a row cannot silently test
             another operator
    fn       the call under test: fn(*inputs) -> tensor or tuple of tensors; Python
             scalars and keyword arguments live in the lambda (torch.add(x, y, alpha=2))
    module   instead of fn: a factory returning an nn.Module (for operators with weights);
             it is built under a seed derived from the id and put in eval mode
    inputs   T(...) specs, one per positional input
    opsets   the opsets to export at; an opset below `since` is left out
    since    the first opset the row is meant for (the symbolic's own start)
    dynamic  torch.onnx-style dynamic_axes over the names in0.. / out0..; the file is
             then also run at another shape, each named dimension grown by 2
    tol      "scale" (default; the model tests' rule in tests/py/modelcheck.py, integer
             and bool outputs exact) or "shape" for random operators, whose values cannot
             match eager: shape and dtype are compared, and floats checked to be finite;
             or "step" for dequantized outputs of quantized kernels: within one step of
             eager's quantization grid (the smallest gap between eager's distinct values),
             since a value on a rounding tie may go either way (tests/pytorch/test_quantized.py)
    constant input-independent outputs (indices into the outputs), exempt from the
             "reference must vary" rule: ones_like, size ...
    eager_only  why torch.onnx's file cannot excuse an error (its export of the call is
             wrong too): the outputs must be within the scale bound of eager, with no
             torch.onnx fallback
    refuse   Refuse(...): the export must be refused (at every opset or below one)
    xfail    a known oxport bug: "reason (#issue)" for every opset, or {opset: reason};
             a row marked xfail that passes fails the run (XPASS), so the mark goes away
             with the bug
    """

    def __init__(self, id, op, fn=None, inputs=(), module=None, opsets=OPSETS, since=None, dynamic=None,
                 tol="scale", constant=(), refuse=None, xfail=None, eager_only=None):
        if (fn is None) == (module is None):
            raise ValueError(f"row {id}: give exactly one of fn and module")
        if tol not in ("scale", "shape", "step"):
            raise ValueError(f"row {id}: tol must be 'scale', 'shape' or 'step', not {tol!r}")
        if not op.startswith(("aten::", "fn::", "torchvision::", "quantized::", "oxport::")):
            raise ValueError(f"row {id}: op {op!r} must be a recorded kind such as 'aten::add'")
        self.id = id
        self.op = op
        self.fn = fn
        self.module = module
        self.inputs = tuple(inputs)
        self.opsets = tuple(o for o in opsets if since is None or o >= since)
        if not self.opsets:
            raise ValueError(f"row {id}: no opset left of {opsets} at or after since={since}")
        self.dynamic = dynamic
        self.tol = tol
        self.constant = tuple(constant)
        self.refuse = refuse
        self.eager_only = eager_only
        self.xfail_everywhere = xfail if isinstance(xfail, str) else None
        if isinstance(xfail, str) or xfail is None:
            self.xfail = {o: xfail for o in self.opsets} if xfail else {}
        else:
            unknown = set(xfail) - set(self.opsets)
            if unknown:
                raise ValueError(f"row {id}: xfail names opsets {sorted(unknown)} the row does not run")
            self.xfail = dict(xfail)

    def run_also_at(self, opsets):
        """Add opsets in front (the runner's low opsets); an xfail given for every opset
        holds there too."""
        self.opsets = tuple(opsets) + tuple(o for o in self.opsets if o not in opsets)
        if self.xfail_everywhere:
            self.xfail.update({o: self.xfail_everywhere for o in opsets})

    def seed(self):
        """A seed fixed by the row's id: the same values on every run and machine."""
        return zlib.crc32(self.id.encode())

    def build(self):
        """The module under test, in eval mode, its weights drawn from the row's seed."""
        torch.manual_seed(self.seed())
        if self.module is not None:
            m = self.module()
            for sub in m.modules():
                if isinstance(sub, torch.nn.modules.batchnorm._NormBase) and sub.track_running_stats:
                    # statistics a trained network would have, not the default 0/1
                    sub.running_mean.uniform_(-0.5, 0.5)
                    sub.running_var.uniform_(0.5, 2.0)
            return m.eval()
        return Fn(self.fn)

    def input_sets(self):
        """[(label, inputs)]: the example, a second input of the same shapes with other
        values, and with dynamic axes an input of another shape."""
        sets = []
        for k, label in enumerate(("example", "second")):
            gen = torch.Generator().manual_seed(self.seed() + k)
            sets.append((label, tuple(t.make(gen) for t in self.inputs)))
        if self.dynamic:
            gen = torch.Generator().manual_seed(self.seed() + 2)
            grown = {}
            shapes = []
            for i, t in enumerate(self.inputs):
                axes = self.dynamic.get(f"in{i}", {})
                if not isinstance(axes, dict):
                    axes = {a: f"in{i}_{a}" for a in axes}
                shape = list(t.shape)
                for a, name in axes.items():
                    grown.setdefault(name, shape[a] + 2)
                    shape[a] = grown[name]
                shapes.append(shape)
            sets.append(("other shape", tuple(t.make(gen, s) for t, s in zip(self.inputs, shapes))))
        return sets

    def expect(self, opset):
        """'refuse', 'xfail' or 'pass' at this opset."""
        if self.refuse is not None and self.refuse.applies(opset):
            return "refuse"
        return "xfail" if self.xfail.get(opset) else "pass"


class Fn(torch.nn.Module):
    """A row's call as a module (the exporters take modules)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)
