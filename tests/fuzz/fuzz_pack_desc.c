/*
 * libFuzzer target: pack descriptors (plugin ABI 1.0 and 1.1) handed to
 * ox_context_add_pack, the validation every .so descriptor goes through.
 * The input is read as a little program that builds the descriptor: every
 * count, kind, flag, default tag, stride and since_opset comes from the
 * fuzzer, every pointer points into buffers this target owns (a pack's
 * pointers are trusted; their values are what the loader must judge).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oxport/oxport.h"
#include "oxport/plugin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct cursor {
    const uint8_t *p;
    size_t n;
} cursor;

static uint32_t take(cursor *c, unsigned bytes)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v = v << 8 | (c->n ? *c->p : 0);
        if (c->n) {
            c->p++;
            c->n--;
        }
    }
    return v;
}

static int sym(ox_sym *g, const ox_api *api)
{
    return api->fail(g, "not called");
}

#define MAX_OPS 8
#define MAX_PARAMS 6
static const char *const names[] = {"aten::a", "aten::b", "test::c", "bad", "", "x::", "::y",
                                    NULL};
static const char *const pnames[] = {"self", "dim", "alpha", "self", NULL, "k"};
static const int64_t ints[] = {1, 2, 3};
static const double floats[] = {0.5, 1.5};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cursor c = {data, size};
    static ox_op_decl ops[MAX_OPS];
    /* rows sized for the largest stride a 1.1 pack might declare */
    static _Alignas(16) unsigned char rows[MAX_OPS][MAX_PARAMS * 64];
    memset(ops, 0, sizeof ops);
    memset(rows, 0, sizeof rows);
    uint32_t n_ops = take(&c, 1) % (MAX_OPS + 1);
    unsigned minor = take(&c, 1) % 3; /* 0, 1, and a future 2 */
    for (uint32_t i = 0; i < n_ops; i++) {
        ox_op_decl *o = &ops[i];
        o->name = names[take(&c, 1) % (sizeof names / sizeof names[0])];
        o->since_opset = (int)(take(&c, 2) % 1100) - 50;
        o->n_outputs = take(&c, 1) % 4;
        o->symbolic = take(&c, 1) % 8 ? sym : NULL;
        uint32_t np = take(&c, 1) % (MAX_PARAMS + 1);
        o->n_params = np;
        static const uint32_t strides[] = {0, 16, 40, 44, 48, 64};
        o->param_size = strides[take(&c, 1) % 6];
        o->flags = take(&c, 1) % 4;
        o->params = take(&c, 1) % 16 ? (const ox_param_decl *)rows[i] : NULL;
        uint32_t stride = minor == 0 ? 16 : (o->param_size ? o->param_size : 40);
        for (uint32_t k = 0; k < np; k++) {
            ox_param_decl pd;
            memset(&pd, 0, sizeof pd);
            pd.name = pnames[take(&c, 1) % (sizeof pnames / sizeof pnames[0])];
            pd.kind = (ox_arg_kind)(take(&c, 1) % 15);
            pd.alt_kinds = take(&c, 2);
            pd.flags = take(&c, 1) % 4;
            pd.dflt.tag = take(&c, 1) % 10;
            pd.dflt.count = take(&c, 1) % 4;
            switch (pd.dflt.tag) {
            case OX_DEFAULT_STRING: pd.dflt.v.s = take(&c, 1) % 4 ? "same" : NULL; break;
            case OX_DEFAULT_INTS: pd.dflt.v.ints = take(&c, 1) % 4 ? ints : NULL; break;
            case OX_DEFAULT_FLOATS: pd.dflt.v.floats = take(&c, 1) % 4 ? floats : NULL; break;
            default: pd.dflt.v.i = (int64_t)take(&c, 4); break;
            }
            if (pd.dflt.count > 3)
                pd.dflt.count = 3;
            if ((pd.dflt.tag == OX_DEFAULT_INTS && pd.dflt.count > 3) ||
                (pd.dflt.tag == OX_DEFAULT_FLOATS && pd.dflt.count > 2))
                pd.dflt.count = 2;
            size_t len = stride < sizeof pd ? stride : sizeof pd;
            memcpy(rows[i] + (size_t)k * stride, &pd, len);
        }
    }
    ox_plugin_desc d;
    memset(&d, 0, sizeof d);
    d.magic = OX_PLUGIN_MAGIC;
    d.abi_major = OX_PLUGIN_ABI_MAJOR;
    d.abi_minor = (uint16_t)minor;
    d.struct_size = sizeof d;
    /* the operator rows laid out with the stride the descriptor declares (a
     * 1.0-sized one drops the 1.1 fields, as a 1.0 pack's rows have none) */
    d.op_decl_size = take(&c, 1) % 2 ? (uint32_t)sizeof(ox_op_decl) : 40;
    static _Alignas(16) unsigned char op_rows[MAX_OPS * sizeof(ox_op_decl)];
    memset(op_rows, 0, sizeof op_rows);
    for (uint32_t i = 0; i < n_ops; i++)
        memcpy(op_rows + (size_t)i * d.op_decl_size, &ops[i], d.op_decl_size);
    d.name = "fuzz";
    d.version = "1";
    d.ops = (const ox_op_decl *)(const void *)op_rows;
    d.n_ops = n_ops;
    ox_context *ctx;
    if (ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS |
                           OX_CONTEXT_NO_ENV, &ctx) != OX_OK)
        abort();
    (void)ox_context_add_pack(ctx, &d, "fuzz:desc");
    (void)ox_context_load(ctx);
    ox_context_free(ctx);
    return 0;
}
