/* What a family file of the aten pack needs to declare its operators:
 *
 *     static const ox_param_decl p_elu[] = {OX_PARAM("self", OX_ARG_TENSOR), ...};
 *     const ox_op_decl at_ops_activation[] = {
 *         OX_OP("aten::elu", 9, p_elu, 1, sym_elu),
 *     };
 *     AT_FAMILY_SIZE(at_ops_activation);
 *
 * and one AT_FAMILY(at_ops_activation) line in aten_families.h. */
#ifndef OX_ATEN_FAMILY_H
#define OX_ATEN_FAMILY_H

#include "oxport/plugin.h"

#define AT_FAMILY_SIZE(table) const uint32_t table##_n = OX_N_PARAMS(table)

/* A required parameter a host may also record as another kind (the traced
 * form of a size list: ints, or a 1-D int64 tensor built from traced sizes). */
#define AT_PARAM_OR(nm, k, alt) {.name = (nm), .kind = (k), .alt_kinds = OX_KIND_BIT(alt)}
/* The same, optional with None as its default. */
#define AT_PARAM_OR_NULL(nm, k, alt)                                                       \
    {.name = (nm), .kind = (k), .alt_kinds = OX_KIND_BIT(alt), .flags = OX_PARAM_OPTIONAL, \
     .dflt = {.tag = OX_DEFAULT_NULL}}
/* An optional int a host may also record as a traced rank-0 value, with an int
 * default (triu's diagonal). */
#define AT_PARAM_INT_OR(nm, alt, val)                                                      \
    {.name = (nm), .kind = OX_ARG_INT, .alt_kinds = OX_KIND_BIT(alt), .flags = OX_PARAM_OPTIONAL, \
     .dflt = {.tag = OX_DEFAULT_INT, .v = {.i = (val)}}}

#endif
