/*
 * libFuzzer target: the ONNX reader must answer any byte string with a graph
 * or a status, never a crash, a hang or a leak.  A graph that reads is also
 * checked and printed, the two things `oxport check` and `oxport dump` do
 * with it next, and written back (to /dev/null), as an API user may.  Each
 * input is read twice: from memory, and from a file (a memfd), the path on
 * which large raw_data stays in the file (onnx_inline_weights.c) and the
 * write copies it from there.  Build and run: see tests/fuzz/README.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdlib.h>
#include <string.h>

#include "oxport/oxport.h"
#include "onnx.pb-c.h"
#include "onnx_inline_weights.h"
#include "onnx_read.h"
#include "onnx_write.h"

/* The strip's promise, on any bytes and with every raw_data long enough to
 * leave out: protobuf-c decodes the stripped wire exactly when it decodes
 * the input, to the same initializers, each left-out raw_data being the
 * input's bytes at the recorded offset. */
static void strip_keeps_the_message(const uint8_t *data, size_t size)
{
    ox_inline_weights w;
    if (ox_inline_weights_strip(data, size, 1, &w) != 0 || !w.wire)
        return;
    Onnx__ModelProto *a = onnx__model_proto__unpack(NULL, size, data);
    Onnx__ModelProto *b = onnx__model_proto__unpack(NULL, w.wire_len, w.wire);
    if (!a != !b)
        abort();
    if (a) {
        size_t na = a->graph ? a->graph->n_initializer : 0;
        size_t nb = b->graph ? b->graph->n_initializer : 0;
        if (na != nb || na != w.n)
            abort();
        for (size_t i = 0; i < na; i++) {
            const Onnx__TensorProto *ta = a->graph->initializer[i], *tb = b->graph->initializer[i];
            if (w.offset[i] == OX_INLINE_KEPT) {
                if (ta->has_raw_data != tb->has_raw_data || ta->raw_data.len != tb->raw_data.len)
                    abort();
                continue;
            }
            if (!ta->has_raw_data || tb->has_raw_data || ta->raw_data.len != w.length[i] ||
                w.offset[i] + w.length[i] > size ||
                memcmp(ta->raw_data.data, data + w.offset[i], (size_t)w.length[i]) != 0)
                abort();
        }
    }
    if (a)
        onnx__model_proto__free_unpacked(a, NULL);
    if (b)
        onnx__model_proto__free_unpacked(b, NULL);
    ox_inline_weights_free(&w);
}

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
    strip_keeps_the_message(data, size);
    for (int from_file = 0; from_file < 2; from_file++) {
        ox_graph *g = NULL;
        ox_status st;
        if (!from_file) {
            st = ox_read_memory(ctx, data, size, "fuzz.onnx", NULL, &g);
        } else {
            int fd = memfd_create("fuzz.onnx", MFD_CLOEXEC);
            if (fd < 0)
                continue;
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            st = write(fd, data, size) == (ssize_t)size ? ox_read(ctx, path, &g) : OX_EIO;
            close(fd); /* the graph keeps its own descriptor when it needs one */
        }
        if (st == OX_OK) {
            size_t n = 0;
            (void)ox_check(ctx, g, sink, &n);
            (void)ox_graph_print(g, sink);
            (void)ox_write(ctx, g, "/dev/null", NULL);
            ox_graph_free(g);
        }
    }
    return 0;
}
