/* aten::dropout / aten::feature_dropout: the identity at inference time; the
 * identity pass removes the node. */
#include "aten_symbolics.h"
#include "aten_util.h"

int at_sym_dropout(ox_sym *g, const ox_api *api)
{
    if (api->arg_int(g, "train", 0))
        return api->fail(g, "dropout in training mode is not exported; put the model in eval "
                            "mode (train=False)");
    ox_vid y = at_op1(g, api, "Identity", api->arg_tensor(g, "input"));
    return y ? api->set_output(g, 0, y) : 1;
}
