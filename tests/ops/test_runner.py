#!/usr/bin/python3
"""The operator table's own machinery: the row format's checks, the table's coverage
check, outcomes and the summary, the C host replay's results for refused and malformed
traces, and the batched ONNX Runtime runner's per-file errors, each with its message."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import run_table  # noqa: E402
from optable import Refuse, Row, T  # noqa: E402

REPLAY = os.environ.get("OXPORT_REPLAY_TRACE") or os.path.join(
    os.environ.get("OXPORT_BUILDDIR", os.path.join(HERE, "..", "..", "build")), "tests", "ops", "replay_trace")


def plugin_args():
    args = []
    for d in filter(None, os.environ.get("OXPORT_BUILTIN_PLUGIN_PATH", "").split(":")):
        args += ["--plugin-path", d]
    return args


class StepTolerance(unittest.TestCase):
    """tol="step": within one step of eager's quantization grid, the step read off eager's
    own distinct values."""

    def test_one_step_passes_two_fail(self):
        import numpy as np
        want = np.array([0.0, 0.25, 0.5, 1.0, 0.75], dtype=np.float32)
        self.assertIsNone(run_table._off_grid(want + np.float32(0.25) * (want == 0.5), want))
        why = run_table._off_grid(want + np.float32(0.5) * (want == 0.5), want)
        self.assertIn("2.00 quantization steps (step 0.25)", why)

    def test_a_constant_reference_and_another_shape_are_refused(self):
        import numpy as np
        self.assertIn("one value", run_table._off_grid(np.zeros(3, np.float32), np.zeros(3, np.float32)))
        self.assertIn("eager gives float32[3]", run_table._off_grid(np.zeros(4, np.float32),
                                                                    np.arange(3, dtype=np.float32)))


class RowFormat(unittest.TestCase):
    def test_fn_or_module(self):
        with self.assertRaisesRegex(ValueError, r"^row r: give exactly one of fn and module$"):
            Row("r", "aten::relu", inputs=[T(2)])
        with self.assertRaisesRegex(ValueError, r"^row r: give exactly one of fn and module$"):
            Row("r", "aten::relu", torch.relu, [T(2)], module=lambda: torch.nn.ReLU())

    def test_bad_fields(self):
        with self.assertRaisesRegex(ValueError, r"^row r: tol must be 'scale', 'shape' or 'step', not 'loose'$"):
            Row("r", "aten::relu", torch.relu, [T(2)], tol="loose")
        with self.assertRaisesRegex(ValueError, r"^row r: op 'relu' must be a recorded kind such as 'aten::add'$"):
            Row("r", "relu", torch.relu, [T(2)])
        with self.assertRaisesRegex(ValueError, r"^row r: no opset left of \(9, 10\) at or after since=11$"):
            Row("r", "aten::relu", torch.relu, [T(2)], opsets=(9, 10), since=11)
        with self.assertRaisesRegex(ValueError, r"^row r: xfail names opsets \[11\] the row does not run$"):
            Row("r", "aten::relu", torch.relu, [T(2)], xfail={11: "why"})
        with self.assertRaisesRegex(ValueError, r"^Refuse needs the message text to look for$"):
            Refuse("")

    def test_expectations_per_opset(self):
        r = Row("r", "aten::relu", torch.relu, [T(2)], opsets=(9, 11, 13), refuse=Refuse("m", below=11),
                xfail={13: "bug"})
        self.assertEqual([r.expect(o) for o in (9, 11, 13)], ["refuse", "pass", "xfail"])

    def test_inputs_are_reproducible_and_differ(self):
        r = Row("r", "aten::add", torch.add, [T(3, 4), T(3, dtype=torch.int64, lo=0, hi=2)],
                dynamic={"in0": {0: "n"}})
        (l0, a0), (l1, a1), (l2, a2) = r.input_sets()
        self.assertEqual((l0, l1, l2), ("example", "second", "other shape"))
        self.assertTrue(torch.equal(a0[0], r.input_sets()[0][1][0]))
        self.assertFalse(torch.equal(a0[0], a1[0]))
        self.assertEqual(list(a2[0].shape), [5, 4])
        self.assertTrue(bool(((a0[1] >= 0) & (a0[1] <= 2)).all()))
        d = T(2, 3, distinct=True).make(torch.Generator().manual_seed(0))
        self.assertEqual(len(set(d.flatten().tolist())), 6)


class Table(unittest.TestCase):
    def test_duplicates_and_missing_operators_are_named(self):
        rows = [Row("a", "aten::abs", torch.abs, [T(2)]), Row("a", "aten::abs", torch.abs, [T(2)])]
        saved = run_table.declared_aten_ops
        run_table.declared_aten_ops = lambda opsets=None: {9: {"aten::abs", "aten::neg"}, 13: {"aten::abs"}}
        try:
            problems = run_table.check_table(rows)
        finally:
            run_table.declared_aten_ops = saved
        self.assertEqual(problems, ["row id 'a' is used 2 times",
                                    "operators declared at opset 9 without a row at that opset: aten::neg"])

    def test_outcomes_and_exit_status(self):
        ok = Row("ok", "aten::abs", torch.abs, [T(2)], opsets=(9,))
        bug = Row("bug", "aten::abs", torch.abs, [T(2)], opsets=(9, 13), xfail={13: "a bug (#1)"})
        cases = [run_table.Case(ok, 9, "torch"), run_table.Case(bug, 9, "c"), run_table.Case(bug, 13, "torch")]
        cases[1].fail("ONNX Runtime rejected the model: boom")
        self.assertEqual([c.outcome() for c in cases], ["pass", "fail", "xpass"])
        self.assertEqual(cases[1].label, "bug @ opset 9 [C host]")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(run_table.report([ok, bug], cases, []), 1)
        self.assertIn("\n  passed 1, refused as expected 0, xfail 0, xpass 1, failed 1, table problems 0\n"
                      "  FAIL bug @ opset 9 [C host]: ONNX Runtime rejected the model: boom\n"
                      "  XPASS bug @ opset 13: passes but is marked xfail\n", out.getvalue())
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(run_table.report([ok], cases[:1], []), 0)
            self.assertEqual(run_table.report([ok], cases[:1], ["row id 'a' is used 2 times"]), 1)

    def test_unrun_xfail_cases_are_not_xpass(self):
        bug = Row("bug", "aten::abs", torch.abs, [T(2)], opsets=(9,), xfail="shows in ONNX Runtime (#1)")
        c = run_table.Case(bug, 9, "c")
        c.unjudged = True
        self.assertEqual(c.outcome(), "xfail")
        c.unjudged = False
        self.assertEqual(c.outcome(), "xpass")

    def test_refusal_messages_are_matched(self):
        r = Row("r", "aten::dropout", torch.relu, [T(2)], opsets=(9,), refuse=Refuse("training mode"))
        good, other, none = (run_table.Case(r, 9, "torch") for _ in range(3))
        run_table.exported(good, "Couldn't export operator(s):\n- dropout in training mode is not exported")
        run_table.exported(other, "Couldn't export operator(s):\n- something else")
        self.assertEqual(good.outcome(), "refused")
        self.assertEqual(other.problem, "refused, but the message does not contain 'training mode': "
                                        "Couldn't export operator(s): | - something else")
        none.path = "/nonexistent.onnx"
        run_table.exported(none, None)
        self.assertEqual(none.problem, "exported, but a refusal containing 'training mode' was expected")


class Replay(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-replay-")
        self.n = 0

    def tearDown(self):
        self.tmp.cleanup()

    def replay(self, *traces):
        """Replay each trace text at opset 13; the result lines."""
        jobs = os.path.join(self.tmp.name, "jobs.txt")
        with open(jobs, "w") as f:
            for text in traces:
                self.n += 1
                base = os.path.join(self.tmp.name, f"t{self.n}")
                with open(base + ".trace", "w") as t:
                    t.write(text)
                open(base + ".bytes", "wb").close()
                f.write(f"{base}.trace {base}.bytes 13 {base}.onnx\n")
        res = os.path.join(self.tmp.name, "results.txt")
        subprocess.run([REPLAY] + plugin_args() + [jobs, res], check=True)
        with open(res) as f:
            return [line.replace(self.tmp.name + "/", "") for line in f.read().splitlines()]

    RELU = "oxtrace 1\nbegin =M\ninput 1 1 1 3 =x\nop =aten::relu 1 1\nout 2 1 1 3\narg =self tensor 1\noutput 2 =y\n"

    def test_good_refused_and_malformed_traces(self):
        unknown = self.RELU.replace("aten::relu", "aten::no_such_op")
        lines = self.replay(self.RELU, unknown, "oxtrace 2\n", self.RELU.replace("tensor 1", "tensor 7"),
                            self.RELU.replace("arg =self tensor 1", "arg =self blob 1"),
                            self.RELU.replace("=x", "x"), "oxtrace 1\ninput 1 1 1 3 =x\n")
        self.assertEqual(lines[0], "ok")
        self.assertTrue(lines[1].startswith("refused "), lines[1])
        self.assertIn("aten::no_such_op", lines[1])
        self.assertEqual(lines[2:], ["bad-trace t3.trace:1: not an 'oxtrace 1' file",
                                     "bad-trace t4.trace:6: value id 7 was never defined",
                                     "bad-trace t5.trace:6: unknown argument kind 'blob'",
                                     "bad-trace t6.trace:3: a name is written '=name' or '-', not 'x'",
                                     "bad-trace t7.trace:2: 'input' before 'begin'"])

    def test_usage_errors(self):
        p = subprocess.run([REPLAY, "only-one"], stderr=subprocess.PIPE, text=True)
        self.assertEqual((p.returncode, p.stderr), (2, "usage: replay_trace [--plugin-path DIR]... JOBS RESULTS\n"))
        jobs = os.path.join(self.tmp.name, "jobs.txt")
        with open(jobs, "w") as f:
            f.write("a.trace a.bytes\n")
        p = subprocess.run([REPLAY] + plugin_args() + [jobs, os.path.join(self.tmp.name, "r.txt")],
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual((p.returncode, p.stderr),
                         (2, f"replay_trace: {jobs}:1: expected TRACE BYTES OPSET OUT.onnx\n"))


    def test_a_crash_names_the_case_being_replayed(self):
        """replay_trace writes each result as it goes; when it dies, the first case without a
        result is the one it was replaying."""
        fake = os.path.join(self.tmp.name, "crashing_replay")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\nfor last; do :; done\necho ok > "$last"\necho "AddressSanitizer: boom" >&2\nexit 1\n')
        os.chmod(fake, 0o755)
        r = Row("r", "aten::abs", torch.abs, [T(2)])
        cases = [run_table.Case(r, o, "c") for o in (9, 13)]
        for c in cases:
            c.replay = ("t.trace", "t.bytes")
            c.path = os.path.join(self.tmp.name, f"r-{c.opset}.onnx")
        saved = os.environ.get("OXPORT_REPLAY_TRACE")
        os.environ["OXPORT_REPLAY_TRACE"] = fake
        try:
            with self.assertRaises(RuntimeError) as cm:
                run_table.replay_all(cases, self.tmp.name)
        finally:
            if saved is None:
                del os.environ["OXPORT_REPLAY_TRACE"]
            else:
                os.environ["OXPORT_REPLAY_TRACE"] = saved
        self.assertEqual(str(cm.exception), f"{fake} failed (exit 1) while replaying r @ opset 13 [C host]: "
                                            "AddressSanitizer: boom")


class OrtBatch(unittest.TestCase):
    def test_a_bad_file_is_its_own_result(self):
        with tempfile.TemporaryDirectory(prefix="oxport-ortbatch-") as tmp:
            bad = os.path.join(tmp, "bad.onnx")
            with open(bad, "wb") as f:
                f.write(b"not a model")
            errors = run_table.run_batches([(bad, []), (os.path.join(tmp, "missing.onnx"), [])], 1, tmp, "t")
            self.assertEqual(len(errors), 2)
            self.assertTrue(errors[0].startswith("ONNX Runtime rejected the model: "), errors[0])
            self.assertTrue(errors[1].startswith("ONNX Runtime rejected the model: "), errors[1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
