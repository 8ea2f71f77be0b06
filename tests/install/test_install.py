#!/usr/bin/python3
"""Installing oxport as a user would, then using it from elsewhere with a clean
environment (suite `install`, slow: each case builds oxport once more).

    test_install.py pip        python3 -m venv --system-site-packages; pip install --no-build-isolation
                               --no-index <source>; the venv's python runs probe.py
    test_install.py meson      meson setup --prefix=P; meson install; P's python package runs probe.py,
                               then docs/writing-a-plugin.md's commands run against P
    test_install.py walkthrough-checkout   the same commands in `meson devenv`
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
PY = "/usr/bin/python3"
# what a user's shell would not have: everything the build tree's tests set
STRIP = ("PYTHONPATH", "LD_LIBRARY_PATH", "OXPORT_PLUGIN_PATH", "OXPORT_BUILTIN_PLUGIN_PATH", "OXPORT_OPSET_DIR",
         "OXPORT_LIB", "OXPORT_BUILDDIR", "OXPORT_NO_DEFAULT_PLUGINDIR", "OXPORT_BIN", "PKG_CONFIG_PATH",
         "MESON_DEVENV", "MESON_PROJECT_NAME")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in STRIP and not k.startswith("OXPORT_TEST")}
    # Debian's python3 and tools first, as on a user's Debian machine
    env["PATH"] = "/usr/bin:/bin:" + env.get("PATH", "")
    env.update(extra)
    return env


def run(cmd, cwd, env, expect_ok=True):
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          shell=isinstance(cmd, str))
    if (proc.returncode == 0) != expect_ok:
        raise SystemExit(f"{cmd!r} in {cwd}: exit {proc.returncode} (expected {'0' if expect_ok else 'failure'}):\n"
                         f"{proc.stdout}")
    return proc.stdout


def meson_install(tmp):
    prefix = os.path.join(tmp, "prefix")
    env = clean_env()
    run(["meson", "setup", os.path.join(tmp, "build"), SRC, f"--prefix={prefix}", "--libdir=lib", "-Dtests=false"],
        tmp, env)
    run(["ninja", "-C", os.path.join(tmp, "build")], tmp, env)
    run(["meson", "install", "-C", os.path.join(tmp, "build"), "--quiet"], tmp, env)
    found = [d for d, _dirs, files in os.walk(prefix) if "_installed.py" in files]
    if len(found) != 1:
        raise SystemExit(f"meson install: expected one installed oxport package under {prefix}, found {found}")
    site = os.path.dirname(found[0])
    # the installed package is the whole source package: no module left behind
    src_pkg = os.path.join(SRC, "hosts", "pytorch", "oxport")
    for d, _dirs, files in os.walk(src_pkg):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), src_pkg)
                if not os.path.isfile(os.path.join(found[0], rel)):
                    raise SystemExit(f"meson install: oxport/{rel} was not installed")
    return prefix, site


def case_pip(tmp):
    venv = os.path.join(tmp, "venv")
    env = clean_env()
    run([PY, "-m", "venv", "--system-site-packages", venv], tmp, env)
    run([os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index", SRC], tmp, env)
    away = os.path.join(tmp, "elsewhere")
    os.mkdir(away)
    print(run([os.path.join(venv, "bin", "python"), os.path.join(HERE, "probe.py"), venv], away, env), end="")


def case_meson(tmp):
    prefix, site = meson_install(tmp)
    away = os.path.join(tmp, "elsewhere")
    os.mkdir(away)
    # A prefix other than /usr/local is not on Python's path: PYTHONPATH names the
    # install location there, nothing else is set.
    env = clean_env(PYTHONPATH=site)
    print(run([PY, os.path.join(HERE, "probe.py"), prefix, "--pythonpath-is-the-prefix"], away, env), end="")
    walkthrough_installed(tmp, prefix, site)


# ------------------------------------------------------------------ the walkthrough

def walkthrough_steps():
    """The shell blocks of docs/writing-a-plugin.md marked `<!-- walkthrough ... -->`:
    (commands, expect failure?, text the output must contain)."""
    with open(os.path.join(SRC, "docs", "writing-a-plugin.md")) as f:
        text = f.read()
    steps = []
    for m in re.finditer(r"<!-- walkthrough(?P<fails> fails)?(?: expect: (?P<expect>.*?))? -->\n```sh\n"
                         r"(?P<body>.*?)```", text, re.S):
        steps.append((m.group("body"), bool(m.group("fails")), m.group("expect")))
    if len(steps) < 4:
        raise SystemExit(f"docs/writing-a-plugin.md: expected the walkthrough's marked sh blocks, found {len(steps)}")
    return steps


def run_walkthrough(tmp, wrap, env):
    work = os.path.join(tmp, "thresholded_relu")
    shutil.copytree(os.path.join(SRC, "docs", "examples", "thresholded_relu"), work)
    for body, fails, expect in walkthrough_steps():
        out = run(wrap(work, body), work, env, expect_ok=not fails)
        if expect and expect not in out:
            raise SystemExit(f"walkthrough step {body!r}: output lacks {expect!r}:\n{out}")
        print(f"walkthrough: {body.strip()!r}: {'failed as documented' if fails else 'ok'}")
    if not os.path.isfile(os.path.join(work, "thresholded_relu.onnx")):
        raise SystemExit("walkthrough: thresholded_relu.onnx was not written")
    subprocess.run([PY, os.path.join(SRC, "tests", "py", "onnxval.py"), "check",
                    os.path.join(work, "thresholded_relu.onnx")],
                   check=True)


def case_walkthrough_checkout(tmp, builddir):
    # inside `meson devenv -C build`, as the doc says for a checkout
    def wrap(work, body):
        return ["meson", "devenv", "-C", builddir, "sh", "-ec", f"cd {work!r}\n{body}"]
    run_walkthrough(tmp, wrap, clean_env())


def walkthrough_installed(tmp, prefix, site):
    # a prefix's usual variables, as /usr/local has them by default
    env = clean_env(PATH=f"{prefix}/bin:/usr/bin:/bin:{os.environ.get('PATH', '')}",
                    PKG_CONFIG_PATH=f"{prefix}/lib/pkgconfig", PYTHONPATH=site,
                    LD_LIBRARY_PATH=f"{prefix}/lib")

    def wrap(work, body):
        return ["sh", "-ec", body]
    run_walkthrough(tmp, wrap, env)


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    tmp = tempfile.mkdtemp(prefix="oxport-install-")
    try:
        if case == "pip":
            case_pip(tmp)
        elif case == "meson":
            case_meson(tmp)
        elif case == "walkthrough-checkout":
            case_walkthrough_checkout(tmp, os.environ.get("OXPORT_TEST_BUILDDIR") or os.path.join(SRC, "build"))
        else:
            raise SystemExit("usage: test_install.py pip|meson|walkthrough-checkout")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
