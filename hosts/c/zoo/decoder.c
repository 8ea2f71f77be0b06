/*
 * A LLaMA-style decoder (Hugging Face LlamaForCausalLM's structure and
 * state_dict names): token embedding, N layers of RMSNorm + causal
 * self-attention (q/k/v/o projections without bias, rotary position
 * embedding, softmax) + RMSNorm + SwiGLU MLP, final RMSNorm, lm head.
 *
 * Its size is configurable (hc_decoder_configure, `oxport export decoder
 * --decoder-config layers=32,dim=4096,...`) and its forward runs shape-only,
 * so a 7B-parameter configuration can be exported from a weights file it
 * never loads.  The default is small enough for the zoo's ONNX Runtime check.
 *
 * The causal mask and the rotary cos/sin tables are constants the forward
 * creates (as HF computes them from the sequence length), in the weights'
 * dtype; the mask holds the dtype's lowest finite value above the diagonal,
 * as HF's does.
 */
#include "zoo.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../weights_file.h"

static hc_decoder_config cfg = {
    .layers = 2, .dim = 64, .hidden = 160, .heads = 4, .vocab = 128, .seq = 12,
    .rope = 1, .eps = 1e-5,
};

const hc_decoder_config *hc_decoder_current(void) { return &cfg; }

typedef struct layer {
    hc_fc q, k, v, o, gate, up, down;
    hc_tensor *input_norm, *post_norm;
} layer;

typedef struct decoder {
    hc_tensor *embed, *norm;
    hc_fc lm_head;
    layer *layers;
    int64_t n_layers;
} decoder;

static void free_decoder(void *p)
{
    decoder *d = p;
    free(d->layers);
    free(d);
}

int hc_decoder_configure(const char *spec, char *err, size_t n_err)
{
    hc_decoder_config c = cfg;
    char *copy = strdup(spec), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *kv = strtok_r(copy, ",", &save); kv && !rc; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) {
            snprintf(err, n_err, "'%s' is not key=value", kv);
            rc = -1;
            break;
        }
        *eq = '\0';
        const char *key = kv, *val = eq + 1;
        char *end;
        if (!strcmp(key, "eps")) {
            c.eps = strtod(val, &end);
            if (*end || end == val || !(c.eps > 0)) {
                snprintf(err, n_err, "eps must be a positive number, got '%s'", val);
                rc = -1;
            }
            continue;
        }
        long long v = strtoll(val, &end, 10);
        bool flag = !strcmp(key, "rope");
        if (*end || end == val || v < (flag ? 0 : 1) || v > (flag ? 1 : (1LL << 24))) {
            if (flag)
                snprintf(err, n_err, "rope must be 0 or 1, got '%s'", val);
            else
                snprintf(err, n_err, "%s must be an integer in [1, %d], got '%s'", key, 1 << 24,
                         val);
            rc = -1;
            break;
        }
        if (!strcmp(key, "layers"))
            c.layers = v;
        else if (!strcmp(key, "dim"))
            c.dim = v;
        else if (!strcmp(key, "hidden"))
            c.hidden = v;
        else if (!strcmp(key, "heads"))
            c.heads = v;
        else if (!strcmp(key, "vocab"))
            c.vocab = v;
        else if (!strcmp(key, "seq"))
            c.seq = v;
        else if (!strcmp(key, "rope"))
            c.rope = v == 1;
        else {
            snprintf(err, n_err, "unknown key '%s' (layers, dim, hidden, heads, vocab, seq, "
                     "rope, eps)", key);
            rc = -1;
        }
    }
    free(copy);
    if (rc)
        return rc;
    if (c.layers < 1 || c.dim < 1 || c.hidden < 1 || c.heads < 1 || c.vocab < 1 || c.seq < 1) {
        snprintf(err, n_err, "layers, dim, hidden, heads, vocab and seq must be at least 1");
        return -1;
    }
    if (c.dim % c.heads || (c.rope && (c.dim / c.heads) % 2)) {
        snprintf(err, n_err, "dim (%lld) must be a multiple of heads (%lld)%s", (long long)c.dim,
                 (long long)c.heads, c.rope ? " with an even head size, for the rotary halves" : "");
        return -1;
    }
    cfg = c;
    hc_zoo_decoder.inputs[0].sizes[1] = c.seq;
    hc_zoo_decoder.inputs[0].max_index = c.vocab;
    return 0;
}

static void fc_no_bias(hc_model *m, hc_fc *f, const char *name, int64_t in, int64_t out)
{
    int64_t sz[2] = {out, in};
    float k = 1.0f / sqrtf((float)in);
    f->weight = hc_param_uniform(m, 2, sz, -k, k, "%s.weight", name);
    f->bias = NULL;
}

/* Layer i's projection `proj` ("self_attn.q_proj", ...), named as in
 * Hugging Face's state_dict. */
static void layer_fc(hc_model *m, hc_fc *f, int64_t i, const char *proj, int64_t in, int64_t out)
{
    char name[96];
    snprintf(name, sizeof name, "model.layers.%lld.%s", (long long)i, proj);
    fc_no_bias(m, f, name, in, out);
}

static int build(hc_model *m)
{
    decoder *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    m->state = d;
    m->free_state = free_decoder;
    d->n_layers = cfg.layers;
    d->layers = calloc((size_t)cfg.layers, sizeof *d->layers);
    if (!d->layers)
        return -1;
    int64_t esz[2] = {cfg.vocab, cfg.dim}, nsz[1] = {cfg.dim};
    d->embed = hc_param_uniform(m, 2, esz, -1.0f, 1.0f, "model.embed_tokens.weight");
    /* Hugging Face's state_dict order */
    for (int64_t i = 0; i < cfg.layers; i++) {
        layer *l = &d->layers[i];
        layer_fc(m, &l->q, i, "self_attn.q_proj", cfg.dim, cfg.dim);
        layer_fc(m, &l->k, i, "self_attn.k_proj", cfg.dim, cfg.dim);
        layer_fc(m, &l->v, i, "self_attn.v_proj", cfg.dim, cfg.dim);
        layer_fc(m, &l->o, i, "self_attn.o_proj", cfg.dim, cfg.dim);
        layer_fc(m, &l->gate, i, "mlp.gate_proj", cfg.dim, cfg.hidden);
        layer_fc(m, &l->up, i, "mlp.up_proj", cfg.dim, cfg.hidden);
        layer_fc(m, &l->down, i, "mlp.down_proj", cfg.hidden, cfg.dim);
        l->input_norm = hc_param_uniform(m, 1, nsz, 0.8f, 1.2f,
                                         "model.layers.%lld.input_layernorm.weight", (long long)i);
        l->post_norm = hc_param_uniform(m, 1, nsz, 0.8f, 1.2f,
                                        "model.layers.%lld.post_attention_layernorm.weight",
                                        (long long)i);
    }
    d->norm = hc_param_uniform(m, 1, nsz, 0.8f, 1.2f, "model.norm.weight");
    fc_no_bias(m, &d->lm_head, "lm_head", cfg.dim, cfg.vocab);
    return 0;
}

/* A constant of the weights' dtype (bytes even when shape-only: the file
 * holds them), recorded with ox_trace_const. */
static hc_tensor *constant(hc_rt *rt, ox_dtype dt, uint32_t rank, const int64_t *sizes,
                           const float *values)
{
    int shape_only = rt->shape_only;
    rt->shape_only = 0;
    hc_tensor *c = hc_new(rt, dt, rank, sizes);
    rt->shape_only = shape_only;
    if (!c)
        return NULL;
    int64_t n = hc_numel(c);
    for (int64_t i = 0; i < n; i++) {
        if (dt == OX_FLOAT16)
            ((uint16_t *)c->data)[i] = hc_f32_to_f16(values[i]);
        else
            hc_f32(c)[i] = values[i];
    }
    hc_trace_const(rt, c);
    return c;
}

typedef struct tables {
    hc_tensor *mask, *cos, *sin;
} tables;

static int make_tables(hc_rt *rt, ox_dtype dt, int64_t t, int64_t hd, tables *tb)
{
    float *v = calloc((size_t)(t * (t > hd ? t : hd)), sizeof *v);
    if (!v)
        return -1;
    float lowest = dt == OX_FLOAT16 ? -65504.0f : -FLT_MAX;
    for (int64_t i = 0; i < t; i++)
        for (int64_t j = 0; j < t; j++)
            v[i * t + j] = j > i ? lowest : 0.0f;
    int64_t msz[2] = {t, t}, rsz[2] = {t, hd};
    tb->mask = constant(rt, dt, 2, msz, v);
    tb->cos = tb->sin = NULL;
    if (cfg.rope) {
        /* HF's default rotary embedding: base 10000, the half table twice */
        for (int pass = 0; pass < 2; pass++) {
            for (int64_t p = 0; p < t; p++)
                for (int64_t i = 0; i < hd; i++) {
                    double inv = pow(10000.0, -(double)(2 * (i % (hd / 2))) / (double)hd);
                    double a = (double)p * inv;
                    v[p * hd + i] = (float)(pass == 0 ? cos(a) : sin(a));
                }
            if (pass == 0)
                tb->cos = constant(rt, dt, 2, rsz, v);
            else
                tb->sin = constant(rt, dt, 2, rsz, v);
        }
    }
    free(v);
    return tb->mask && (!cfg.rope || (tb->cos && tb->sin)) ? 0 : -1;
}

static hc_tensor *rms_norm(hc_rt *rt, const char *attr, hc_tensor *weight, hc_tensor *x)
{
    hc_scope_push(rt, "LlamaRMSNorm[%s]", attr);
    hc_tensor *var = hc_mean_last(rt, hc_pow_scalar(rt, x, 2.0));
    hc_tensor *y = hc_mul(rt, x, hc_rsqrt(rt, hc_add_scalar(rt, var, cfg.eps)), 0);
    y = hc_mul(rt, weight, y, 0);
    hc_scope_pop(rt);
    return y;
}

/* q * cos + rotate_half(q) * sin, rotate_half(q) = cat(-q[..., h:], q[..., :h]) */
static hc_tensor *rotary(hc_rt *rt, const tables *tb, hc_tensor *x, int64_t hd)
{
    hc_tensor *x1 = hc_slice(rt, x, -1, 0, hd / 2);
    hc_tensor *x2 = hc_slice(rt, x, -1, hd / 2, hd);
    hc_tensor *halves[2] = {hc_neg(rt, x2), x1};
    hc_tensor *rot = halves[0] ? hc_cat(rt, halves, 2, -1) : NULL;
    return hc_add(rt, hc_mul(rt, x, tb->cos, 0), hc_mul(rt, rot, tb->sin, 0), 1.0, 0);
}

/* [B, T, D] -> [B, H, T, hd] */
static hc_tensor *split_heads(hc_rt *rt, hc_tensor *x, int64_t b, int64_t t, int64_t hd)
{
    const int64_t shape[4] = {b, t, cfg.heads, hd};
    return hc_transpose(rt, hc_view(rt, x, shape, 4), 1, 2);
}

static hc_tensor *attention(hc_rt *rt, const layer *l, const tables *tb, hc_tensor *x)
{
    if (!x)
        return NULL;
    int64_t b = x->sizes[0], t = x->sizes[1], hd = cfg.dim / cfg.heads;
    hc_scope_push(rt, "LlamaAttention[self_attn]");
    hc_tensor *q = split_heads(rt, hc_fc_fwd(rt, &l->q, "q_proj", x), b, t, hd);
    hc_tensor *k = split_heads(rt, hc_fc_fwd(rt, &l->k, "k_proj", x), b, t, hd);
    hc_tensor *v = split_heads(rt, hc_fc_fwd(rt, &l->v, "v_proj", x), b, t, hd);
    if (cfg.rope) {
        q = rotary(rt, tb, q, hd);
        k = rotary(rt, tb, k, hd);
    }
    hc_tensor *s = hc_matmul(rt, q, hc_transpose(rt, k, 2, 3));
    s = hc_add(rt, hc_mul_scalar(rt, s, 1.0 / sqrt((double)hd)), tb->mask, 1.0, 0);
    hc_tensor *o = hc_matmul(rt, hc_softmax(rt, s, -1), v);
    const int64_t merged[3] = {b, t, cfg.dim};
    o = hc_reshape(rt, hc_transpose(rt, o, 1, 2), merged, 3);
    o = hc_fc_fwd(rt, &l->o, "o_proj", o);
    hc_scope_pop(rt);
    return o;
}

static hc_tensor *mlp(hc_rt *rt, const layer *l, hc_tensor *x)
{
    hc_scope_push(rt, "LlamaMLP[mlp]");
    hc_tensor *g = hc_fc_fwd(rt, &l->gate, "gate_proj", x);
    hc_scope_push(rt, "SiLU[act_fn]");
    g = hc_silu(rt, g);
    hc_scope_pop(rt);
    hc_tensor *y = hc_mul(rt, g, hc_fc_fwd(rt, &l->up, "up_proj", x), 0);
    y = hc_fc_fwd(rt, &l->down, "down_proj", y);
    hc_scope_pop(rt);
    return y;
}

static int forward(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const decoder *d = m->state;
    int64_t t = in[0]->sizes[1], hd = cfg.dim / cfg.heads;
    hc_scope_push(rt, "LlamaModel[model]");
    hc_scope_push(rt, "Embedding[embed_tokens]");
    hc_tensor *x = hc_embedding(rt, d->embed, in[0]);
    hc_scope_pop(rt);
    tables tb;
    if (make_tables(rt, d->embed->dtype, t, hd, &tb) != 0) {
        hc_scope_pop(rt);
        return -1;
    }
    hc_scope_push(rt, "ModuleList[layers]");
    for (int64_t i = 0; i < d->n_layers && x; i++) {
        const layer *l = &d->layers[i];
        hc_scope_push(rt, "LlamaDecoderLayer[%lld]", (long long)i);
        hc_tensor *h = rms_norm(rt, "input_layernorm", l->input_norm, x);
        x = hc_add(rt, x, attention(rt, l, &tb, h), 1.0, 0);
        h = rms_norm(rt, "post_attention_layernorm", l->post_norm, x);
        x = hc_add(rt, x, mlp(rt, l, h), 1.0, 0);
        hc_scope_pop(rt);
    }
    hc_scope_pop(rt);
    x = x ? rms_norm(rt, "norm", d->norm, x) : NULL;
    hc_scope_pop(rt);
    out[0] = hc_fc_fwd(rt, &d->lm_head, "lm_head", x);
    return out[0] ? 0 : -1;
}

hc_zoo_model hc_zoo_decoder = {
    .name = "decoder",
    .trace_name = "LlamaForCausalLM",
    .description = "LLaMA-style decoder, RMSNorm + RoPE attention + SwiGLU; size set by "
                   "--decoder-config (default layers=2,dim=64,hidden=160,heads=4,vocab=128,seq=12)",
    .n_inputs = 1,
    .inputs = {{OX_INT64, 2, {1, 12}, 0, 128}},
    .n_outputs = 1,
    .build = build,
    .forward = forward,
    .shape_only = 1,
};
