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

#endif
