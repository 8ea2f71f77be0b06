#!/usr/bin/python3
"""`oxport export` behaviour a user relies on, beyond the zoo round trips:
--list, exit statuses, the unsupported-operator report, no partial file.

usage: export_cli_test.py --oxport BIN
"""
import argparse
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(bin_, *args):
    return subprocess.run([bin_, "export", *args], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxport", required=True)
    b = ap.parse_args().oxport

    r = run(b, "--list")
    check(r.returncode == 0, f"--list exits 0 (got {r.returncode})")
    for name, count in [("alexnet", "61.1M"), ("vgg16", "138.4M"), ("resnet50", "25.6M"),
                        ("word_language_model", "4.7M")]:
        check(any(l.split()[:2] == [name, count] for l in r.stdout.splitlines()),
              f"--list shows {name} with {count} parameters")

    r = run(b, "--help")
    check(r.returncode == 0 and "usage: oxport export MODEL" in r.stdout, "--help")

    r = run(b, "no_such_model", "-o", "x.onnx")
    check(r.returncode == 2, f"unknown model exits 2 (got {r.returncode})")
    check("unknown model 'no_such_model' (oxport export --list shows the zoo)" in r.stderr,
          "unknown model message")

    r = run(b, "alexnet")
    check(r.returncode == 2 and "no output: give -o FILE.onnx or --test-data DIR" in r.stderr,
          "missing -o exits 2 with a hint")

    r = run(b, "alexnet", "-o", "x.onnx", "--batch", "0")
    check(r.returncode == 2 and "--batch expects an integer in [1, 4096], got '0'" in r.stderr,
          "bad --batch exits 2")

    with tempfile.TemporaryDirectory(prefix="oxport-export-cli-") as tmp:
        cfg = os.path.join(tmp, "cfg.yaml")
        with open(cfg, "w") as f:
            f.write("disabled_operators: [aten::pixel_shuffle, fn::ConstantPadNd]\n")
        out = os.path.join(tmp, "sr.onnx")
        r = run(b, "superresolution", "-o", out, "--config", cfg)
        check(r.returncode == 1, f"disabled operators exit 1 (got {r.returncode}: {r.stderr})")
        check("2 problem(s) at opset 13" in r.stderr, "the report counts both problems")
        check("aten::pixel_shuffle is disabled by" in r.stderr and
              "scope: SuperResolutionNet/PixelShuffle[pixel_shuffle]" in r.stderr,
              "the report names pixel_shuffle and its scope")
        check("fn::ConstantPadNd is disabled by" in r.stderr, "the report names ConstantPadNd")
        check(not os.path.exists(out), "no file is left behind after a failed export")

        r = run(b, "superresolution", "-o", out, "--verbose", "--opset", "11")
        check(r.returncode == 0, f"superresolution at opset 11 exits 0 ({r.stderr})")
        check(os.path.getsize(out) > 200000, "the file holds the weights")
        check("onnx::DepthToSpace" in r.stdout and
              "scope: SuperResolutionNet/PixelShuffle[pixel_shuffle]" in r.stdout,
              "--verbose prints the converted graph with scopes")

        r = run(b, "superresolution", "-o", out, "--no-params")
        check(r.returncode == 0 and os.path.getsize(out) < 20000,
              "--no-params leaves the weights out")

        # a bundle whose test data cannot be written is removed whole
        bundle = os.path.join(tmp, "bundle")
        os.makedirs(bundle)
        open(os.path.join(bundle, "test_data_set_0"), "w").close()  # a file where a dir must go
        r = run(b, "superresolution", "--test-data", bundle)
        check(r.returncode != 0 and "test_data_set_0" in r.stderr,
              f"unwritable test data fails naming it (got {r.returncode}: {r.stderr})")
        check(not os.path.exists(os.path.join(bundle, "model.onnx")),
              "no model.onnx is left without its test data")

        # two test sets: the traced example and other values of the same shapes
        bundle2 = os.path.join(tmp, "bundle2")
        r = run(b, "superresolution", "--test-data", bundle2)
        sets = [os.path.join(bundle2, f"test_data_set_{k}", "input_0.pb") for k in (0, 1)]
        check(r.returncode == 0 and all(os.path.isfile(p) for p in sets),
              f"--test-data writes test_data_set_0 and _1 (got {r.returncode}: {r.stderr})")
        if all(os.path.isfile(p) for p in sets):
            with open(sets[0], "rb") as f0, open(sets[1], "rb") as f1:
                a, c = f0.read(), f1.read()
            check(len(a) == len(c) and a != c, "the second test input has the same shape and other values")

        # a failure on the second set removes the first one and the model too
        bundle3 = os.path.join(tmp, "bundle3")
        os.makedirs(bundle3)
        open(os.path.join(bundle3, "test_data_set_1"), "w").close()
        r = run(b, "superresolution", "--test-data", bundle3)
        want = f"oxport export: cannot write {bundle3}/test_data_set_1/input_0.pb: Not a directory\n"
        check(r.returncode == 3 and r.stderr == want,
              f"unwritable second test set fails naming it (got {r.returncode}: {r.stderr})")
        check(sorted(os.listdir(bundle3)) == ["test_data_set_1"],
              f"nothing but the user's file is left (got {sorted(os.listdir(bundle3))})")

        # --functions: repeated modules as local functions, run in ONNX Runtime against the
        # host's outputs
        bundle4 = os.path.join(tmp, "functions")
        r = run(b, "dcgan_discriminator", "--test-data", bundle4, "--opset", "15",
                "--functions", "LeakyReLU,zoo.dcgan::Conv2d")
        check(r.returncode == 0, f"--functions exports (got {r.returncode}: {r.stderr})")
        if r.returncode == 0:
            head = subprocess.run([b, "dump", os.path.join(bundle4, "model.onnx")], capture_output=True,
                                  text=True).stdout.splitlines()
            check(head[0].endswith(" functions=3"), f"four LeakyReLUs share one function, the Conv2ds "
                  f"with other strides and pads get two (header: {head[0]})")
            check(sum("= local::LeakyReLU(" in l for l in head) == 4, "four LeakyReLU calls")
            py = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "py", "onnxval.py")
            v = subprocess.run([sys.executable, py, "bundle", bundle4], capture_output=True, text=True)
            check(v.returncode == 0, f"the functions file matches the host in ONNX Runtime: {v.stdout}{v.stderr}")
        r = run(b, "dcgan_discriminator", "-o", os.path.join(tmp, "f13.onnx"), "--functions", "LeakyReLU")
        check(r.returncode == 2 and r.stderr == "oxport export: dcgan_discriminator: ox_export: model-local "
              "functions need opset 15 or newer (IR version 8); the export targets opset 13\n",
              f"--functions below opset 15 exits 2 with the reason (got {r.returncode}: {r.stderr})")

        r = run(b, "alexnet", "-o", os.path.join(tmp, "missing", "a.onnx"))
        check(r.returncode == 3, f"unwritable output exits 3 (got {r.returncode})")

    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
