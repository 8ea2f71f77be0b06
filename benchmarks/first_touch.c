/*
 * What memory and a file write cost on this machine, apart from any exporter:
 * the price of touching fresh memory for the first time, and of buffered and
 * direct writes of a run of files one after another.  On a VM whose free
 * memory goes back to its host (a balloon with free page reporting), a page
 * the guest has not used lately must be backed by the host again on its first
 * touch; a buffered write pays that for every page cache page it fills, and
 * so does any exporter that writes a file through the page cache.  This
 * prints the figures an export's time is bounded by (docs/performance.md,
 * "What a write costs on this VM").
 *
 *   first_touch [MiB per file (default 256)] [files (default 8)] [dir (default /var/tmp)]
 *
 * Rows: anonymous memory touched page by page; then FILES buffered writes of
 * MiB each (1 MiB write calls, no fsync, files kept until the end so no run
 * reuses the pages of the one before); then as many O_DIRECT writes.  Each row
 * gives the time and the time per 4 KiB page.  Not a test: it asserts nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u
#define CALL ((size_t)1 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void row(const char *what, size_t bytes, double seconds)
{
    printf("| %s | %zu MiB | %.1f ms | %.2f us |\n", what, bytes >> 20, seconds * 1e3,
           seconds * 1e6 / (double)(bytes / PAGE));
    fflush(stdout);
}

/* The balloon's free page reporting, where the kernel exposes it: how the
 * guest hands free memory back, and how much it has handed back so far. */
static void print_reporting(void)
{
    static const char *const keys[] = {"page_reporting_order", "reported_kib"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char path[128], val[64] = "";
        snprintf(path, sizeof path, "/sys/module/page_reporting/parameters/%s", keys[i]);
        FILE *f = fopen(path, "r");
        if (!f) {
            if (i == 0)
                printf("free page reporting: not exposed by this kernel\n");
            return;
        }
        if (fgets(val, sizeof val, f))
            val[strcspn(val, "\n")] = 0;
        fclose(f);
        printf("free page reporting: %s = %s\n", keys[i], val);
    }
}

static int write_file(const char *path, const unsigned char *buf, size_t bytes, int flags, double *secs)
{
    double t0 = now();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | flags, 0644);
    if (fd < 0)
        return errno;
    for (size_t at = 0; at < bytes;) {
        ssize_t k = write(fd, buf + at, bytes - at < CALL ? bytes - at : CALL);
        if (k <= 0) {
            int e = k < 0 ? errno : EIO;
            close(fd);
            return e;
        }
        at += (size_t)k;
    }
    if (close(fd) != 0)
        return errno;
    *secs = now() - t0;
    return 0;
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 256;
    long files = argc > 2 ? atol(argv[2]) : 8;
    const char *dir = argc > 3 ? argv[3] : "/var/tmp";
    if (argc > 4 || mib <= 0 || mib > 65536 || files <= 0 || files > 1000) {
        fprintf(stderr, "usage: first_touch [MiB per file 1..65536] [files 1..1000] [dir]\n");
        return 2;
    }
    size_t bytes = (size_t)mib << 20;
    print_reporting();
    printf("| what | size | time | per 4 KiB page |\n|---|---|---|---|\n");

    /* The buffer the writes come from, page-aligned for O_DIRECT; filling it
     * is the first-touch row. */
    double t0 = now();
    unsigned char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
        fprintf(stderr, "first_touch: cannot map %ld MiB: %s\n", mib, strerror(errno));
        return 1;
    }
    for (size_t i = 0; i < bytes; i += PAGE)
        buf[i] = (unsigned char)(i >> 12);
    row("anonymous memory, first touch", bytes, now() - t0);

    int status = 0;
    for (int direct = 0; direct <= 1 && !status; direct++) {
        for (long i = 0; i < files; i++) {
            char path[4096], what[64];
            snprintf(path, sizeof path, "%s/first_touch.%ld.%ld.tmp", dir, (long)getpid(), i);
            double secs = 0;
            int e = write_file(path, buf, bytes, direct ? O_DIRECT : 0, &secs);
            if (e) {
                fprintf(stderr, "first_touch: cannot write %s%s: %s\n", path,
                        direct ? " with O_DIRECT" : "", strerror(e));
                status = 1;
                break;
            }
            snprintf(what, sizeof what, "%s write, file %ld", direct ? "O_DIRECT" : "buffered", i + 1);
            row(what, bytes, secs);
        }
        for (long i = 0; i < files; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/first_touch.%ld.%ld.tmp", dir, (long)getpid(), i);
            unlink(path);
        }
        /* the direct rows start from a quiet disk, not behind the buffered rows' writeback */
        sync();
    }
    munmap(buf, bytes);
    return status;
}
