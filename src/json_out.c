#include "json_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ox_json_init(ox_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

OX_API ox_json *ox_json_new(FILE *out)
{
    ox_json *j = malloc(sizeof *j);
    if (j)
        ox_json_init(j, out);
    return j;
}

OX_API void ox_json_free(ox_json *j)
{
    free(j);
}

/* Before any value: a comma between siblings, none right after a key. */
static void before_value(ox_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth > 0 && j->need_comma[j->depth - 1])
        fputc(',', j->out);
    if (j->depth > 0)
        j->need_comma[j->depth - 1] = true;
}

static void open_level(ox_json *j, char c)
{
    before_value(j);
    fputc(c, j->out);
    if (j->depth < OX_JSON_MAX_DEPTH)
        j->need_comma[j->depth] = false;
    j->depth++;
}

static void close_level(ox_json *j, char c)
{
    if (j->depth > 0)
        j->depth--;
    fputc(c, j->out);
}

void ox_json_object(ox_json *j) { open_level(j, '{'); }
void ox_json_object_end(ox_json *j) { close_level(j, '}'); }
void ox_json_array(ox_json *j) { open_level(j, '['); }
void ox_json_array_end(ox_json *j) { close_level(j, ']'); }

/* Length of the valid UTF-8 sequence at p (1..4), 0 when invalid. */
static size_t utf8_len(const unsigned char *p, size_t left)
{
    unsigned char c = p[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

static void raw_string(ox_json *j, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', j->out);
    for (size_t i = 0; i < len;) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', j->out);
            fputc(c, j->out);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n': fputs("\\n", j->out); break;
            case '\t': fputs("\\t", j->out); break;
            case '\r': fputs("\\r", j->out); break;
            default: fprintf(j->out, "\\u%04x", c); break;
            }
            i++;
        } else if (c == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
            /* C1 controls (U+0080..U+009F), DEL above: JSON may carry them
             * raw, escaped they cannot act on a terminal the JSON is shown on */
            fprintf(j->out, "\\u%04x", p[i + 1]);
            i += 2;
        } else {
            size_t n = utf8_len(p + i, len - i);
            if (n == 0) {
                fputs("\\ufffd", j->out);
                i++;
            } else {
                fwrite(p + i, 1, n, j->out);
                i += n;
            }
        }
    }
    fputc('"', j->out);
}

void ox_json_key(ox_json *j, const char *key)
{
    before_value(j);
    raw_string(j, key, strlen(key));
    fputc(':', j->out);
    j->after_key = true;
}

void ox_json_string_n(ox_json *j, const char *s, size_t len)
{
    before_value(j);
    raw_string(j, s, len);
}

void ox_json_string(ox_json *j, const char *s)
{
    if (!s) {
        ox_json_null(j);
        return;
    }
    ox_json_string_n(j, s, strlen(s));
}

void ox_json_int(ox_json *j, int64_t v)
{
    before_value(j);
    fprintf(j->out, "%lld", (long long)v);
}

void ox_json_uint(ox_json *j, uint64_t v)
{
    before_value(j);
    fprintf(j->out, "%llu", (unsigned long long)v);
}

void ox_json_double(ox_json *j, double v)
{
    if (isnan(v)) {
        ox_json_string(j, "nan");
        return;
    }
    if (isinf(v)) {
        ox_json_string(j, v < 0 ? "-inf" : "inf");
        return;
    }
    before_value(j);
    /* The shortest form that reads back as the same number; a float32
     * attribute held in a double only needs to round-trip as float. */
    bool as_float = (double)(float)v == v;
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        double back = strtod(buf, NULL);
        if (as_float ? (float)back == (float)v : back == v)
            break;
    }
    fputs(buf, j->out);
}

void ox_json_bool(ox_json *j, bool v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->out);
}

void ox_json_null(ox_json *j)
{
    before_value(j);
    fputs("null", j->out);
}

void ox_json_document(ox_json *j, const char *command)
{
    ox_json_object(j);
    ox_json_key(j, "schema_version");
    ox_json_int(j, OX_JSON_SCHEMA_VERSION);
    ox_json_key(j, "command");
    ox_json_string(j, command);
}

bool ox_json_finish(ox_json *j)
{
    ox_json_object_end(j);
    fputc('\n', j->out);
    return !ferror(j->out) && fflush(j->out) == 0;
}
