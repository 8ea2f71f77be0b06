#!/bin/sh
# Build the libFuzzer targets (not part of the meson build; CI runs them for
# a bounded time through tests/fuzz/run-bounded).
#   tests/fuzz/build.sh BUILDDIR [OUTDIR]
# BUILDDIR is a configured meson build directory: the engine's source list is
# read from it (meson introspect, target oxport_internal), so a new source
# file in src/meson.build is never missed, and it provides the generated
# onnx.pb-c.c.  OUTDIR defaults to BUILDDIR/fuzz.  Needs clang with
# libclang-rt (Debian: clang, libclang-rt-14-dev; tools/install-deps).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: tests/fuzz/build.sh BUILDDIR [OUTDIR]}" && pwd)
out=${2:-$build/fuzz}
ninja -C "$build" src/onnx.pb-c.c src/onnx.pb-c.h >/dev/null
mkdir -p "$out"
engine=$(meson introspect --targets "$build" | python3 -c '
import json, sys
srcs = [s for t in json.load(sys.stdin) if t["name"] == "oxport_internal"
        for ts in t["target_sources"] for s in ts.get("sources", [])
        if s.endswith(".c") and not s.endswith("onnx.pb-c.c")]
if not srcs:
    sys.exit("tests/fuzz/build.sh: no sources for target oxport_internal in the build directory")
print(" ".join(srcs))')
[ -n "$engine" ] || { echo "tests/fuzz/build.sh: empty engine source list" >&2; exit 1; }
flags="-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=address,undefined
       -fno-sanitize-recover=undefined -I$src/include -I$src/src -I$build/src
       -DOXPORT_BUILDING_LIBRARY -DOXPORT_PLUGINDIR=\"/nonexistent\"
       -DOXPORT_OPSETDIR=\"$src/opset\" -DOXPORT_VERSION=\"fuzz\""
# the engine once (instrumented for coverage, not linked with the fuzzer's
# main), then each target against it
obj="$out/obj"
rm -rf "$obj"
mkdir -p "$obj"
# shellcheck disable=SC2086
(cd "$obj" && clang $flags -fsanitize=fuzzer-no-link -c $engine "$build/src/onnx.pb-c.c")
for t in read opset_yaml config pack_desc; do
    # shellcheck disable=SC2086
    clang $flags -fsanitize=fuzzer -o "$out/fuzz_$t" "$src/tests/fuzz/fuzz_$t.c" "$obj"/*.o \
        -lprotobuf-c -lyaml -ldl -lm
    echo "built $out/fuzz_$t"
done
