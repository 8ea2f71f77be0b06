#!/usr/bin/python3
"""Run the operator table (aten_ops.py): every row at every one of its opsets.

    /usr/bin/python3 tests/ops/run_table.py [--row GLOB]... [--opset N]... [--route torch|c]...
                                            [--jobs N] [--keep DIR] [--no-ort]

Per row and opset: build the row's module, compute eager PyTorch on the example input and
on a second input of the same shapes (and on another shape when the row declares dynamic
axes), and export it by two routes, each a "case": oxport.torch.export, and the C host
route -- the PyTorch host's recorded calls written down (capture.py) and made again
through the public C tracer API by replay_trace (one process per chunk of rows).  Each
file is checked with onnx.checker (full_check) and run in ONNX Runtime on every input set.
ONNX Runtime runs are batched: each chunk's files go to one node process
(tests/ops/ort_batch.js) that runs while the next chunk is exported, at most `--jobs` at
once, not one process per file.  Outputs are compared by the model tests' rule
(tests/py/modelcheck.py): the bound is the output's own scale, and an output outside it
passes only when torch.onnx's file for the same call is off by at least half as much.
References must not be near-constant.  Rows marked `refuse` must be refused with their message; rows marked
`xfail` must fail (a passing xfail row is an error: drop the mark).

The table must cover every ATen operator the loaded packs declare (`oxport ops`): an
operator without a row fails the run.  The last lines are the summary; exit status 0 when
every case ended as its row says, 1 otherwise, 2 usage error.
"""

import argparse
import collections
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))
sys.path.insert(0, os.path.join(SRC, "tests", "pytorch"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import aten_ops  # noqa: E402
import capture  # noqa: E402
import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402
from fake_engine import FakeContext  # noqa: E402
from oxport.torch import _recorder  # noqa: E402

BATCH_JS = os.path.join(HERE, "ort_batch.js")
ROUTES = ("torch", "c")


def flat(out):
    """The tensors of a forward's result, in order (tuples and lists flattened)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat(o)]
    raise TypeError(f"the call returned {type(out).__name__}, not tensors")


def first_line(text):
    """An error message on one line: the engine's reports span several ("Couldn't export
    operator(s): 1 problem(s) at opset 9:" then the problem), so the lines are joined."""
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    short = " | ".join(lines)
    return short if len(short) <= 400 else short[:397] + "..."


class Case:
    """One row at one opset, and what became of it."""

    def __init__(self, row, opset, route):
        self.row = row
        self.opset = opset
        self.route = route       # "torch" (oxport.torch.export) or "c" (replayed as a C host records)
        self.replay = None       # the C route's (trace file, bytes file)
        self.expect = row.expect(opset)
        self.problem = None      # why the case did not pass, or None
        self.note = ""           # what a passing case showed (a refusal's message ...)
        self.path = None
        self.runs = []           # [(label, in_dir, wants, out_dir)]
        self.outside = []        # [(label, output index, oxport's error, text)]
        self.example = None      # the example input (torch.onnx.export traces it for the fallback)
        self.unjudged = False    # exported and checked, but not run (--no-ort)

    @property
    def label(self):
        return f"{self.row.id} @ opset {self.opset}" + (" [C host]" if self.route == "c" else "")

    def fail(self, why):
        if self.problem is None:
            self.problem = why

    def outcome(self):
        if self.expect == "xfail":
            # without ONNX Runtime runs (--no-ort) a bug that shows only there cannot pass
            return "xpass" if self.problem is None and not self.unjudged else "xfail"
        if self.problem is not None:
            return "fail"
        return "refused" if self.expect == "refuse" else "pass"


def recorded_kinds(row, model, args, opset):
    """The operator kinds the PyTorch host records for the row's call at `opset` (the
    row's lowest: a call such as torch.einsum is recorded as one node only from the opset
    its ONNX op exists), on a stand-in for the engine: no conversion happens here."""
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctx = FakeContext()
        _recorder.trace(ctx, model, args, {}, dynamic=bool(row.dynamic), opset=opset)
    # an in-place call (x.fill_) is recorded as aten::fill_ and converted as aten::fill
    return [n.kind[:-1] if n.kind.endswith("_") and not n.kind.endswith("__") else n.kind for n in ctx.L.nodes]


def eager(model, args):
    with torch.no_grad():
        return [t.detach().clone() for t in flat(model(*args))]


def write_feeds(in_dir, feeds):
    os.makedirs(in_dir)
    spec = []
    for i, (name, arr) in enumerate(feeds.items()):
        # not np.ascontiguousarray: it makes a 0-dim array 1-dim, and ONNX Runtime
        # then runs a scalar input as shape [1] (and returns [1] outputs)
        arr = np.asarray(arr, order="C")
        fname = f"input_{i}.bin"
        arr.astype(arr.dtype.newbyteorder("<"), copy=False).tofile(os.path.join(in_dir, fname))
        spec.append({"name": name, "dtype": onnxval._NP_TO_ORT[arr.dtype], "dims": list(arr.shape),
                     "file": fname})
    with open(os.path.join(in_dir, "inputs.json"), "w") as f:
        json.dump(spec, f)


class Batch:
    """One ort_batch.js process, started at once and running in the background, over
    [(model path, [(in_dir, out_dir)])]."""

    def __init__(self, jobs, tmp, tag):
        self.n = len(jobs)
        jobs_path = os.path.join(tmp, f"{tag}-jobs.json")
        self.res_path = os.path.join(tmp, f"{tag}-results.json")
        with open(jobs_path, "w") as f:
            json.dump([{"model": m, "runs": runs} for m, runs in jobs], f)
        self.proc = subprocess.Popen(["node", BATCH_JS, jobs_path, self.res_path], stderr=subprocess.PIPE, text=True)

    def running(self):
        return self.proc.poll() is None

    def errors(self):
        """Wait for the process; one error text (or None) per job."""
        _, err = self.proc.communicate()
        if self.proc.returncode != 0:
            raise RuntimeError(f"ort_batch.js failed (exit {self.proc.returncode}): {err.strip()}")
        with open(self.res_path) as f:
            results = json.load(f)
        if len(results) != self.n:
            raise RuntimeError(f"ort_batch.js returned {len(results)} results for {self.n} files")
        return [None if r["ok"] else r["error"] for r in results]


def run_batches(jobs, n_procs, tmp, tag):
    """Run [(model path, [(in_dir, out_dir)])] in ONNX Runtime, split over n_procs node
    processes running at once; returns one error text (or None) per job."""
    if not jobs:
        return []
    n_procs = max(1, min(n_procs, len(jobs)))
    chunks = [list(range(k, len(jobs), n_procs)) for k in range(n_procs)]
    batches = [Batch([jobs[i] for i in idx], tmp, f"{tag}-{k}") for k, idx in enumerate(chunks)]
    errors = [None] * len(jobs)
    for idx, b in zip(chunks, batches):
        for i, e in zip(idx, b.errors()):
            errors[i] = e
    return errors


def ort_jobs(cases):
    return [(c.path, [(in_dir, out) for _l, in_dir, _w, out in c.runs]) for c in cases]


def read_outputs(out_dir):
    return onnxval._read_outputs(out_dir)


def prepare_row(row, opsets, routes, tmp):
    """Eager references and the recorded kinds for one row; per opset one Case for each
    route.  The oxport.torch case is exported and checked here; the C host case gets its
    trace file (replay_trace exports all of them at once later).  Each case's ONNX Runtime
    runs are laid out, not yet run."""
    chosen = [o for o in row.opsets if not opsets or o in opsets]
    # asked for an opset above the table's newest (18-21 by hand): every row that runs
    # at the newest runs there too
    chosen += [o for o in opsets or () if o > aten_ops.NEWEST_ROW_OPSET and o not in row.opsets
               and aten_ops.NEWEST_ROW_OPSET in row.opsets]
    cases = [Case(row, o, route) for o in chosen for route in routes]
    if not cases:
        return []
    try:
        model = row.build()
        sets = row.input_sets()
        wants = [eager(model, args) for _label, args in sets]
        kinds = recorded_kinds(row, model, sets[0][1], min(chosen))
    except Exception as e:  # a row that cannot even run eagerly is a broken row
        for c in cases:
            c.fail(f"the row does not run in eager PyTorch: {type(e).__name__}: {first_line(e)}")
        return cases
    # a row added at a low opset for its operator runs there only when every operator it
    # records is declared there too (x.nonzero(as_tuple=True) records nonzero, from 9, and unbind)
    low = [c for c in cases if c.opset in LOW_DECLARED and not set(kinds) <= LOW_DECLARED[c.opset]]
    cases = [c for c in cases if c not in low]
    if not cases:
        return []
    if row.op not in kinds:
        for c in cases:
            c.fail(f"the recording holds no {row.op} node (it records {', '.join(dict.fromkeys(kinds)) or 'nothing'})")
        return cases
    trivial = None
    if row.tol in ("scale", "step"):
        try:
            modelcheck.assert_nontrivial(row.id, [[w.numpy() for w in ws] for ws in wants], row.constant)
        except modelcheck.Mismatch as e:
            trivial = str(e)
    in_names = [f"in{i}" for i in range(len(row.inputs))]
    out_names = [f"out{i}" for i in range(len(wants[0]))]
    in_dirs = {}

    def lay_out(c):
        if trivial is not None:
            c.fail(trivial)
            return
        stem = os.path.join(tmp, f"{row.id}-{c.opset}-{c.route}".replace("/", "_"))
        c.path = stem + ".onnx"
        c.example = sets[0][1]
        c.runs = []
        for k, (label, args) in enumerate(sets):
            key = (c.opset, k)
            if key not in in_dirs:  # both routes read the same input files
                # named by the input set, so a run error names it
                in_dirs[key] = os.path.join(tmp, f"{row.id}-{c.opset}.{label.replace(' ', '-')}.in".replace("/", "_"))
                write_feeds(in_dirs[key], {n: a.numpy() for n, a in zip(in_names, args)})
            c.runs.append((label, in_dirs[key], wants[k], f"{stem}.{k}.out"))
        if c.route == "c":
            try:
                capture.capture(model, sets[0][1], c.opset, in_names, out_names, row.dynamic,
                                stem + ".trace", stem + ".bytes")
                c.replay = (stem + ".trace", stem + ".bytes")
            except Exception as e:
                c.fail(f"recording for the C host failed: {type(e).__name__}: {first_line(e)}")
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                oxt.export(model, sets[0][1], c.path, opset_version=c.opset, input_names=in_names,
                           output_names=out_names, dynamic_axes=row.dynamic)
        except oxt.ExportError as e:
            exported(c, str(e))
            return
        except Exception as e:
            c.fail(f"export raised {type(e).__name__}: {first_line(e)}")
            return
        exported(c, None)

    for c in cases:
        lay_out(c)
    if not opsets:
        for o in high_opsets_to_add(row, cases, model, sets[0][1], in_names, out_names, tmp):
            for route in routes:
                c = Case(row, o, route)
                cases.append(c)
                lay_out(c)
    return cases


def graph_signature(path):
    """What a file's lowering is: per node its operator, input count and attributes (with
    their values: GridSample's modes are renamed at 20)."""
    import onnx

    model = onnx.load(path, load_external_data=False)
    return [(n.op_type, len(n.input), tuple(sorted(a.SerializeToString() for a in n.attribute)))
            for n in model.graph.node]


def high_opsets_to_add(row, cases, model, example, in_names, out_names, tmp):
    """HIGH_OPSETS a row also runs at, in full (both routes, ONNX Runtime): a row that
    passes at the newest row opset (17) is exported at the newest high opset (21) by
    oxport.torch, whose export runs `oxport check` against that opset's schemas; when the
    export fails or its lowering differs from opset 17's (another operator, input count or
    attribute: Reduce* axes as an input and Split's num_outputs at 18, Gelu and GridSample's
    mode names at 20, GroupNormalization at 21 ...) the row runs at every high opset (18
    and 21).  Rows whose lowering is the same at 21 are exported and schema-checked there
    but not run again.  One probe per row, at 21: what changes at 18 stays changed at 21."""
    base = next((c for c in cases if c.opset == aten_ops.NEWEST_ROW_OPSET and c.route == "torch"), None)
    if base is None or base.problem is not None or base.expect != "pass" or not base.path:
        return []
    probe_opset = aten_ops.HIGH_OPSETS[-1]
    probe = os.path.join(tmp, f"{row.id}-{probe_opset}-probe.onnx".replace("/", "_"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            oxt.export(model, example, probe, opset_version=probe_opset, input_names=in_names,
                       output_names=out_names, dynamic_axes=row.dynamic)
        changed = graph_signature(probe) != graph_signature(base.path)
    except Exception:  # the full cases report it
        changed = True
    PROBED[probe_opset] = PROBED.get(probe_opset, 0) + 1
    return [o for o in aten_ops.HIGH_OPSETS if o not in row.opsets] if changed else []


# {high opset: rows probed there}, for the summary
PROBED = {}


def exported(c, refusal):
    """Settle an export's result: `refusal` is the engine's message, or None when the file
    was written (it then goes through onnx.checker)."""
    row = c.row
    if refusal is not None:
        c.runs = []
        if c.expect == "refuse":
            if row.refuse.match in refusal:
                c.note = first_line(refusal)
            else:
                c.fail(f"refused, but the message does not contain {row.refuse.match!r}: {first_line(refusal)}")
        else:
            c.fail(f"export refused: {first_line(refusal)}")
        return
    if c.expect == "refuse":
        c.runs = []
        c.fail(f"exported, but a refusal containing {row.refuse.match!r} was expected")
        return
    try:
        onnxval.check(c.path)
    except onnxval.ValidationError as e:
        c.runs = []
        c.fail(first_line(e).replace(c.path + ": ", ""))


def replay_all(cases, tmp, tag="replay"):
    """The C host route: one replay_trace process replays and exports every trace given."""
    todo = [c for c in cases if c.route == "c" and c.problem is None and c.replay]
    if not todo:
        return
    exe = os.environ.get("OXPORT_REPLAY_TRACE") or os.path.join(
        os.environ.get("OXPORT_BUILDDIR", os.path.join(SRC, "build")), "tests", "ops", "replay_trace")
    cmd = [exe]
    for d in filter(None, os.environ.get("OXPORT_BUILTIN_PLUGIN_PATH", "").split(":")):
        cmd += ["--plugin-path", d]
    jobs, results = os.path.join(tmp, f"{tag}-jobs.txt"), os.path.join(tmp, f"{tag}-results.txt")
    with open(jobs, "w") as f:
        for c in todo:
            f.write(f"{c.replay[0]} {c.replay[1]} {c.opset} {c.path}\n")
    proc = subprocess.run(cmd + [jobs, results], stderr=subprocess.PIPE, text=True)
    lines = []
    if os.path.exists(results):
        with open(results) as f:
            lines = f.read().splitlines()
    if proc.returncode != 0:
        # replay_trace writes each result as it goes: the first job without one crashed it
        where = f" while replaying {todo[len(lines)].label}" if len(lines) < len(todo) else ""
        raise RuntimeError(f"{exe} failed (exit {proc.returncode}){where}: {proc.stderr.strip()}")
    if len(lines) != len(todo):
        raise RuntimeError(f"{exe} wrote {len(lines)} results for {len(todo)} traces")
    for c, line in zip(todo, lines):
        tag, _, msg = line.partition(" ")
        if tag == "ok":
            exported(c, None)
        elif tag == "refused":
            exported(c, msg.replace(" | ", "\n"))
        else:
            c.runs = []
            c.fail(f"the recorded trace is malformed (a capture.py bug): {msg}")


def compare(case):
    """Apply the row's tolerance to ONNX Runtime's outputs of every input set."""
    row = case.row
    for label, _feeds, wants, out_dir in case.runs:
        got = read_outputs(out_dir)
        if len(got) != len(wants):
            case.fail(f"input '{label}': the file has {len(got)} outputs, eager returns {len(wants)}")
            return
        for i, (g, w) in enumerate(zip(got, wants)):
            w = w.numpy()
            if row.tol == "shape":
                if g.shape != w.shape or g.dtype != w.dtype:
                    case.fail(f"input '{label}' output {i}: {g.dtype}{list(g.shape)}, eager gives "
                              f"{w.dtype}{list(w.shape)}")
                elif np.issubdtype(g.dtype, np.floating) and not np.isfinite(g).all():
                    case.fail(f"input '{label}' output {i}: not finite")
                continue
            if row.tol == "step":
                fail = _off_grid(g, w)
                if fail:
                    case.fail(f"input '{label}' output {i}: {fail}")
                continue
            err, ok, text = modelcheck.output_error(g, w)
            if not ok:
                case.outside.append((label, i, err, text))


def _off_grid(got, want):
    """tol="step": why `got` is not within one quantization step of `want`, or None."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{list(got.shape)}, eager gives {want.dtype}{list(want.shape)}"
    levels = np.unique(want.astype(np.float64))
    if levels.size < 2:
        return "eager's output has one value: no quantization step to compare by"
    step = float(np.diff(levels).min())
    err = float(np.abs(got.astype(np.float64) - want).max())
    if not err <= step * (1 + 1e-4):
        return f"max abs diff {err:.3g} is {err / step:.2f} quantization steps (step {step:.3g})"
    return None


# the newest opset torch.onnx exports (1.13: 17)
TORCH_ONNX_MAX_OPSET = 17


def torch_onnx_fallback(cases, tmp, n_procs):
    """Rule 3's second chance for float outputs outside the scale bound: torch.onnx's file
    for the same call, run on the same inputs, sets the allowed error (TORCH_ONNX_FACTOR
    times its own)."""
    todo = [c for c in cases if c.outside and c.problem is None]
    jobs = []
    for c in todo:
        if c.row.eager_only:
            c.fail("; ".join(f"input '{l}' output {i}: {t}" for l, i, _e, t in c.outside)
                   + f" (no torch.onnx fallback for this row: {c.row.eager_only})")
            continue
        if any(not np.issubdtype(c.runs[0][2][i].numpy().dtype, np.floating) for _l, i, _e, _t in c.outside):
            c.fail("; ".join(f"input '{l}' output {i}: {t}" for l, i, _e, t in c.outside))
            continue
        ref = c.path[:-5] + ".torch_onnx.onnx"
        model = c.row.build()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # torch.onnx 1.13 stops at opset 17: above it its newest file is the reference
                torch.onnx.export(model, c.example, ref, opset_version=min(c.opset, TORCH_ONNX_MAX_OPSET),
                                  input_names=[f"in{i}" for i in range(len(c.example))], dynamic_axes=c.row.dynamic)
        except Exception as e:  # torch.onnx raises many types for what it cannot export
            c.fail("; ".join(f"input '{l}' output {i}: {t}" for l, i, _e, t in c.outside)
                   + f" (torch.onnx.export gives no reference: {type(e).__name__}: {first_line(e)})")
            continue
        runs = [(in_dir, out + ".ref") for _l, in_dir, _w, out in c.runs]
        jobs.append((c, ref, runs))
    errors = run_batches([(ref, runs) for _c, ref, runs in jobs], n_procs, tmp, "torch-onnx")
    for (c, _ref, runs), error in zip(jobs, errors):
        if error:
            c.fail(f"outside the scale bound, and torch.onnx's file does not run either: {error}")
            continue
        by_label = {label: (k, runs[k][1]) for k, (label, *_rest) in enumerate(c.runs)}
        still = []
        for label, i, err, text in c.outside:
            k, ref_out = by_label[label]
            ref_got = read_outputs(ref_out)
            ref_err, _, _ = modelcheck.output_error(ref_got[i], c.runs[k][2][i].numpy())
            allowed = modelcheck.torch_onnx_allowance(ref_err, True)
            if modelcheck.rescued(err, allowed):
                c.note = f"output {i} within {modelcheck.TORCH_ONNX_FACTOR:g}x torch.onnx's error ({ref_err:.3g})"
            else:
                still.append(f"input '{label}' output {i}: {text}; torch.onnx's file is off by {ref_err:.3g}")
        if still:
            c.fail("; ".join(still))


def declared_aten_ops(opsets=None):
    """{opset: set of operator names} the engine's packs declare, from `oxport ops`."""
    exe = os.environ.get("OXPORT_BIN") or os.path.join(os.environ.get("OXPORT_BUILDDIR", os.path.join(SRC, "build")),
                                                       "tools", "oxport")
    declared = {}
    for opset in opsets or aten_ops.COVERAGE_OPSETS + aten_ops.LOW_OPSETS:
        proc = subprocess.run([exe, "ops", "--opset", str(opset), "--format", "json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{exe} ops --opset {opset} failed: {proc.stderr.strip()}")
        declared[opset] = {o["name"] for o in json.loads(proc.stdout)["operators"]
                           if o["supported"] and (o.get("symbolic") or {}).get("pack") in aten_ops.COVERED_PACKS}
    return declared


# {low opset: operators declared there}, filled by extend_to_low_opsets
LOW_DECLARED = {}


def extend_to_low_opsets(rows):
    """Rows that start at opset 9 (the default opsets, no later `since`) also run at the
    opsets below it where their operator is declared (LOW_OPSETS, IR version 3): what the
    packs declare there is tested by the same rows, with nothing to add to the table."""
    declared = declared_aten_ops(aten_ops.LOW_OPSETS)
    LOW_DECLARED.update(declared)
    for r in rows:
        if r.opsets and r.opsets[0] == 9:
            r.run_also_at([o for o in aten_ops.LOW_OPSETS if r.op in declared[o]])


def check_table(rows):
    """Problems with the table itself: duplicate ids, operators without a row."""
    problems = []
    seen = collections.Counter(r.id for r in rows)
    problems += [f"row id {i!r} is used {n} times" for i, n in seen.items() if n > 1]
    covered = {}
    for r in rows:
        for o in r.opsets:
            covered.setdefault(r.op, set()).add(o)
        # a row at the newest row opset is exported and schema-checked at 21, and run at the
        # high opsets where its lowering changes (high_opsets_to_add)
        if aten_ops.NEWEST_ROW_OPSET in r.opsets:
            covered[r.op].update(aten_ops.HIGH_OPSETS)
    for opset, names in declared_aten_ops(aten_ops.COVERAGE_OPSETS + aten_ops.LOW_OPSETS
                                          + aten_ops.HIGH_OPSETS).items():
        missing = sorted(n for n in names if opset not in covered.get(n, set()))
        if missing:
            problems.append(f"operators declared at opset {opset} without a row at that opset: {', '.join(missing)}")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description="run the operator table")
    ap.add_argument("--row", action="append", default=[], metavar="GLOB", help="only rows whose id matches")
    ap.add_argument("--opset", action="append", type=int, default=[], help="only these opsets")
    ap.add_argument("--jobs", type=int, default=2, help="ONNX Runtime processes at once (default 2)")
    ap.add_argument("--keep", metavar="DIR", help="write the files to DIR and keep them")
    ap.add_argument("--route", action="append", choices=ROUTES, default=[],
                    help="only this export route (default: both)")
    ap.add_argument("--no-ort", action="store_true",
                    help="export and check only, no ONNX Runtime runs (the sanitizer build's use: memory "
                         "errors in the packs, not numbers)")
    args = ap.parse_args(argv)
    routes = tuple(r for r in ROUTES if not args.route or r in args.route)
    torch.set_num_threads(1)
    extend_to_low_opsets(aten_ops.ROWS)
    rows = [r for r in aten_ops.ROWS if not args.row or any(fnmatch.fnmatchcase(r.id, g) for g in args.row)]
    if not rows:
        ap.error(f"no row matches {args.row}")
    table_problems = [] if args.row or args.opset else check_table(aten_ops.ROWS)

    # Thousands of small files: in memory (/dev/shm) unless TMPDIR says where; on a busy disk
    # their creation and removal cost as much as the exports.
    shm = "/dev/shm" if not os.environ.get("TMPDIR") and os.access("/dev/shm", os.W_OK) else None
    tmp = args.keep or tempfile.mkdtemp(prefix="oxport-optable-", dir=shm)
    os.makedirs(tmp, exist_ok=True)
    try:
        # Rows go in chunks: each chunk's files start running in ONNX Runtime (at most
        # --jobs node processes at once) while the next chunk is recorded and exported.
        t0 = time.monotonic()
        cases, pending = [], []
        n_chunks = 8
        for k in range(n_chunks):
            chunk = []
            for row in rows[k * len(rows) // n_chunks:(k + 1) * len(rows) // n_chunks]:
                try:
                    chunk += prepare_row(row, args.opset, routes, tmp)
                except Exception:
                    print(f"error in row {row.id}:", file=sys.stderr)
                    traceback.print_exc()
                    raise
            replay_all(chunk, tmp, f"replay-{k}")
            cases += chunk
            ready = [c for c in chunk if c.problem is None and c.runs]
            if args.no_ort:
                for c in ready:
                    c.unjudged = True
                continue
            if not ready:
                continue
            while sum(b.running() for b, _ in pending) >= max(1, args.jobs):
                time.sleep(0.05)
            pending.append((Batch(ort_jobs(ready), tmp, f"oxport-{k}"), ready))
        t1 = time.monotonic()
        for batch, ready in pending:
            for c, error in zip(ready, batch.errors()):
                if error:
                    c.fail(error)
                else:
                    compare(c)
        t2 = time.monotonic()
        torch_onnx_fallback(cases, tmp, args.jobs)
        stages = [("record, export, check, C host replay (ONNX Runtime alongside)", t1 - t0),
                  ("then waiting for ONNX Runtime", t2 - t1), ("torch.onnx fallback", time.monotonic() - t2)]
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.no_ort:
        stages.append(("ONNX Runtime and the comparison with eager skipped (--no-ort)", None))
    return report(rows, cases, table_problems, stages)


def report(rows, cases, table_problems, stages=()):
    by = collections.defaultdict(list)
    for c in cases:
        by[c.outcome()].append(c)
    for c in cases:
        o = c.outcome()
        why = c.problem or c.note
        if o == "xfail":
            why = f"{c.row.xfail[c.opset]} -- {c.problem or 'exported and checked; not run (--no-ort)'}"
        elif o == "xpass":
            why = f"passes, but is marked xfail ({c.row.xfail[c.opset]}): drop the mark"
        print(f"{o.upper():8} {c.label}" + (f": {why}" if why else ""))
    for p in table_problems:
        print(f"TABLE    {p}")
    per_opset = collections.Counter(c.opset for c in cases)
    print()
    print(f"operator table: {len(rows)} rows, {len(cases)} cases ("
          + ", ".join(f"opset {o}: {n}" for o, n in sorted(per_opset.items())) + ")")
    routes = collections.Counter(c.route for c in cases)
    print(f"  routes: oxport.torch.export {routes['torch']} cases, C host replay (replay_trace) {routes['c']} cases")
    if PROBED:
        print("  high opsets: " + ", ".join(
            f"{n} rows exported and schema-checked at opset {o}" for o, n in sorted(PROBED.items()))
            + "; run in full: " + ", ".join(
                f"{len({c.row.id for c in cases if c.opset == o})} at opset {o}" for o in aten_ops.HIGH_OPSETS)
            + f" (those whose lowering differs from opset {aten_ops.NEWEST_ROW_OPSET}'s, and rows naming the opset)")
    print(f"  passed {len(by['pass'])}, refused as expected {len(by['refused'])}, xfail {len(by['xfail'])}, "
          f"xpass {len(by['xpass'])}, failed {len(by['fail'])}, table problems {len(table_problems)}")
    if stages:
        print("  wall time: " + ", ".join(name if sec is None else f"{name} {sec:.1f} s" for name, sec in stages))
    for c in by["fail"] + by["xpass"]:
        print(f"  {c.outcome().upper()} {c.label}: {c.problem or 'passes but is marked xfail'}")
    return 1 if by["fail"] or by["xpass"] or table_problems else 0


if __name__ == "__main__":
    sys.exit(main())
