#!/bin/sh
# Reading a model back: `oxport check` and `oxport dump` beside onnx's own
# checker on the same file, each in a fresh process (/usr/bin/time -v): wall
# time and peak RSS.  The model is one Add with a float32 initializer of MIB
# MiB, saved by onnx twice: with its data beside it (external data) and with
# the data inside the .onnx file (raw_data).
#
# usage: benchmarks/read_rss.sh [MIB (default 512)] [BUILDDIR (default build)] [WORKDIR (default /var/tmp)]
set -eu
mib=${1:-512}
builddir=${2:-build}
workroot=${3:-/var/tmp}
src=$(cd "$(dirname "$0")/.." && pwd)
oxport=$(cd "$builddir" && pwd)/tools/oxport
[ -x "$oxport" ] || { echo "no $oxport: build first (ninja -C $builddir)" >&2; exit 2; }
export OXPORT_OPSET_DIR="$src/opset"
work=$(mktemp -d "$workroot/oxport-check-rss.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

/usr/bin/python3 - "$work" "$mib" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
work, mib = sys.argv[1], int(sys.argv[2])
n = mib * 1024 * 1024 // 4
w = numpy_helper.from_array(np.linspace(-1, 1, n, dtype=np.float32), "w")
io = [helper.make_tensor_value_info(k, TensorProto.FLOAT, [n]) for k in ("x", "y")]
g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g", io[:1], io[1:], [w])
model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, f"{work}/inline.onnx")
onnx.save(model, f"{work}/m.onnx", save_as_external_data=True, location="m.data")
PY
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "external: m.onnx $(stat -c %s "$work/m.onnx") bytes + m.data $(stat -c %s "$work/m.data") bytes"
echo "inline: inline.onnx $(stat -c %s "$work/inline.onnx") bytes"

. "$src/benchmarks/timed_run.sh"

for f in m inline; do
    echo "== $f.onnx"
    run "oxport check" "$oxport" check "$work/$f.onnx"
    run "oxport dump" "$oxport" dump "$work/$f.onnx"
    run "onnx.checker.check_model(path)" /usr/bin/python3 -c \
        "import onnx, sys; onnx.checker.check_model(sys.argv[1])" "$work/$f.onnx"
    run "onnx.load + check_model" /usr/bin/python3 -c \
        "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))" "$work/$f.onnx"
done
run "python3 -c 'import onnx' (interpreter floor)" /usr/bin/python3 -c "import onnx"
