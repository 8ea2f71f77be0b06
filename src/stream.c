/*
 * Streams for hosts that cannot make a FILE * (ctypes and other FFIs): every
 * FILE * of the public API (ox_export_options.verbose, ox_graph_print,
 * ox_check's report, ...) can be one made here from a file descriptor.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "oxport/oxport.h"

OX_API FILE *ox_stream_from_fd(int fd)
{
    /* a duplicate, so closing the stream leaves the caller's descriptor open */
    int mine = dup(fd);
    if (mine < 0)
        return NULL;
    FILE *f = fdopen(mine, "w");
    if (!f) {
        int e = errno;
        close(mine);
        errno = e;
    }
    return f;
}

OX_API int ox_stream_close(FILE *stream)
{
    if (!stream)
        return 0;
    return fclose(stream);
}
