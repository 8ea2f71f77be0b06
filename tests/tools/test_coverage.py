"""tools/coverage-report: its counts agree with what oxport ops and
torch.onnx's registry say on their own, and bad input gets a clear error."""
import json
import os
import subprocess
import sys
import unittest

from toolcase import SRCDIR, oxport

TOOL = os.path.join(SRCDIR, "tools", "coverage-report")
BUILD = os.environ.get("OXPORT_BUILDDIR", os.path.join(SRCDIR, "build"))


def report(*args):
    return subprocess.run([sys.executable, TOOL, "--build", BUILD, *args], capture_output=True,
                          text=True)


def supported(opset):
    r = oxport("ops", "--format", "json", "--opset", str(opset), check_rc=0)
    return {o["name"] for o in json.loads(r.stdout)["operators"] if o["supported"]}


class CoverageReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        r = report("--format", "json", "--opsets", "9 17")
        if r.returncode != 0:
            raise AssertionError(r.stderr)
        cls.doc = json.loads(r.stdout)
        import torch.onnx  # noqa: F401
        from torch.onnx._internal import registration
        cls.reg = registration.registry

    def test_counts_add_up_against_the_registry(self):
        for row in self.doc["opsets"]:
            o = row["opset"]
            theirs = [n for n in self.reg.all_functions()
                      if n.startswith("aten::") and self.reg.is_registered_op(n, o)]
            self.assertEqual(row["torch_onnx"], len(theirs))
            self.assertEqual(row["covered"] + len(row["missing"]) + len(row["excluded"]), len(theirs))
            self.assertGreater(row["covered"], 0)

    def test_excluded_are_the_descriptors_exclusions_with_their_reasons(self):
        for row in self.doc["opsets"]:
            r = oxport("ops", "--format", "json", "--opset", str(row["opset"]), check_rc=0)
            theirs = {e["name"]: e["reason"] for e in json.loads(r.stdout)["excluded"]}
            self.assertTrue(row["excluded"])
            for name, reason in row["excluded"].items():
                self.assertEqual(theirs[name], reason)
                self.assertTrue(self.reg.is_registered_op(name, row["opset"]))
                self.assertNotIn(name, row["missing"])

    def test_missing_and_covered_agree_with_oxport_ops(self):
        for row in self.doc["opsets"]:
            ours = supported(row["opset"])
            for name in row["missing"]:
                self.assertNotIn(name, ours, f"{name} is listed missing at {row['opset']}")
            for name in row["oxport_only"]:
                self.assertIn(name, ours)
                self.assertFalse(self.reg.is_registered_op(name, row["opset"]))
            self.assertIn("aten::relu", ours)
            self.assertNotIn("aten::relu", row["missing"])

    def test_torchscript_dunder_names_count_as_the_traced_operator(self):
        # torch.onnx's aten::__and_ (TorchScript's `a & b`) is what a trace records as
        # aten::bitwise_and: covered when oxport converts that, and not "oxport only"
        for row in self.doc["opsets"]:
            ours = supported(row["opset"])
            if "aten::bitwise_and" not in ours or not self.reg.is_registered_op("aten::__and_", row["opset"]):
                continue
            self.assertNotIn("aten::__and_", row["missing"])
            self.assertNotIn("aten::bitwise_and", row["oxport_only"])

    def test_summary_line_quotes_the_same_numbers(self):
        r = report("--summary", "--opsets", "9 17")
        self.assertEqual(r.returncode, 0, r.stderr)
        for row in self.doc["opsets"]:
            self.assertIn(f"{row['covered']} of {row['torch_onnx']} at opset {row['opset']}",
                          r.stdout)
        self.assertEqual(r.stdout, self.doc["summary"] + "\n")

    def test_bad_arguments(self):
        r = report("--opsets", "nine")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "coverage-report: --opsets takes numbers, got 'nine'\n")
        r = subprocess.run([sys.executable, TOOL, "--build", "/nonexistent"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("/nonexistent/tools/oxport is not an executable", r.stderr)


if __name__ == "__main__":
    unittest.main()
