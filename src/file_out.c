/* A fresh file written front to back, through the page cache or with direct
 * I/O (file_out.h). */
#include "file_out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int set_direct(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -1;
    return fcntl(fd, F_SETFL, on ? (fl | O_DIRECT) : (fl & ~O_DIRECT));
}

ox_direct_ops ox_direct_fs = {set_direct, pwrite};

/* Every byte at `at`, retrying short writes and EINTR; 0 or an errno. */
static int pwrite_all(ssize_t (*fn)(int, const void *, size_t, off_t), int fd,
                      const unsigned char *p, size_t n, uint64_t at)
{
    while (n) {
        size_t chunk = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n;
        ssize_t k = fn(fd, p, chunk, (off_t)at);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (k == 0)
            return ENOSPC;
        p += k;
        at += (uint64_t)k;
        n -= (size_t)k;
    }
    return 0;
}

/* write(2) in pwrite's shape: a buffered file is written at its position, so
 * a descriptor that has none (a FIFO, a device written in place) works too. */
static ssize_t write_here(int fd, const void *p, size_t n, off_t at)
{
    (void)at;
    return write(fd, p, n);
}

/* One staged block, on the thread.  EINVAL from a direct write means the
 * file system or device wants another alignment than ours (or no direct
 * I/O at all): the rest of the file, this block included, goes through the
 * page cache.  The bytes on the file are the same. */
static int write_block(ox_file_out *o, const unsigned char *p, size_t n, uint64_t at)
{
    if (!o->fell_back) {
        int e = pwrite_all(ox_direct_fs.pwrite, o->fd, p, n, at);
        if (e != EINVAL)
            return e;
        /* a short direct write before the EINVAL left some of the block on
         * the file; writing all of it again at the same offset is the same */
        o->fell_back = true;
        set_direct(o->fd, false);
    }
    return pwrite_all(pwrite, o->fd, p, n, at);
}

static void *writer(void *arg)
{
    ox_file_out *o = arg;
    pthread_mutex_lock(&o->mu);
    for (;;) {
        while (!o->busy && !o->quit)
            pthread_cond_wait(&o->cv, &o->mu);
        if (!o->busy)
            break; /* quit with nothing handed over */
        const unsigned char *p = o->stage[o->slot];
        size_t n = o->slot_len;
        uint64_t at = o->slot_at;
        bool skip = o->thread_err != 0;
        pthread_mutex_unlock(&o->mu);
        int e = skip ? 0 : write_block(o, p, n, at);
        pthread_mutex_lock(&o->mu);
        if (e && !o->thread_err)
            o->thread_err = e;
        o->busy = false;
        pthread_cond_broadcast(&o->cv);
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* Wait until the thread holds no stage; its first error becomes the file's. */
static void wait_idle(ox_file_out *o)
{
    pthread_mutex_lock(&o->mu);
    while (o->busy)
        pthread_cond_wait(&o->cv, &o->mu);
    if (o->thread_err && !o->err)
        o->err = o->thread_err;
    pthread_mutex_unlock(&o->mu);
}

/* Give the thread the first `n` bytes of the current stage (n a multiple of
 * OX_DIRECT_ALIGN) and switch to the other one, once the thread has let go
 * of it. */
static void hand_over(ox_file_out *o, size_t n)
{
    wait_idle(o);
    pthread_mutex_lock(&o->mu);
    o->slot = o->cur;
    o->slot_len = n;
    o->slot_at = o->at;
    o->busy = true;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    o->cur ^= 1;
    o->at += n;
    o->fill = 0;
}

static void release(ox_file_out *o)
{
    if (o->thread_up) {
        pthread_mutex_lock(&o->mu);
        o->quit = true;
        pthread_cond_broadcast(&o->cv);
        pthread_mutex_unlock(&o->mu);
        pthread_join(o->thread, NULL);
        pthread_cond_destroy(&o->cv);
        pthread_mutex_destroy(&o->mu);
        o->thread_up = false;
    }
    free(o->stage[0]);
    free(o->stage[1]);
    o->stage[0] = o->stage[1] = NULL;
}

void ox_file_out_open(ox_file_out *o, int fd, bool direct, uint64_t total)
{
    memset(o, 0, sizeof *o);
    o->fd = fd;
    if (!direct || total < OX_DIRECT_MIN)
        return;
    o->stage[0] = aligned_alloc(OX_DIRECT_ALIGN, OX_DIRECT_STAGE);
    o->stage[1] = aligned_alloc(OX_DIRECT_ALIGN, OX_DIRECT_STAGE);
    if (!o->stage[0] || !o->stage[1] || pthread_mutex_init(&o->mu, NULL) != 0) {
        release(o);
        o->fell_back = true;
        return;
    }
    if (pthread_cond_init(&o->cv, NULL) != 0) {
        pthread_mutex_destroy(&o->mu);
        release(o);
        o->fell_back = true;
        return;
    }
    /* The thread starts with every signal blocked, so the host's handlers
     * (the CLI's temp-file cleanup, Python's Ctrl-C) run on its own threads. */
    sigset_t all, before;
    sigfillset(&all);
    bool masked = pthread_sigmask(SIG_SETMASK, &all, &before) == 0;
    o->thread_up = pthread_create(&o->thread, NULL, writer, o) == 0;
    if (masked)
        pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (!o->thread_up) {
        pthread_cond_destroy(&o->cv);
        pthread_mutex_destroy(&o->mu);
    }
    if (!o->thread_up || ox_direct_fs.set_direct(fd, true) != 0) {
        release(o);
        o->fell_back = true;
        return;
    }
    o->direct = true;
}

int ox_file_out_write(ox_file_out *o, const void *data, size_t n)
{
    if (o->err || n == 0)
        return o->err;
    if (!o->direct)
        return o->err = pwrite_all(write_here, o->fd, data, n, 0);
    const unsigned char *p = data;
    while (n) {
        size_t room = OX_DIRECT_STAGE - o->fill;
        size_t k = n < room ? n : room;
        memcpy(o->stage[o->cur] + o->fill, p, k);
        o->fill += k;
        p += k;
        n -= k;
        if (o->fill == OX_DIRECT_STAGE) {
            hand_over(o, OX_DIRECT_STAGE);
            if (o->err)
                return o->err;
        }
    }
    return 0;
}

int ox_file_out_close(ox_file_out *o)
{
    if (!o->direct)
        return o->err;
    /* The aligned part of what is staged goes direct; the tail, shorter than
     * a block, through the page cache once O_DIRECT is off. */
    int last = o->cur;
    size_t whole = o->fill / OX_DIRECT_ALIGN * OX_DIRECT_ALIGN, tail = o->fill - whole;
    uint64_t tail_at = o->at + whole;
    if (!o->err && whole)
        hand_over(o, whole);
    wait_idle(o);
    if (set_direct(o->fd, false) != 0 && !o->err)
        o->err = errno;
    if (!o->err && tail)
        o->err = pwrite_all(pwrite, o->fd, o->stage[last] + whole, tail, tail_at);
    if (!o->err && lseek(o->fd, (off_t)(tail_at + tail), SEEK_SET) < 0)
        o->err = errno;
    bool fell_back = o->fell_back;
    release(o);
    o->direct = false;
    o->fell_back = fell_back;
    return o->err;
}
