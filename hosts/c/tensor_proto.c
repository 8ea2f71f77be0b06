/*
 * Hand-rolled protobuf encoding of one TensorProto.  The message is tiny
 * apart from raw_data, which is streamed straight from the tensor's bytes
 * (little-endian host assumed, as ONNX's raw_data is little-endian).
 */
#include "tensor_proto.h"

#include <stdio.h>
#include <string.h>

static size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

int hc_write_tensor_proto(const char *path, const hc_tensor *t, const char *name)
{
    unsigned char head[512];
    size_t n = 0;
    for (uint32_t i = 0; i < t->rank; i++) {
        head[n++] = (1 << 3) | 0; /* dims, varint */
        n += put_varint(head + n, (uint64_t)t->sizes[i]);
    }
    head[n++] = (2 << 3) | 0; /* data_type */
    n += put_varint(head + n, (uint64_t)t->dtype);
    size_t name_len = name ? strlen(name) : 0;
    if (name_len > 256)
        name_len = 256;
    if (name_len) {
        head[n++] = (8 << 3) | 2;
        n += put_varint(head + n, name_len);
        memcpy(head + n, name, name_len);
        n += name_len;
    }
    uint64_t bytes = (uint64_t)hc_numel(t) * hc_dtype_size(t->dtype);
    head[n++] = (9 << 3) | 2; /* raw_data */
    n += put_varint(head + n, bytes);

    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(head, 1, n, f) == n && fwrite(t->data, 1, (size_t)bytes, f) == bytes;
    if (fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}
