#!/bin/sh
# Build the libFuzzer targets (never part of the meson build or CI).
#   tests/fuzz/build.sh BUILDDIR [OUTDIR]
# BUILDDIR is a configured meson build directory (for the generated
# onnx.pb-c.c); OUTDIR defaults to BUILDDIR/fuzz.  Needs clang with
# libclang-rt (Debian: clang, libclang-rt-14-dev).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: tests/fuzz/build.sh BUILDDIR [OUTDIR]}
out=${2:-$build/fuzz}
ninja -C "$build" src/onnx.pb-c.c src/onnx.pb-c.h >/dev/null
mkdir -p "$out"
engine=""
for f in arena strset report ir dtype context trace plugin_load symbolic_api opset_yaml config \
         yaml_read convert passes onnx_write onnx_read check print export; do
    engine="$engine $src/src/$f.c"
done
flags="-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I$src/include -I$src/src -I$build/src
       -DOXPORT_BUILDING_LIBRARY -DOXPORT_PLUGINDIR=\"/nonexistent\"
       -DOXPORT_OPSETDIR=\"$src/opset\" -DOXPORT_VERSION=\"fuzz\""
for t in read opset_yaml config; do
    # shellcheck disable=SC2086
    clang $flags -o "$out/fuzz_$t" "$src/tests/fuzz/fuzz_$t.c" $engine \
        "$build/src/onnx.pb-c.c" -lprotobuf-c -lyaml -ldl -lm
    echo "built $out/fuzz_$t"
done
