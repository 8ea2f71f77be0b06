/*
 * Direct I/O (file_out.h, docs/onnx-writer.md "Direct I/O"): a file written
 * with O_DIRECT holds the same bytes as one written through the page cache,
 * whatever the sizes of the appends and of the file; a file system that
 * refuses direct I/O, at fcntl or at a write, gets the same bytes buffered;
 * write errors surface as they do buffered; and the options decide when it is
 * used (direct_io, the config key, sync).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "file_out.h"
#include "ir.h"
#include "test_util.h"
#include "write_files.h"

static char dir[256];
static ox_context *ctx;
static ox_direct_ops real_ops; /* what tests that swap ox_direct_fs put back */

static void setup(void)
{
    strcpy(dir, "/tmp/oxport-direct-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS,
                                    &ctx), OX_OK);
    real_ops = ox_direct_fs;
}

static void teardown(void)
{
    ox_direct_fs = real_ops;
    ox_context_free(ctx);
    rm_tree(dir);
}

static char *path_in(const char *name)
{
    return path_in_dir(dir, name);
}

/* Whether the test directory's file system takes O_DIRECT at all: where it
 * does not, only "the same bytes" can be asserted, not that it was used. */
static bool dir_takes_direct(void)
{
    int fd = open(path_in("probe"), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
    if (fd >= 0)
        close(fd);
    unlink(path_in("probe"));
    return fd >= 0;
}

/* Bytes that differ at every offset, so a block written at the wrong place
 * or twice shows. */
static unsigned char *pattern(size_t n, unsigned seed)
{
    unsigned char *p = malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (unsigned char)x;
    }
    return p;
}

static void assert_file_is(const char *path, const unsigned char *want, size_t n)
{
    size_t len;
    unsigned char *got = slurp(path, &len);
    ck_assert_uint_eq(len, n);
    ck_assert_msg(memcmp(got, want, n) == 0, "%s: the bytes differ", path);
    free(got);
}

/* Write `n` bytes of a pattern to a fresh file in appends whose sizes cycle
 * through `sizes`; returns the file_out's close status, *fell_back what it
 * says. */
static int write_in_pieces(const char *path, bool direct, size_t n, const size_t *sizes,
                           size_t n_sizes, bool *fell_back, bool *was_direct)
{
    unsigned char *src = pattern(n, (unsigned)n);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ox_file_out o;
    ox_file_out_open(&o, fd, direct, n);
    if (was_direct)
        *was_direct = o.direct;
    int e = 0;
    for (size_t at = 0, k = 0; at < n && !e; k++) {
        size_t piece = sizes[k % n_sizes];
        if (piece > n - at)
            piece = n - at;
        e = ox_file_out_write(&o, src + at, piece);
        at += piece;
    }
    int closed = ox_file_out_close(&o);
    if (!e)
        e = closed;
    if (fell_back)
        *fell_back = o.fell_back;
    /* the descriptor is left at the end of what was written */
    if (!e)
        ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), (off_t)n);
    close(fd);
    if (!e)
        assert_file_is(path, src, n);
    free(src);
    return e;
}

START_TEST(same_bytes_for_any_append_and_file_size)
{
    const size_t MiB = (size_t)1 << 20;
    /* file sizes: at the threshold, past it by one, a whole number of
     * stages, a whole number of blocks, and a tail of every kind */
    const size_t totals[] = {OX_DIRECT_MIN, OX_DIRECT_MIN + 1, 6 * OX_DIRECT_STAGE,
                             9 * MiB + 4096, 9 * MiB + 4095, 13 * MiB + 777};
    /* append patterns: tiny, odd, exactly a stage, a stage and a bit, huge */
    const size_t p1[] = {1, 7, 4096, 4095, 100000};
    const size_t p2[] = {OX_DIRECT_STAGE};
    const size_t p3[] = {OX_DIRECT_STAGE + 1, 3};
    const size_t p4[] = {11 * MiB};
    const size_t *patterns[] = {p1, p2, p3, p4};
    const size_t n_patterns[] = {5, 1, 2, 1};
    bool takes = dir_takes_direct();
    for (size_t t = 0; t < sizeof totals / sizeof *totals; t++)
        for (size_t k = 0; k < 4; k++) {
            bool fell_back = true, was_direct = false;
            ck_assert_int_eq(write_in_pieces(path_in("f.bin"), true, totals[t], patterns[k],
                                             n_patterns[k], &fell_back, &was_direct), 0);
            if (takes) {
                ck_assert_msg(was_direct && !fell_back, "total %zu pattern %zu: not direct",
                              totals[t], k);
            }
        }
}
END_TEST

/* Below the threshold, or not asked for: the page cache, no thread. */
START_TEST(small_or_unasked_files_are_buffered)
{
    const size_t one[] = {1000};
    bool fell_back = true, was_direct = true;
    ck_assert_int_eq(write_in_pieces(path_in("s.bin"), true, OX_DIRECT_MIN - 1, one, 1,
                                     &fell_back, &was_direct), 0);
    ck_assert(!was_direct);
    ck_assert(!fell_back);
    ck_assert_int_eq(write_in_pieces(path_in("s.bin"), false, OX_DIRECT_MIN * 2, one, 1,
                                     &fell_back, &was_direct), 0);
    ck_assert(!was_direct);
    ck_assert(!fell_back);
}
END_TEST

static int refuse_direct(int fd, bool on)
{
    (void)fd;
    (void)on;
    errno = EINVAL;
    return -1;
}

static int direct_calls, einval_at;
/* Direct writes succeed until the einval_at'th, which fails as a device with
 * a larger logical block than ours would; the rest must go buffered. */
static ssize_t pwrite_einval_at(int fd, const void *p, size_t n, off_t at)
{
    if (++direct_calls == einval_at) {
        errno = EINVAL;
        return -1;
    }
    return pwrite(fd, p, n, at);
}

static ssize_t pwrite_eio(int fd, const void *p, size_t n, off_t at)
{
    (void)fd;
    (void)p;
    (void)n;
    (void)at;
    errno = EIO;
    return -1;
}

START_TEST(refused_direct_io_falls_back_to_the_same_bytes)
{
    const size_t sizes[] = {12345, OX_DIRECT_STAGE + 5};
    const size_t n = 11 * ((size_t)1 << 20) + 321;
    bool fell_back = false, was_direct = true;
    /* refused at fcntl */
    ox_direct_ops saved = ox_direct_fs;
    ox_direct_fs.set_direct = refuse_direct;
    ck_assert_int_eq(write_in_pieces(path_in("a.bin"), true, n, sizes, 2, &fell_back,
                                     &was_direct), 0);
    ck_assert(fell_back);
    ck_assert(!was_direct);
    ox_direct_fs = saved;
    /* refused at the first and at the third direct write */
    for (int at = 1; at <= 3; at += 2) {
        direct_calls = 0;
        einval_at = at;
        ox_direct_fs.pwrite = pwrite_einval_at;
        fell_back = false;
        ck_assert_int_eq(write_in_pieces(path_in("b.bin"), true, n, sizes, 2, &fell_back, NULL),
                         0);
        ox_direct_fs = saved;
        if (dir_takes_direct())
            ck_assert_msg(fell_back, "EINVAL at direct write %d did not fall back", at);
    }
}
END_TEST

/* Another error is the file's error, as it would be buffered. */
START_TEST(direct_write_errors_are_returned)
{
    if (!dir_takes_direct())
        return; /* nothing here writes direct */
    const size_t sizes[] = {OX_DIRECT_STAGE};
    ox_direct_ops saved = ox_direct_fs;
    ox_direct_fs.pwrite = pwrite_eio;
    ck_assert_int_eq(write_in_pieces(path_in("e.bin"), true, OX_DIRECT_MIN + 10, sizes, 1,
                                     NULL, NULL), EIO);
    ox_direct_fs = saved;
}
END_TEST

/* A graph whose weights are past the threshold and of awkward sizes. */
static ox_graph *weights_graph(unsigned char **keep)
{
    static const int64_t lens[] = {(9 << 20) + 3, 1021, (3 << 20) + 1};
    static const char *const names[] = {"w0", "w1", "w2"}, *const outs[] = {"y0", "y1", "y2"};
    ox_graph *g = ox_graph_new("Weights");
    for (size_t i = 0; i < 3; i++) {
        keep[i] = pattern((size_t)lens[i], (unsigned)i + 1);
        ox_value *w = ox_graph_add_value(g, OX_VAL_PARAM, OX_UINT8, 1, &lens[i]);
        w->name = names[i];
        w->tensor = (ox_tensor_data){keep[i], (uint64_t)lens[i], false};
        ox_graph_add_param(g, w->id);
        ox_node *n = ox_graph_add_node(g, "onnx::Identity", 1, &w->id, 1);
        ox_value *y = ox_graph_value(g, n->outputs[0]);
        ox_value_set_type(g, y, OX_UINT8, 1, &lens[i]);
        y->name = outs[i];
        ox_graph_add_output(g, y->id);
    }
    ox_graph_set_opset(g, "", 13);
    return g;
}

/* Two files hold the same bytes; `what` says which in the failure. */
static void assert_same_files(const char *a_path, const char *b_path, const char *what)
{
    size_t la, lb;
    unsigned char *a = slurp(a_path, &la), *b = slurp(b_path, &lb);
    ck_assert_msg(la == lb && memcmp(a, b, la) == 0, "%s: %s and %s differ", what, a_path, b_path);
    free(a);
    free(b);
}

static void free_weights(ox_graph *g, unsigned char **keep)
{
    ox_graph_free(g);
    for (int i = 0; i < 3; i++)
        free(keep[i]);
}

static int set_direct_calls;
static int counting_set_direct(int fd, bool on)
{
    if (on)
        set_direct_calls++;
    int fl = fcntl(fd, F_GETFL);
    return fcntl(fd, F_SETFL, on ? (fl | O_DIRECT) : (fl & ~O_DIRECT));
}

/* A whole export whose file system refuses O_DIRECT: the same file, and a
 * note saying it went through the page cache. */
START_TEST(refused_direct_io_is_a_note_of_the_export)
{
    unsigned char *keep[3];
    ox_graph *g = weights_graph(keep);
    ox_export_options o;
    ox_export_options_init(&o);
    o.direct_io = 1;
    ck_assert_int_eq(ox_write(ctx, g, path_in("m.onnx"), &o), OX_OK);
    ck_assert_ptr_null(strstr(ox_context_notes(ctx), "direct I/O"));
    ox_direct_fs.set_direct = refuse_direct;
    ck_assert_int_eq(ox_write(ctx, g, path_in("refused.onnx"), &o), OX_OK);
    char want[700];
    snprintf(want, sizeof want, "direct I/O: the file system of '%s' refused O_DIRECT; the files "
             "were written through the page cache", path_in("refused.onnx"));
    ck_assert_str_eq(ox_context_notes(ctx), want);
    assert_same_files(path_in("m.onnx"), path_in("refused.onnx"), "refused O_DIRECT");
    free_weights(g, keep);
}
END_TEST

/* The model, and its side file, are the same whichever way they are written. */
START_TEST(exported_files_identical_with_and_without)
{
    unsigned char *keep[3];
    ox_graph *g = weights_graph(keep);
    ox_export_options o;
    for (int ext = -1; ext <= 1; ext += 2) {
        ox_export_options_init(&o);
        o.external_data = ext;
        o.external_data_location = "w.data";
        o.direct_io = -1;
        ck_assert_int_eq(ox_write(ctx, g, path_in("buffered.onnx"), &o), OX_OK);
        o.direct_io = 1;
        ck_assert_int_eq(ox_write(ctx, g, path_in("direct.onnx"), &o), OX_OK);
        assert_same_files(path_in("buffered.onnx"), path_in("direct.onnx"),
                          ext > 0 ? "external data" : "inline weights");
        /* external: the weights are in the side file (next test); else inline */
        struct stat st;
        ck_assert_int_eq(stat(path_in("direct.onnx"), &st), 0);
        ck_assert(ext > 0 ? st.st_size < (1 << 20) : st.st_size > (12 << 20));
    }
    free_weights(g, keep);
}
END_TEST

/* Side files: written direct, and byte for byte the buffered write's. */
START_TEST(side_file_written_direct_holds_the_weights)
{
    unsigned char *keep[3];
    ox_graph *g = weights_graph(keep);
    ox_export_options o;
    ox_export_options_init(&o);
    o.external_data = 1;
    o.direct_io = -1;
    mkdir(path_in("a"), 0700);
    mkdir(path_in("b"), 0700);
    ck_assert_int_eq(ox_write(ctx, g, path_in("a/m.onnx"), &o), OX_OK);
    o.direct_io = 1;
    ox_direct_ops saved = ox_direct_fs;
    ox_direct_fs.set_direct = counting_set_direct;
    set_direct_calls = 0;
    ck_assert_int_eq(ox_write(ctx, g, path_in("b/m.onnx"), &o), OX_OK);
    ox_direct_fs = saved;
    ck_assert_int_eq(set_direct_calls, 1); /* the side file; the model is small */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cd '%s' && n=0 && for f in a/m.onnx.*.data; do cmp \"$f\" "
             "b/\"${f#a/}\" || exit 1; n=$((n+1)); done && test $n = 1", dir);
    ck_assert_int_eq(shell_status(cmd), 0);
    free_weights(g, keep);
}
END_TEST

/* direct_io 0 defers to the config's key, then to sync; 1 and -1 decide. */
START_TEST(when_direct_io_is_used)
{
    unsigned char *keep[3];
    ox_graph *g = weights_graph(keep);
    ox_direct_ops saved = ox_direct_fs;
    ox_direct_fs.set_direct = counting_set_direct;
    struct {
        int direct_io, sync;
        const char *config; /* NULL: none loaded */
        int calls;
    } cases[] = {
        {0, 0, NULL, 0},  {1, 0, NULL, 1},  {-1, 0, NULL, 0}, {0, 1, NULL, 1},
        {-1, 1, NULL, 0}, {0, 0, "direct_io: true\n", 1},     {-1, 0, "direct_io: true\n", 0},
        {0, 1, "direct_io: false\n", 0},                      {0, 0, "sync: true\n", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ox_context_free(ctx);
        ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS |
                                        OX_CONTEXT_NO_DEFAULT_OPSETS, &ctx), OX_OK);
        if (cases[i].config) {
            FILE *f = fopen(path_in("oxport.yaml"), "w");
            fputs(cases[i].config, f);
            fclose(f);
            ck_assert_int_eq(ox_context_load_config(ctx, path_in("oxport.yaml")), OX_OK);
        }
        ox_export_options o;
        ox_export_options_init(&o);
        ck_assert_int_eq(o.direct_io, 0);
        o.direct_io = cases[i].direct_io;
        o.sync = cases[i].sync;
        set_direct_calls = 0;
        ck_assert_int_eq(ox_write(ctx, g, path_in("m.onnx"), &o), OX_OK);
        ck_assert_msg(set_direct_calls == cases[i].calls, "case %zu: %d calls, expected %d", i,
                      set_direct_calls, cases[i].calls);
    }
    /* a host built before the field existed passes a smaller struct: the default */
    ox_context_free(ctx);
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS,
                                    &ctx), OX_OK);
    ox_export_options o;
    ox_export_options_init(&o);
    o.direct_io = 1; /* beyond struct_size: not read */
    o.struct_size = (uint32_t)offsetof(ox_export_options, direct_io);
    set_direct_calls = 0;
    ck_assert_int_eq(ox_write(ctx, g, path_in("m.onnx"), &o), OX_OK);
    ck_assert_int_eq(set_direct_calls, 0);
    /* a config value that is no boolean is refused, naming the key */
    FILE *f = fopen(path_in("bad.yaml"), "w");
    fputs("direct_io: sometimes\n", f);
    fclose(f);
    ck_assert_int_ne(ox_context_load_config(ctx, path_in("bad.yaml")), OX_OK);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "true or false"));
    ox_direct_fs = saved;
    free_weights(g, keep);
}
END_TEST

/* The child's side of write_error_midway_keeps_old_file: 0 when the direct
 * write failed with the full-disk message a buffered one gives. */
static int write_direct_past_the_limit(void *arg)
{
    const char *path = arg;
    unsigned char *keep[3];
    ox_graph *g = weights_graph(keep);
    ox_export_options o;
    ox_export_options_init(&o);
    o.direct_io = 1;
    ox_status st = ox_write(ctx, g, path, &o);
    char want[1024];
    snprintf(want, sizeof want, "cannot write ONNX model to '%s': File too large; raise the "
             "file size limit (ulimit -f) or write elsewhere", path);
    int ok = st == OX_EIO && strcmp(ox_errmsg(ctx), want) == 0;
    if (!ok)
        fprintf(stderr, "status %d message: %s\n", st, ox_errmsg(ctx));
    free_weights(g, keep);
    return ok ? 0 : 1;
}

/* A full disk midway through a direct write (5 MiB into 12): the same
 * message as buffered, the old file kept, no temp left. */
START_TEST(write_error_midway_keeps_old_file)
{
    assert_full_disk_keeps_old_file(dir, path_in("keep.onnx"), 5L << 20,
                                    write_direct_past_the_limit, path_in("keep.onnx"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("direct_io");
    TCase *tc = tcase_create("direct_io");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, same_bytes_for_any_append_and_file_size);
    tcase_add_test(tc, small_or_unasked_files_are_buffered);
    tcase_add_test(tc, refused_direct_io_falls_back_to_the_same_bytes);
    tcase_add_test(tc, direct_write_errors_are_returned);
    tcase_add_test(tc, refused_direct_io_is_a_note_of_the_export);
    tcase_add_test(tc, exported_files_identical_with_and_without);
    tcase_add_test(tc, side_file_written_direct_holds_the_weights);
    tcase_add_test(tc, when_direct_io_is_used);
    tcase_add_test(tc, write_error_midway_keeps_old_file);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
