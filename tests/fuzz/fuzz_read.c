/*
 * libFuzzer target: the ONNX reader must answer any byte string with a graph
 * or a status, never a crash, a hang or a leak.  A graph that reads is also
 * checked and printed, the two things `oxport check` and `oxport dump` do
 * with it next, and written back (to /dev/null), as an API user may.  Build
 * and run: see tests/fuzz/README.md.
 */
#include <stdint.h>
#include <stdio.h>

#include "oxport/oxport.h"
#include "onnx_read.h"
#include "onnx_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ox_context *ctx;
    static FILE *sink;
    if (!ctx && ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS |
                                   OX_CONTEXT_NO_ENV, &ctx) != OX_OK)
        return 0;
    if (!sink)
        sink = fopen("/dev/null", "w");
    ox_graph *g = NULL;
    if (ox_read_memory(ctx, data, size, "fuzz.onnx", NULL, &g) == OX_OK) {
        size_t n = 0;
        (void)ox_check(ctx, g, sink, &n);
        (void)ox_graph_print(g, sink);
        (void)ox_write(ctx, g, "/dev/null", NULL);
        ox_graph_free(g);
    }
    return 0;
}
