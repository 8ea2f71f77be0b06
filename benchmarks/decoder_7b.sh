#!/bin/sh
# Export a LLaMA-7B-shaped decoder (6.74 B parameters, 13.5 GB of float16)
# from the C host without ever loading it: `oxport export decoder
# --shape-only --weights FILE --external-data`, where every parameter is a
# region of a safetensors-layout file the engine copies in 4 MiB chunks.
# Prints time and peak RSS (fresh process, /usr/bin/time -v) beside the floor
# for the same bytes: a plain `cp` of the weights file to the same disk; then
# `oxport check` of the written model, which reads it back.
# A smaller configuration runs first, and there the eager export too (the
# host builds float32 weights in memory and the engine streams them).
#
# usage: benchmarks/decoder_7b.sh [BUILDDIR] [WORKDIR]
#   BUILDDIR  meson build directory (default: build)
#   WORKDIR   where the weights and exports go (default: /var/tmp); needs
#             ~29 GB free for 7B; everything written is deleted at the end.
#   SIZES=small  skips the 7B run; SMALL_CONFIG=... replaces the smaller size.
# Disk-heavy: run it with nothing else writing, e.g. `nice benchmarks/decoder_7b.sh`.
set -eu
builddir=${1:-build}
workroot=${2:-/var/tmp}
src=$(cd "$(dirname "$0")/.." && pwd)
oxport=$(cd "$builddir" && pwd)/tools/oxport
[ -x "$oxport" ] || { echo "no $oxport: build first (ninja -C $builddir)" >&2; exit 2; }
export OXPORT_PLUGIN_PATH="$(cd "$builddir" && pwd)/plugins/aten:$(cd "$builddir" && pwd)/plugins/nn_functions"
export OXPORT_OPSET_DIR="$src/opset" OXPORT_NO_DEFAULT_PLUGINDIR=1

work=$(mktemp -d "$workroot/oxport-decoder-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

SMALL=${SMALL_CONFIG:-layers=8,dim=2048,hidden=5504,heads=16,vocab=32000}  # 0.54 B parameters
LLAMA7B="layers=32,dim=4096,hidden=11008,heads=32,vocab=32000"   # LLaMA-7B

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
echo "work directory: $work ($(df -h --output=fstype,avail "$work" | tail -1 | tr -s ' '))"

. "$src/benchmarks/timed_run.sh"

need_free() { # bytes
    avail=$(df --output=avail -B1 "$work" | tail -1)
    if [ "$avail" -lt "$1" ]; then
        echo "not enough disk in $work: $avail bytes free, need $1" >&2
        exit 1
    fi
}

bench() {
    name=$1 config=$2 eager=$3
    d="$work/$name"
    mkdir -p "$d/eager" "$d/shape" "$d/copy"
    params=$("$oxport" export decoder --decoder-config "$config" --list | awk '$1 == "decoder" {print $2}')
    echo
    echo "== $name: --decoder-config $config ($params parameters)"
    run "generate float16 weights (--save-weights)" \
        "$oxport" export decoder --decoder-config "$config" --save-weights "$d/w.safetensors" \
        --weights-dtype float16
    size=$(stat -c %s "$d/w.safetensors")
    echo "  weights file: $size bytes ($(awk -v b="$size" 'BEGIN {printf "%.2f", b / 1073741824}') GiB)"
    need_free $((size * 11 / 10))
    sync
    run "oxport export --shape-only --external-data" \
        "$oxport" export decoder --decoder-config "$config" --shape-only \
        --weights "$d/w.safetensors" --external-data -o "$d/shape/model.onnx"
    side=$(ls "$d/shape"/*.data)
    echo "  wrote model.onnx $(stat -c %s "$d/shape/model.onnx") bytes + $(basename "$side") $(stat -c %s "$side") bytes"
    # reading the file back loads no large initializer (they stay in the data file)
    run "oxport check of the written model" "$oxport" check "$d/shape/model.onnx"
    rm -f "$d/shape"/*
    sync
    run "floor: cp of the weights file, same disk" cp "$d/w.safetensors" "$d/copy/w"
    rm -f "$d/copy/w"
    if [ "$eager" = yes ]; then
        sync
        run "eager export (float32 weights in memory)" \
            "$oxport" export decoder --decoder-config "$config" --external-data \
            -o "$d/eager/model.onnx"
        rm -f "$d/eager"/*
    fi
    rm -f "$d/w.safetensors"
}

bench small "$SMALL" yes
if [ "${SIZES:-all}" != small ]; then
    bench 7b "$LLAMA7B" no
fi
