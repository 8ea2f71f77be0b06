#!/usr/bin/python3
"""oxport.torch.export / verify against the real engine: the seed's AlexNet example,
options, file objects, error reports, custom autograd Functions."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402
from oxport import _engine  # noqa: E402
from oxport.models import word_language_model as wlm  # noqa: E402


class ConstantPadNd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, pad, value=0.0):
        return F.pad(input, pad, value=value)


class Doubler(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        return input * 2


class Inner(nn.Module):
    def forward(self, x):
        return torch.erfinv(x).cumsum(1)


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Inner()

    def forward(self, x):
        return self.body(x) + 1


class Api(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-api-")

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def assert_file_matches(self, model, args, path, opset=None):
        """The file computes the model on `args` and on a second input of the same shapes
        (tests/py/modelcheck.py's rule; torch.onnx.export is the reference at `opset`)."""
        args = args if isinstance(args, tuple) else (args,)
        arg_sets = [args, modelcheck.other_values(args)]
        names = modelcheck.graph_input_names(path)
        feeds, wants = [], []
        was = model.training
        model.eval()
        for a in arg_sets:
            arrays = [t.numpy() for t in oxt._recorder.tensors_in(a)]
            self.assertEqual(len(arrays), len(names), names)
            feeds.append(dict(zip(names, arrays)))
            with torch.no_grad():
                wants.append([t.numpy() for t in oxt._recorder.tensors_in(model(*a))])
        model.train(was)
        modelcheck.assert_nontrivial(os.path.basename(path), wants)
        modelcheck.assert_matches(os.path.basename(path), path, feeds, wants,
                                  modelcheck.torch_onnx_reference(model, args, opset or 13, names))

    def test_seed_alexnet_example(self):
        model = torchvision.models.alexnet(weights=None).eval()
        dummy_input = torch.randn(10, 3, 224, 224)
        input_names = ["actual_input_1"] + ["learned_%d" % i for i in range(16)]
        output_names = ["output1"]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            oxt.export(model, dummy_input, self.path("alexnet.onnx"), verbose=True, input_names=input_names,
                       output_names=output_names, keep_initializers_as_inputs=True)
        printed = out.getvalue()
        self.assertTrue(printed.startswith("graph(%actual_input_1 : Float(10, 3, 224, 224)\n"), printed[:200])
        self.assertIn("onnx::Conv[dilations=[1, 1], group=1, kernel_shape=[11, 11], pads=[2, 2, 2, 2], "
                      "strides=[4, 4]](%actual_input_1, ", printed)
        self.assertIn("scope: AlexNet/Sequential[features]/Conv2d[0]\n", printed)
        self.assertIn("onnx::Flatten[axis=1]", printed)
        self.assertTrue(printed.rstrip().endswith("}"))
        self.assertEqual(printed.count("onnx::"), 20)
        m = onnx.load(self.path("alexnet.onnx"), load_external_data=False)
        self.assertEqual([i.name for i in m.graph.input], input_names)
        self.assertEqual([o.name for o in m.graph.output], output_names)
        self.assertEqual(len(m.graph.initializer), 16)
        self.assertEqual(len(m.graph.node), 20)
        res = oxt.verify(model, dummy_input, self.path("alexnet.onnx"))
        self.assertTrue(res.ok, str(res))
        self.assertEqual(res[0][0], "output1")
        self.assert_file_matches(model, dummy_input, self.path("alexnet.onnx"))

    def test_seed_alexnet_verbose_names_parameters_like_the_seed(self):
        # The seed prints the renamed parameters: %learned_0 : Float(64, 3, 11, 11).
        model = torchvision.models.alexnet(weights=None).eval()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            oxt.export(model, torch.randn(1, 3, 224, 224), self.path("a.onnx"), verbose=True,
                       input_names=["actual_input_1"] + ["learned_%d" % i for i in range(16)],
                       output_names=["output1"], keep_initializers_as_inputs=True)
        self.assertIn("      %learned_0 : Float(64, 3, 11, 11)\n", out.getvalue())
        self.assertIn("return (%output1)", out.getvalue())

    def test_file_object_gets_the_same_bytes_as_a_path(self):
        m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()).eval()
        x = torch.randn(1, 3, 8, 8)
        oxt.export(m, x, self.path("p.onnx"))
        buf = io.BytesIO()
        oxt.export(m, x, buf)
        with open(self.path("p.onnx"), "rb") as f:
            self.assertEqual(buf.getvalue(), f.read())

    def test_functions_at_the_default_opset_give_torch_onnx_error(self):
        # the config's target opset (13) has no local functions; tests/pytorch/test_functions.py
        # covers them from opset 15
        m = nn.Linear(2, 2)
        with self.assertRaises(ValueError) as cm:
            oxt.export(m, torch.randn(1, 2), self.path("x.onnx"), export_modules_as_functions=True)
        self.assertTrue(str(cm.exception).startswith(
            "`export_modules_as_functions` is not supported for `opset_version` < 15."))
        self.assertFalse(os.path.exists(self.path("x.onnx")))

    def test_unsupported_ops_are_all_reported_with_scope_and_no_file_is_left(self):
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(Outer(), torch.rand(2, 3), self.path("e.onnx"), opset_version=9)
        e = cm.exception
        self.assertEqual(e.status, "OX_EUNSUPPORTED")
        lines = e.report.splitlines()
        self.assertEqual(lines[0], "Couldn't export operator(s): 2 problem(s) at opset 9:")
        self.assertIn("  - ONNX export failed on erfinv because no symbolic for aten::erfinv is registered "
                      "(scope: Outer/Inner[body])", lines)
        self.assertIn("  - ONNX export failed on cumsum because aten::cumsum has no symbolic at this opset "
                      "(scope: Outer/Inner[body]); supported from opset 11", lines)
        self.assertFalse(os.path.exists(self.path("e.onnx")))

    def test_custom_function_with_a_pack_is_exported(self):
        class M(nn.Module):
            def forward(self, x):
                return ConstantPadNd.apply(torch.relu(x), (1, 2), 0.5)

        x = torch.randn(2, 3)
        for opset in (9, 13, 17):
            oxt.export(M(), x, self.path("pad.onnx"), opset_version=opset)
            onnxval.check(self.path("pad.onnx"))
            self.assert_file_matches(M(), x, self.path("pad.onnx"), opset)

    def test_custom_function_without_a_pack_is_reported(self):
        class M(nn.Module):
            def forward(self, x):
                return Doubler.apply(x)

        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(M(), torch.rand(2, 3), self.path("d.onnx"), opset_version=13)
        self.assertEqual(cm.exception.report, "Couldn't export operator(s): 1 problem(s) at opset 13:\n"
                                              "  - ONNX export failed on Doubler because no symbolic for "
                                              "fn::Doubler is registered (scope: M)")

    def test_export_params_false_makes_parameters_inputs(self):
        oxt.export(nn.Linear(3, 4), torch.randn(2, 3), self.path("l.onnx"), export_params=False,
                   input_names=["x"])
        m = onnx.load(self.path("l.onnx"))
        self.assertEqual([i.name for i in m.graph.input], ["x", "weight", "bias"])
        self.assertEqual(len(m.graph.initializer), 0)

    def test_training_mode_is_restored(self):
        m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
        m.train()
        oxt.export(m, torch.randn(1, 3), self.path("t.onnx"))
        self.assertTrue(m.training)
        # EVAL (the default) exported dropout as inference: the file is deterministic.
        self.assert_file_matches(m, torch.randn(1, 3), self.path("t.onnx"))

    def test_mixed_training_modes_come_back_module_by_module(self):
        """A training model with a frozen submodule in eval mode gets each module's own
        mode back, under every TrainingMode."""
        m = nn.Sequential(nn.Linear(3, 3), nn.Sequential(nn.BatchNorm1d(3), nn.Dropout(0.5)), nn.Dropout(0.2))
        m.train()
        m[1].eval()
        before = [x.training for x in m.modules()]
        self.assertIn(False, before)
        for mode in (torch.onnx.TrainingMode.EVAL, torch.onnx.TrainingMode.TRAINING,
                     torch.onnx.TrainingMode.PRESERVE):
            with self.subTest(mode=mode):
                oxt.export(m, torch.randn(4, 3), self.path("t.onnx"), training=mode)
                self.assertEqual([x.training for x in m.modules()], before)

    def test_nested_outputs_and_output_names(self):
        m = wlm.RNNModel("LSTM", 30, ninp=8, nhid=8).eval()
        tokens = torch.randint(0, 30, (4, 1))
        hidden = m.init_hidden(1)
        oxt.export(m, (tokens, hidden), self.path("w.onnx"), input_names=["tokens", "h0", "c0"],
                   output_names=["logp", "hn", "cn"])
        mm = onnx.load(self.path("w.onnx"))
        self.assertEqual([i.name for i in mm.graph.input if i.name not in {t.name for t in mm.graph.initializer}],
                         ["tokens", "h0", "c0"])
        self.assertEqual([o.name for o in mm.graph.output], ["logp", "hn", "cn"])
        res = oxt.verify(m, (tokens, hidden), self.path("w.onnx"))
        self.assertEqual([r[0] for r in res], ["logp", "hn", "cn"])
        self.assertTrue(res.ok, str(res))
        self.assert_file_matches(m, (tokens, hidden), self.path("w.onnx"))

    def test_verify_detects_a_different_model(self):
        x = torch.randn(1, 3)
        oxt.export(nn.Linear(3, 2), x, self.path("a.onnx"))
        res = oxt.verify(nn.Linear(3, 2), x, self.path("a.onnx"))
        self.assertFalse(res.ok)
        with self.assertRaises(AssertionError):
            oxt.verify(nn.Linear(3, 2), x, self.path("a.onnx"), raise_on_mismatch=True)

    def test_export_options_struct_matches_the_library(self):
        import ctypes
        opts = _engine.OxExportOptions()
        _engine.lib().ox_export_options_init(ctypes.byref(opts))
        self.assertEqual(opts.struct_size, ctypes.sizeof(_engine.OxExportOptions))
        self.assertEqual(opts.keep_initializers_as_inputs, -1)
        self.assertEqual(opts.export_params, 1)

    def test_non_contiguous_parameter_is_exported_correctly(self):
        m = nn.Linear(4, 3).eval()
        m.weight = nn.Parameter(torch.randn(4, 3).t())  # a transposed view: not contiguous
        self.assertFalse(m.weight.is_contiguous())
        x = torch.randn(2, 4)
        oxt.export(m, x, self.path("nc.onnx"))
        self.assert_file_matches(m, x, self.path("nc.onnx"))

    def test_trace_problems_are_export_errors(self):
        def f(x):
            return x * 2

        class M(nn.Module):
            def forward(self, x):
                return f(x)

        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(M(), torch.randn(2, 3, dtype=torch.complex64), self.path("v.onnx"))
        self.assertEqual(cm.exception.status, "OX_EUNSUPPORTED")
        self.assertIn("tensors of dtype torch.complex64 cannot be exported", str(cm.exception))
        self.assertFalse(os.path.exists(self.path("v.onnx")))

    def test_opset_import_follows_opset_version(self):
        for opset in (9, 13, 17):
            oxt.export(nn.Linear(2, 2), torch.randn(1, 2), self.path("o.onnx"), opset_version=opset)
            m = onnx.load(self.path("o.onnx"))
            self.assertEqual([o.version for o in m.opset_import if o.domain == ""], [opset])

    def test_bad_path_is_an_export_error(self):
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(nn.Linear(2, 2), torch.randn(1, 2), "/nonexistent-dir/x.onnx")
        self.assertEqual(cm.exception.status, "OX_EIO")
        self.assertIn("/nonexistent-dir/x.onnx", cm.exception.report)

    # ------------------------------------------------------- argument validation

    def assert_refused(self, message, **kw):
        args = dict(model=nn.Linear(2, 2), args=torch.randn(1, 2), f=self.path("v.onnx"))
        args.update(kw)
        with self.assertRaises(ValueError) as cm:
            oxt.export(**args)
        self.assertEqual(str(cm.exception), message)
        self.assertFalse(os.path.exists(self.path("v.onnx")))

    def test_opset_version_out_of_range_is_refused_not_replaced(self):
        self.assert_refused("oxport.torch.export: opset_version must be a positive ONNX opset "
                            "number (such as 13), got 1099511627776", opset_version=2**40)
        self.assert_refused("oxport.torch.export: opset_version must be a positive ONNX opset "
                            "number (such as 13), got 0", opset_version=0)
        self.assert_refused("oxport.torch.export: opset_version must be an integer, got float 13.5",
                            opset_version=13.5)
        self.assert_refused("oxport.torch.export: opset_version must be an integer, not a bool (True)",
                            opset_version=True)
        # in C int range but not an opset the engine has: its own message, never empty
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(nn.Linear(2, 2), torch.randn(1, 2), self.path("v.onnx"), opset_version=2**31 - 1)
        self.assertIn("2147483647", cm.exception.report)

    def test_nul_byte_in_a_path_is_refused(self):
        self.assert_refused("oxport.torch.export: f '" + self.path("a") + "\\x00b.onnx' contains a "
                            "NUL byte at offset " + str(len(self.path("a"))) + "; a file name cannot "
                            "hold one", f=self.path("a") + "\0b.onnx")
        self.assertFalse(os.path.exists(self.path("a")))
        self.assert_refused("oxport.torch.export: config 'x\\x00.yaml' contains a NUL byte at "
                            "offset 1; a file name cannot hold one", config="x\0.yaml")
        self.assert_refused("oxport.torch.export: input_names[0] 'a\\x00' contains a NUL byte",
                            input_names=["a\0"])

    def test_context_load_beside_the_trace_reports_as_before(self):
        """The opset descriptors and packs load on a thread while the forward is traced.
        A load that fails is still the error reported, in place of the trace's own, and
        no thread outlives an export, failed or not."""
        packs = self.path("packs")
        os.mkdir(packs)
        with open(os.path.join(packs, "libbroken.so"), "wb") as f:
            f.write(b"not a shared object")
        cfg = self.path("broken-pack.yaml")
        with open(cfg, "w") as f:
            f.write("plugin_dirs: [" + packs + "]\n")

        class Raises(nn.Module):
            def forward(self, x):
                raise ValueError("the forward failed")
        threads = threading.active_count()
        for model in (nn.Linear(2, 2), Raises()):
            with self.subTest(model=type(model).__name__):
                with self.assertRaises(oxt.ExportError) as cm:
                    oxt.export(model, torch.randn(1, 2), self.path("l.onnx"), config=cfg)
                self.assertIn("libbroken.so", str(cm.exception))
                self.assertEqual(cm.exception.call, "ox_context_load")
                self.assertFalse(os.path.exists(self.path("l.onnx")))
                self.assertEqual(threading.active_count(), threads)
        with self.assertRaises(ValueError):  # with a good load, the trace's error is raised
            oxt.export(Raises(), torch.randn(1, 2), self.path("l.onnx"))
        oxt.export(nn.Linear(2, 2), torch.randn(1, 2), self.path("l.onnx"))
        self.assertEqual(threading.active_count(), threads)

    def test_dynamic_axes_out_of_range_names_the_input_and_axis(self):
        self.assert_refused("oxport.torch.export: dynamic_axes['x'] names axis 2, but input 'x' has "
                            "rank 2 (axes 0 to 1)", input_names=["x"], dynamic_axes={"x": [0, 2]})
        self.assert_refused("oxport.torch.export: dynamic_axes['y'] names axis 5, but output 'y' has "
                            "rank 2 (axes 0 to 1)", input_names=["x"], output_names=["y"],
                            dynamic_axes={"y": {5: "batch"}})
        self.assert_refused("oxport.torch.export: dynamic_axes['x']: axis -1 must be non-negative (0 "
                            "is the first dimension)", input_names=["x"], dynamic_axes={"x": [-1]})
        self.assert_refused("oxport.torch.export: dynamic_axes['x']: axis '0' must be an integer, got "
                            "str", input_names=["x"], dynamic_axes={"x": ["0"]})
        self.assert_refused("oxport.torch.export: dynamic_axes['x'] must be a dict {axis: dim_name} or "
                            "a list of axes, got int 0", input_names=["x"], dynamic_axes={"x": 0})
        # valid axes still export
        oxt.export(nn.Linear(2, 2), torch.randn(1, 2), self.path("ok.onnx"), input_names=["x"],
                   dynamic_axes={"x": {0: "batch"}})
        m = onnx.load(self.path("ok.onnx"))
        self.assertEqual(m.graph.input[0].type.tensor_type.shape.dim[0].dim_param, "batch")

    def test_dynamic_axes_list_naming_an_axis_twice_warns_like_torch_onnx(self):
        with self.assertWarnsRegex(UserWarning, "Duplicate dynamic axis index 0 was provided for input x"):
            oxt.export(nn.Linear(3, 2), torch.randn(2, 3), self.path("d.onnx"), input_names=["x"],
                       dynamic_axes={"x": [0, 0]})
        dims = onnx.load(self.path("d.onnx")).graph.input[0].type.tensor_type.shape.dim
        self.assertEqual([d.dim_param or d.dim_value for d in dims], ["x_dynamic_axes_1", 3])

    def test_sync_fsyncs_only_when_asked(self):
        if subprocess.run(["strace", "-V"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            self.skipTest("no strace (tools/install-deps installs it)")
        script = ("import sys, torch; sys.path.insert(0, %r); import oxport.torch as oxt; "
                  "oxt.export(torch.nn.Linear(2, 2), torch.randn(1, 2), sys.argv[1], sync=sys.argv[2] == '1')"
                  % os.path.join(SRC, "hosts", "pytorch"))
        for sync in ("0", "1"):
            trace = self.path("trace%s.txt" % sync)
            r = subprocess.run(["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=fsync", "-o", trace,
                                "/usr/bin/python3", "-c", script, self.path("s.onnx"), sync],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ)
            self.assertEqual(r.returncode, 0, r.stderr.decode()[-2000:])
            with open(trace) as t:
                n = t.read().count("fsync(")
            self.assertEqual(n, 2 if sync == "1" else 0, "sync=%s" % sync)
            onnxval.check(self.path("s.onnx"))

    def test_direct_io_writes_the_same_file(self):
        # 9 MiB of weights: past the 8 MiB below which direct I/O is not used
        torch.manual_seed(0)
        model = nn.Linear(2048, 1152)
        x = torch.randn(3, 2048)
        for mode in (None, True, False):
            oxt.export(model, x, self.path("m_%s.onnx" % mode), direct_io=mode)
        with open(self.path("m_None.onnx"), "rb") as f:
            want = f.read()
        self.assertGreater(len(want), 9 << 20)
        for mode in (True, False):
            with open(self.path("m_%s.onnx" % mode), "rb") as f:
                self.assertEqual(f.read(), want, "direct_io=%s" % mode)
        onnxval.check(self.path("m_True.onnx"))
        self.assert_file_matches(model, x, self.path("m_True.onnx"))
        with self.assertRaisesRegex(TypeError, "direct_io must be True, False or None, not 'yes'"):
            oxt.export(model, x, self.path("bad.onnx"), direct_io="yes")
        self.assertFalse(os.path.exists(self.path("bad.onnx")))

    def test_direct_io_uses_o_direct_only_when_asked(self):
        if subprocess.run(["strace", "-V"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            self.skipTest("no strace (tools/install-deps installs it)")
        script = ("import sys, torch; sys.path.insert(0, %r); import oxport.torch as oxt; "
                  "d = {'None': None, 'True': True, 'False': False}[sys.argv[2]]; "
                  "oxt.export(torch.nn.Linear(2048, 1152), torch.randn(1, 2048), sys.argv[1], direct_io=d, "
                  "sync=sys.argv[3] == '1')" % os.path.join(SRC, "hosts", "pytorch"))
        for mode, sync, want in (("None", "0", False), ("True", "0", True), ("False", "1", False),
                                 ("None", "1", True)):
            trace = self.path("trace.txt")
            r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=fcntl", "-o", trace,
                                "/usr/bin/python3", "-c", script, self.path("d.onnx"), mode, sync],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ)
            self.assertEqual(r.returncode, 0, r.stderr.decode()[-2000:])
            with open(trace) as t:
                text = t.read()
            on = any("F_SETFL" in line and "|O_DIRECT" in line for line in text.splitlines())
            self.assertEqual(on, want, "direct_io=%s sync=%s" % (mode, sync))

    def test_export_does_not_import_torchvision(self):
        # The torchvision patches apply only once the model's process has imported it;
        # importing it for a plain model would add about 0.6 s to the export.
        script = ("import sys, torch; sys.path.insert(0, %r); import oxport.torch as oxt; "
                  "oxt.export(torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU()), "
                  "torch.randn(1, 1, 5, 5), sys.argv[1]); print('torchvision' in sys.modules)"
                  % os.path.join(SRC, "hosts", "pytorch"))
        r = subprocess.run(["/usr/bin/python3", "-c", script, self.path("plain.onnx")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ)
        self.assertEqual(r.returncode, 0, r.stderr.decode()[-2000:])
        self.assertEqual(r.stdout.decode().split(), ["False"])
        onnxval.check(self.path("plain.onnx"))


if __name__ == "__main__":
    unittest.main()
