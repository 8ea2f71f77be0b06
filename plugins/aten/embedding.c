/* aten::embedding -> Gather rows of the weight.  padding_idx, sparse and
 * scale_grad_by_freq only affect gradients. */
#include "aten_symbolics.h"
#include "aten_util.h"

int at_sym_embedding(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "Gather", api->arg_tensor(g, "weight"),
                      api->arg_tensor(g, "indices"));
    return y ? api->set_output(g, 0, y) : 1;
}
