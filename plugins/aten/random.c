/* Random generators: aten::rand, randn, randint (of a traced size),
 * bernoulli, normal, multinomial -> ONNX's RandomUniform(Like),
 * RandomNormal(Like), Bernoulli and Multinomial.  They draw from the same
 * distributions as torch, but other numbers: ONNX Runtime has its own
 * generator and seeds, so no exported value equals PyTorch's (nor a
 * torch.manual_seed's).  (rand_like and randn_like are in factory.c.) */
#include <stdint.h>
#include <stdio.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static ox_dtype dtype_arg(ox_sym *g, const ox_api *api, ox_dtype dflt)
{
    return api->arg_kind(g, "dtype") == OX_ARG_DTYPE ? (ox_dtype)api->arg_int(g, "dtype", dflt) : dflt;
}

/* The types the generators make: float and double (ONNX allows float16
 * too, but ONNX Runtime has no float16 kernels: float16 and the others are
 * cast from float). */
static ox_dtype generated(ox_dtype dt)
{
    return dt == OX_DOUBLE ? dt : OX_FLOAT;
}

/* `op_type` (RandomUniform / RandomNormal) of the size argument's shape and
 * element type gen: the static form with a constant size, the Like form
 * over ConstantOfShape of a traced one.  *n gets the node, for attributes. */
static ox_vid draw(ox_sym *g, const ox_api *api, const char *op_type, ox_dtype gen, ox_onode **n)
{
    *n = NULL;
    if (api->arg_kind(g, "size") == OX_ARG_TENSOR) {
        ox_vid size = oxu_cast_to(g, api, api->arg_tensor(g, "size"), OX_INT64);
        ox_vid like = oxu_full(g, api, size, 0.0, OX_FLOAT);
        char like_type[32];
        snprintf(like_type, sizeof like_type, "%sLike", op_type);
        *n = like ? api->op(g, like_type, 1, &like, 1) : NULL;
        if (*n)
            api->attr_int(*n, "dtype", gen);
        return like ? at_out(g, api, *n, like_type) : 0;
    }
    const int64_t *size = NULL;
    size_t k = api->arg_ints(g, "size", &size);
    for (size_t i = 0; i < k; i++)
        if (size[i] < 0) {
            api->fail(g, "argument 'size'[%zu] is %lld; sizes must be non-negative", i,
                      (long long)size[i]);
            return 0;
        }
    *n = api->op(g, op_type, 0, NULL, 1);
    if (*n) {
        api->attr_int(*n, "dtype", gen);
        api->attr_ints(*n, "shape", size, k);
    }
    return at_out(g, api, *n, op_type);
}

static int random_of_size(ox_sym *g, const ox_api *api, const char *op_type)
{
    ox_dtype dt = dtype_arg(g, api, OX_FLOAT);
    ox_onode *n;
    return oxu_set_result_as(g, api, 0, draw(g, api, op_type, generated(dt), &n), dt);
}

static int sym_rand(ox_sym *g, const ox_api *api)
{
    return random_of_size(g, api, "RandomUniform");
}

static int sym_randn(ox_sym *g, const ox_api *api)
{
    return random_of_size(g, api, "RandomNormal");
}

/* randint(low, high, size): Floor of a double uniform in [low, high). */
static int sym_randint(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = dtype_arg(g, api, OX_INT64);
    double low = (double)api->arg_int(g, "low", 0), high = (double)api->arg_int(g, "high", 0);
    if (!(high > low))
        return api->fail(g, "randint needs low < high, got low %g and high %g", low, high);
    ox_onode *n;
    ox_vid u = draw(g, api, "RandomUniform", OX_DOUBLE, &n);
    if (n) {
        api->attr_float(n, "low", low);
        api->attr_float(n, "high", high);
    }
    return oxu_set_result_as(g, api, 0, at_op1(g, api, "Floor", u), dt);
}

/* bernoulli(self) draws 1 with probability self; bernoulli(self, p) (the
 * in-place bernoulli_(p)) with probability p.  Bernoulli from opset 15 for
 * the first; otherwise a uniform draw below the probability. */
static int sym_bernoulli(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self");
    ox_dtype dt = api->dtype(g, self), gen = generated(dt);
    int scalar_p = oxu_arg_is_number(g, api, "p");
    if (!scalar_p && api->opset(g) >= 15) {
        ox_vid probs = oxu_cast_to(g, api, self, gen);
        ox_onode *n = probs ? api->op(g, "Bernoulli", 1, &probs, 1) : NULL;
        if (n)
            api->attr_int(n, "dtype", dt);
        return oxu_set_result(g, api, 0, probs ? at_out(g, api, n, "Bernoulli") : 0);
    }
    ox_onode *n = self ? api->op(g, "RandomUniformLike", 1, &self, 1) : NULL;
    if (n)
        api->attr_int(n, "dtype", gen);
    ox_vid u = self ? at_out(g, api, n, "RandomUniformLike") : 0;
    ox_vid p = scalar_p ? oxu_scalar(g, api, gen, api->arg_float(g, "p", 0.5)) : oxu_cast_to(g, api, self, gen);
    return oxu_set_result_as(g, api, 0, at_op2(g, api, "Less", u, p), dt);
}

/* normal(mean, std), either a tensor or a number: mean + std * N(0, 1) of
 * their broadcast shape. */
static int sym_normal(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = OXU_API_HAS(api, output_dtype) ? api->output_dtype(g, 0) : OX_UNDEFINED;
    if (dt == OX_UNDEFINED)
        dt = OX_FLOAT;
    ox_dtype gen = generated(dt);
    ox_vid v[2];
    const char *names[2] = {"mean", "std"};
    for (int i = 0; i < 2; i++)
        v[i] = oxu_arg_is_number(g, api, names[i])
                   ? oxu_scalar(g, api, gen, api->arg_float(g, names[i], i ? 1.0 : 0.0))
                   : oxu_cast_to(g, api, api->arg_tensor(g, names[i]), gen);
    ox_vid shape_of = at_op2(g, api, "Add", v[0], v[1]);
    ox_onode *n = shape_of ? api->op(g, "RandomNormalLike", 1, &shape_of, 1) : NULL;
    if (n)
        api->attr_int(n, "dtype", gen);
    ox_vid z = shape_of ? at_out(g, api, n, "RandomNormalLike") : 0;
    ox_vid y = at_op2(g, api, "Add", at_op2(g, api, "Mul", z, v[1]), v[0]);
    return oxu_set_result_as(g, api, 0, y, dt);
}

/* ONNX Multinomial draws with replacement only. */
static int check_multinomial(ox_sym *g, const ox_api *api)
{
    if (!api->arg_int(g, "replacement", 0) && api->arg_int(g, "num_samples", 1) > 1)
        return api->limit(g, 0, "multinomial without replacement of more than one sample is not "
                                "exported (ONNX Multinomial draws with replacement); pass "
                                "replacement=True");
    return 0;
}

/* multinomial(self, num_samples): Multinomial over log(self) (it takes
 * unnormalised log-probabilities, float only), per row of a 2-D self. */
static int sym_multinomial(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self");
    int rank = api->rank(g, self);
    if (rank != 1 && rank != 2)
        return api->fail(g, "multinomial takes a 1-D or 2-D input, got rank %d", rank);
    ox_vid logp = at_op1(g, api, "Log", oxu_cast_to(g, api, self, OX_FLOAT));
    if (rank == 1)
        logp = at_unsqueeze(g, api, logp, 0);
    ox_onode *n = logp ? api->op(g, "Multinomial", 1, &logp, 1) : NULL;
    if (n) {
        api->attr_int(n, "sample_size", api->arg_int(g, "num_samples", 1));
        api->attr_int(n, "dtype", OX_INT64);
    }
    ox_vid y = logp ? at_out(g, api, n, "Multinomial") : 0;
    int64_t zero = 0;
    if (rank == 1)
        y = at_squeeze(g, api, y, &zero, 1);
    return oxu_set_result(g, api, 0, y);
}

static const ox_param_decl p_rand[] = {AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR),
                                       OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_randint[] = {OX_PARAM_INT("low", OX_ARG_INT, 0), OX_PARAM("high", OX_ARG_INT),
                                          AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR),
                                          OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
/* bernoulli(self) and bernoulli.p(self, float p); the schemas' generator is
 * left out by hosts when it is None (ONNX Runtime's generator is used) */
static const ox_param_decl p_bernoulli[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                            OX_PARAM_NULL("p", OX_ARG_FLOAT)};
static const ox_param_decl p_normal[] = {OX_PARAM_FLOAT("mean", OX_ARG_TENSOR_OR_SCALAR, 0.0),
                                         OX_PARAM_FLOAT("std", OX_ARG_TENSOR_OR_SCALAR, 1.0)};
static const ox_param_decl p_multinomial[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("num_samples", OX_ARG_INT),
                                              OX_PARAM_BOOL("replacement", 0)};

const ox_op_decl at_ops_random[] = {
    OX_OP("aten::rand", 9, p_rand, 1, sym_rand),
    OX_OP("aten::randn", 9, p_rand, 1, sym_randn),
    OX_OP("aten::randint", 9, p_randint, 1, sym_randint),
    OX_OP("aten::bernoulli", 9, p_bernoulli, 1, sym_bernoulli),
    OX_OP("aten::normal", 9, p_normal, 1, sym_normal),
    OX_OP_EX("aten::multinomial", 9, p_multinomial, 1, sym_multinomial, 0u, check_multinomial),
};
AT_FAMILY_SIZE(at_ops_random);
