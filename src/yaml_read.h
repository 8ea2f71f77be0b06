/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Strict reading of small YAML files (opset descriptors, user config) on top
 * of libyaml's document API.  Every failure becomes the context's message in
 * the form "FILE:LINE:COL: expected <what>, got <what>" with 1-based marks.
 */
#ifndef OXPORT_YAML_READ_H
#define OXPORT_YAML_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "context.h"

typedef struct ox_yaml {
    yaml_document_t doc;
    const char *path; /* borrowed: used in messages */
    bool loaded;
} ox_yaml;

/* Parse path into y (y->path borrows path).  On failure the context holds a
 * file:line:col message, y needs no cleanup and the status is OX_EIO
 * (unreadable) or OX_ECONFIG (syntax). */
ox_status ox_yaml_load(ox_context *ctx, const char *path, ox_yaml *y);
void ox_yaml_free(ox_yaml *y);
/* Root node; NULL for an empty document. */
yaml_node_t *ox_yaml_root(ox_yaml *y);
yaml_node_t *ox_yaml_node(ox_yaml *y, int id);

/* "FILE:LINE:COL: expected <expected>, got <description of n>"; returns OX_ECONFIG. */
ox_status ox_yaml_expected(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n,
                           const char *expected);
/* "FILE:LINE:COL: <formatted text>" at n's start; returns OX_ECONFIG. */
ox_status ox_yaml_fail_at(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n,
                          const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* How a node reads in messages: "a mapping", "a sequence", "'text'", "nothing". */
void ox_yaml_describe(const yaml_node_t *n, char *buf, size_t cap);

/* Scalar resolution following YAML's core schema: quoted scalars are always
 * strings; plain ones may be null, bool, int or float. */
typedef enum ox_yscalar {
    OX_YS_NOT_SCALAR = 0,
    OX_YS_NULL,
    OX_YS_BOOL,
    OX_YS_INT,
    OX_YS_FLOAT,
    OX_YS_STRING
} ox_yscalar;

typedef struct ox_yvalue {
    ox_yscalar kind;
    int64_t i; /* INT, BOOL (0/1) */
    double f;  /* FLOAT, also INT/BOOL converted */
    const char *s; /* the scalar's text (all kinds), NUL-terminated, owned by the document */
} ox_yvalue;

ox_yvalue ox_yaml_scalar(const yaml_node_t *n);

/* Typed reads; each fails with an "expected ..." message naming `what`. */
ox_status ox_yaml_int(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n, const char *what,
                      int64_t *out);
ox_status ox_yaml_string(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n,
                         const char *what, const char **out);

/* Check a mapping: n must be a mapping, every key a plain string, none
 * repeated, each one of `allowed` (NULL-terminated; NULL = any key).
 * `what` names the mapping in messages ("an opset descriptor"). */
ox_status ox_yaml_check_mapping(ox_context *ctx, ox_yaml *y, const yaml_node_t *n,
                                const char *what, const char *const *allowed);
/* Value of key in a mapping already checked; NULL when absent. */
yaml_node_t *ox_yaml_get(ox_yaml *y, const yaml_node_t *map, const char *key);

#endif /* OXPORT_YAML_READ_H */
