/*
 * The ONNX reader: files written by torch.onnx.export (a small CNN and
 * ResNet-18, generated here through /usr/bin/python3), external data, and
 * hostile input (truncated files, random and mutated bytes, deep nesting,
 * empty files, directories) that must produce a status, never a crash.
 */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "context.h"
#include "ir.h"
#include "param_source.h"
#include "onnx.pb-c.h"
#include "onnx_read.h"
#include "test_util.h"

static char dir[256];   /* per test */
static char shared[256]; /* torch exports, made once */
static int torch_ok = -1;
static ox_context *ctx;

static const char *torch_script =
    "import sys, torch, torchvision\n"
    "import onnx\n"
    "out = sys.argv[1]\n"
    "torch.manual_seed(0)\n"
    "class CNN(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)\n"
    "        self.bn = torch.nn.BatchNorm2d(8)\n"
    "        self.fc = torch.nn.Linear(8 * 4 * 4, 10)\n"
    "    def forward(self, x):\n"
    "        x = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)\n"
    "        return torch.softmax(self.fc(torch.flatten(x, 1)), 1)\n"
    "m = CNN().eval()\n"
    "x = torch.randn(1, 3, 8, 8)\n"
    "torch.onnx.export(m, x, out + '/cnn.onnx', opset_version=13, input_names=['input'],\n"
    "                  output_names=['probs'], dynamic_axes={'input': {0: 'batch'}})\n"
    "torch.onnx.export(m, x, out + '/cnn_kept.onnx', opset_version=11,\n"
    "                  keep_initializers_as_inputs=True)\n"
    "torch.onnx.export(torchvision.models.resnet18().eval(), torch.randn(1, 3, 32, 32),\n"
    "                  out + '/resnet18.onnx', opset_version=13)\n"
    "for name in ['cnn', 'cnn_kept', 'resnet18']:\n"
    "    mp = onnx.load(out + '/' + name + '.onnx')\n"
    "    g = mp.graph\n"
    "    inits = {t.name for t in g.initializer}\n"
    "    with open(out + '/' + name + '.txt', 'w') as f:\n"
    "        f.write('ir %d\\n' % mp.ir_version)\n"
    "        f.write('opset %d\\n' % [o.version for o in mp.opset_import if o.domain == ''][0])\n"
    "        f.write('nodes %d\\n' % len(g.node))\n"
    "        f.write('inits %d\\n' % len(g.initializer))\n"
    "        f.write('inputs %s\\n' % ','.join(i.name for i in g.input if i.name not in inits))\n"
    "        f.write('kept %d\\n' % sum(1 for i in g.input if i.name in inits))\n"
    "        f.write('outputs %s\\n' % ','.join(o.name for o in g.output))\n"
    "        f.write('ops %s\\n' % ','.join(n.op_type for n in g.node))\n"
    "    mp = onnx.load(out + '/cnn.onnx')\n"
    "onnx.save_model(mp, out + '/cnn_ext.onnx', save_as_external_data=True,\n"
    "                all_tensors_to_one_file=True, location='cnn_ext.weights', size_threshold=0)\n";

static void make_torch_models(void)
{
    strcpy(shared, "/tmp/oxport-read-torch-XXXXXX");
    if (!mkdtemp(shared)) {
        torch_ok = 0;
        return;
    }
    if (shell_status("/usr/bin/python3 -c 'import torch, torchvision, onnx' 2>/dev/null") != 0) {
        torch_ok = 0;
        return;
    }
    char path[512], cmd[2048]; /* room for path + 2 x shared (each < 256) */
    snprintf(path, sizeof path, "%s/export.py", shared);
    FILE *f = fopen(path, "w");
    fputs(torch_script, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s >%s/export.log 2>&1", path, shared, shared);
    torch_ok = shell_status(cmd) == 0;
    if (!torch_ok) {
        snprintf(cmd, sizeof cmd, "cat %s/export.log >&2", shared);
        shell_status(cmd);
    }
}

static void remove_torch_models(void)
{
    rm_tree(shared);
}

static void setup(void)
{
    strcpy(dir, "/tmp/oxport-read-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS,
                                    &ctx), OX_OK);
}

static void teardown(void)
{
    ox_context_free(ctx);
    rm_tree(dir);
}

static char *in(const char *base, const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", base, name);
    return buf[k];
}

static void put(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (len)
        ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* Value of "key rest" in a summary file written by the export script. */
static char *summary(const char *model, const char *key)
{
    static char val[8192];
    char path[512];
    snprintf(path, sizeof path, "%s/%s.txt", shared, model);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[8192];
    val[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        size_t kl = strlen(key);
        if (strncmp(line, key, kl) == 0 && line[kl] == ' ') {
            snprintf(val, sizeof val, "%s", line + kl + 1);
            val[strcspn(val, "\n")] = '\0';
        }
    }
    fclose(f);
    return val;
}

static void compare_with_summary(const char *model, const ox_graph *g)
{
    ck_assert_int_eq(g->ir_version, atoi(summary(model, "ir")));
    ck_assert_int_eq(ox_graph_opset(g, ""), atoi(summary(model, "opset")));
    ck_assert_uint_eq(g->n_nodes, (unsigned)atoi(summary(model, "nodes")));
    ck_assert_uint_eq(g->n_params, (unsigned)atoi(summary(model, "inits")));
    char buf[8192] = "";
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        strcat(buf, i ? "," : "");
        strcat(buf, ox_graph_value(g, g->inputs[i])->name);
    }
    ck_assert_str_eq(buf, summary(model, "inputs"));
    buf[0] = '\0';
    for (uint32_t i = 0; i < g->n_outputs; i++) {
        strcat(buf, i ? "," : "");
        strcat(buf, ox_graph_value(g, g->outputs[i])->name);
    }
    ck_assert_str_eq(buf, summary(model, "outputs"));
    buf[0] = '\0';
    size_t len = 0;
    for (const ox_node *n = g->first; n; n = n->next) {
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", n == g->first ? "" : ",",
                                n->op_type);
        ck_assert_uint_lt(len, sizeof buf);
        ck_assert_str_eq(n->domain, "");
        ck_assert(strncmp(n->kind, "onnx::", 6) == 0);
    }
    ck_assert_str_eq(buf, summary(model, "ops"));
    unsigned kept = 0;
    for (uint32_t i = 0; i < g->n_params; i++)
        kept += ox_read_param_is_input(g, g->params[i]);
    ck_assert_uint_eq(kept, (unsigned)atoi(summary(model, "kept")));
}

#define NEED_TORCH()                                                                   \
    do {                                                                               \
        if (!torch_ok) {                                                               \
            fprintf(stderr, "%s: SKIPPED: /usr/bin/python3 with torch, torchvision and " \
                    "onnx is needed to generate torch.onnx.export files\n", __func__);   \
            return;                                                                    \
        }                                                                              \
    } while (0)

START_TEST(torch_exports_read_and_rewrite)
{
    NEED_TORCH();
    const char *models[] = {"cnn", "cnn_kept", "resnet18"};
    const char *src = getenv("OXPORT_TEST_SRCDIR");
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.onnx", models[i]);
        ox_graph *g = NULL;
        ck_assert_msg(ox_read(ctx, in(shared, name), &g) == OX_OK, "%s", ox_errmsg(ctx));
        compare_with_summary(models[i], g);
        size_t nv = 99;
        ck_assert_msg(ox_check(ctx, g, stderr, &nv) == OX_OK, "%s", ox_errmsg(ctx));
        ck_assert_uint_eq(nv, 0);
        if (i == 0) {
            /* dynamic axis and a Conv's attributes */
            ox_value *x = ox_graph_value(g, g->inputs[0]);
            ck_assert_ptr_nonnull(x->type.dim_params);
            ck_assert_str_eq(x->type.dim_params[0], "batch");
            ck_assert_int_eq(x->type.dims[1], 3);
            const ox_attr *k = ox_node_attr(g->first, "kernel_shape");
            ck_assert_int_eq(k->kind, OX_ATTR_INTS);
            ck_assert_uint_eq(k->u.ints.n, 2);
            ck_assert_int_eq(k->u.ints.p[0], 3);
        }
        /* written back by oxport, the model computes the same numbers */
        char out[512], cmd[2048];
        snprintf(out, sizeof out, "%s/%s.rewritten.onnx", dir, models[i]);
        ck_assert_msg(ox_write(ctx, g, out, NULL) == OX_OK, "%s", ox_errmsg(ctx));
        ox_graph_free(g);
        snprintf(cmd, sizeof cmd,
                 "cd %s/tests/py && /usr/bin/python3 -c \"import sys, numpy as np, onnx, onnxval\n"
                 "a, b = sys.argv[1], sys.argv[2]\n"
                 "onnxval.check(b)\n"
                 "mp = onnx.load(a)\n"
                 "inits = {t.name for t in mp.graph.initializer}\n"
                 "i = [v for v in mp.graph.input if v.name not in inits][0]\n"
                 "shape = [d.dim_value or 2 for d in i.type.tensor_type.shape.dim]\n"
                 "x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)\n"
                 "ya = onnxval.run_ort(a, {i.name: x})\n"
                 "yb = onnxval.run_ort(b, {i.name: x})\n"
                 "assert len(ya) == len(yb)\n"
                 "for p, q in zip(ya, yb): onnxval.compare('out', q, p, 0, 0)\n"
                 "\" %s/%s %s",
                 src, shared, name, out);
        ck_assert_msg(shell_status(cmd) == 0, "rewritten %s differs from torch's", name);
    }
}
END_TEST

START_TEST(external_data_from_onnx_save)
{
    NEED_TORCH();
    ox_graph *g = NULL, *ref = NULL;
    ck_assert_msg(ox_read(ctx, in(shared, "cnn_ext.onnx"), &g) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(ox_read(ctx, in(shared, "cnn.onnx"), &ref), OX_OK);
    ck_assert_uint_eq(g->n_params, ref->n_params);
    for (uint32_t i = 0; i < g->n_params; i++) {
        ox_value *a = ox_graph_value(g, g->params[i]), *b = ox_graph_value(ref, ref->params[i]);
        ck_assert_str_eq(a->name, b->name);
        ck_assert_uint_eq(a->tensor.nbytes, b->tensor.nbytes);
        ck_assert_mem_eq(a->tensor.data, b->tensor.data, a->tensor.nbytes);
    }
    ox_graph_free(g);
    ox_graph_free(ref);

    /* copy the model alone: the weights file is missing */
    size_t len;
    unsigned char *p = slurp(in(shared, "cnn_ext.onnx"), &len);
    put(in(dir, "m.onnx"), p, len);
    free(p);
    char want[1024];
    snprintf(want, sizeof want, "%s: initializer 'fc.weight': cannot open external data file "
             "'%s/cnn_ext.weights': No such file or directory; keep the data file next to the "
             "model", in(dir, "m.onnx"), dir);
    ck_assert_int_eq(ox_read(ctx, in(dir, "m.onnx"), &g), OX_EIO);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(ox_errmsg(ctx), want);

    /* a weights file too short for the offsets */
    put(in(dir, "cnn_ext.weights"), "short", 5);
    snprintf(want, sizeof want, "%s: not an ONNX model: initializer 'fc.weight': external data "
             "offset 0 + length 5120 is outside '%s/cnn_ext.weights' (5 bytes)",
             in(dir, "m.onnx"), dir);
    ck_assert_int_eq(ox_read(ctx, in(dir, "m.onnx"), &g), OX_EFORMAT);
    ck_assert_str_eq(ox_errmsg(ctx), want);

    /* reading from memory cannot resolve it */
    p = slurp(in(dir, "m.onnx"), &len);
    ck_assert_int_eq(ox_read_memory(ctx, p, len, "buf", NULL, &g), OX_EIO);
    ck_assert_str_eq(ox_errmsg(ctx), "buf: initializer 'fc.weight': external data "
                     "'cnn_ext.weights' cannot be resolved for a model read from memory; read it "
                     "from its file");
    free(p);
}
END_TEST

/* A small valid model built with protobuf-c directly (no python needed). */
static uint8_t *tiny_model(size_t *len, const char *relu_input)
{
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    Onnx__NodeProto n = ONNX__NODE_PROTO__INIT;
    Onnx__ValueInfoProto x = ONNX__VALUE_INFO_PROTO__INIT, y = ONNX__VALUE_INFO_PROTO__INIT;
    Onnx__TypeProto t = ONNX__TYPE_PROTO__INIT;
    Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
    Onnx__OperatorSetIdProto op = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    Onnx__TensorProto w = ONNX__TENSOR_PROTO__INIT;
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT;
    static float wv[4] = {1, 2, 3, 4};
    static int64_t wd[1] = {4};
    static char *ins[2], *outs[1] = {"y"};
    ins[0] = (char *)"x";
    ins[1] = (char *)(relu_input ? relu_input : "w");
    tt.has_elem_type = 1;
    tt.elem_type = 1;
    t.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    t.tensor_type = &tt;
    x.name = (char *)"x";
    x.type = &t;
    y.name = (char *)"y";
    y.type = &t;
    w.name = (char *)"w";
    w.has_data_type = 1;
    w.data_type = 1;
    w.n_dims = 1;
    w.dims = wd;
    w.n_float_data = 4; /* typed field, not raw_data */
    w.float_data = wv;
    /* a STRING attribute the operator's schema declares */
    a.name = (char *)"equation";
    a.has_type = 1;
    a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    a.has_s = 1;
    a.s.data = (uint8_t *)"i,i->i";
    a.s.len = 6;
    Onnx__AttributeProto *attrs[1] = {&a};
    n.op_type = (char *)"Einsum";
    n.n_input = 2;
    n.input = ins;
    n.n_output = 1;
    n.output = outs;
    n.n_attribute = 1;
    n.attribute = attrs;
    Onnx__NodeProto *nodes[1] = {&n};
    Onnx__ValueInfoProto *gi[1] = {&x}, *go[1] = {&y};
    Onnx__TensorProto *inits[1] = {&w};
    g.name = (char *)"tiny";
    g.n_node = 1;
    g.node = nodes;
    g.n_input = 1;
    g.input = gi;
    g.n_output = 1;
    g.output = go;
    g.n_initializer = 1;
    g.initializer = inits;
    op.domain = (char *)"";
    op.has_version = 1;
    op.version = 13;
    Onnx__OperatorSetIdProto *ops[1] = {&op};
    m.has_ir_version = 1;
    m.ir_version = 7;
    m.n_opset_import = 1;
    m.opset_import = ops;
    m.graph = &g;
    *len = protobuf_c_message_get_packed_size(&m.base);
    uint8_t *buf = malloc(*len);
    protobuf_c_message_pack(&m.base, buf);
    return buf;
}

/* tiny_model with an initializer of `n` floats at `offset` in `location`. */
static void put_external_model_at(const char *path, const char *location, int64_t n,
                                  int64_t offset)
{
    size_t len;
    uint8_t *buf = tiny_model(&len, NULL);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    ck_assert_ptr_nonnull(m);
    free(buf);
    Onnx__TensorProto *w = m->graph->initializer[0];
    char off[32];
    snprintf(off, sizeof off, "%lld", (long long)offset);
    Onnx__StringStringEntryProto e[2] = {ONNX__STRING_STRING_ENTRY_PROTO__INIT,
                                         ONNX__STRING_STRING_ENTRY_PROTO__INIT};
    e[0].key = (char *)"location";
    e[0].value = (char *)location;
    e[1].key = (char *)"offset";
    e[1].value = off;
    Onnx__StringStringEntryProto *entries[2] = {&e[0], &e[1]};
    size_t n_float = w->n_float_data;
    int64_t dim = w->dims[0];
    w->n_float_data = 0;
    w->dims[0] = n;
    w->has_data_location = 1;
    w->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    w->n_external_data = 2;
    Onnx__StringStringEntryProto **saved = w->external_data;
    w->external_data = entries;
    len = protobuf_c_message_get_packed_size(&m->base);
    buf = malloc(len);
    protobuf_c_message_pack(&m->base, buf);
    put(path, buf, len);
    free(buf);
    w->external_data = saved;
    w->n_external_data = 0;
    w->n_float_data = n_float;
    w->dims[0] = dim;
    onnx__model_proto__free_unpacked(m, NULL);
}

/* tiny_model with its initializer's 16 bytes stored at `location` instead. */
static void put_external_model(const char *path, const char *location)
{
    put_external_model_at(path, location, 4, 0);
}

/* The first initializer of the model at `path`, read from memory (so its
 * bytes are resident), holds `want`. */
static void expect_param_bytes(const char *path, const void *want, size_t n)
{
    size_t len;
    unsigned char *p = slurp(path, &len);
    ox_graph *g = NULL;
    ck_assert_msg(ox_read_memory(ctx, p, len, path, NULL, &g) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_value *w = ox_graph_value(g, g->params[0]);
    ck_assert_ptr_null(w->source);
    ck_assert_uint_eq(w->tensor.nbytes, n);
    ck_assert_mem_eq(w->tensor.data, want, n);
    ox_graph_free(g);
    free(p);
}

/* A large initializer in external data is not loaded by the read: the graph
 * keeps its file region, so checking a model larger than memory costs its
 * metadata; writing the graph again copies the bytes from there, and a data
 * file that changed meanwhile is an error naming it, not a crash. */
START_TEST(large_external_initializers_stay_in_their_file)
{
    enum { N = 20000, PREFIX = 24 }; /* 80,000 bytes: past the 64 KiB threshold */
    unsigned char *file = malloc(PREFIX + N * sizeof(float));
    ck_assert_ptr_nonnull(file);
    memset(file, 0xee, PREFIX);
    for (int i = 0; i < N; i++) {
        float v = (float)i * 0.25f - 7.0f;
        memcpy(file + PREFIX + (size_t)i * sizeof v, &v, sizeof v);
    }
    put(in(dir, "w.bin"), file, PREFIX + N * sizeof(float));
    put_external_model_at(in(dir, "m.onnx"), "w.bin", N, PREFIX);

    ox_graph *g = NULL;
    ck_assert_msg(ox_read(ctx, in(dir, "m.onnx"), &g) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_value *w = ox_graph_value(g, g->params[0]);
    ck_assert_ptr_null(w->tensor.data);
    ck_assert_uint_eq(w->tensor.nbytes, N * sizeof(float));
    ck_assert_ptr_nonnull(w->source);
    ck_assert_uint_eq(w->source->offset, PREFIX);
    ck_assert_int_eq(ox_check(ctx, g, stderr, NULL), OX_OK);

    /* written again with its bytes inline: read back, they are the file's */
    ck_assert_msg(ox_write(ctx, g, in(dir, "inline.onnx"), NULL) == OX_OK, "%s", ox_errmsg(ctx));
    expect_param_bytes(in(dir, "inline.onnx"), file + PREFIX, N * sizeof(float));

    /* the data file cut short after the read: the write fails naming it */
    put(in(dir, "w.bin"), file, PREFIX + 100);
    ck_assert_int_ne(ox_write(ctx, g, in(dir, "late.onnx"), NULL), OX_OK);
    ck_assert_msg(strstr(ox_errmsg(ctx), "w.bin") != NULL, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(access(in(dir, "late.onnx"), F_OK), -1);
    ox_graph_free(g);

    /* a region past the file's end is refused by the read itself */
    put_external_model_at(in(dir, "m.onnx"), "w.bin", N, PREFIX);
    ck_assert_int_eq(ox_read(ctx, in(dir, "m.onnx"), &g), OX_EFORMAT);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "is outside"));
    free(file);
}
END_TEST

/* tiny_model with an initializer of `n` floats (value i * 0.5 - 3) in
 * raw_data; `twice`: a second, 8-byte raw_data after it (protobuf's last
 * one wins); `typed_too`: float_data as well (refused by the reader). */
static uint8_t *large_inline_model(size_t *len, int64_t n, bool twice, bool typed_too)
{
    size_t tlen;
    uint8_t *buf = tiny_model(&tlen, NULL);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, tlen, buf);
    ck_assert_ptr_nonnull(m);
    free(buf);
    Onnx__TensorProto *w = m->graph->initializer[0];
    float *raw = malloc((size_t)n * sizeof(float));
    ck_assert_ptr_nonnull(raw);
    for (int64_t i = 0; i < n; i++)
        raw[i] = (float)i * 0.5f - 3.0f;
    size_t n_float = w->n_float_data;
    int64_t dim = w->dims[0];
    w->n_float_data = typed_too ? n_float : 0;
    w->dims[0] = n;
    w->has_raw_data = 1;
    w->raw_data.data = (uint8_t *)raw;
    w->raw_data.len = (size_t)n * sizeof(float);
    *len = protobuf_c_message_get_packed_size(&m->base);
    static const uint8_t second[] = {0x4a, 8, 1, 2, 3, 4, 5, 6, 7, 8}; /* field 9, 8 bytes */
    buf = malloc(*len);
    protobuf_c_message_pack(&m->base, buf);
    if (twice) {
        /* protobuf-c cannot pack a field twice: the model is packed with a
         * graph holding no initializer, then a second graph field (model
         * field 7) follows by hand, holding the tensor's bytes with the
         * extra raw_data appended as its initializer (graph field 5);
         * decoding merges the two graphs into one */
        size_t wl = protobuf_c_message_get_packed_size(&w->base);
        uint8_t *tb = malloc(wl + sizeof second);
        protobuf_c_message_pack(&w->base, tb);
        memcpy(tb + wl, second, sizeof second);
        Onnx__TensorProto *w2 = onnx__tensor_proto__unpack(NULL, wl + sizeof second, tb);
        ck_assert_ptr_nonnull(w2);
        ck_assert_uint_eq(w2->raw_data.len, 8); /* protobuf-c: the last one */
        onnx__tensor_proto__free_unpacked(w2, NULL);
        m->graph->n_initializer = 0;
        size_t ml = protobuf_c_message_get_packed_size(&m->base);
        free(buf);
        buf = malloc(ml + wl + sizeof second + 32);
        protobuf_c_message_pack(&m->base, buf);
        size_t at = ml;
        size_t gl = 1 + 5 + wl + sizeof second; /* initializer key, length, tensor */
        buf[at++] = 0x3a; /* model field 7 */
        for (size_t v = gl; ; v >>= 7) { buf[at++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0)); if (!(v >> 7)) break; }
        size_t gstart = at;
        buf[at++] = 0x2a; /* graph field 5 */
        size_t tl = wl + sizeof second;
        /* a 5-byte varint, padded, so gl above holds whatever tl is */
        for (int k = 0; k < 5; k++)
            buf[at++] = (uint8_t)(((tl >> (7 * k)) & 0x7f) | (k < 4 ? 0x80 : 0));
        memcpy(buf + at, tb, wl);
        at += wl;
        memcpy(buf + at, second, sizeof second);
        at += sizeof second;
        ck_assert_uint_eq(at - gstart, gl);
        *len = at;
        m->graph->n_initializer = 1;
        free(tb);
    }
    w->has_raw_data = 0;
    w->raw_data.data = NULL;
    w->raw_data.len = 0;
    w->n_float_data = n_float;
    w->dims[0] = dim;
    onnx__model_proto__free_unpacked(m, NULL);
    free(raw);
    return buf;
}

/* Large raw_data of initializers stays in the model file when it is read:
 * the value holds a region of a descriptor the graph keeps, so a file
 * renamed over the path later does not change it; written again, the bytes
 * are the file's.  Read from memory they are resident, as before. */
START_TEST(large_inline_initializers_stay_in_the_model_file)
{
    enum { N = 20000 };
    size_t len;
    uint8_t *buf = large_inline_model(&len, N, false, false);
    put(in(dir, "m.onnx"), buf, len);
    float want[N];
    for (int i = 0; i < N; i++)
        want[i] = (float)i * 0.5f - 3.0f;

    ox_graph *g = NULL;
    ck_assert_msg(ox_read(ctx, in(dir, "m.onnx"), &g) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_value *w = ox_graph_value(g, g->params[0]);
    ck_assert_ptr_null(w->tensor.data);
    ck_assert_uint_eq(w->tensor.nbytes, sizeof want);
    ck_assert_ptr_nonnull(w->source);
    ck_assert_int_eq(w->source->kind, OX_SOURCE_FD);
    ck_assert_mem_eq(buf + w->source->offset, want, sizeof want);
    ck_assert_int_eq(ox_check(ctx, g, stderr, NULL), OX_OK);

    /* another model renamed over the path: the graph still has its own */
    size_t small_len;
    uint8_t *small = tiny_model(&small_len, NULL);
    put(in(dir, "other.onnx"), small, small_len);
    free(small);
    ck_assert_int_eq(rename(in(dir, "other.onnx"), in(dir, "m.onnx")), 0);
    ck_assert_msg(ox_write(ctx, g, in(dir, "out.onnx"), NULL) == OX_OK, "%s", ox_errmsg(ctx));
    ox_graph_free(g);
    expect_param_bytes(in(dir, "out.onnx"), want, sizeof want);

    /* read from memory: resident */
    expect_param_bytes(in(dir, "out.onnx"), want, sizeof want);
    ck_assert_msg(ox_read_memory(ctx, buf, len, "mem", NULL, &g) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_ptr_null(ox_graph_value(g, g->params[0])->source);
    ox_graph_free(g);
    free(buf);

    /* raw_data twice: the last one counts, as protobuf-c decodes it (8 bytes
     * for 20000 floats: refused with the reader's own message) */
    buf = large_inline_model(&len, N, true, false);
    put(in(dir, "twice.onnx"), buf, len);
    ck_assert_int_eq(ox_read(ctx, in(dir, "twice.onnx"), &g), OX_EFORMAT);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "raw_data has 8 bytes but"));
    char from_memory[1024];
    snprintf(from_memory, sizeof from_memory, "%s", strstr(ox_errmsg(ctx), "raw_data"));
    ck_assert_int_eq(ox_read_memory(ctx, buf, len, "mem", NULL, &g), OX_EFORMAT);
    ck_assert_str_eq(strstr(ox_errmsg(ctx), "raw_data"), from_memory);
    free(buf);

    /* raw_data and float_data: still refused, naming both */
    buf = large_inline_model(&len, N, false, true);
    put(in(dir, "both.onnx"), buf, len);
    ck_assert_int_eq(ox_read(ctx, in(dir, "both.onnx"), &g), OX_EFORMAT);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "holds values in both raw_data and float_data"));
    free(buf);
}
END_TEST

/* A tensor with its values in two fields is refused: which one counts would
 * be a guess. */
START_TEST(tensor_with_two_value_fields_is_refused)
{
    size_t len;
    uint8_t *buf = tiny_model(&len, NULL);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    ck_assert_ptr_nonnull(m);
    free(buf);
    static uint8_t raw[16];
    Onnx__TensorProto *w = m->graph->initializer[0];
    w->has_raw_data = 1;
    w->raw_data.data = raw;
    w->raw_data.len = sizeof raw;
    len = protobuf_c_message_get_packed_size(&m->base);
    buf = malloc(len);
    protobuf_c_message_pack(&m->base, buf);
    w->has_raw_data = 0;
    w->raw_data.data = NULL;
    w->raw_data.len = 0;
    onnx__model_proto__free_unpacked(m, NULL);
    ox_graph *g = NULL;
    ck_assert_int_eq(ox_read_memory(ctx, buf, len, "two", NULL, &g), OX_EFORMAT);
    free(buf);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(ox_errmsg(ctx), "two: not an ONNX model: initializer 'w' holds values in both "
                                     "raw_data and float_data; ONNX allows one value field");
}
END_TEST

/* External data must be a regular file below the model's directory: a FIFO
 * is refused without waiting for a writer, a symbolic link is followed only
 * while it stays inside. */
START_TEST(external_data_is_a_regular_file_below_the_model)
{
    static const float data[4] = {5, 6, 7, 8};
    put(in(dir, "w.bin"), data, sizeof data);
    ox_graph *g = NULL;
    put_external_model(in(dir, "m.onnx"), "w.bin");
    ck_assert_msg(ox_read(ctx, in(dir, "m.onnx"), &g) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_mem_eq(ox_graph_value(g, g->params[0])->tensor.data, data, sizeof data);
    ox_graph_free(g);

    ck_assert_int_eq(symlink("w.bin", in(dir, "inside.bin")), 0);
    put_external_model(in(dir, "m.onnx"), "inside.bin");
    ck_assert_msg(ox_read(ctx, in(dir, "m.onnx"), &g) == OX_OK, "%s", ox_errmsg(ctx));
    ox_graph_free(g);

    char want[1024];
    ck_assert_int_eq(mkfifo(in(dir, "fifo"), 0600), 0);
    put_external_model(in(dir, "m.onnx"), "fifo");
    ck_assert_int_eq(ox_read(ctx, in(dir, "m.onnx"), &g), OX_EFORMAT);
    snprintf(want, sizeof want, "%s: not an ONNX model: initializer 'w': external data '%s/fifo' "
             "is not a regular file", in(dir, "m.onnx"), dir);
    ck_assert_str_eq(ox_errmsg(ctx), want);

    ck_assert_int_eq(symlink("/etc/passwd", in(dir, "outside.bin")), 0);
    put_external_model(in(dir, "m.onnx"), "outside.bin");
    ck_assert_int_eq(ox_read(ctx, in(dir, "m.onnx"), &g), OX_EFORMAT);
    ck_assert_ptr_null(g);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "is a symbolic link to a file outside the "
                                                 "model's directory"));
}
END_TEST

START_TEST(typed_fields_and_dangling_names)
{
    size_t len;
    uint8_t *buf = tiny_model(&len, NULL);
    ox_graph *g = NULL;
    ck_assert_int_eq(ox_read_memory(ctx, buf, len, "tiny", NULL, &g), OX_OK);
    free(buf);
    ox_value *w = ox_graph_value(g, g->params[0]);
    static const float want[4] = {1, 2, 3, 4};
    ck_assert_uint_eq(w->tensor.nbytes, 16);
    ck_assert_mem_eq(w->tensor.data, want, 16);
    ck_assert_str_eq(g->first->kind, "onnx::Einsum");
    const ox_attr *a = ox_node_attr(g->first, "equation");
    ck_assert_int_eq(a->kind, OX_ATTR_STRING);
    ck_assert_str_eq(a->u.s.p, "i,i->i");
    ck_assert_int_eq(ox_check(ctx, g, NULL, NULL), OX_OK);
    ox_graph_free(g);

    buf = tiny_model(&len, "nobody");
    ck_assert_int_eq(ox_read_memory(ctx, buf, len, "tiny", NULL, &g), OX_OK);
    free(buf);
    ox_value *d = ox_graph_value(g, g->first->inputs[1]);
    ck_assert_str_eq(d->name, "nobody");
    ck_assert_ptr_null(d->producer);
    char *text = NULL;
    size_t tl = 0;
    FILE *mem = open_memstream(&text, &tl);
    size_t nv = 0;
    ck_assert_int_eq(ox_check(ctx, g, mem, &nv), OX_ECHECK);
    fclose(mem);
    ck_assert_uint_eq(nv, 1);
    ck_assert_str_eq(text, "node #0 (Einsum): input 'nobody' is not a graph input, an initializer or "
                     "an output of an earlier node\n");
    free(text);
    ox_graph_free(g);
}
END_TEST

START_TEST(bad_paths_and_empty_file)
{
    ox_graph *g = (ox_graph *)1;
    char want[1024];
    snprintf(want, sizeof want, "%s: cannot read: it is a directory; give the path of an .onnx "
             "file", dir);
    ck_assert_int_eq(ox_read(ctx, dir, &g), OX_EIO);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(ox_errmsg(ctx), want);

    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", in(dir, "none.onnx"));
    ck_assert_int_eq(ox_read(ctx, in(dir, "none.onnx"), &g), OX_EIO);
    ck_assert_str_eq(ox_errmsg(ctx), want);

    put(in(dir, "empty.onnx"), "", 0);
    snprintf(want, sizeof want, "%s: not an ONNX model: the file is empty", in(dir, "empty.onnx"));
    ck_assert_int_eq(ox_read(ctx, in(dir, "empty.onnx"), &g), OX_EFORMAT);
    ck_assert_str_eq(ox_errmsg(ctx), want);

    put(in(dir, "text.onnx"), "hello world\n", 12);
    snprintf(want, sizeof want, "%s: not an ONNX model: unsupported wire type at byte 2 of 12",
             in(dir, "text.onnx"));
    ck_assert_int_eq(ox_read(ctx, in(dir, "text.onnx"), &g), OX_EFORMAT);
    ck_assert_str_eq(ox_errmsg(ctx), want);

    /* a valid protobuf that is no model: only an unknown field */
    static const uint8_t unknown[] = {0x78, 0x01};
    ck_assert_int_eq(ox_read_memory(ctx, unknown, sizeof unknown, "u", NULL, &g), OX_EFORMAT);
    ck_assert_str_eq(ox_errmsg(ctx), "u: not an ONNX model: it has no graph");
}
END_TEST

/* A pipe (`oxport dump /dev/stdin`, a FIFO, `<(...)`) is read to its end,
 * in as many pieces as it arrives; a device is refused without reading. */
START_TEST(pipes_read_devices_refused)
{
    size_t len;
    uint8_t *buf = tiny_model(&len, NULL);
    const char *fifo = in(dir, "pipe.onnx");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        FILE *f = fopen(fifo, "wb");
        size_t half = len / 2;
        int ok = f && fwrite(buf, 1, half, f) == half && fflush(f) == 0;
        usleep(20000); /* the reader sees the first half alone */
        ok = ok && fwrite(buf + half, 1, len - half, f) == len - half && fclose(f) == 0;
        free(buf); /* the child is checked for leaks under valgrind too */
        _exit(ok ? 0 : 1);
    }
    ox_graph *g = NULL;
    ox_status st = ox_read(ctx, fifo, &g);
    int status;
    waitpid(pid, &status, 0);
    ck_assert_msg(st == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert_str_eq(g->name, "tiny");
    ck_assert_uint_eq(g->n_nodes, 1);
    ox_value *w = ox_graph_value(g, g->params[0]);
    static const float want[4] = {1, 2, 3, 4};
    ck_assert_uint_eq(w->tensor.nbytes, 16);
    ck_assert_mem_eq(w->tensor.data, want, 16); /* the bytes outlive the stream buffer */
    ox_graph_free(g);
    free(buf);

    g = (ox_graph *)1;
    ck_assert_int_eq(ox_read(ctx, "/dev/null", &g), OX_EIO);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(ox_errmsg(ctx), "/dev/null: cannot read: not a regular file or a pipe; give "
                     "the path of an .onnx file");
}
END_TEST

/* Every status the reader may give hostile input, and the graph then works
 * with the checker and the writer. */
static void survive(const uint8_t *p, size_t len)
{
    ox_graph *g = NULL;
    ox_status st = ox_read_memory(ctx, p, len, "fuzz", dir, &g);
    ck_assert_msg(st == OX_OK || st == OX_EFORMAT || st == OX_EUNSUPPORTED || st == OX_EIO,
                  "status %d: %s", st, ox_errmsg(ctx));
    if (st == OX_OK) {
        ck_assert_ptr_nonnull(g);
        size_t nv;
        ox_check(ctx, g, NULL, &nv);
        ox_write(ctx, g, in(dir, "fuzz-out.onnx"), NULL);
        ox_graph_free(g);
    } else {
        ck_assert_ptr_null(g);
        ck_assert(strncmp(ox_errmsg(ctx), "fuzz: ", 6) == 0);
    }
}

START_TEST(truncated_random_and_mutated_bytes)
{
    size_t len;
    uint8_t *model = tiny_model(&len, NULL);
    for (size_t cut = 1; cut < len; cut++)
        survive(model, cut);
    ox_graph *g = NULL;
    ck_assert_int_eq(ox_read_memory(ctx, model, len - 3, "cut", NULL, &g), OX_EFORMAT);
    ck_assert_str_eq(ox_errmsg(ctx), "cut: not an ONNX model: length runs past the end of the "
                     "data (truncated file?) at byte 101 of 104");

    uint8_t buf[512];
    for (unsigned seed = 1; seed <= 3000; seed++) {
        srand(seed);
        size_t n = (size_t)(rand() % (int)sizeof buf) + 1;
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)rand();
        survive(buf, n);
    }
    /* mutations of a valid model reach deeper into the decoder */
    uint8_t *m = malloc(len);
    for (unsigned seed = 1; seed <= 3000; seed++) {
        srand(seed);
        memcpy(m, model, len);
        int flips = 1 + rand() % 4;
        for (int k = 0; k < flips; k++)
            m[(size_t)rand() % len] ^= (uint8_t)(1u << (rand() % 8));
        survive(m, len);
    }
    free(m);
    free(model);
}
END_TEST

/* Run a python script (onnx.helper) that writes files into `dir`; false,
 * after a SKIPPED note, when /usr/bin/python3 has no onnx module. */
static bool python_onnx(const char *script)
{
    if (shell_status("/usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null") != 0) {
        fprintf(stderr, "SKIPPED: /usr/bin/python3 with onnx and numpy is needed to make the "
                "test files\n");
        return false;
    }
    run_python_in(dir, script);
    return true;
}

static const ox_value *param_named(const ox_graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_params; i++) {
        const ox_value *v = ox_graph_value(g, g->params[i]);
        if (strcmp(v->name, name) == 0)
            return v;
    }
    ck_abort_msg("no initializer '%s'", name);
    return NULL;
}

/* Complex initializers, as ONNX stores them: complex64 as (real, imaginary)
 * pairs in float_data, complex128 in double_data, either in raw_data; a
 * Constant's complex value; a complex graph input.  The bytes are the pairs
 * in order, as in raw_data. */
START_TEST(complex_tensors_read)
{
    if (!python_onnx(
        "import numpy as np, onnx\n"
        "from onnx import helper, TensorProto as T, numpy_helper\n"
        "inits = [helper.make_tensor('c64', T.COMPLEX64, [2], [1+2j, 3-4j]),\n"
        "         helper.make_tensor('c128', T.COMPLEX128, [2, 1], [0.5+0.25j, 2-1j]),\n"
        "         numpy_helper.from_array(np.array([[1+1j, 2-2j, 3.5+0j]], np.complex64), 'c64raw'),\n"
        "         numpy_helper.from_array(np.array([-1+0.5j], np.complex128), 'c128raw')]\n"
        "k = helper.make_tensor('k', T.COMPLEX64, [2], [1.5-2j, 0.25+0j])\n"
        "nodes = [helper.make_node('Constant', [], ['kv'], value=k)]\n"
        "outs = []\n"
        "for i, t in enumerate([('x', T.COMPLEX64, [2]), ('kv', T.COMPLEX64, [2])] +\n"
        "                      [(t.name, t.data_type, list(t.dims)) for t in inits]):\n"
        "    nodes.append(helper.make_node('Identity', [t[0]], ['y%d' % i]))\n"
        "    outs.append(helper.make_tensor_value_info('y%d' % i, t[1], t[2]))\n"
        "g = helper.make_graph(nodes, 'cplx', [helper.make_tensor_value_info('x', T.COMPLEX64, [2])],\n"
        "                      outs, inits)\n"
        "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])\n"
        "m.ir_version = 7\n"
        "onnx.checker.check_model(m, full_check=True)\n"
        "onnx.save(m, 'complex.onnx')\n"
        "bad = helper.make_tensor('odd', T.COMPLEX64, [2], [1+2j, 3-4j])\n"
        "del bad.float_data[-1]\n"
        "del m.graph.initializer[:]; m.graph.initializer.append(bad)\n"
        "onnx.save(m, 'odd64.onnx')\n"
        "bad = helper.make_tensor('odd', T.COMPLEX128, [1], [1+2j])\n"
        "bad.double_data.append(3)\n"
        "del m.graph.initializer[:]; m.graph.initializer.append(bad)\n"
        "onnx.save(m, 'odd128.onnx')\n"
        "bad = numpy_helper.from_array(np.array([1j, 2j], np.complex128), 'short')\n"
        "bad.raw_data = bad.raw_data[:-8]\n"
        "del m.graph.initializer[:]; m.graph.initializer.append(bad)\n"
        "onnx.save(m, 'short.onnx')\n"))
        return;
    ox_graph *g = NULL;
    ck_assert_msg(ox_read(ctx, in(dir, "complex.onnx"), &g) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(ox_graph_value(g, g->inputs[0])->type.dtype, OX_COMPLEX64);
    static const float c64[] = {1, 2, 3, -4}, c64raw[] = {1, 1, 2, -2, 3.5f, 0};
    static const double c128[] = {0.5, 0.25, 2, -1}, c128raw[] = {-1, 0.5};
    static const struct {
        const char *name;
        ox_dtype dtype;
        const void *bytes;
        size_t nbytes;
    } want[] = {{"c64", OX_COMPLEX64, c64, sizeof c64},
                {"c128", OX_COMPLEX128, c128, sizeof c128},
                {"c64raw", OX_COMPLEX64, c64raw, sizeof c64raw},
                {"c128raw", OX_COMPLEX128, c128raw, sizeof c128raw}};
    ck_assert_uint_eq(g->n_params, 4);
    for (size_t i = 0; i < 4; i++) {
        const ox_value *v = param_named(g, want[i].name);
        ck_assert_int_eq(v->type.dtype, want[i].dtype);
        ck_assert_uint_eq(v->tensor.nbytes, want[i].nbytes);
        ck_assert_mem_eq(v->tensor.data, want[i].bytes, want[i].nbytes);
    }
    const ox_attr *k = ox_node_attr(g->first, "value");
    ck_assert_int_eq(k->kind, OX_ATTR_TENSOR);
    ck_assert_int_eq(k->u.t->dtype, OX_COMPLEX64);
    ck_assert_uint_eq(k->u.t->data.nbytes, 16);
    ck_assert_int_eq(ox_check(ctx, g, NULL, NULL), OX_OK);

    char *text = NULL;
    size_t tl = 0;
    FILE *mem = open_memstream(&text, &tl);
    ck_assert_int_eq(ox_graph_print(g, mem), OX_OK);
    fclose(mem);
    const char *lines[] = {"graph(%x : ComplexFloat(2)\n", "      %c64 : ComplexFloat(2)\n",
                           "      %c128 : ComplexDouble(2, 1)\n",
                           "      %c64raw : ComplexFloat(1, 3)\n",
                           "      %c128raw : ComplexDouble(1)) {\n",
                           " = onnx::Constant[value={1.5-2j, 0.25+0j}]()\n"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        ck_assert_msg(strstr(text, lines[i]), "no '%s' in:\n%s", lines[i], text);
    free(text);
    ox_graph_free(g);

    /* a complex element is two numbers: a count or a length that does not
     * hold whole pairs is refused with what it needs */
    static const struct {
        const char *file, *msg;
    } bad[] = {
        {"odd64.onnx", "initializer 'odd': float_data has 3 values but complex64 with the given "
                       "shape needs 4 (a real and an imaginary part per element)"},
        {"odd128.onnx", "initializer 'odd': double_data has 3 values but complex128 with the "
                        "given shape needs 2 (a real and an imaginary part per element)"},
        {"short.onnx", "initializer 'short': raw_data has 24 bytes but complex128 with 2 "
                       "elements needs 32"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        g = (ox_graph *)1;
        ck_assert_int_eq(ox_read(ctx, in(dir, bad[i].file), &g), OX_EFORMAT);
        ck_assert_ptr_null(g);
        char full[1024];
        snprintf(full, sizeof full, "%s: not an ONNX model: %s", in(dir, bad[i].file), bad[i].msg);
        ck_assert_str_eq(ox_errmsg(ctx), full);
    }
}
END_TEST

/* A tensor attribute of 64 KiB or more (a Constant's value, in raw_data or
 * in a typed field) has malloc'd bytes no value owns: the graph frees them
 * (the sanitizer run, tools/run-tests --sanitize, reports them otherwise). */
START_TEST(large_attribute_tensors_are_freed_with_the_graph)
{
    if (!python_onnx(
        "import numpy as np, onnx\n"
        "from onnx import helper, TensorProto as T, numpy_helper\n"
        "raw = numpy_helper.from_array(np.arange(20000, dtype=np.float32), 'raw')\n"
        "typed = helper.make_tensor('typed', T.FLOAT, [20000], [0.5] * 20000)\n"
        "nodes = [helper.make_node('Constant', [], ['a'], value=raw),\n"
        "         helper.make_node('Constant', [], ['b'], value=typed)]\n"
        "g = helper.make_graph(nodes, 'g', [], [helper.make_tensor_value_info(n, T.FLOAT, [20000])\n"
        "                                       for n in 'ab'])\n"
        "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), 'big.onnx')\n"))
        return;
    ox_graph *g = NULL;
    ck_assert_msg(ox_read(ctx, in(dir, "big.onnx"), &g) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_attr_tensor *a = ox_node_attr(g->first, "value")->u.t;
    const ox_attr_tensor *b = ox_node_attr(g->last, "value")->u.t;
    ck_assert_uint_eq(a->data.nbytes, 80000);
    ck_assert_uint_eq(b->data.nbytes, 80000);
    ck_assert_float_eq(((const float *)a->data.data)[19999], 19999.0f);
    ck_assert_float_eq(((const float *)b->data.data)[19999], 0.5f);
    ck_assert_int_eq(ox_check(ctx, g, NULL, NULL), OX_OK);
    ox_graph_free(g);
}
END_TEST

/* GraphProto.sparse_initializer: values, indices and dense shape as the
 * file holds them; nodes read them by name; the dense initializers stay
 * apart; the writer refuses them rather than write a dangling name. */
START_TEST(sparse_initializers_read)
{
    if (!python_onnx(
        "import numpy as np, onnx\n"
        "from onnx import helper, TensorProto as T, numpy_helper\n"
        "def sp(name, vals, idx, dims, idx_shape=None, idx_type=T.INT64, vdims=None):\n"
        "    s = onnx.SparseTensorProto()\n"
        "    s.values.CopyFrom(helper.make_tensor(name, T.FLOAT, vdims or [len(vals)], vals))\n"
        "    if idx is not None:\n"
        "        s.indices.CopyFrom(helper.make_tensor('', idx_type, idx_shape or [len(idx)], idx))\n"
        "    s.dims.extend(dims)\n"
        "    return s\n"
        /* emb read by a custom-domain node: no ai.onnx operator takes a sparse
         * tensor (check refuses Identity of one, as onnx's full check does) */
        "def model(sparse):\n"
        "    w = numpy_helper.from_array(np.ones((3, 4), np.float32), 'w')\n"
        "    nodes = [helper.make_node('Add', ['x', 'w'], ['y']), helper.make_node('Identity', ['emb'], ['e'], domain='sparse.ops')]\n"
        "    g = helper.make_graph(nodes, 'g', [helper.make_tensor_value_info('x', T.FLOAT, [3, 4])],\n"
        "        [helper.make_tensor_value_info('y', T.FLOAT, [3, 4]),\n"
        "         helper.make_sparse_tensor_value_info('e', T.FLOAT, [3, 4])], [w], sparse_initializer=sparse)\n"
        "    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13), helper.make_opsetid('sparse.ops', 1)])\n"
        "    m.ir_version = 7\n"
        "    return m\n"
        "m = model([sp('emb', [1., 2., 3.], [0, 5, 11], [3, 4]),\n"
        "           sp('coo', [4., 5.], [0, 3, 2, 1], [3, 4], idx_shape=[2, 2])])\n"
        "onnx.checker.check_model(m)\n"
        "onnx.save(m, 'sparse.onnx')\n"
        "bad = {'unsorted': sp('emb', [1., 2.], [5, 3], [3, 4]),\n"
        "       'repeat': sp('emb', [1., 2.], [3, 3], [3, 4]),\n"
        "       'outside': sp('emb', [1., 2.], [3, 12], [3, 4]),\n"
        "       'coords': sp('emb', [1., 2.], [1, 2, 1, 1], [3, 4], idx_shape=[2, 2]),\n"
        "       'coordout': sp('emb', [1., 2.], [0, 0, 3, 0], [3, 4], idx_shape=[2, 2]),\n"
        "       'noidx': sp('emb', [1., 2.], None, [3, 4]),\n"
        "       'int32': sp('emb', [1., 2.], [1, 2], [3, 4], idx_type=T.INT32),\n"
        "       'idxrank': sp('emb', [1., 2.], [1, 2], [3, 4], idx_shape=[1, 2, 1]),\n"
        "       'vrank': sp('emb', [1., 2.], [1, 2], [3, 4], vdims=[1, 2]),\n"
        "       'zero': sp('emb', [1., 2.], [1, 2], [0, 4]),\n"
        "       'scalar': sp('emb', [1.], [0], []),\n"
        "       'count': sp('emb', [1., 2.], [1, 2, 3], [3, 4]),\n"
        "       'dup': sp('w', [1., 2.], [1, 2], [3, 4])}\n"
        "for name, s in bad.items():\n"
        "    m = model([s])\n"
        "    try:\n"
        "        onnx.checker.check_model(m)\n"
        "    except onnx.checker.ValidationError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit('onnx.checker takes ' + name)\n"
        "    onnx.save(m, 'bad_' + name + '.onnx')\n"
        "m = model([onnx.SparseTensorProto()])\n"
        "onnx.save(m, 'novalues.onnx')\n"))
        return;
    ox_graph *g = NULL;
    ck_assert_msg(ox_read(ctx, in(dir, "sparse.onnx"), &g) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(g->n_params, 1); /* w, dense */
    ck_assert_uint_eq(g->n_sparse, 2);
    const ox_sparse_param *emb = &g->sparse[0], *coo = &g->sparse[1];
    const ox_value *ev = ox_graph_value(g, emb->id);
    ck_assert_str_eq(ev->name, "emb");
    ck_assert_int_eq(ev->kind, OX_VAL_PARAM);
    ck_assert_str_eq(ev->type.nontensor, "SparseTensor(Float(3, 4))");
    ck_assert_uint_eq(emb->rank, 2);
    ck_assert_int_eq(emb->dims[0], 3);
    ck_assert_int_eq(emb->dims[1], 4);
    ck_assert_uint_eq(ox_sparse_param_nnz(emb), 3);
    static const float vals[] = {1, 2, 3};
    ck_assert_int_eq(emb->values->dtype, OX_FLOAT);
    ck_assert_mem_eq(emb->values->data.data, vals, sizeof vals);
    static const int64_t idx[] = {0, 5, 11}, coords[] = {0, 3, 2, 1};
    ck_assert_int_eq(emb->indices->rank, 1);
    ck_assert_mem_eq(emb->indices->data.data, idx, sizeof idx);
    ck_assert_int_eq(coo->indices->rank, 2);
    ck_assert_mem_eq(coo->indices->data.data, coords, sizeof coords);
    ck_assert_uint_eq(ox_sparse_param_nnz(coo), 2);
    /* the Identity reads the sparse initializer, not a dangling name */
    ck_assert_uint_eq(g->last->inputs[0], emb->id);
    ck_assert_int_eq(ox_check(ctx, g, NULL, NULL), OX_OK);

    char *text = NULL;
    size_t tl = 0;
    FILE *mem = open_memstream(&text, &tl);
    ck_assert_int_eq(ox_graph_print_header(g, mem), OX_OK);
    ck_assert_int_eq(ox_graph_print(g, mem), OX_OK);
    fclose(mem);
    ck_assert_str_eq(text,
        "ir_version=7 opsets=[ai.onnx:13, sparse.ops:1] producer=- graph=g nodes=2 initializers=1 inputs=1 "
        "outputs=2 sparse_initializers=2\n"
        "graph(%x : Float(3, 4)\n"
        "      %w : Float(3, 4)\n"
        "      %emb : SparseTensor(Float(3, 4), 3 values)\n"
        "      %coo : SparseTensor(Float(3, 4), 2 values)) {\n"
        "  %y : Float(3, 4) = onnx::Add(%x, %w)\n"
        "  %e : SparseTensor(Float(3, 4)) = sparse.ops::Identity(%emb)\n"
        "  return (%y, %e);\n"
        "}\n");
    free(text);

    /* oxport reads them but does not write them: a clear refusal, no file */
    ck_assert_int_eq(ox_write(ctx, g, in(dir, "out.onnx"), NULL), OX_EUNSUPPORTED);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_write: graph g has a sparse initializer ('emb'), which "
                                     "oxport reads but does not write; nothing was written");
    ck_assert_int_eq(access(in(dir, "out.onnx"), F_OK), -1);
    ox_graph_free(g);

    /* each of onnx.checker's rules, one violation per file */
    static const struct {
        const char *file, *violation;
    } bad[] = {
        {"unsorted", "index 1 is 3, not above index 0 (5); ONNX requires ascending indices, "
                     "none repeated"},
        {"repeat", "index 1 is 3, not above index 0 (3); ONNX requires ascending indices, none "
                   "repeated"},
        {"outside", "index 1 is 12, outside the 12 elements of its dense shape"},
        {"coords", "the coordinates of index 1 come before those of index 0; ONNX requires them "
                   "in ascending lexicographic order, none repeated"},
        {"coordout", "index 1 has 3 on axis 0, whose size is 3"},
        {"noidx", "it has 2 values but no indices"},
        {"int32", "its indices must be int64, not int32"},
        {"idxrank", "its indices must have shape [NNZ] (linear) or [NNZ, 2] (coordinates), not "
                    "rank 3"},
        {"vrank", "its values must have shape [NNZ] (rank 1), not rank 2"},
        {"zero", "dimension 0 of its dense shape is 0; a sparse tensor's sizes must be positive"},
        {"scalar", "its dense shape has rank 0; a sparse tensor needs rank 1 or more"},
        {"count", "its indices have shape [3] but 2 values in a rank-2 tensor need [2] or [2, 2]"},
        {"dup", "the name is already defined by initializer 'w'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char file[64], want[512];
        snprintf(file, sizeof file, "bad_%s.onnx", bad[i].file);
        ck_assert_msg(ox_read(ctx, in(dir, file), &g) == OX_OK, "%s", ox_errmsg(ctx));
        mem = open_memstream(&text, &tl);
        size_t nv = 0;
        ck_assert_int_eq(ox_check(ctx, g, mem, &nv), OX_ECHECK);
        fclose(mem);
        bool dup = strcmp(bad[i].file, "dup") == 0;
        snprintf(want, sizeof want, "sparse initializer '%s': %s\n%s", dup ? "w" : "emb",
                 bad[i].violation,
                 dup ? "node #1 (Identity): input 'emb' is not a graph input, an initializer or "
                       "an output of an earlier node\n" : "");
        ck_assert_str_eq(text, want);
        ck_assert_uint_eq(nv, dup ? 2 : 1);
        free(text);
        ox_graph_free(g);
    }
    g = (ox_graph *)1;
    ck_assert_int_eq(ox_read(ctx, in(dir, "novalues.onnx"), &g), OX_EFORMAT);
    ck_assert_ptr_null(g);
    char want[1024];
    snprintf(want, sizeof want, "%s: not an ONNX model: sparse initializer #0 has no values "
             "tensor (its name, element type and values)", in(dir, "novalues.onnx"));
    ck_assert_str_eq(ox_errmsg(ctx), want);
}
END_TEST

START_TEST(deep_nesting_is_refused)
{
    /* ModelProto.graph -> (NodeProto.attribute -> AttributeProto.g ->
     * GraphProto.node)*, 200 levels: built inside out */
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap), *tmp = malloc(cap);
    static const uint8_t fields[3] = {(6 << 3) | 2 /* attr.g */, (5 << 3) | 2 /* node.attribute */,
                                      (1 << 3) | 2 /* graph.node */};
    for (int level = 0; level < 600; level++) {
        uint8_t hdr[8];
        size_t h = 0;
        hdr[h++] = fields[level % 3];
        size_t v = len;
        do {
            hdr[h++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
            v >>= 7;
        } while (v);
        memcpy(tmp, hdr, h);
        memcpy(tmp + h, buf, len);
        len += h;
        memcpy(buf, tmp, len);
    }
    /* wrap: ModelProto.graph */
    size_t h = 0;
    tmp[h++] = (7 << 3) | 2;
    size_t v = len;
    do {
        tmp[h++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    memcpy(tmp + h, buf, len);
    ox_graph *g = NULL;
    ck_assert_int_eq(ox_read_memory(ctx, tmp, len + h, "deep", NULL, &g), OX_EFORMAT);
    ck_assert(strncmp(ox_errmsg(ctx), "deep: not an ONNX model: messages nested too deeply at "
                      "byte ", 55) == 0);
    free(buf);
    free(tmp);
}
END_TEST

int main(void)
{
    make_torch_models();
    Suite *s = suite_create("read");
    TCase *tc = tcase_create("reader");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, torch_exports_read_and_rewrite);
    tcase_add_test(tc, external_data_from_onnx_save);
    tcase_add_test(tc, external_data_is_a_regular_file_below_the_model);
    tcase_add_test(tc, large_external_initializers_stay_in_their_file);
    tcase_add_test(tc, large_inline_initializers_stay_in_the_model_file);
    tcase_add_test(tc, tensor_with_two_value_fields_is_refused);
    tcase_add_test(tc, typed_fields_and_dangling_names);
    tcase_add_test(tc, bad_paths_and_empty_file);
    tcase_add_test(tc, pipes_read_devices_refused);
    tcase_add_test(tc, truncated_random_and_mutated_bytes);
    tcase_add_test(tc, deep_nesting_is_refused);
    tcase_add_test(tc, complex_tensors_read);
    tcase_add_test(tc, large_attribute_tensors_are_freed_with_the_graph);
    tcase_add_test(tc, sparse_initializers_read);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove_torch_models();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
