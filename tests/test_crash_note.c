/*
 * A pack that crashes inside a call the engine made (symbolic, check hook)
 * leaves a note on stderr naming the pack, the operator and its scope, and
 * the process then dies the way it would have without oxport (the previous
 * signal action runs: default, ASan's, the host's).  Each case runs in a
 * child process.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "context.h"
#include "ir.h"
#include "test_util.h"

/* In a child: trace Net/Crash[c] running `kind` and convert it. */
static void child_converts(const char *kind)
{
    ox_context *ctx;
    if (ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS |
                           OX_CONTEXT_NO_DEFAULT_OPSETS, &ctx) != OX_OK ||
        ox_context_add_plugin_path(ctx, fx("crash")) != OX_OK)
        _exit(90);
    ox_trace *t;
    static const int64_t sizes[] = {2};
    ox_vid x, y;
    if (ox_trace_begin(ctx, "Net", &t) != OX_OK ||
        ox_trace_input(t, "x", OX_FLOAT, 1, sizes, &x) != OX_OK)
        _exit(91);
    ox_arg a = ox_arg_tensor("self", x);
    ox_tensor_desc d = {OX_FLOAT, 1, sizes};
    ox_graph *g, *o;
    if (ox_trace_push_scope(t, "Crash[c]") != OX_OK ||
        ox_trace_op(t, kind, 1, &a, 1, &d, &y) != OX_OK || ox_trace_pop_scope(t) != OX_OK ||
        ox_trace_output(t, y, NULL) != OX_OK || ox_trace_finish(t, &g) != OX_OK)
        _exit(92);
    ox_convert(ctx, g, 9, &o);
    _exit(0); /* not reached: the pack crashes */
}

/* Run the child; returns its stderr, *status its wait status. */
static char *run_child(const char *kind, int *status)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDERR_FILENO);
        child_converts(kind);
    }
    close(fd[1]);
    static char out[65536];
    size_t len = 0;
    ssize_t r;
    while (len + 1 < sizeof out && (r = read(fd[0], out + len, sizeof out - 1 - len)) > 0)
        len += (size_t)r;
    out[len] = '\0';
    close(fd[0]);
    ck_assert_int_eq(waitpid(pid, status, 0), pid);
    return out;
}

/* Died by the crash: a signal, or the nonzero exit a sanitizer turns it into. */
static void assert_died(int status)
{
    ck_assert_msg(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
                                          WEXITSTATUS(status) < 90),
                  "status %#x", status);
}

START_TEST(symbolic_crash_names_pack_op_and_scope)
{
    int status;
    char *err = run_child("test::segv", &status);
    assert_died(status);
    char want[2048];
    snprintf(want, sizeof want,
             "oxport: pack %s crashed (SIGSEGV) in its symbolic for test::segv at Net/Crash[c]\n",
             fx("crash"));
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "stderr:\n%s", err);
}
END_TEST

START_TEST(check_hook_abort_is_named_too)
{
    int status;
    char *err = run_child("test::abort", &status);
    assert_died(status);
    if (WIFSIGNALED(status))
        ck_assert_int_eq(WTERMSIG(status), SIGABRT);
    char want[2048];
    snprintf(want, sizeof want,
             "oxport: pack %s crashed (SIGABRT) in its check hook for test::abort at "
             "Net/Crash[c]\n",
             fx("crash"));
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "stderr:\n%s", err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("crash_note");
    TCase *tc = tcase_create("crash_note");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, symbolic_crash_names_pack_op_and_scope);
    tcase_add_test(tc, check_hook_abort_is_named_too);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
