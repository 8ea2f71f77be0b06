#!/usr/bin/python3
"""docs/pytorch.md's `<!-- runnable -->` Python blocks, each run as written in a fresh
process and directory.  A block followed by "prints" and a plain ``` block must print
exactly that (`<build>` standing for the build directory)."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
DOC = os.path.join(SRC, "docs", "pytorch.md")
BLOCK = re.compile(r"<!-- runnable -->\n```python\n(?P<code>.*?)```\n(?:\nprints\n\n```\n(?P<out>.*?)```)?", re.S)


def examples():
    with open(DOC) as f:
        return [(m.group("code"), m.group("out")) for m in BLOCK.finditer(f.read())]


class DocExamples(unittest.TestCase):
    def test_there_are_examples(self):
        self.assertGreaterEqual(len(examples()), 4)

    def test_each_example_runs_as_written(self):
        build = os.path.abspath(os.environ.get("OXPORT_BUILDDIR", os.path.join(SRC, "build")))
        for i, (code, want) in enumerate(examples()):
            with self.subTest(example=i), tempfile.TemporaryDirectory(prefix="oxport-doc-") as tmp:
                script = os.path.join(tmp, "example.py")
                with open(script, "w") as f:
                    f.write(code)
                # the example runs in tmp: relative paths in the environment (the
                # `PYTHONPATH=hosts/pytorch OXPORT_LIB=build/src/liboxport.so ...`
                # form, run from the source root) must still name the same files there
                env = dict(os.environ)
                for var in ("PYTHONPATH", "OXPORT_BUILDDIR", "OXPORT_LIB", "OXPORT_OPSET_DIR",
                            "OXPORT_BUILTIN_PLUGIN_PATH", "OXPORT_PLUGIN_PATH"):
                    if env.get(var):
                        env[var] = os.pathsep.join(os.path.abspath(p) for p in env[var].split(os.pathsep) if p)
                proc = subprocess.run([sys.executable, script], cwd=tmp, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env)
                self.assertEqual(proc.returncode, 0, f"example {i}:\n{code}\nstderr:\n{proc.stderr}")
                self.assertNotIn("MISMATCH", proc.stdout)
                if want is not None:
                    self.assertEqual(proc.stdout, want.replace("<build>", build), f"example {i}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
