/*
 * Parameters read on demand (ox_trace_param_reader, ox_trace_param_file,
 * ox_trace_param_fd): the file written from them is byte-identical to the
 * one written from the same weights given by pointer, inline and as external
 * data, and every failure (a failing callback, a short or missing file, a
 * region past the end, a region of the wrong size) is a clean error naming
 * the parameter that leaves no file behind.
 *
 * The embedding table is larger than OX_PARAM_CHUNK and not a multiple of
 * it, so the chunked copy crosses chunk boundaries and ends on a partial one.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oxport/oxport.h>

#include "test_util.h"

enum { V = 1500, D = 1000, IN = 3, OUT = 4, ROWS = 2 }; /* table: 6,000,000 bytes */

static char dir[256];
static ox_context *ctx;
static float *table, *weight, *bias;
static char weights_path[512];
static uint64_t table_at, weight_at, bias_at; /* offsets in the weights file */

static void setup(void)
{
    strcpy(dir, "/tmp/oxport-param-source-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_ENV, &ctx),
                     OX_OK);
    char plugins[4096];
    snprintf(plugins, sizeof plugins, "%s/plugins/aten", builddir());
    ck_assert_int_eq(ox_context_add_plugin_path(ctx, plugins), OX_OK);
    char opsets[4096];
    snprintf(opsets, sizeof opsets, "%s/opset", srcdir());
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, opsets), OX_OK);

    table = malloc((size_t)V * D * sizeof(float));
    weight = malloc(OUT * IN * sizeof(float));
    bias = malloc(OUT * sizeof(float));
    ck_assert(table && weight && bias);
    uint32_t s = 12345;
    for (size_t i = 0; i < (size_t)V * D; i++) {
        s = s * 1664525u + 1013904223u;
        table[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    for (int i = 0; i < OUT * IN; i++)
        weight[i] = 0.25f * (float)(i - 5);
    for (int i = 0; i < OUT; i++)
        bias[i] = 0.5f - (float)i;

    /* a weights file with a header before the data, as a safetensors file has */
    snprintf(weights_path, sizeof weights_path, "%s/weights.bin", dir);
    FILE *f = fopen(weights_path, "wb");
    ck_assert_ptr_nonnull(f);
    static const char header[] = "not tensor bytes: a header";
    fwrite(header, 1, sizeof header, f);
    table_at = sizeof header;
    fwrite(table, sizeof(float), (size_t)V * D, f);
    weight_at = table_at + (uint64_t)V * D * sizeof(float);
    fwrite(weight, sizeof(float), OUT * IN, f);
    bias_at = weight_at + OUT * IN * sizeof(float);
    fwrite(bias, sizeof(float), OUT, f);
    ck_assert_int_eq(fclose(f), 0);
}

static void teardown(void)
{
    ox_context_free(ctx);
    free(table);
    free(weight);
    free(bias);
    rm_tree(dir);
}

static char *path_in(const char *name)
{
    return path_in_dir(dir, name);
}

/* ------------------------------------------------------------ read callback */

typedef struct reader {
    const unsigned char *bytes;
    uint64_t size;
    uint64_t expect_offset; /* calls must come in order, each byte once */
    size_t calls, max_len;
    long fail_at_call;      /* >= 0: that call returns OX_EIO */
} reader;

static ox_status read_bytes(void *user, uint64_t offset, void *dst, size_t len)
{
    reader *r = user;
    ck_assert_uint_eq(offset, r->expect_offset);
    ck_assert_uint_le(offset + len, r->size);
    ck_assert_uint_le(len, OX_PARAM_CHUNK);
    if (len > r->max_len)
        r->max_len = len;
    if ((long)r->calls++ == r->fail_at_call)
        return OX_EIO;
    memcpy(dst, r->bytes + offset, len);
    r->expect_offset += len;
    return OX_OK;
}

/* ------------------------------------------------------------------ models */

typedef enum how { BY_POINTER, BY_CALLBACK, BY_FILE, BY_FD } how;

typedef struct traced {
    ox_graph *g;
    reader readers[3];
    int fd;
} traced;

static const int64_t table_d[] = {V, D}, weight_d[] = {OUT, IN}, bias_d[] = {OUT};

static ox_status declare(ox_trace *t, traced *tr, how h, int k, const char *name,
                         uint32_t rank, const int64_t *sizes, const float *data, uint64_t at,
                         uint64_t nbytes, ox_vid *out)
{
    switch (h) {
    case BY_POINTER:
        return ox_trace_param(t, name, OX_FLOAT, rank, sizes, data, OX_BORROW, out);
    case BY_CALLBACK:
        tr->readers[k] = (reader){(const unsigned char *)data, nbytes, 0, 0, 0, -1};
        return ox_trace_param_reader(t, name, OX_FLOAT, rank, sizes, read_bytes, &tr->readers[k],
                                     out);
    case BY_FILE:
        return ox_trace_param_file(t, name, OX_FLOAT, rank, sizes, weights_path, at, nbytes, out);
    case BY_FD:
        return ox_trace_param_fd(t, name, OX_FLOAT, rank, sizes, tr->fd, at, nbytes, out);
    }
    return OX_EINVAL;
}

/* y = linear(x, weight, bias), e = embedding(table, ids) */
static void trace_model(traced *tr, how h)
{
    memset(tr, 0, sizeof *tr);
    tr->fd = -1;
    if (h == BY_FD)
        ck_assert_int_ge(tr->fd = open(weights_path, O_RDONLY), 0);
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    static const int64_t x_d[] = {ROWS, IN}, ids_d[] = {ROWS}, y_d[] = {ROWS, OUT},
                         e_d[] = {ROWS, D};
    ox_vid x, ids, w, b, tab, y, e;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, x_d, &x), OX_OK);
    ck_assert_int_eq(ox_trace_input(t, "ids", OX_INT64, 1, ids_d, &ids), OX_OK);
    ck_assert_msg(declare(t, tr, h, 0, "embed.weight", 2, table_d, table, table_at,
                          (uint64_t)V * D * 4, &tab) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_msg(declare(t, tr, h, 1, "fc.weight", 2, weight_d, weight, weight_at, OUT * IN * 4,
                          &w) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_msg(declare(t, tr, h, 2, "fc.bias", 1, bias_d, bias, bias_at, OUT * 4, &b) == OX_OK,
                  "%s", ox_errmsg(ctx));
    ox_arg lin[] = {ox_arg_tensor("input", x), ox_arg_tensor("weight", w),
                    ox_arg_tensor("bias", b)};
    ox_tensor_desc yd = {OX_FLOAT, 2, y_d}, ed = {OX_FLOAT, 2, e_d};
    ck_assert_int_eq(ox_trace_op(t, "aten::linear", 3, lin, 1, &yd, &y), OX_OK);
    ox_arg emb[] = {ox_arg_tensor("weight", tab), ox_arg_tensor("indices", ids)};
    ck_assert_int_eq(ox_trace_op(t, "aten::embedding", 2, emb, 1, &ed, &e), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, y, "y"), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, e, "e"), OX_OK);
    ck_assert_int_eq(ox_trace_finish(t, &tr->g), OX_OK);
}

static void release(traced *tr)
{
    ox_graph_free(tr->g);
    if (tr->fd >= 0)
        close(tr->fd);
}

static ox_status export_to(traced *tr, const char *path, int external)
{
    ox_export_options o;
    ox_export_options_init(&o);
    o.external_data = external;
    o.external_data_location = "weights.data"; /* one name for every variant */
    return ox_export(ctx, tr->g, path, &o);
}

/* The directory's file names, sorted, one per line. */
static char *listing(void)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    ck_assert_int_ge(n, 0);
    size_t cap = 4096, len = 0;
    char *out = calloc(1, cap);
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.' || strlen(names[i]->d_name) > 2)
            len += (size_t)snprintf(out + len, cap - len, "%s\n", names[i]->d_name);
        free(names[i]);
    }
    free(names);
    return out;
}

static void assert_same_file(const char *a, const char *b)
{
    size_t la, lb;
    unsigned char *pa = slurp(a, &la), *pb = slurp(b, &lb);
    ck_assert_msg(la == lb && memcmp(pa, pb, la) == 0, "%s (%zu bytes) and %s (%zu bytes) differ",
                  a, la, b, lb);
    free(pa);
    free(pb);
}

/* ------------------------------------------------------------------- tests */

START_TEST(inline_files_match_the_pointer_file)
{
    traced ref;
    trace_model(&ref, BY_POINTER);
    ck_assert_msg(export_to(&ref, path_in("pointer.onnx"), -1) == OX_OK, "%s", ox_errmsg(ctx));
    release(&ref);
    const how hows[] = {BY_CALLBACK, BY_FILE, BY_FD};
    const char *names[] = {"callback.onnx", "file.onnx", "fd.onnx"};
    for (int i = 0; i < 3; i++) {
        traced tr;
        trace_model(&tr, hows[i]);
        ck_assert_msg(export_to(&tr, path_in(names[i]), -1) == OX_OK, "%s", ox_errmsg(ctx));
        assert_same_file(path_in("pointer.onnx"), path_in(names[i]));
        if (hows[i] == BY_CALLBACK) {
            /* bounded chunks, every byte read once, in order */
            ck_assert_uint_eq(tr.readers[0].expect_offset, (uint64_t)V * D * 4);
            ck_assert_uint_eq(tr.readers[0].max_len, OX_PARAM_CHUNK);
            ck_assert_uint_eq(tr.readers[0].calls, ((uint64_t)V * D * 4 + OX_PARAM_CHUNK - 1) /
                                                       OX_PARAM_CHUNK);
            ck_assert_uint_eq(tr.readers[2].expect_offset, OUT * 4);
        }
        release(&tr);
    }
}
END_TEST

START_TEST(external_data_matches_the_pointer_files)
{
    ck_assert_int_eq(mkdir(path_in("p"), 0700), 0);
    ck_assert_int_eq(mkdir(path_in("f"), 0700), 0);
    ck_assert_int_eq(mkdir(path_in("c"), 0700), 0);
    traced ref, file, cb;
    trace_model(&ref, BY_POINTER);
    trace_model(&file, BY_FILE);
    trace_model(&cb, BY_CALLBACK);
    ck_assert_msg(export_to(&ref, path_in("p/m.onnx"), 1) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_msg(export_to(&file, path_in("f/m.onnx"), 1) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_msg(export_to(&cb, path_in("c/m.onnx"), 1) == OX_OK, "%s", ox_errmsg(ctx));
    assert_same_file(path_in("p/m.onnx"), path_in("f/m.onnx"));
    assert_same_file(path_in("p/m.onnx"), path_in("c/m.onnx"));
    /* same content tag, so the same side-file name, and the same bytes */
    char p_side[1024], f_side[1024], c_side[1024];
    DIR *d = opendir(path_in("p"));
    struct dirent *e;
    p_side[0] = 0;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".data"))
            snprintf(p_side, sizeof p_side, "%s/p/%s", dir, e->d_name);
    closedir(d);
    ck_assert_msg(p_side[0], "no side file written");
    const char *base = strrchr(p_side, '/') + 1;
    snprintf(f_side, sizeof f_side, "%s/f/%s", dir, base);
    snprintf(c_side, sizeof c_side, "%s/c/%s", dir, base);
    assert_same_file(p_side, f_side);
    assert_same_file(p_side, c_side);
    struct stat st;
    ck_assert_int_eq(stat(p_side, &st), 0);
    ck_assert_uint_ge((uint64_t)st.st_size, (uint64_t)V * D * 4);
    release(&ref);
    release(&file);
    release(&cb);
}
END_TEST

/* A failed export leaves the directory as it was: the earlier model kept,
 * no new model, no side file, no temp. */
static void assert_failure_leaves_nothing(traced *tr, int external, ox_status want,
                                          const char *must_mention)
{
    FILE *f = fopen(path_in("m.onnx"), "w");
    fputs("the earlier model", f);
    fclose(f);
    char *before = listing();
    ox_status st = export_to(tr, path_in("m.onnx"), external);
    ck_assert_msg(st == want, "status %d (%s), wanted %d", st, ox_errmsg(ctx), want);
    ck_assert_msg(strstr(ox_errmsg(ctx), must_mention), "message does not mention '%s': %s",
                  must_mention, ox_errmsg(ctx));
    char *after = listing();
    ck_assert_str_eq(after, before);
    char *kept = slurp_text(path_in("m.onnx"));
    ck_assert_str_eq(kept, "the earlier model");
    free(kept);
    free(before);
    free(after);
}

START_TEST(failing_callback_is_a_clean_error)
{
    for (int external = -1; external <= 1; external += 2) {
        /* the table's second chunk fails: part of it is already written */
        traced tr;
        trace_model(&tr, BY_CALLBACK);
        tr.readers[0].fail_at_call = 1;
        assert_failure_leaves_nothing(&tr, external, OX_EIO, "parameter 'embed.weight'");
        ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "read callback failed"));
        release(&tr);
        /* and the first read of a small one */
        trace_model(&tr, BY_CALLBACK);
        tr.readers[2].fail_at_call = 0;
        assert_failure_leaves_nothing(&tr, external, OX_EIO, "parameter 'fc.bias'");
        release(&tr);
    }
}
END_TEST

START_TEST(file_changed_after_the_trace_is_a_clean_error)
{
    for (int external = -1; external <= 1; external += 2) {
        traced tr;
        trace_model(&tr, BY_FILE);
        ck_assert_int_eq(truncate(weights_path, (off_t)(weight_at + 4)), 0);
        assert_failure_leaves_nothing(&tr, external, OX_EIO, "parameter 'fc.weight'");
        ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "past the end"));
        release(&tr);
        teardown();
        setup();
        /* a file gone since the trace */
        trace_model(&tr, BY_FILE);
        ck_assert_int_eq(unlink(weights_path), 0);
        assert_failure_leaves_nothing(&tr, external, OX_EIO, "parameter 'embed.weight'");
        ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "cannot open"));
        release(&tr);
        teardown();
        setup();
        /* a descriptor whose file shrank */
        trace_model(&tr, BY_FD);
        ck_assert_int_eq(truncate(weights_path, (off_t)table_at + 100), 0);
        assert_failure_leaves_nothing(&tr, external, OX_EIO, "parameter 'embed.weight'");
        release(&tr);
        teardown();
        setup();
    }
}
END_TEST

START_TEST(bad_regions_are_refused_when_traced)
{
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    ox_vid v;
    /* the length disagrees with float32[4, 3] */
    ck_assert_int_eq(ox_trace_param_file(t, "fc.weight", OX_FLOAT, 2, weight_d, weights_path,
                                         weight_at, OUT * IN * 2, &v), OX_EINVAL);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "\"fc.weight\""));
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "needs 48"));
    ck_assert_int_eq(ox_trace_param_fd(t, "fc.weight", OX_FLOAT, 2, weight_d, 0, 0, 47, &v),
                     OX_EINVAL);
    /* past the end of the file */
    ck_assert_int_eq(ox_trace_param_file(t, "fc.bias", OX_FLOAT, 1, bias_d, weights_path,
                                         bias_at + 4, OUT * 4, &v), OX_EIO);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "parameter 'fc.bias'"));
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "past the end"));
    ck_assert_int_eq(ox_trace_param_file(t, "fc.bias", OX_FLOAT, 1, bias_d, weights_path,
                                         UINT64_MAX - 8, OUT * 4, &v), OX_EINVAL);
    /* a file that is not there, a NULL callback, a bad descriptor */
    ck_assert_int_eq(ox_trace_param_file(t, "fc.bias", OX_FLOAT, 1, bias_d, path_in("missing"),
                                         0, OUT * 4, &v), OX_EIO);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "cannot open"));
    ck_assert_int_eq(ox_trace_param_reader(t, "fc.bias", OX_FLOAT, 1, bias_d, NULL, NULL, &v),
                     OX_EINVAL);
    ck_assert_int_eq(ox_trace_param_fd(t, "fc.bias", OX_FLOAT, 1, bias_d, -1, 0, OUT * 4, &v),
                     OX_EINVAL);
    ck_assert_int_eq(ox_trace_param_file(t, "fc.bias", OX_FLOAT, 1, bias_d, dir, 0, OUT * 4, &v),
                     OX_EIO);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "not a regular file"));
    /* none of the failures took the name */
    ck_assert_int_eq(ox_trace_param_file(t, "fc.bias", OX_FLOAT, 1, bias_d, weights_path, bias_at,
                                         OUT * 4, &v), OX_OK);
    ck_assert_int_eq(ox_trace_param_file(t, "fc.bias", OX_FLOAT, 1, bias_d, weights_path, bias_at,
                                         OUT * 4, &v), OX_EINVAL);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "already used"));
    ox_trace_abort(t);
}
END_TEST

START_TEST(no_weights_reads_nothing)
{
    traced tr;
    trace_model(&tr, BY_CALLBACK);
    for (int k = 0; k < 3; k++)
        tr.readers[k].fail_at_call = 0; /* any read would fail the export */
    ox_export_options o;
    ox_export_options_init(&o);
    o.export_params = 0;
    ck_assert_msg(ox_export(ctx, tr.g, path_in("noparams.onnx"), &o) == OX_OK, "%s",
                  ox_errmsg(ctx));
    for (int k = 0; k < 3; k++)
        ck_assert_uint_eq(tr.readers[k].calls, 0);
    release(&tr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("param_source");
    TCase *tc = tcase_create("on demand");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, inline_files_match_the_pointer_file);
    tcase_add_test(tc, external_data_matches_the_pointer_files);
    tcase_add_test(tc, failing_callback_is_a_clean_error);
    tcase_add_test(tc, file_changed_after_the_trace_is_a_clean_error);
    tcase_add_test(tc, bad_regions_are_refused_when_traced);
    tcase_add_test(tc, no_weights_reads_nothing);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
