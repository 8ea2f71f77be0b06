/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Bounds on a YAML file, checked on libyaml's event stream before the
 * document is composed, so that loading and walking it costs time linear in
 * the file: nesting depth, the node count with every alias expanded (a small
 * file of aliases to aliases would otherwise make its readers walk billions
 * of nodes), recursive aliases, and NUL characters inside scalars (libyaml
 * keeps "\0" escapes, which C strings would cut short).
 */
#ifndef OXPORT_YAML_LIMITS_H
#define OXPORT_YAML_LIMITS_H

#include <stdint.h>
#include <stdio.h>

#include "context.h"

#define OX_YAML_MAX_DEPTH 64
#define OX_YAML_MAX_NODES 1000000u /* after alias expansion */

/* Scan `f` (from its start; rewound after).  OX_OK, or OX_ECONFIG with
 * "PATH:LINE:COL: expected ..., got ..." at the offending event, OX_ENOMEM.
 * Syntax errors are left to the loader (OX_OK here). */
ox_status ox_yaml_check_limits(ox_context *ctx, const char *path, FILE *f);

#endif /* OXPORT_YAML_LIMITS_H */
