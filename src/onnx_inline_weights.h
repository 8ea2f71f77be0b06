/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Weights inside an .onnx file, left in the file when it is read.  protobuf-c
 * copies every bytes field it decodes, so reading a model whose weights sit
 * in raw_data would hold them twice while decoding and once after.  The
 * reader instead decodes a copy of the wire bytes without the large raw_data
 * fields of the main graph's initializers, and keeps where each one is in the
 * file: the values then hold a file region (param_source.h), which only a
 * writer reads.
 */
#ifndef OXPORT_ONNX_INLINE_WEIGHTS_H
#define OXPORT_ONNX_INLINE_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#define OX_INLINE_KEPT UINT64_MAX

typedef struct ox_inline_weights {
    uint8_t *wire;     /* the model without those fields; NULL when none was left out */
    size_t wire_len;
    /* per initializer of the main graph, in wire order (the order protobuf-c
     * lists them in): where its raw_data's bytes start in the file, or
     * OX_INLINE_KEPT when they stayed in the wire */
    uint64_t *offset;
    uint64_t *length;
    size_t n, cap;
} ox_inline_weights;

/* Strip from p[0..len) (a ModelProto whose wire format was already walked,
 * onnx_read.c's wire_scan) the raw_data of main-graph initializers of
 * min_bytes or more.  A tensor with raw_data twice keeps both (protobuf's
 * last one wins; the reader then sees what protobuf-c does).  0, with
 * out->wire NULL when nothing was left out; -1 out of memory or a wire
 * format wire_scan should have refused. */
int ox_inline_weights_strip(const uint8_t *p, size_t len, uint64_t min_bytes,
                            ox_inline_weights *out);

void ox_inline_weights_free(ox_inline_weights *w);

#endif /* OXPORT_ONNX_INLINE_WEIGHTS_H */
