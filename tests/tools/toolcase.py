"""What the tools tests share: the CLI under test, a scratch directory and
small ONNX files made by the CLI itself."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

import onnx

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

    def assert_not_quadratic(self, name, make, n, *args):
        """`oxport ARGS` ("{}" standing for the file) on make(n) and make(4n):
        linear work grows 4 times, a scan per item 16 times.  Each size is
        timed on its best of two runs, so one slow moment of a shared machine
        does not decide; at these sizes a quadratic pass takes seconds to
        minutes, a linear one a fraction of a second."""
        times = []
        for k in (n, 4 * n):
            path = self.path(f"{name}_{k}.onnx")
            onnx.save(make(k), path)
            best = None
            for _ in range(2):
                t = time.perf_counter()
                r = subprocess.run([OXPORT, *(path if a == "{}" else a for a in args)],
                                   capture_output=True, text=True, timeout=600)
                best = min(best or 1e9, time.perf_counter() - t)
                self.assertIn(r.returncode, (0, 1), r.stderr)
            times.append(best)
        # a floor for process start and reading, which do not grow with n
        self.assertLess(times[1], 8 * max(times[0], 0.05), f"oxport {args[0]} on {name}: {times}")
