/*
 * Reading parameters whose bytes the host keeps outside memory: a callback,
 * a file by path, or an open descriptor.  pread, never mmap: a mapping's
 * touched pages count as the process's resident memory until unmapped,
 * while pread's pages stay in the page cache, which the kernel reclaims.
 */
#include "param_source.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"

static ox_status region_fits(ox_context *ctx, const char *what, const char *name,
                             const ox_tensor_source *s, int fd, uint64_t nbytes)
{
    struct stat st;
    /* a descriptor may carry its file's name for messages (a model read by ox_read) */
    const char *file = s->path ? s->path : "the file descriptor";
    if (fstat(fd, &st) != 0)
        return ox_fail(ctx, OX_EIO, "%s: parameter '%s': cannot stat %s: %s", what, name, file,
                       strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
        return ox_fail(ctx, OX_EIO, "%s: parameter '%s': %s is not a regular file", what, name,
                       file);
    uint64_t size = (uint64_t)st.st_size;
    if (S_ISREG(st.st_mode) && (s->offset > size || nbytes > size - s->offset))
        return ox_fail(ctx, OX_EIO,
                       "%s: parameter '%s': bytes %llu..%llu lie past the end of %s (%llu "
                       "bytes); the file is shorter than the region declared for it",
                       what, name, (unsigned long long)s->offset,
                       (unsigned long long)(s->offset + nbytes), file, (unsigned long long)size);
    return OX_OK;
}

static ox_status open_path(ox_context *ctx, const char *what, const char *name,
                           const ox_tensor_source *s, int *fd)
{
    *fd = open(s->path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return ox_fail(ctx, OX_EIO, "%s: parameter '%s': cannot open %s: %s", what, name, s->path,
                       strerror(errno));
    return OX_OK;
}

ox_status ox_source_check(ox_context *ctx, const char *what, const char *name,
                          const ox_tensor_source *s, uint64_t nbytes)
{
    if (s->kind == OX_SOURCE_CALLBACK)
        return OX_OK;
    if (s->kind == OX_SOURCE_FD)
        return region_fits(ctx, what, name, s, s->fd, nbytes);
    int fd;
    ox_status st = open_path(ctx, what, name, s, &fd);
    if (st == OX_OK)
        st = region_fits(ctx, what, name, s, fd, nbytes);
    if (fd >= 0)
        close(fd);
    return st;
}

ox_status ox_source_open(ox_context *ctx, ox_source_cursor *c, const ox_tensor_source *s,
                         const char *name, uint64_t nbytes)
{
    memset(c, 0, sizeof *c);
    c->src = s;
    c->name = name;
    c->nbytes = nbytes;
    c->fd = -1;
    if (s->kind == OX_SOURCE_CALLBACK)
        return OX_OK;
    if (s->kind == OX_SOURCE_FD) {
        c->fd = s->fd;
    } else {
        ox_status st = open_path(ctx, "ox_write", name, s, &c->fd);
        if (st != OX_OK)
            return st;
        c->own_fd = true;
    }
    return region_fits(ctx, "ox_write", name, s, c->fd, nbytes);
}

ox_status ox_source_next(ox_context *ctx, ox_source_cursor *c, void *buf, size_t cap,
                         size_t *got)
{
    uint64_t left = c->nbytes - c->done;
    size_t n = left < cap ? (size_t)left : cap;
    *got = 0;
    if (n == 0)
        return OX_OK;
    if (c->src->kind == OX_SOURCE_CALLBACK) {
        ox_status st = c->src->read(c->src->user, c->done, buf, n);
        if (st != OX_OK)
            return ox_fail(ctx, st == OX_ENOMEM ? OX_ENOMEM : OX_EIO,
                           "ox_write: parameter '%s': its read callback failed (%s) on bytes "
                           "%llu..%llu of %llu",
                           c->name, ox_strerror(st), (unsigned long long)c->done,
                           (unsigned long long)(c->done + n), (unsigned long long)c->nbytes);
    } else {
        unsigned char *p = buf;
        for (size_t have = 0; have < n;) {
            ssize_t k = pread(c->fd, p + have, n - have,
                              (off_t)(c->src->offset + c->done + have));
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                const char *file = c->src->path ? c->src->path : "its file descriptor";
                if (k == 0)
                    return ox_fail(ctx, OX_EIO,
                                   "ox_write: parameter '%s': %s ends after %llu of its %llu "
                                   "bytes (was it truncated after the trace?)",
                                   c->name, file, (unsigned long long)(c->done + have),
                                   (unsigned long long)c->nbytes);
                return ox_fail(ctx, OX_EIO, "ox_write: parameter '%s': reading %s failed: %s",
                               c->name, file, strerror(errno));
            }
            have += (size_t)k;
        }
    }
    c->done += n;
    *got = n;
    return OX_OK;
}

void ox_source_close(ox_source_cursor *c)
{
    if (c->own_fd && c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->own_fd = false;
}
