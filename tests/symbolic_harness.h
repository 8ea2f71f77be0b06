/*
 * What the symbolic-pack suites (test_symbolics, test_symbolics_extra)
 * share: a context with only the build-tree packs, deterministic inputs, a
 * thin layer over the public tracer, and the steps that write a converted
 * graph, run onnx.checker on it and feed it to ONNX Runtime.  Comparing the
 * outputs stays in each suite: their messages differ.  Every helper fails
 * the running Check test instead of returning an error.
 */
#ifndef OXPORT_TESTS_SYMBOLIC_HARNESS_H
#define OXPORT_TESTS_SYMBOLIC_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oxport/oxport.h"
#include "test_util.h"

/* A loaded context with the build tree's aten pack, plus nn_functions when
 * asked. */
ox_context *sym_new_ctx(bool nn_functions);

/* n deterministic values in [-half, half) from `seed`; half is a power of two
 * so the scaling is exact. */
float *rnd_array(size_t n, unsigned seed, float half);

size_t numel(int rank, const int64_t *dims);

/* A trace under way; x is the first input when the suite's begin helper adds
 * one. */
typedef struct tb {
    ox_context *ctx;
    ox_trace *t;
    ox_vid x;
} tb;

/* Begins a trace of `model` in ctx, which the tb owns from here on. */
tb tb_open(ox_context *ctx, const char *model);
ox_vid tb_input(tb *b, const char *name, ox_dtype dt, int rank, const int64_t *dims);
ox_vid tb_param(tb *b, const char *name, int rank, const int64_t *dims, const float *data);
/* One float output of shape dims. */
ox_vid tb_op(tb *b, const char *kind, size_t n_args, const ox_arg *args, int rank,
             const int64_t *dims);
ox_graph *tb_finish(tb *b);

/* One model input as tools/ort/run.js reads it. */
typedef struct feed {
    const char *name;
    const char *dtype; /* run.js names: float32, int64 */
    int rank;
    const int64_t *dims;
    const void *data;
    size_t elem_size;
} feed;

void write_file(const char *path, const void *data, size_t n);
/* The whole file, malloc'd (one spare byte); its size in *n. */
void *read_file(const char *path, size_t *n);

/* Converts `traced` at `opset`, writes dir/model.onnx and has onnx.checker
 * (full_check) accept it. */
void sym_write_checked(ox_context *ctx, const ox_graph *traced, int opset, const char *dir);

/* Writes the feeds under dir/in and runs dir/model.onnx in ONNX Runtime; the
 * outputs land in dir/out/output_<i>.bin. */
void sym_run_ort(const char *dir, int opset, size_t n_feeds, const feed *feeds);

#endif
