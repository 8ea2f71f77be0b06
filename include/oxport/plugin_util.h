/*
 * oxport plugin SDK: helpers every symbolic pack needs, header-only over
 * the ox_api table (a pack still links nothing but libc).  All functions
 * are static inline and prefixed oxu_.
 *
 * Failure convention: a builder returns 0 (no value) after reporting why
 * through api->fail, or when an earlier step already failed; passing a 0 on
 * is safe, and oxu_set_result turns a 0 into the nonzero return a symbolic
 * needs.  So a symbolic is a chain of builders ending in
 *
 *     return oxu_set_result(g, api, 0, y);
 */
#ifndef OXPORT_PLUGIN_UTIL_H
#define OXPORT_PLUGIN_UTIL_H

#include "oxport/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Output i of the recorded op is v; v == 0 means a builder already failed
 * (its message is recorded), so this returns nonzero without masking it. */
static inline int oxu_set_result(ox_sym *g, const ox_api *api, size_t i, ox_vid v)
{
    return v ? api->set_output(g, i, v) : 1;
}

#ifdef __cplusplus
}
#endif

#endif /* OXPORT_PLUGIN_UTIL_H */
