/*
 * LD_PRELOAD allocation-failure injector for the fault tests
 * (tests/test_alloc_failures.c in-process, tests/fault/run-alloc-failures
 * for the CLI).  Every allocation (malloc, calloc, realloc, aligned
 * variants) is counted and forwarded to glibc's allocator, except the one
 * chosen to fail, which returns NULL with errno ENOMEM.  It also tracks the
 * allocations made inside a window, to find leaks on the error paths without
 * ASan (whose allocator cannot be combined with this one).
 *
 * Environment, for programs that do not call the control functions:
 *   OX_FAILMALLOC_AT=N     fail the N-th allocation after start-up
 *   OX_FAILMALLOC_COUNT=F  write the number of allocations made to F at exit
 * Control functions (looked up by the in-process test): see failmalloc.h.
 */
#include "failmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static long calls, fail_at = -1;
static int armed;

/* ------------------------------------------------ live allocation tracking */

#define TRACK_CAP ((size_t)1 << 20)
#define TOMBSTONE ((void *)1)
static void *tracked[TRACK_CAP];
static long n_tracked;
static int tracking, overflow, dirty;

static size_t slot_of(const void *p) { return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 44; }

static void track_add(void *p)
{
    if (!tracking || !p)
        return;
    if ((size_t)n_tracked * 2 >= TRACK_CAP) {
        overflow = 1;
        return;
    }
    size_t i = slot_of(p) & (TRACK_CAP - 1);
    while (tracked[i] && tracked[i] != TOMBSTONE)
        i = (i + 1) & (TRACK_CAP - 1);
    tracked[i] = p;
    n_tracked++;
    dirty = 1;
}

static void track_remove(void *p)
{
    if (!tracking || !p)
        return;
    for (size_t i = slot_of(p) & (TRACK_CAP - 1), k = 0; tracked[i] && k < TRACK_CAP;
         i = (i + 1) & (TRACK_CAP - 1), k++)
        if (tracked[i] == p) {
            tracked[i] = TOMBSTONE;
            n_tracked--;
            return;
        }
}

void failmalloc_track(int on)
{
    if (on && dirty) { /* a forked child starts clean without touching 8 MB */
        memset(tracked, 0, sizeof tracked);
        dirty = 0;
    }
    if (on) {
        n_tracked = 0;
        overflow = 0;
    }
    tracking = on;
}

long failmalloc_live(void) { return overflow ? -1 : n_tracked; }

/* ------------------------------------------------------------- failures */

long failmalloc_calls(void) { return calls; }

void failmalloc_fail_after(long k) { fail_at = k > 0 ? calls + k : -1; }

static int should_fail(void)
{
    if (!armed)
        return 0;
    if (++calls == fail_at) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

__attribute__((constructor)) static void failmalloc_init(void)
{
    const char *at = getenv("OX_FAILMALLOC_AT");
    fail_at = at ? atol(at) : -1;
    armed = 1;
}

__attribute__((destructor)) static void failmalloc_report(void)
{
    const char *path = getenv("OX_FAILMALLOC_COUNT");
    armed = 0;
    tracking = 0;
    if (!path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", calls);
    if (write(fd, buf, (size_t)n) != n)
        n = 0;
    close(fd);
}

void *malloc(size_t n)
{
    if (should_fail())
        return NULL;
    void *p = __libc_malloc(n);
    track_add(p);
    return p;
}

void *calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    void *p = __libc_calloc(n, size);
    track_add(p);
    return p;
}

void *realloc(void *old, size_t n)
{
    if (should_fail())
        return NULL;
    void *p = __libc_realloc(old, n);
    if (p || n == 0)
        track_remove(old);
    track_add(p);
    return p;
}

void *memalign(size_t align, size_t n)
{
    if (should_fail())
        return NULL;
    void *p = __libc_memalign(align, n);
    track_add(p);
    return p;
}

void *aligned_alloc(size_t align, size_t n)
{
    return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    void *p = memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void free(void *p)
{
    track_remove(p);
    __libc_free(p);
}
