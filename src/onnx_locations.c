#include "onnx_locations.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Field numbers (onnx.proto): ModelProto.graph 7, GraphProto.initializer 5,
 * TensorProto.external_data 13, StringStringEntryProto.key 1 / value 2. */
enum { MODEL_GRAPH = 7, GRAPH_INITIALIZER = 5, TENSOR_EXTERNAL_DATA = 13, ENTRY_KEY = 1,
       ENTRY_VALUE = 2 };

typedef struct span {
    const unsigned char *p, *end;
} span;

static bool varint(span *s, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && s->p < s->end; shift += 7) {
        unsigned char b = *s->p++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

/* Next field of a message: its number and, for length-delimited ones, the
 * payload.  Other wire types are skipped.  False at the end or on damage. */
static bool next_field(span *s, uint32_t *field, span *payload, bool *is_len)
{
    for (;;) {
        uint64_t key, v;
        if (s->p >= s->end || !varint(s, &key))
            return false;
        *field = (uint32_t)(key >> 3);
        *is_len = false;
        switch (key & 7) {
        case 0:
            if (!varint(s, &v))
                return false;
            break;
        case 1:
            if (s->end - s->p < 8)
                return false;
            s->p += 8;
            break;
        case 5:
            if (s->end - s->p < 4)
                return false;
            s->p += 4;
            break;
        case 2:
            if (!varint(s, &v) || v > (uint64_t)(s->end - s->p))
                return false;
            payload->p = s->p;
            payload->end = s->p + v;
            s->p += v;
            *is_len = true;
            return true;
        default: /* groups: not in ONNX */
            return false;
        }
        return true;
    }
}

static bool add_location(char *out[], size_t *n, span v)
{
    size_t len = (size_t)(v.end - v.p);
    if (len == 0 || memchr(v.p, '\0', len))
        return true;
    for (size_t i = 0; i < *n; i++)
        if (strlen(out[i]) == len && memcmp(out[i], v.p, len) == 0)
            return true;
    if (*n == OX_LOCATIONS_MAX)
        return false;
    char *s = strndup((const char *)v.p, len);
    if (!s)
        return false;
    out[(*n)++] = s;
    return true;
}

static bool scan_entry(span e, char *out[], size_t *n)
{
    span key = {NULL, NULL}, value = {NULL, NULL}, f;
    uint32_t field;
    bool is_len;
    while (next_field(&e, &field, &f, &is_len))
        if (is_len && field == ENTRY_KEY)
            key = f;
        else if (is_len && field == ENTRY_VALUE)
            value = f;
    if (key.p && key.end - key.p == 8 && memcmp(key.p, "location", 8) == 0 && value.p)
        return add_location(out, n, value);
    return true;
}

size_t ox_external_locations(const char *model_path, char *out[OX_LOCATIONS_MAX])
{
    int fd = open(model_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        return 0;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return 0;
    size_t n = 0;
    span model = {map, (const unsigned char *)map + st.st_size}, graph, init, entry;
    uint32_t field;
    bool is_len, more = true;
    while (more && next_field(&model, &field, &graph, &is_len)) {
        if (!is_len || field != MODEL_GRAPH)
            continue;
        while (more && next_field(&graph, &field, &init, &is_len)) {
            if (!is_len || field != GRAPH_INITIALIZER)
                continue;
            while (more && next_field(&init, &field, &entry, &is_len))
                if (is_len && field == TENSOR_EXTERNAL_DATA)
                    more = scan_entry(entry, out, &n);
        }
    }
    munmap(map, (size_t)st.st_size);
    return n;
}
