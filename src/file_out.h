/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Where the writer's bytes go: a fresh file, written front to back, either
 * through the page cache (write(2), the default) or with direct I/O.
 *
 * Direct I/O (O_DIRECT) sends the bytes from memory to the device without
 * making page-cache pages for them.  Where growing the page cache is what a
 * large write costs (a VM whose free memory goes back to its host; a machine
 * whose memory is full of other files), it writes at the device's speed
 * instead; on a slow device a buffered write returns sooner.  O_DIRECT needs
 * aligned memory, offsets and lengths, so the bytes are copied into two
 * aligned stages: a thread writes one while the caller fills the other.
 * A file system or device that refuses direct I/O (at fcntl, or EINVAL at
 * the first write) gets the same bytes through the page cache; the result is
 * byte for byte the same file either way.  See docs/onnx-writer.md,
 * "Direct I/O".
 */
#ifndef OXPORT_FILE_OUT_H
#define OXPORT_FILE_OUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Alignment of direct writes (memory, offset, length): a page, which covers
 * every logical block size Linux devices use (512 and 4096). */
#define OX_DIRECT_ALIGN ((size_t)4096)
/* Each of the two stages.  Big enough that a write is one device request of
 * useful size, small enough that faulting the stages in costs little. */
#define OX_DIRECT_STAGE ((size_t)2 << 20)
/* Files smaller than this are written through the page cache even when
 * direct I/O is asked for: the thread and the stages would cost more than
 * they save. */
#define OX_DIRECT_MIN ((uint64_t)8 << 20)

/* The calls a direct write makes that tests replace (a file system that
 * refuses O_DIRECT at fcntl or at the first write); nothing else does. */
typedef struct ox_direct_ops {
    int (*set_direct)(int fd, bool on);                       /* 0 or -1 with errno */
    ssize_t (*pwrite)(int fd, const void *p, size_t n, off_t at); /* direct writes only */
} ox_direct_ops;
extern ox_direct_ops ox_direct_fs;

typedef struct ox_file_out {
    int fd;
    int err;          /* first errno; later writes are dropped */
    bool direct;      /* O_DIRECT is in force on fd */
    bool fell_back;   /* direct I/O was asked for and refused: buffered instead */
    uint64_t at;      /* file offset of stage[cur]'s first byte */
    unsigned char *stage[2];
    size_t fill;      /* bytes in stage[cur] */
    int cur;
    /* the writing thread and its one slot */
    pthread_t thread;
    bool thread_up;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool busy;        /* a stage is handed over and not yet written */
    bool quit;
    int slot;         /* which stage */
    size_t slot_len;
    uint64_t slot_at;
    int thread_err;   /* the thread's first errno */
} ox_file_out;

/* Start writing `fd`, a fresh file at offset 0, that will hold `total` bytes.
 * `direct` asks for direct I/O; it is used when the file is large enough and
 * the file system, memory and threads allow it, else the bytes go through
 * the page cache (o->fell_back says whether it was asked for and refused). */
void ox_file_out_open(ox_file_out *o, int fd, bool direct, uint64_t total);
/* Append bytes.  Returns 0 or the first errno of this file (later calls are
 * no-ops once one failed). */
int ox_file_out_write(ox_file_out *o, const void *p, size_t n);
/* Write what is staged, wait for the thread, leave fd as a plain descriptor
 * at the end of the file.  Returns 0 or the first errno.  Releases
 * everything; call it once, also after an error. */
int ox_file_out_close(ox_file_out *o);

#endif /* OXPORT_FILE_OUT_H */
