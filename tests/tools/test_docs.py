#!/usr/bin/python3
"""Every shell block marked runnable (an info string of `sh runnable`) in
README.md and docs/*.md runs and exits 0, from a scratch directory that
sees the source tree's tools/, docs/, tests/, benchmarks/ and the build
directory as build/, with the built `oxport` and Debian's python3 first on
PATH.  Blocks of one file run in order in one directory, so a later block
may use a file an earlier one wrote."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from toolcase import OXPORT, SRCDIR

BLOCK = re.compile(r"^```sh runnable\n(.*?)^```$", re.M | re.S)


def runnable_blocks(path):
    with open(path) as f:
        return BLOCK.findall(f.read())


class Docs(unittest.TestCase):
    def test_runnable_blocks(self):
        docs = [os.path.join(SRCDIR, "README.md")] + sorted(glob.glob(os.path.join(SRCDIR, "docs", "*.md")))
        builddir = os.path.dirname(os.path.dirname(os.path.abspath(OXPORT)))
        ran = 0
        for doc in docs:
            blocks = runnable_blocks(doc)
            if not blocks:
                continue
            with tempfile.TemporaryDirectory(prefix="oxport-docs-") as tmp:
                for name in ("tools", "docs", "tests", "benchmarks", "hosts", "opset"):
                    os.symlink(os.path.join(SRCDIR, name), os.path.join(tmp, name))
                os.symlink(builddir, os.path.join(tmp, "build"))
                bindir = os.path.join(tmp, ".bin")
                os.mkdir(bindir)
                os.symlink("/usr/bin/python3", os.path.join(bindir, "python3"))
                env = dict(os.environ, PATH=os.pathsep.join([bindir, os.path.dirname(OXPORT), os.environ["PATH"]]))
                # what `meson devenv` sets for a program built against the tree
                for var, path in (("PKG_CONFIG_PATH", os.path.join(builddir, "meson-uninstalled")),
                                  ("LD_LIBRARY_PATH", os.path.join(builddir, "src"))):
                    env[var] = os.pathsep.join(p for p in (path, os.environ.get(var)) if p)
                for i, block in enumerate(blocks):
                    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], cwd=tmp, env=env,
                                       capture_output=True, text=True)
                    where = f"{os.path.relpath(doc, SRCDIR)} runnable block #{i + 1}"
                    self.assertEqual(r.returncode, 0, f"{where} failed:\n{block}\nstdout: {r.stdout[-2000:]}\n"
                                                      f"stderr: {r.stderr[-2000:]}")
                    ran += 1
        print(f"\n{ran} runnable blocks ran")
        self.assertGreaterEqual(ran, 4)


if __name__ == "__main__":
    unittest.main()
