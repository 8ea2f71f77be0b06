/* Matrix products: linear, addmm -> Gemm; matmul/mm/bmm -> MatMul. */
#include "aten_symbolics.h"
#include "aten_util.h"

int at_sym_linear(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    ox_vid w = api->arg_tensor(g, "weight");
    ox_vid b = api->arg_tensor(g, "bias");
    ox_vid y;
    if (b && api->rank(g, x) == 2) {
        ox_vid in[3] = {x, w, b};
        ox_onode *n = api->op(g, "Gemm", 3, in, 1);
        if (n)
            api->attr_int(n, "transB", 1);
        y = at_out(g, api, n, "Gemm");
    } else {
        /* Any rank: y = x @ W^T (+ b), broadcasting over leading dims. */
        static const int64_t perm[2] = {1, 0};
        y = at_op2(g, api, "MatMul", x, at_transpose(g, api, w, perm, 2));
        if (y && b)
            y = at_op2(g, api, "Add", y, b);
    }
    return y ? api->set_output(g, 0, y) : 1;
}

int at_sym_addmm(ox_sym *g, const ox_api *api)
{
    ox_vid in[3] = {api->arg_tensor(g, "mat1"), api->arg_tensor(g, "mat2"),
                    api->arg_tensor(g, "self")};
    ox_onode *n = api->op(g, "Gemm", 3, in, 1);
    if (n) {
        api->attr_float(n, "alpha", api->arg_float(g, "alpha", 1.0));
        api->attr_float(n, "beta", api->arg_float(g, "beta", 1.0));
    }
    ox_vid y = at_out(g, api, n, "Gemm");
    return y ? api->set_output(g, 0, y) : 1;
}

int at_sym_matmul(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "MatMul", api->arg_tensor(g, "self"), api->arg_tensor(g, "other"));
    return y ? api->set_output(g, 0, y) : 1;
}

/* mm and bmm name their second operand mat2. */
int at_sym_mm(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "MatMul", api->arg_tensor(g, "self"), api->arg_tensor(g, "mat2"));
    return y ? api->set_output(g, 0, y) : 1;
}
