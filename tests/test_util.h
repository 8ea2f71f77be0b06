/*
 * Small helpers several Check suites share: the meson-set source and build
 * directories, files read whole, temporary trees removed, shell commands
 * run, and the suite runner every main() ends with.
 */
#ifndef OXPORT_TESTS_TEST_UTIL_H
#define OXPORT_TESTS_TEST_UTIL_H

#include <check.h>
#include <stddef.h>

/* OXPORT_TEST_SRCDIR / OXPORT_TEST_BUILDDIR, or "." outside meson. */
const char *srcdir(void);
const char *builddir(void);

/* Path of the build tree's fixture pack libfx_<name>.so (tests/fixtures/
 * plugins/), in one of four rotating buffers, so up to four stay valid. */
const char *fx(const char *name);

/* "dir/name", in one of four rotating buffers, so up to four stay valid. */
char *path_in_dir(const char *dir, const char *name);

/* The whole file as a malloc'd NUL-terminated string, NULL if it cannot be
 * opened. */
char *slurp_text(const char *path);

/* The whole file, malloc'd (one spare byte), its size in *len; fails the
 * test when it cannot be opened. */
unsigned char *slurp(const char *path, size_t *len);

/* `rm -rf dir` through the shell; fails the test if that fails. */
void rm_rf(const char *dir);

/* Removes the tree under dir, best effort, without a shell. */
void rm_tree(const char *dir);

/* Runs cmd through the shell: its exit status, -1 when it did not exit. */
int shell_status(const char *cmd);

/* Writes `script` to dir/gen.py and runs it with /usr/bin/python3 in dir;
 * fails the test, with the script's output, if it fails. */
void run_python_in(const char *dir, const char *script);

/* A write that fails midway on a full disk leaves the file it replaces as it
 * was: `path` is made to hold "old model", then a child whose files may grow
 * to `limit` bytes (RLIMIT_FSIZE, so writes fail with EFBIG) runs
 * write_fn(arg), which returns 0 when the write failed as it should (its own
 * checks, e.g. the message).  The test fails unless it did, `path` still
 * holds "old model", and `dir` holds no writer temp file (".oxtmp-"). */
void assert_full_disk_keeps_old_file(const char *dir, const char *path, long limit,
                                     int (*write_fn)(void *arg), void *arg);

/* Runs every test of s: EXIT_SUCCESS when none failed, for main(). */
int run_suite(Suite *s);

#endif
