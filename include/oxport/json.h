/*
 * oxport's streaming JSON writer: the one behind the CLI's `--format json`
 * documents and the JSON export report (docs/json-output.md), for a host
 * that writes documents in the same conventions.  Commas and nesting are
 * tracked for the caller; strings are escaped per RFC 8259 and invalid
 * UTF-8 never reaches the output (each bad byte becomes U+FFFD).
 */
#ifndef OXPORT_JSON_H
#define OXPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "oxport/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of every document the CLI prints; bumped on an incompatible
 * change (a field removed or its meaning changed), not when one is added. */
#define OX_JSON_SCHEMA_VERSION 1

typedef struct ox_json ox_json;

/* A writer to `out`; NULL when out of memory.  Free it with ox_json_free. */
OX_API ox_json *ox_json_new(FILE *out);
OX_API void ox_json_free(ox_json *j);

OX_API void ox_json_object(ox_json *j);
OX_API void ox_json_object_end(ox_json *j);
OX_API void ox_json_array(ox_json *j);
OX_API void ox_json_array_end(ox_json *j);
OX_API void ox_json_key(ox_json *j, const char *key);
OX_API void ox_json_string(ox_json *j, const char *s); /* NULL writes null */
OX_API void ox_json_string_n(ox_json *j, const char *s, size_t len);
OX_API void ox_json_int(ox_json *j, int64_t v);
OX_API void ox_json_uint(ox_json *j, uint64_t v);
OX_API void ox_json_double(ox_json *j, double v); /* NaN/inf as strings */
OX_API void ox_json_bool(ox_json *j, bool v);
OX_API void ox_json_null(ox_json *j);
/* A document's opening: {"schema_version": 1, "command": NAME, ... */
OX_API void ox_json_document(ox_json *j, const char *command);
/* Closes the document with a newline; false if the stream had an error. */
OX_API bool ox_json_finish(ox_json *j);

#ifdef __cplusplus
}
#endif

#endif /* OXPORT_JSON_H */
