#!/usr/bin/python3
"""How oxport's model and operator tests decide that an exported file computes what the
model computes — on any input it accepts, on any machine.

The rule (tests/pytorch/test_models.py, test_zoo_extra.py use it):

1. Inputs.  The file is run on the example input it was traced with AND on a second input
   of the same shapes with other values (drawn with another seed; integer token inputs get
   other valid tokens, RNN hidden states other states).  A file that holds the example's
   values as constants fails on the second one.  A test that declares dynamic axes also
   runs at >= 3 other shapes, including size 1 and a size larger than the traced one.
   All input sets of one file go to ONNX Runtime in one runner call (onnxval.run_ort_many).

2. Non-trivial references (assert_nontrivial).  Every float output with more than one
   element must vary: std(ref) > NONTRIVIAL * max|ref|; and every output must differ
   between the two inputs: max|ref_0 - ref_1| > NONTRIVIAL * max|ref_0| (integer outputs:
   some element differs).  An output that is input-independent by construction (say
   `(x == x).float()`) is named by the test case and skipped.  So a random-init model whose
   activations collapse (default BatchNorm statistics, a zero-initialised head) cannot pass
   by comparing zeros with zeros, and a file that exports as a constant fails.

3. Tolerance (assert_matches).  Float outputs, element-wise:
       |oxport - eager| <= SCALE_ATOL * max|eager| + RTOL * |eager|
   i.e. an absolute bound proportional to the output's own scale (SCALE_ATOL = 1e-4 is
   ~840 float32 epsilons of the largest element, room for the re-association of long
   float32 sums that ONNX Runtime's kernels and PyTorch's do in different orders), never
   a number tuned on one CPU.  When an output is outside that bound, the same model is
   exported with torch.onnx.export at the same opset, run in ONNX Runtime on the same
   inputs, and oxport passes if its largest error is at most TORCH_ONNX_FACTOR (2) times
   torch.onnx's largest error on that output: the difference is then ONNX Runtime's float
   arithmetic on this machine, not oxport's graph.  When torch.onnx.export cannot export
   the model (an opset or operator it does not support), the scale bound alone decides.
   A shape or dtype other than eager's, or a non-finite error, is never excused (rescued).
   Integer and bool outputs must be equal (or differ in no more elements than torch.onnx's
   file does, for near-ties in argmax/topk).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import onnxval  # noqa: E402

RTOL = 1e-3
SCALE_ATOL = 1e-4
TORCH_ONNX_FACTOR = 2.0
NONTRIVIAL = 1e-3


class Mismatch(AssertionError):
    """An exported file computes something else than the model (rule 3) or the reference
    is too trivial to tell (rule 2)."""


def _is_float(a):
    return np.issubdtype(np.asarray(a).dtype, np.floating)


def assert_nontrivial(label, want_sets, constant_outputs=()):
    """Rule 2 on the eager references of the first two input sets (want_sets[k][i] is output i
    on input set k)."""
    first, second = want_sets[0], want_sets[1]
    problems = []
    for i, (w0, w1) in enumerate(zip(first, second)):
        if i in constant_outputs:
            continue
        w0, w1 = np.asarray(w0), np.asarray(w1)
        if _is_float(w0):
            a0 = w0.astype(np.float64)
            scale = float(np.abs(a0).max()) if a0.size else 0.0
            if not np.isfinite(scale):
                problems.append(f"output {i}: the reference holds inf/nan")
                continue
            if a0.size > 1 and not float(a0.std()) > NONTRIVIAL * scale:
                problems.append(f"output {i}: reference is near-constant (std {a0.std():.3g}, max|ref| "
                                f"{scale:.3g})")
            if w1.shape == w0.shape:
                d = float(np.abs(a0 - w1.astype(np.float64)).max()) if a0.size else 0.0
                if not d > NONTRIVIAL * scale:
                    problems.append(f"output {i}: the two inputs give the same reference (max diff {d:.3g}, "
                                    f"max|ref| {scale:.3g})")
        elif w1.shape == w0.shape and np.array_equal(w0, w1):
            problems.append(f"output {i}: the two inputs give the same integer reference")
    if problems:
        raise Mismatch(f"{label}: the comparison would prove nothing:\n  " + "\n  ".join(problems))


def output_error(got, want):
    """Rule 3's scale bound on one output: (max abs error, or the count of differing
    elements for integer and bool outputs; within the bound?; a text saying by how much)."""
    return _error(got, want)


def _error(got, want):
    """(max abs error or count of differing elements, within the scale rule?, bound text)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return float("inf"), False, f"shape {list(got.shape)} but eager gives {list(want.shape)}"
    if got.dtype != want.dtype:
        return float("inf"), False, f"dtype {got.dtype} but eager gives {want.dtype}"
    if not _is_float(want):
        bad = int(np.count_nonzero(got != want))
        return bad, bad == 0, f"{bad} of {got.size} elements differ"
    g, w = np.atleast_1d(got.astype(np.float64)), np.atleast_1d(want.astype(np.float64))
    if not g.size:
        return 0.0, True, "empty"
    diff = np.abs(g - w)
    diff[np.isnan(g) & np.isnan(w)] = 0.0
    diff[np.isnan(diff)] = np.inf
    scale = float(np.abs(w[np.isfinite(w)]).max()) if np.isfinite(w).any() else 0.0
    atol = SCALE_ATOL * scale
    ok = bool(np.all(diff <= atol + RTOL * np.abs(w)))
    return float(diff.max()), ok, f"max abs diff {diff.max():.3g}, bound {atol:.3g} + {RTOL:g}*|ref| " \
                                  f"(max|ref| {scale:.3g})"


def assert_matches(label, path, feed_sets, want_sets, reference=None):
    """Run `path` on every feed set (one runner call) and apply rule 3 to each output.

    feed_sets: [{input name: ndarray}, ...]; want_sets[k]: eager outputs on feed set k.
    reference: None, or a callable taking a file path
    that writes torch.onnx.export's file for the same model there (it may raise when
    torch.onnx cannot export it); called only when an output is outside the scale bound."""
    got_sets = onnxval.run_ort_many(path, feed_sets)
    outside = []   # (set k, output i, oxport's error, text)
    for k, (got, want) in enumerate(zip(got_sets, want_sets)):
        if len(got) != len(want):
            raise Mismatch(f"{label} input set {k}: the file has {len(got)} outputs, the model returns {len(want)}")
        for i, (g, w) in enumerate(zip(got, want)):
            err, ok, text = _error(g, w)
            print(f"{label} input set {k} output {i}: {text}{'' if ok else ' OUTSIDE'}")
            if not ok:
                outside.append((k, i, err, text))
    if not outside:
        return
    why = _against_torch_onnx(label, path, feed_sets, want_sets, reference, outside)
    if why:
        raise Mismatch(why)


def torch_onnx_allowance(ref_err, floating):
    """The error torch.onnx's file, off by `ref_err` on the same output, allows oxport's."""
    return TORCH_ONNX_FACTOR * ref_err if floating else ref_err


def rescued(err, allowed):
    """Does torch.onnx's error excuse oxport's?  An infinite error -- another shape or dtype
    than eager's, or a non-finite value where eager's is finite -- never is: torch.onnx's
    file being as wrong (inf <= 2 * inf) says nothing about oxport's.  Nor does an infinite
    allowance excuse a finite error: a torch.onnx file of another shape is no reference."""
    return err != float("inf") and allowed != float("inf") and err <= allowed


def _against_torch_onnx(label, path, feed_sets, want_sets, reference, outside):
    """Message for the outputs still failing after the torch.onnx comparison, or None."""
    head = f"{label}: " + "; ".join(f"input set {k} output {i}: {text}" for k, i, _, text in outside)
    if reference is None:
        return head
    ref_path = os.path.splitext(path)[0] + ".torch_onnx.onnx"
    try:
        reference(ref_path)
        ref_sets = onnxval.run_ort_many(ref_path, feed_sets)
    except Exception as e:  # torch.onnx raises many types for what it cannot export
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return f"{head} (torch.onnx.export gives no reference: {type(e).__name__}: {first})"
    finally:
        if os.path.exists(ref_path):
            os.unlink(ref_path)
    still = []
    for k, i, err, text in outside:
        if i >= len(ref_sets[k]):
            still.append(f"input set {k} output {i}: {text}; torch.onnx's file has no output {i}")
            continue
        ref_err, _, _ = _error(ref_sets[k][i], want_sets[k][i])
        allowed = torch_onnx_allowance(ref_err, _is_float(want_sets[k][i]))
        print(f"{label} input set {k} output {i}: torch.onnx's file is off by {ref_err:.3g}; oxport's by "
              f"{err:.3g}, allowed {allowed:.3g}")
        if not rescued(err, allowed):
            still.append(f"input set {k} output {i}: {text}; torch.onnx.export's file is off by "
                         f"{ref_err:.3g} (oxport's allowed {allowed:.3g})")
    return f"{label}: " + "; ".join(still) if still else None


def graph_input_names(path):
    """The names of the inputs of `path` that are not initializers, in order."""
    import onnx

    model = onnx.load(path, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def other_values(args, seed=1):
    """A second input of the same shapes as the tensors in `args` (nested tuples/lists kept):
    float tensors drawn from randn with `seed`, scaled to the example's spread; integer tensors
    drawn in [min, max] of the example (so tokens stay valid ids); bool tensors redrawn."""
    import torch

    g = torch.Generator().manual_seed(seed)

    def draw(t):
        if isinstance(t, (tuple, list)):
            return type(t)(draw(x) for x in t)
        if not isinstance(t, torch.Tensor):
            return t
        if t.dtype.is_floating_point:
            spread = float(t.std()) if t.numel() > 1 else 1.0
            return (torch.randn(t.shape, generator=g) * (spread or 1.0) + float(t.mean())).to(t.dtype)
        if t.dtype == torch.bool:
            return torch.randint(0, 2, t.shape, generator=g).bool()
        lo, hi = (int(t.min()), int(t.max())) if t.numel() else (0, 0)
        return torch.randint(lo, hi + 1, t.shape, generator=g, dtype=t.dtype)
    return draw(args)


def torch_onnx_reference(model, args, opset, input_names, output_names=None, dynamic_axes=None):
    """A `reference` for assert_matches: torch.onnx.export of the same model and example."""
    def export(path):
        import torch

        # torch.onnx 1.13 stops at opset 17: above it its newest file is the reference
        torch.onnx.export(model, args, path, opset_version=min(opset, 17), input_names=input_names,
                          output_names=output_names, dynamic_axes=dynamic_axes)
    return export
