/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Parameters whose bytes are read on demand (oxport.h: ox_trace_param_reader,
 * ox_trace_param_file, ox_trace_param_fd).  The trace stores where the bytes
 * are; the writer, the only stage that needs them, reads them through a
 * cursor one bounded chunk at a time, so no parameter is ever resident whole.
 * Every failure is reported on the context with the parameter's name.
 */
#ifndef OXPORT_PARAM_SOURCE_H
#define OXPORT_PARAM_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

typedef enum ox_source_kind {
    OX_SOURCE_CALLBACK = 1,
    OX_SOURCE_PATH = 2,
    OX_SOURCE_FD = 3
} ox_source_kind;

typedef struct ox_tensor_source {
    ox_source_kind kind;
    ox_param_read_fn read; /* CALLBACK */
    void *user;
    const char *path;      /* PATH (in the graph's arena); FD: its name for messages, or NULL */
    int fd;                /* FD (the host's, or one a read graph keeps) */
    uint64_t offset;       /* PATH / FD: where the bytes start in the file */
} ox_tensor_source;

/* Whether a file region can be read whole now: OX_OK, or OX_EIO with the
 * context's message saying why (missing file, region past its end).  A
 * callback always passes: only reading it can tell. */
ox_status ox_source_check(ox_context *ctx, const char *what, const char *name,
                          const ox_tensor_source *s, uint64_t nbytes);

/* Reading one parameter from its first byte to its last. */
typedef struct ox_source_cursor {
    const ox_tensor_source *src;
    const char *name;
    uint64_t nbytes, done;
    int fd;       /* the file read from, -1 for a callback */
    bool own_fd;  /* opened here (PATH): closed by ox_source_close */
} ox_source_cursor;

ox_status ox_source_open(ox_context *ctx, ox_source_cursor *c, const ox_tensor_source *s,
                         const char *name, uint64_t nbytes);
/* The next min(cap, bytes left) bytes into buf; *got says how many. */
ox_status ox_source_next(ox_context *ctx, ox_source_cursor *c, void *buf, size_t cap,
                         size_t *got);
void ox_source_close(ox_source_cursor *c);

#endif /* OXPORT_PARAM_SOURCE_H */
