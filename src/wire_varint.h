/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The protobuf wire format's base-128 varint, for the walks over a model's
 * bytes that run before protobuf-c decodes them (onnx_read.c's depth scan,
 * onnx_inline_weights.c's strip).
 */
#ifndef OXPORT_WIRE_VARINT_H
#define OXPORT_WIRE_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* The varint at p[*pos], *pos moved past it: 0, or -1 when it runs past len
 * or past 64 bits (a tenth byte above 1). */
static inline int ox_wire_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*pos >= len)
            return -1;
        uint8_t b = p[(*pos)++];
        if (shift == 63 && b > 1)
            return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

#endif /* OXPORT_WIRE_VARINT_H */
