/*
 * What oxport.h promises threads: separate contexts trace and export at the
 * same time, each in its own thread, and write what one thread alone
 * writes.  The engine's process-wide state (the packs' tables, the schema
 * index, the list of temp files, tags) is shared by every context, so this
 * is where a race would show; tools/run-tests --thread-sanitize runs it
 * under TSan.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxport/oxport.h"
#include "test_util.h"

/* Past 256 nodes, so the check runs on a thread of its own too (check_job.h). */
#define LAYERS 150
#define EXPORTS 3
#define WIDTH 16

static char dir[256];
static float weight[WIDTH * WIDTH];

typedef struct job {
    char path[512]; /* made before the threads start: path_in_dir is not reentrant */
    ox_status status;
    char message[512];
} job;

static ox_status job_fail(job *j, ox_context *ctx, ox_status st, const char *what)
{
    snprintf(j->message, sizeof j->message, "%s: %s", what, ctx ? ox_errmsg(ctx) : "");
    return j->status = st;
}

/* One context, EXPORTS exports of a LAYERS-deep linear+relu stack. */
static ox_status run(job *j)
{
    ox_context *ctx;
    ox_status st = ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx);
    if (st != OX_OK)
        return job_fail(j, NULL, st, "ox_context_new");
    char packs[1024];
    snprintf(packs, sizeof packs, "%s/plugins/aten", builddir());
    if ((st = ox_context_add_plugin_path(ctx, packs)) != OX_OK)
        return job_fail(j, ctx, st, "ox_context_add_plugin_path");
    for (int e = 0; e < EXPORTS && st == OX_OK; e++) {
        ox_trace *t;
        if ((st = ox_trace_begin(ctx, "Net", &t)) != OX_OK)
            return job_fail(j, ctx, st, "ox_trace_begin");
        const int64_t xs[] = {2, WIDTH}, ws[] = {WIDTH, WIDTH};
        const ox_tensor_desc d = {OX_FLOAT, 2, xs};
        ox_vid x, w, y;
        st = ox_trace_input(t, "x", OX_FLOAT, 2, xs, &x);
        if (st == OX_OK)
            st = ox_trace_param(t, "w", OX_FLOAT, 2, ws, weight, OX_BORROW, &w);
        for (int l = 0; l < LAYERS && st == OX_OK; l++) {
            ox_arg lin[] = {ox_arg_tensor("input", x), ox_arg_tensor("weight", w),
                            ox_arg_none("bias")};
            st = ox_trace_op(t, "aten::linear", 3, lin, 1, &d, &y);
            ox_arg relu = ox_arg_tensor("self", y);
            if (st == OX_OK)
                st = ox_trace_op(t, "aten::relu", 1, &relu, 1, &d, &x);
        }
        if (st == OX_OK)
            st = ox_trace_output(t, x, "y");
        if (st != OX_OK) {
            ox_trace_abort(t);
            return job_fail(j, ctx, st, "tracing");
        }
        ox_graph *g;
        if ((st = ox_trace_finish(t, &g)) != OX_OK)
            return job_fail(j, ctx, st, "ox_trace_finish");
        ox_export_options o;
        ox_export_options_init(&o);
        st = ox_export(ctx, g, j->path, &o);
        ox_graph_free(g);
        if (st != OX_OK)
            job_fail(j, ctx, st, "ox_export");
    }
    ox_context_free(ctx);
    return j->status = st;
}

static void *thread_main(void *arg)
{
    run(arg);
    return NULL;
}

/* A fresh directory, the weights (`period` varies them between tests), and
 * two jobs writing a.onnx and b.onnx there. */
static void two_jobs(job jobs[2], int period)
{
    strcpy(dir, "/tmp/oxport-threads-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int i = 0; i < WIDTH * WIDTH; i++)
        weight[i] = (float)(i % period) / (float)period - 0.4f;
    for (int i = 0; i < 2; i++) {
        jobs[i] = (job){.status = OX_OK};
        snprintf(jobs[i].path, sizeof jobs[i].path, "%s/%c.onnx", dir, 'a' + i);
    }
}

/* Both threads joined: each job succeeded, and the two files, of one model,
 * hold the same bytes. */
static void join_and_compare(pthread_t th[2], job jobs[2])
{
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        ck_assert_msg(jobs[i].status == OX_OK, "thread %d: %s", i, jobs[i].message);
    }
    size_t la, lb;
    unsigned char *a = slurp(path_in_dir(dir, "a.onnx"), &la);
    unsigned char *b = slurp(path_in_dir(dir, "b.onnx"), &lb);
    ck_assert_uint_eq(la, lb);
    ck_assert_mem_eq(a, b, la);
    free(a);
    free(b);
    rm_tree(dir);
}

START_TEST(two_contexts_export_at_once)
{
    job jobs[2];
    two_jobs(jobs, 7);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, thread_main, &jobs[i]), 0);
    join_and_compare(th, jobs);
}
END_TEST

/* Threads that never synchronise, one whose context is freed before the
 * other makes its own: when no context held a pack, the engine's dlclose
 * unmapped it and the next dlopen mapped it again at the same address, and
 * the pack's first-call writes (aten's table) raced, for TSan, with the
 * earlier thread's: the loader's lock orders them where TSan cannot see it.
 * Packs stay loaded instead (plugin_load.c).  The second thread waits on a
 * relaxed flag, which orders the two without telling TSan so. */
static atomic_int first_done;

static void *first_main(void *arg)
{
    run(arg);
    atomic_store_explicit(&first_done, 1, memory_order_relaxed);
    return NULL;
}

static void *second_main(void *arg)
{
    const struct timespec ms = {0, 1000000};
    while (!atomic_load_explicit(&first_done, memory_order_relaxed))
        nanosleep(&ms, NULL);
    run(arg);
    return NULL;
}

START_TEST(context_freed_before_another_thread_makes_one)
{
    job jobs[2];
    two_jobs(jobs, 5);
    pthread_t th[2];
    ck_assert_int_eq(pthread_create(&th[1], NULL, second_main, &jobs[1]), 0);
    ck_assert_int_eq(pthread_create(&th[0], NULL, first_main, &jobs[0]), 0);
    join_and_compare(th, jobs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("contexts");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, two_contexts_export_at_once);
    tcase_add_test(tc, context_freed_before_another_thread_makes_one);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
