#include "test_util.h"

#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

const char *srcdir(void)
{
    const char *s = getenv("OXPORT_TEST_SRCDIR");
    return s ? s : ".";
}

const char *builddir(void)
{
    const char *s = getenv("OXPORT_TEST_BUILDDIR");
    return s ? s : ".";
}

const char *fx(const char *name)
{
    static char bufs[4][1024];
    static int k;
    char *p = bufs[k++ % 4];
    snprintf(p, sizeof bufs[0], "%s/tests/fixtures/plugins/libfx_%s.so", builddir(), name);
    return p;
}

char *path_in_dir(const char *dir, const char *name)
{
    static char bufs[4][1024];
    static int k;
    char *p = bufs[k++ % 4];
    snprintf(p, sizeof bufs[0], "%s/%s", dir, name);
    return p;
}

char *slurp_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, mem);
    fclose(f);
    fclose(mem);
    return text;
}

unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

void rm_rf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int shell_status(const char *cmd)
{
    int s = system(cmd);
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

void run_python_in(const char *dir, const char *script)
{
    char path[1024], cmd[2048];
    snprintf(path, sizeof path, "%s/gen.py", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(script, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd '%s' && /usr/bin/python3 gen.py >gen.log 2>&1", dir);
    if (shell_status(cmd) != 0) {
        snprintf(path, sizeof path, "%s/gen.log", dir);
        char *log = slurp_text(path);
        ck_abort_msg("the python script that makes the test files failed:\n%s", log ? log : "");
    }
}

int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void assert_full_disk_keeps_old_file(const char *dir, const char *path, long limit,
                                     int (*write_fn)(void *arg), void *arg)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("old model", f);
    fclose(f);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
        setrlimit(RLIMIT_FSIZE, &rl);
        _exit(write_fn(arg) == 0 ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    size_t len;
    unsigned char *p = slurp(path, &len);
    ck_assert_uint_eq(len, 9);
    ck_assert_mem_eq(p, "old model", 9);
    free(p);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d)))
        ck_assert_msg(!strstr(e->d_name, ".oxtmp-"), "temp file left: %s", e->d_name);
    closedir(d);
}
