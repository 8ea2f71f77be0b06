/* aten::constant_pad_nd -> Pad (attributes before opset 11, inputs after). */
#include "aten_symbolics.h"
#include "aten_util.h"

int at_sym_constant_pad_nd(ox_sym *g, const ox_api *api)
{
    return at_constant_pad(g, api, "self", "value");
}
