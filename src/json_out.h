/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * A small streaming JSON writer for the CLI's `--format json` output and
 * the JSON export report
 * (docs/json-output.md).  Commas and nesting are tracked for the caller;
 * strings are escaped per RFC 8259 and invalid UTF-8 never reaches the
 * output (each bad byte becomes U+FFFD), so any ONNX name prints as valid
 * JSON.
 */
#ifndef OXPORT_JSON_OUT_H
#define OXPORT_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The version of every document the CLI prints; bumped on an incompatible
 * change (a field removed or its meaning changed), not when one is added. */
#define OX_JSON_SCHEMA_VERSION 1

#define OX_JSON_MAX_DEPTH 64

typedef struct ox_json {
    FILE *out;
    int depth;
    bool need_comma[OX_JSON_MAX_DEPTH];
    bool after_key;
} ox_json;

void ox_json_init(ox_json *j, FILE *out);
void ox_json_object(ox_json *j);
void ox_json_object_end(ox_json *j);
void ox_json_array(ox_json *j);
void ox_json_array_end(ox_json *j);
void ox_json_key(ox_json *j, const char *key);
void ox_json_string(ox_json *j, const char *s);          /* NULL writes null */
void ox_json_string_n(ox_json *j, const char *s, size_t len);
void ox_json_int(ox_json *j, int64_t v);
void ox_json_uint(ox_json *j, uint64_t v);
void ox_json_double(ox_json *j, double v);                /* NaN/inf as strings */
void ox_json_bool(ox_json *j, bool v);
void ox_json_null(ox_json *j);
/* A document's opening: {"schema_version": 1, "command": NAME, ... */
void ox_json_document(ox_json *j, const char *command);
/* Closes the document with a newline; false if the stream had an error. */
bool ox_json_finish(ox_json *j);

#endif /* OXPORT_JSON_OUT_H */
