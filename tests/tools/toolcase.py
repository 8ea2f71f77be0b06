"""What the tools tests share: the CLI under test, a scratch directory and
small ONNX files made by the CLI itself."""
import os
import shutil
import subprocess
import tempfile
import unittest

import onnx

import wide_models

OXPORT = os.environ.get("OXPORT_BIN", "oxport")
SRCDIR = os.environ.get("OXPORT_TEST_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def oxport(*args, env=None, check_rc=None):
    """Run the CLI; returns CompletedProcess with text stdout/stderr."""
    r = subprocess.run([OXPORT, *args], capture_output=True, text=True, env=env)
    if check_rc is not None and r.returncode != check_rc:
        raise AssertionError(f"oxport {' '.join(args)} exited {r.returncode}, expected "
                             f"{check_rc}\nstdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-2000:]}")
    return r


class ToolCase(unittest.TestCase):
    """A scratch directory per test class, and the zoo's super-resolution
    network (4 convolutions, 60K parameters) exported into it."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="oxport-tools-")
        cls.small = os.path.join(cls.tmp, "superresolution.onnx")
        oxport("export", "superresolution", "-o", cls.small, check_rc=0)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run_wide(self, name):
        """`oxport` on a case of wide_models.CASES at 4n items, the size at which the
        scans per item this project removed took from seconds to minutes (how the time
        grows from n to 4n is benchmarks/cli_scaling.py's to show, not a test's).
        Returns the CompletedProcess and the file's path; exit status 0 or 1."""
        _, make, n, cli = {c[0]: c for c in wide_models.CASES}[name]
        path = self.path(f"{name}_{4 * n}.onnx")
        onnx.save(make(4 * n), path)
        r = subprocess.run([OXPORT, *(path if a == "{}" else a for a in cli)], capture_output=True, text=True,
                           timeout=900)
        self.assertIn(r.returncode, (0, 1), r.stderr[-2000:])
        return r, path
