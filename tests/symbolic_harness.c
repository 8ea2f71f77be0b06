#include "symbolic_harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "test_util.h"

ox_context *sym_new_ctx(bool nn_functions)
{
    ox_context *ctx = NULL;
    char path[4096];
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    snprintf(path, sizeof path, "%s/plugins/aten", builddir());
    ck_assert_int_eq(ox_context_add_plugin_path(ctx, path), OX_OK);
    if (nn_functions) {
        snprintf(path, sizeof path, "%s/plugins/nn_functions", builddir());
        ck_assert_int_eq(ox_context_add_plugin_path(ctx, path), OX_OK);
    }
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "load: %s", ox_errmsg(ctx));
    return ctx;
}

float *rnd_array(size_t n, unsigned seed, float half)
{
    float *a = malloc(n * sizeof *a);
    ck_assert_ptr_nonnull(a);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        a[i] = (float)((seed >> 8) & 0xffff) / (32768.0f / half) - half;
    }
    return a;
}

size_t numel(int rank, const int64_t *dims)
{
    size_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= (size_t)dims[i];
    return n;
}

/* ------------------------------------------------------------ trace helpers */

tb tb_open(ox_context *ctx, const char *model)
{
    tb b = {ctx, NULL, 0};
    ck_assert_int_eq(ox_trace_begin(b.ctx, model, &b.t), OX_OK);
    return b;
}

ox_vid tb_input(tb *b, const char *name, ox_dtype dt, int rank, const int64_t *dims)
{
    ox_vid v = 0;
    ck_assert_msg(ox_trace_input(b->t, name, dt, (uint32_t)rank, dims, &v) == OX_OK, "%s",
                  ox_errmsg(b->ctx));
    return v;
}

ox_vid tb_param(tb *b, const char *name, int rank, const int64_t *dims, const float *data)
{
    ox_vid v = 0;
    ck_assert_msg(ox_trace_param(b->t, name, OX_FLOAT, (uint32_t)rank, dims, data, OX_COPY, &v) ==
                      OX_OK,
                  "%s", ox_errmsg(b->ctx));
    return v;
}

ox_vid tb_op(tb *b, const char *kind, size_t n_args, const ox_arg *args, int rank,
             const int64_t *dims)
{
    ox_vid v = 0;
    ox_tensor_desc d = {OX_FLOAT, (uint32_t)rank, dims};
    ck_assert_msg(ox_trace_op(b->t, kind, n_args, args, 1, &d, &v) == OX_OK, "%s: %s", kind,
                  ox_errmsg(b->ctx));
    return v;
}

ox_graph *tb_finish(tb *b)
{
    ox_graph *g = NULL;
    ck_assert_msg(ox_trace_finish(b->t, &g) == OX_OK, "%s", ox_errmsg(b->ctx));
    b->t = NULL;
    return g;
}

/* ------------------------------------------------ export, check, run in ORT */

void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    fclose(f);
}

void *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(fread(p, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return p;
}

void sym_write_checked(ox_context *ctx, const ox_graph *traced, int opset, const char *dir)
{
    char path[4200], cmd[16384];
    ox_graph *onnx = NULL;
    ck_assert_msg(ox_convert(ctx, traced, opset, &onnx) == OX_OK, "opset %d: %s", opset,
                  ox_errmsg(ctx));
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    ox_export_options opts;
    ox_export_options_init(&opts);
    opts.opset = opset;
    ck_assert_msg(ox_write(ctx, onnx, path, &opts) == OX_OK, "opset %d: %s", opset,
                  ox_errmsg(ctx));
    ox_graph_free(onnx);

    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 '%s/tests/py/onnxval.py' check '%s/model.onnx' >/dev/null",
             srcdir(), dir);
    ck_assert_msg(system(cmd) == 0, "opset %d: onnx.checker rejected the model (%s)", opset,
                  dir);
}

void sym_run_ort(const char *dir, int opset, size_t n_feeds, const feed *feeds)
{
    char path[4200], cmd[16384], json[4096];
    snprintf(path, sizeof path, "%s/in", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    size_t jl = 0;
    jl += (size_t)snprintf(json + jl, sizeof json - jl, "[");
    for (size_t i = 0; i < n_feeds; i++) {
        jl += (size_t)snprintf(json + jl, sizeof json - jl,
                               "%s{\"name\": \"%s\", \"dtype\": \"%s\", \"dims\": [", i ? ", " : "",
                               feeds[i].name, feeds[i].dtype);
        for (int d = 0; d < feeds[i].rank; d++)
            jl += (size_t)snprintf(json + jl, sizeof json - jl, "%s%lld", d ? ", " : "",
                                   (long long)feeds[i].dims[d]);
        jl += (size_t)snprintf(json + jl, sizeof json - jl, "], \"file\": \"input_%zu.bin\"}", i);
        snprintf(path, sizeof path, "%s/in/input_%zu.bin", dir, i);
        write_file(path, feeds[i].data, numel(feeds[i].rank, feeds[i].dims) * feeds[i].elem_size);
    }
    jl += (size_t)snprintf(json + jl, sizeof json - jl, "]");
    snprintf(path, sizeof path, "%s/in/inputs.json", dir);
    write_file(path, json, jl);

    snprintf(cmd, sizeof cmd, "node '%s/tools/ort/run.js' '%s/model.onnx' '%s/in' '%s/out'",
             srcdir(), dir, dir, dir);
    ck_assert_msg(system(cmd) == 0, "opset %d: ONNX Runtime failed (%s)", opset, dir);
}
