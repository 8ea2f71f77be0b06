/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The public introspection calls (oxport.h, "introspection") keep, per
 * context, the listing of the opset last asked about: rows joining the
 * descriptors with the registry, and the limitation texts they hand out.
 * It points into the registry, so whatever replaces or grows the registry
 * forgets it first.
 */
#ifndef OXPORT_INTROSPECT_H
#define OXPORT_INTROSPECT_H

#include "context.h"

struct ox_introspection;

/* Drop ctx's cached listing (called before its registry changes). */
void ox_introspect_forget(ox_context *ctx);

#endif /* OXPORT_INTROSPECT_H */
