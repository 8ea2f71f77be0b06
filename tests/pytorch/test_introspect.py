#!/usr/bin/python3
"""oxport.torch.supported_operators / packs / check_pack: the engine's introspection calls
through ctypes, checked against `oxport ops --format json` and `oxport plugins --format
json` of the same build (the CLI reads the C structs with the compiler's layout, the host
with its ctypes mirror), and against what a registration adds."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))

import oxport.torch as oxt  # noqa: E402

BUILD = os.environ.get("OXPORT_BUILDDIR", os.path.join(SRC, "build"))
OXPORT = os.path.join(BUILD, "tools", "oxport")


def cli_json(*args):
    r = subprocess.run([OXPORT, *args, "--format", "json"], stdout=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1):  # 1: problems found, still a document
        raise AssertionError(f"oxport {' '.join(args)}: exit status {r.returncode}")
    return json.loads(r.stdout)


class SupportedOperators(unittest.TestCase):
    def test_agrees_with_oxport_ops(self):
        for opset in (9, 13, 17):
            cli = cli_json("ops", "--opset", str(opset))
            want = [o for o in cli["operators"] if o["supported"]]
            got = oxt.supported_operators(opset)
            self.assertEqual([o["name"] for o in got], [o["name"] for o in want])
            for g, w in zip(got, want):
                self.assertEqual(g["doc"], w["doc"])
                self.assertEqual(g["pack"], w["symbolic"]["pack"])
                self.assertEqual(g["since_opset"], w["symbolic"]["since_opset"])
                self.assertEqual(g["descriptor"], w["descriptor"])
                self.assertEqual([(p["name"], p["kind"], p["alt_kinds"], p["optional"], p["default"])
                                  for p in g["params"]],
                                 [(p["name"], p["kind"], p["alt_kinds"], p["optional"], p["default"])
                                  for p in w["params"]])
                self.assertEqual([(x["when"], x["message"], x["lifted_at_opset"]) for x in g["limitations"]],
                                 [(x["when"], x["message"], x["lifted_at_opset"]) for x in w["limitations"]])

    def test_a_limitation_names_the_opset_lifting_it(self):
        pool = {o["name"]: o for o in oxt.supported_operators(9)}["aten::max_pool2d"]
        dil = [x for x in pool["limitations"] if x["arg"] == "dilation"]
        self.assertEqual(dil, [{"arg": "dilation", "when": "dilation outside [1, 1]",
                                "message": "MaxPool has no dilations attribute before opset 10",
                                "lifted_at_opset": 10}])
        self.assertEqual(pool["n_outputs"], 1)
        pool13 = {o["name"]: o for o in oxt.supported_operators(13)}["aten::max_pool2d"]
        self.assertFalse([x for x in pool13["limitations"] if x["arg"] == "dilation"])

    def test_unsupported_ones_on_request(self):
        with tempfile.TemporaryDirectory(prefix="oxport-introspect-") as tmp:
            cfg = os.path.join(tmp, "oxport.yaml")
            with open(cfg, "w") as f:
                f.write("disabled_operators: [aten::relu]\n")
            at9 = {o["name"]: o for o in oxt.supported_operators(9, cfg, include_unsupported=True)}
            cli = {o["name"]: o for o in cli_json("ops", "--opset", "9", "--config", cfg)["operators"]}
            self.assertEqual(sorted(at9), sorted(cli))
            self.assertEqual(sorted(n for n, o in at9.items() if not o["supported"]), ["aten::relu"])
            self.assertEqual(at9["aten::relu"]["disabled_by"], cfg)
            self.assertEqual(cli["aten::relu"]["disabled_by"], cfg)
            self.assertNotIn("aten::relu", [o["name"] for o in oxt.supported_operators(9, cfg)])

    def test_default_opset_is_the_target(self):
        self.assertEqual(oxt.supported_operators(), oxt.supported_operators(13))

    def test_an_opset_outside_the_descriptors(self):
        with self.assertRaises(oxt.IntrospectionError) as cm:
            oxt.supported_operators(99)
        self.assertEqual(str(cm.exception), "ox_context_opset_op_count: opset 99 is outside the "
                                            "descriptors' range 7..21")
        self.assertEqual(cm.exception.status, "OX_EINVAL")
        with self.assertRaises(TypeError):
            oxt.supported_operators("13")


class Packs(unittest.TestCase):
    def tearDown(self):
        oxt.unregister_custom_op_symbolic("::relu", 9)

    def test_agrees_with_oxport_plugins(self):
        cli = cli_json("plugins")["packs"]
        got = oxt.packs()
        self.assertEqual([(p["name"], p["version"], p["path"], list(p["abi"])) for p in got],
                         [(p["name"], p["version"], p["path"], p["abi"]) for p in cli])
        for g, c in zip(got, cli):
            names = []
            for o in g["operators"]:
                if not names or names[-1][0] != o["name"]:
                    names.append((o["name"], []))
                names[-1][1].append(o["since_opset"])
            self.assertEqual(names, [(o["name"], o["since_opsets"]) for o in c["operators"]])

    def test_a_registration_is_a_pack_overriding_the_builtin(self):
        oxt.register_custom_op_symbolic("::relu", lambda g, x: g.op("Relu", x), 9)
        got = oxt.packs()
        mine = [p for p in got if p["path"].startswith("python:")]
        self.assertEqual(len(mine), 1)
        self.assertTrue(mine[0]["configured"])
        (relu,) = mine[0]["operators"]
        self.assertEqual(relu["name"], "aten::relu")
        aten = [p for p in got if p["name"] == "aten"][0]
        self.assertEqual(relu["overrides"], aten["path"])
        self.assertEqual(mine[0]["n_overrides"], 1)
        self.assertEqual(aten["n_overrides"], 0)
        row = {o["name"]: o for o in oxt.supported_operators(9)}["aten::relu"]
        self.assertEqual(row["pack"], mine[0]["name"])


class CheckPack(unittest.TestCase):
    def test_the_lines_of_plugins_check(self):
        bad = os.path.join(BUILD, "tests", "fixtures", "plugins", "libfx_baddecl.so")
        lines = oxt.check_pack(bad)
        cli = cli_json("plugins", "--check", bad)
        self.assertEqual(lines, cli["problems"])
        self.assertEqual(len(lines), 9)
        self.assertEqual(lines[0], f"plugin {bad}: operator #0: name is NULL")
        good = os.path.join(BUILD, "plugins", "aten", "libox_aten.so")
        self.assertEqual(oxt.check_pack(good), [])
        self.assertEqual(oxt.check_pack("/nonexistent/x.so"),
                         ["plugin /nonexistent/x.so: cannot open: No such file or directory"])


if __name__ == "__main__":
    unittest.main()
