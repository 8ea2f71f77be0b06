/*
 * The verbose printer: torch.onnx's text form of a graph, for traced graphs
 * (aten::/fn:: nodes with recorded arguments) and ONNX graphs alike.
 *
 *   graph(%x : Float(1, 3, 224, 224)
 *         %w : Float(64, 3, 11, 11)) {
 *     %3 : Float(1, 64, 55, 55) = onnx::Conv[kernel_shape=[11, 11]](%x, %w), scope: M/Conv2d[0]
 *     return (%3);
 *   }
 *
 * Output goes through a private buffer with hand-rolled integer formatting:
 * a million-node graph must print at the speed of the stream, so there is no
 * per-node allocation and no string building.
 */
#include "print.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PW_CAP 65536

typedef struct pw {
    FILE *f;
    size_t n;
    int err;
    char buf[PW_CAP];
} pw;

static void pw_flush(pw *w)
{
    if (w->n && !w->err && fwrite(w->buf, 1, w->n, w->f) != w->n)
        w->err = 1;
    w->n = 0;
}

static void pw_write_slow(pw *w, const char *p, size_t len)
{
    pw_flush(w);
    if (len > PW_CAP) {
        if (!w->err && fwrite(p, 1, len, w->f) != len)
            w->err = 1;
        return;
    }
    memcpy(w->buf, p, len);
    w->n = len;
}

/* The fast paths are inline: a node line is a dozen short pieces. */
static inline void pw_write(pw *w, const char *p, size_t len)
{
    if (len <= PW_CAP - w->n) {
        memcpy(w->buf + w->n, p, len);
        w->n += len;
    } else {
        pw_write_slow(w, p, len);
    }
}

static inline void pw_putc(pw *w, char c)
{
    if (w->n == PW_CAP)
        pw_flush(w);
    w->buf[w->n++] = c;
}

static inline void pw_puts(pw *w, const char *s)
{
    pw_write(w, s, strlen(s));
}

static void pw_u64(pw *w, uint64_t v)
{
    if (PW_CAP - w->n < 20)
        pw_flush(w);
    /* Digits straight into the buffer: count them, then fill backwards. */
    size_t digits = 1;
    for (uint64_t t = v; t >= 10; t /= 10)
        digits++;
    char *end = w->buf + w->n + digits;
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    w->n += digits;
}

static void pw_i64(pw *w, int64_t v)
{
    if (v < 0) {
        pw_putc(w, '-');
        /* Negate in unsigned arithmetic: INT64_MIN has no positive twin. */
        pw_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        pw_u64(w, (uint64_t)v);
    }
}

/* Shortest %g form that reads back as the same number.  Float attributes
 * are float32 values held in doubles: those only need to round-trip as
 * float, which turns 0.009999999776 back into the 0.01 the user wrote. */
static void fmt_float(double v, char *buf, size_t cap)
{
    if (isnan(v)) {
        snprintf(buf, cap, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, cap, v < 0 ? "-inf" : "inf");
        return;
    }
    int as_float = (double)(float)v == v;
    int max_prec = as_float ? 9 : 17;
    for (int p = 1; p <= max_prec; p++) {
        snprintf(buf, cap, "%.*g", p, v);
        double back = strtod(buf, NULL);
        if (as_float ? (float)back == (float)v : back == v)
            return;
    }
}

static void pw_float(pw *w, double v)
{
    char tmp[40];
    fmt_float(v, tmp, sizeof tmp);
    pw_puts(w, tmp);
}

/* "[1, 2, 3]": attribute and argument lists print alike. */
static void pw_i64_list(pw *w, const int64_t *p, size_t n)
{
    pw_putc(w, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_i64(w, p[i]);
    }
    pw_putc(w, ']');
}

static void pw_float_list(pw *w, const double *p, size_t n)
{
    pw_putc(w, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_float(w, p[i]);
    }
    pw_putc(w, ']');
}

static void pw_quoted(pw *w, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    pw_putc(w, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            pw_putc(w, '\\');
            pw_putc(w, (char)c);
        } else if (c == '\n') {
            pw_puts(w, "\\n");
        } else if (c < 0x20 || c == 0x7f) {
            char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            pw_write(w, esc, 4);
        } else {
            pw_putc(w, (char)c);
        }
    }
    pw_putc(w, '"');
}

/* A name or other text of the graph outside quotes, escaped as
 * ox_print_escaped does, so each node stays one line: s[0..len). */
static void pw_text(pw *w, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0; /* bytes before i that need no escape, not yet written */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = p[i];
        bool c1 = c == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f;
        if (c != '\\' && c >= 0x20 && c != 0x7f && !c1) {
            run++;
            continue;
        }
        pw_write(w, s + i - run, run);
        run = 0;
        if (c == '\\') {
            pw_write(w, "\\\\", 2);
        } else if (c == '\n') {
            pw_write(w, "\\n", 2);
        } else if (c1) {
            char esc[8] = {'\\', 'x', 'c', '2', '\\', 'x', hex[p[i + 1] >> 4], hex[p[i + 1] & 15]};
            pw_write(w, esc, 8);
            i++;
        } else {
            char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            pw_write(w, esc, 4);
        }
    }
    pw_write(w, s + len - run, run);
}

static void pw_name(pw *w, const char *s)
{
    pw_text(w, s, strlen(s));
}

static const ox_value *value_of(const ox_graph *g, ox_vid id)
{
    if (id == 0 || id >= g->n_values)
        return NULL;
    return g->values[id];
}

/* "%name", "%17" for an unnamed value, "%" for an absent one. */
static void pw_value_ref(pw *w, const ox_graph *g, ox_vid id)
{
    pw_putc(w, '%');
    if (id == 0)
        return;
    const ox_value *v = value_of(g, id);
    if (v && v->name && v->name[0])
        pw_name(w, v->name);
    else
        pw_u64(w, id);
}

static void pw_type(pw *w, const ox_type *t)
{
    if (t->nontensor) { /* "Sequence(Float(*))", as the reader spelled it */
        pw_name(w, t->nontensor);
        return;
    }
    if (t->dtype == OX_UNDEFINED) {
        pw_puts(w, "Tensor");
        return;
    }
    pw_puts(w, ox_dtype_torch_name(t->dtype));
    if (t->rank < 0)
        return; /* rank unknown: the element type is all we know */
    pw_putc(w, '(');
    for (int32_t i = 0; i < t->rank; i++) {
        if (i)
            pw_write(w, ", ", 2);
        if (t->dim_params && t->dim_params[i] && t->dim_params[i][0])
            pw_name(w, t->dim_params[i]);
        else if (!t->dims || t->dims[i] < 0)
            pw_putc(w, '*');
        else
            pw_i64(w, t->dims[i]);
    }
    pw_putc(w, ')');
}

static void pw_value_decl(pw *w, const ox_graph *g, ox_vid id)
{
    pw_value_ref(w, g, id);
    pw_write(w, " : ", 3);
    const ox_value *v = value_of(g, id);
    if (v)
        pw_type(w, &v->type);
    else
        pw_puts(w, "Tensor");
}

/* A sparse initializer's declaration: "%sp : SparseTensor(Float(3, 4), 3 values)",
 * the form the reader gives sparse tensor attributes. */
static void pw_sparse_decl(pw *w, const ox_graph *g, const ox_sparse_param *s)
{
    pw_value_ref(w, g, s->id);
    pw_puts(w, " : SparseTensor(");
    pw_puts(w, ox_dtype_torch_name(s->values ? s->values->dtype : OX_UNDEFINED));
    pw_putc(w, '(');
    for (uint32_t i = 0; i < s->rank; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_i64(w, s->dims[i]);
    }
    pw_puts(w, "), ");
    char num[32];
    uint64_t nnz = ox_sparse_param_nnz(s);
    snprintf(num, sizeof num, "%" PRIu64 " value%s)", nnz, nnz == 1 ? "" : "s");
    pw_puts(w, num);
}

/* --- tensor attribute values --- */

/* Element i of raw little-endian tensor bytes, as the printer shows it. */
static void pw_element(pw *w, ox_dtype dt, const unsigned char *p)
{
    if (ox_dtype_complex((int)dt)) {
        /* (real, imaginary), printed as Python prints a complex: 1+2j */
        double re, im;
        if (dt == OX_COMPLEX64) {
            float f[2];
            memcpy(f, p, sizeof f);
            re = f[0];
            im = f[1];
        } else {
            memcpy(&re, p, sizeof re);
            memcpy(&im, p + sizeof re, sizeof im);
        }
        pw_float(w, re);
        if (!signbit(im))
            pw_putc(w, '+');
        pw_float(w, im);
        pw_putc(w, 'j');
        return;
    }
    ox_elem x;
    if (!ox_elem_decode(dt, p, &x)) {
        pw_putc(w, '?');
        return;
    }
    switch (x.kind) {
    case OX_ELEM_FLOAT: pw_float(w, x.v.f); break;
    case OX_ELEM_INT: pw_i64(w, x.v.i); break;
    case OX_ELEM_UINT: pw_u64(w, x.v.u); break;
    }
}

/* Small tensors show their values, as torch prints value={1}; larger ones
 * show the first few then "...". */
#define TENSOR_SHOWN 6

static void pw_tensor(pw *w, const ox_attr_tensor *t)
{
    if (!t) {
        pw_puts(w, "{}");
        return;
    }
    uint64_t numel = 1;
    for (uint32_t i = 0; i < t->rank; i++)
        numel *= t->dims && t->dims[i] > 0 ? (uint64_t)t->dims[i] : 0;
    if (t->dtype == OX_STRING && t->data.data) {
        /* NUL-terminated strings back to back (ir.h) */
        const char *p = t->data.data, *end = p + t->data.nbytes;
        pw_putc(w, '{');
        for (uint64_t i = 0; i < numel && i < TENSOR_SHOWN && p < end; i++) {
            size_t len = strnlen(p, (size_t)(end - p));
            if (i)
                pw_write(w, ", ", 2);
            pw_quoted(w, p, len);
            p += len + 1;
        }
        if (numel > TENSOR_SHOWN)
            pw_write(w, ", ...", 5);
        pw_putc(w, '}');
        return;
    }
    size_t es = ox_dtype_size(t->dtype);
    /* Bytes we cannot decode (strings, external data not loaded, a short
     * buffer from a damaged file) print as an opaque tensor. */
    if (es == 0 || !t->data.data || numel > UINT64_MAX / es || t->data.nbytes < numel * es) {
        pw_puts(w, "{...}");
        return;
    }
    const unsigned char *p = t->data.data;
    pw_putc(w, '{');
    for (uint64_t i = 0; i < numel && i < TENSOR_SHOWN; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_element(w, t->dtype, p + i * es);
    }
    if (numel > TENSOR_SHOWN)
        pw_write(w, ", ...", 5);
    pw_putc(w, '}');
}

static void pw_attr_value(pw *w, const ox_attr *a)
{
    switch (a->kind) {
    case OX_ATTR_FLOAT:
        pw_float(w, a->u.f);
        break;
    case OX_ATTR_INT:
        pw_i64(w, a->u.i);
        break;
    case OX_ATTR_STRING:
        pw_quoted(w, a->u.s.p ? a->u.s.p : "", a->u.s.p ? a->u.s.len : 0);
        break;
    case OX_ATTR_TENSOR:
        pw_tensor(w, a->u.t);
        break;
    case OX_ATTR_GRAPH:
        pw_puts(w, "<Graph ");
        pw_name(w, a->u.g && a->u.g->name ? a->u.g->name : "");
        pw_putc(w, '>');
        break;
    case OX_ATTR_FLOATS:
        pw_float_list(w, a->u.floats.p, a->u.floats.n);
        break;
    case OX_ATTR_INTS:
        pw_i64_list(w, a->u.ints.p, a->u.ints.n);
        break;
    case OX_ATTR_TYPE_PROTO:    /* Optional(Sequence(Float)): a type, unquoted */
    case OX_ATTR_SPARSE_TENSOR: /* its summary */
        pw_text(w, a->u.s.p ? a->u.s.p : "", a->u.s.p ? a->u.s.len : 0);
        break;
    case OX_ATTR_TYPE_PROTOS:
    case OX_ATTR_SPARSE_TENSORS:
        pw_putc(w, '[');
        for (size_t i = 0; i < a->u.strings.n; i++) {
            if (i)
                pw_write(w, ", ", 2);
            pw_name(w, a->u.strings.p[i] ? a->u.strings.p[i] : "");
        }
        pw_putc(w, ']');
        break;
    case OX_ATTR_GRAPHS:
        pw_putc(w, '[');
        for (size_t i = 0; i < a->u.graphs.n; i++) {
            if (i)
                pw_write(w, ", ", 2);
            pw_puts(w, "<Graph ");
            pw_name(w, a->u.graphs.p[i] && a->u.graphs.p[i]->name ? a->u.graphs.p[i]->name : "");
            pw_putc(w, '>');
        }
        pw_putc(w, ']');
        break;
    case OX_ATTR_STRINGS:
        pw_putc(w, '[');
        for (size_t i = 0; i < a->u.strings.n; i++) {
            if (i)
                pw_write(w, ", ", 2);
            const char *s = a->u.strings.p[i] ? a->u.strings.p[i] : "";
            pw_quoted(w, s, strlen(s));
        }
        pw_putc(w, ']');
        break;
    case OX_ATTR_TENSORS:
        pw_putc(w, '[');
        for (size_t i = 0; i < a->u.tensors.n; i++) {
            if (i)
                pw_write(w, ", ", 2);
            pw_tensor(w, a->u.tensors.p[i]);
        }
        pw_putc(w, ']');
        break;
    default:
        pw_putc(w, '?');
        break;
    }
}

static int attr_name_cmp(const ox_attr *a, const ox_attr *b)
{
    return strcmp(a->name ? a->name : "", b->name ? b->name : "");
}

/* Attributes sorted by name.  Nodes carry a handful, so an insertion sort
 * into a caller's array of pointers beats qsort. */
static void sort_attrs(const ox_node *n, const ox_attr **order)
{
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        const ox_attr *a = &n->attrs[i];
        uint32_t j = i;
        while (j > 0 && attr_name_cmp(order[j - 1], a) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = a;
    }
}

static void pw_attrs(pw *w, const ox_node *n, const ox_attr *const *order)
{
    if (n->n_attrs == 0)
        return;
    pw_putc(w, '[');
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        const ox_attr *a = order ? order[i] : &n->attrs[i];
        if (i)
            pw_write(w, ", ", 2);
        pw_name(w, a->name ? a->name : "");
        pw_putc(w, '=');
        if (a->ref) { /* a function body's reference to its caller's attribute */
            pw_putc(w, '@');
            pw_name(w, a->ref);
        } else {
            pw_attr_value(w, a);
        }
    }
    pw_putc(w, ']');
}

static int arg_is_bracketed(const ox_targ *a)
{
    return a->kind != OX_ARG_TENSOR && a->kind != OX_ARG_TENSOR_LIST;
}

static void pw_targ_value(pw *w, const ox_targ *a)
{
    switch (a->kind) {
    case OX_ARG_NONE:
        pw_puts(w, "None");
        break;
    case OX_ARG_INT:
    case OX_ARG_BOOL:
        pw_i64(w, a->u.i);
        break;
    case OX_ARG_FLOAT:
        pw_float(w, a->u.f);
        break;
    case OX_ARG_STRING:
        pw_quoted(w, a->u.s ? a->u.s : "", a->u.s ? strlen(a->u.s) : 0);
        break;
    case OX_ARG_DTYPE:
        pw_puts(w, ox_dtype_torch_name((ox_dtype)a->u.i));
        break;
    case OX_ARG_INTS:
        pw_i64_list(w, a->u.ints.p, a->u.ints.n);
        break;
    case OX_ARG_FLOATS:
        pw_float_list(w, a->u.floats.p, a->u.floats.n);
        break;
    default:
        pw_putc(w, '?');
        break;
    }
}

/* Traced nodes: non-tensor arguments (and None tensors) as the bracketed
 * attributes, tensors and tensor lists in the parentheses, each in
 * recorded order. */
static void pw_traced_args(pw *w, const ox_graph *g, const ox_node *n)
{
    int first = 1;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ox_targ *a = &n->args[i];
        if (!arg_is_bracketed(a))
            continue;
        pw_write(w, first ? "[" : ", ", first ? 1 : 2);
        first = 0;
        pw_name(w, a->name ? a->name : "");
        pw_putc(w, '=');
        pw_targ_value(w, a);
    }
    if (!first)
        pw_putc(w, ']');
    pw_putc(w, '(');
    first = 1;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ox_targ *a = &n->args[i];
        if (arg_is_bracketed(a))
            continue;
        if (!first)
            pw_write(w, ", ", 2);
        first = 0;
        if (a->kind == OX_ARG_TENSOR) {
            pw_value_ref(w, g, a->u.tensor);
            continue;
        }
        pw_putc(w, '[');
        for (size_t j = 0; j < a->u.tensors.n; j++) {
            if (j)
                pw_write(w, ", ", 2);
            if (a->u.tensors.p[j])
                pw_value_ref(w, g, a->u.tensors.p[j]);
            else
                pw_puts(w, "None");
        }
        pw_putc(w, ']');
    }
    pw_putc(w, ')');
}

static void pw_indent(pw *w, unsigned n)
{
    static const char spaces[] = "                                ";
    while (n > 0) {
        unsigned k = n < sizeof spaces - 1 ? n : (unsigned)(sizeof spaces - 1);
        pw_write(w, spaces, k);
        n -= k;
    }
}

/* Files nest at most OX_READ_MAX_DEPTH deep; this bound keeps a hand-built
 * cyclic graph attribute from recursing forever. */
#define PRINT_MAX_DEPTH 64

static void pw_block(pw *w, const char *name, const ox_graph *sub, unsigned depth);

static void pw_node(pw *w, const ox_graph *g, const ox_node *n, unsigned depth)
{
    pw_indent(w, 2 + 4 * depth);
    for (uint32_t i = 0; i < n->n_outputs; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_value_decl(w, g, n->outputs[i]);
    }
    pw_write(w, n->n_outputs ? " = " : "= ", n->n_outputs ? 3 : 2);
    if (n->kind) {
        pw_name(w, n->kind);
    } else {
        pw_name(w, n->domain && n->domain[0] ? n->domain : "onnx");
        pw_write(w, "::", 2);
        pw_name(w, n->op_type ? n->op_type : "");
    }
    const ox_attr *stack[16];
    const ox_attr **order = NULL;
    if (n->n_args) {
        pw_traced_args(w, g, n);
    } else {
        order = n->n_attrs <= 16 ? stack : malloc(n->n_attrs * sizeof *order);
        if (order) /* unsorted beats failing the whole print */
            sort_attrs(n, order);
        pw_attrs(w, n, order);
        pw_putc(w, '(');
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            if (i)
                pw_write(w, ", ", 2);
            pw_value_ref(w, g, n->inputs[i]);
        }
        pw_putc(w, ')');
    }
    if (n->scope && n->scope[0]) {
        /* One node per line: a multi-line scope (a file's doc_string may
         * hold a stack trace) is cut at its first line. */
        size_t len = strcspn(n->scope, "\n");
        pw_write(w, ", scope: ", 9);
        pw_text(w, n->scope, len);
    }
    pw_putc(w, '\n');
    /* Subgraphs (If/Loop/Scan bodies) follow their node as indented
     * blocks, like torch's block0(): ... -> (...). */
    for (uint32_t i = 0; i < n->n_attrs && !n->n_args; i++) {
        const ox_attr *a = order ? order[i] : &n->attrs[i];
        if (a->kind == OX_ATTR_GRAPH && a->u.g)
            pw_block(w, a->name, a->u.g, depth + 1);
        for (size_t k = 0; a->kind == OX_ATTR_GRAPHS && k < a->u.graphs.n; k++)
            if (a->u.graphs.p[k])
                pw_block(w, a->name, a->u.graphs.p[k], depth + 1);
    }
    if (order != stack)
        free(order);
}

static void pw_block(pw *w, const char *name, const ox_graph *sub, unsigned depth)
{
    pw_indent(w, 4 * depth);
    pw_name(w, name ? name : "");
    pw_putc(w, '(');
    int first = 1;
    for (int pass = 0; pass < 2; pass++) {
        const ox_vid *ids = pass == 0 ? sub->inputs : sub->params;
        uint32_t count = pass == 0 ? sub->n_inputs : sub->n_params;
        for (uint32_t i = 0; i < count; i++) {
            if (!first)
                pw_write(w, ", ", 2);
            first = 0;
            pw_value_decl(w, sub, ids[i]);
        }
    }
    for (uint32_t i = 0; i < sub->n_sparse; i++) {
        if (!first)
            pw_write(w, ", ", 2);
        first = 0;
        pw_sparse_decl(w, sub, &sub->sparse[i]);
    }
    pw_write(w, "):\n", 3);
    if (depth >= PRINT_MAX_DEPTH) {
        pw_indent(w, 4 * depth + 2);
        pw_puts(w, "...\n");
        return;
    }
    for (const ox_node *n = sub->first; n; n = n->next)
        pw_node(w, sub, n, depth);
    pw_indent(w, 4 * depth + 2);
    pw_write(w, "-> (", 4);
    for (uint32_t i = 0; i < sub->n_outputs; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_value_ref(w, sub, sub->outputs[i]);
    }
    pw_write(w, ")\n", 2);
}

/* A model-local function after the graph, in the graph's own form:
 *   function local::Double(%x) attributes=[alpha] opsets=[ai.onnx:15] {
 *     ...
 *     return (%y);
 *   }  */
static void pw_function(pw *w, const ox_function *f)
{
    const ox_graph *b = f->body;
    pw_puts(w, "function ");
    pw_name(w, f->domain[0] ? f->domain : "onnx");
    pw_write(w, "::", 2);
    pw_name(w, f->name);
    pw_putc(w, '(');
    for (uint32_t i = 0; i < b->n_inputs; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_value_ref(w, b, b->inputs[i]);
    }
    pw_putc(w, ')');
    if (f->n_attributes) {
        pw_puts(w, " attributes=[");
        for (uint32_t i = 0; i < f->n_attributes; i++) {
            if (i)
                pw_write(w, ", ", 2);
            pw_name(w, f->attributes[i]);
        }
        pw_putc(w, ']');
    }
    pw_puts(w, " opsets=[");
    for (uint32_t i = 0; i < b->n_opsets; i++) {
        const char *d = b->opsets[i].domain;
        char num[32];
        snprintf(num, sizeof num, ":%" PRId64, b->opsets[i].version);
        if (i)
            pw_write(w, ", ", 2);
        pw_name(w, d && d[0] ? d : "ai.onnx");
        pw_puts(w, num);
    }
    pw_puts(w, "] {\n");
    for (const ox_node *n = b->first; n; n = n->next)
        pw_node(w, b, n, 0);
    pw_write(w, "  return (", 10);
    for (uint32_t i = 0; i < b->n_outputs; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_value_ref(w, b, b->outputs[i]);
    }
    pw_write(w, ");\n}\n", 5);
}

ox_status ox_graph_print(const ox_graph *g, FILE *out)
{
    if (!g || !out)
        return OX_EINVAL;
    pw *w = malloc(sizeof *w);
    /* Initializers that are also graph inputs are printed once, among the
     * inputs: one bit per value id remembers which were shown. */
    unsigned char *seen = calloc((size_t)g->n_values / 8 + 1, 1);
    if (!w || !seen) {
        free(w);
        free(seen);
        return OX_ENOMEM;
    }
    w->f = out;
    w->n = 0;
    w->err = 0;

    pw_puts(w, "graph(");
    int first = 1;
    for (int pass = 0; pass < 2; pass++) {
        const ox_vid *ids = pass == 0 ? g->inputs : g->params;
        uint32_t count = pass == 0 ? g->n_inputs : g->n_params;
        for (uint32_t i = 0; i < count; i++) {
            ox_vid id = ids[i];
            if (id < g->n_values) {
                if (seen[id / 8] & (1u << (id % 8)))
                    continue;
                seen[id / 8] |= (unsigned char)(1u << (id % 8));
            }
            if (!first)
                pw_write(w, "\n      ", 7);
            first = 0;
            pw_value_decl(w, g, id);
        }
    }
    for (uint32_t i = 0; i < g->n_sparse; i++) {
        if (!first)
            pw_write(w, "\n      ", 7);
        first = 0;
        pw_sparse_decl(w, g, &g->sparse[i]);
    }
    pw_write(w, ") {\n", 4);
    for (const ox_node *n = g->first; n; n = n->next)
        pw_node(w, g, n, 0);
    pw_write(w, "  return (", 10);
    for (uint32_t i = 0; i < g->n_outputs; i++) {
        if (i)
            pw_write(w, ", ", 2);
        pw_value_ref(w, g, g->outputs[i]);
    }
    pw_write(w, ");\n}\n", 5);
    for (uint32_t i = 0; i < g->n_functions; i++)
        pw_function(w, &g->functions[i]);
    pw_flush(w);
    /* Flush so a full disk or closed pipe is reported here, not lost. */
    int err = w->err || fflush(out) != 0;
    free(w);
    free(seen);
    return err ? OX_EIO : OX_OK;
}

/* ox_graph_node_count lives in ir.c next to the node list it counts. */

void ox_print_escaped(FILE *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if (c == '\\') {
            fputs("\\\\", out);
        } else if (c == '\n') {
            fputs("\\n", out);
        } else if (c < 0x20 || c == 0x7f) {
            char esc[5] = {'\\', 'x', hex[c >> 4], hex[c & 15], 0};
            fputs(esc, out);
        } else if (c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            /* a C1 control in UTF-8 (U+0080..U+009F: NEL, CSI ...) */
            char esc[9] = {'\\', 'x', 'c', '2', '\\', 'x', hex[p[1] >> 4], hex[p[1] & 15], 0};
            fputs(esc, out);
            p++;
        } else {
            fputc(c, out);
        }
    }
}

ox_status ox_print_header(const ox_graph *g, FILE *out)
{
    if (!g || !out)
        return OX_EINVAL;
    fprintf(out, "ir_version=%" PRId64 " opsets=[", g->ir_version);
    for (uint32_t i = 0; i < g->n_opsets; i++) {
        const char *d = g->opsets[i].domain;
        fputs(i ? ", " : "", out);
        ox_print_escaped(out, d && d[0] ? d : "ai.onnx");
        fprintf(out, ":%" PRId64, g->opsets[i].version);
    }
    fprintf(out, "] producer=");
    if (g->producer_name && g->producer_name[0]) {
        ox_print_escaped(out, g->producer_name);
        if (g->producer_version && g->producer_version[0]) {
            fputc(' ', out);
            ox_print_escaped(out, g->producer_version);
        }
    } else {
        fputs("-", out);
    }
    fputs(" graph=", out);
    ox_print_escaped(out, g->name && g->name[0] ? g->name : "-");
    fprintf(out, " nodes=%" PRIu32 " initializers=%" PRIu32 " inputs=%" PRIu32
                 " outputs=%" PRIu32,
            g->n_nodes, g->n_params, g->n_inputs, g->n_outputs);
    /* only when there are some: other headers stay as they were */
    if (g->n_sparse)
        fprintf(out, " sparse_initializers=%" PRIu32, g->n_sparse);
    if (g->n_functions)
        fprintf(out, " functions=%" PRIu32, g->n_functions);
    fputc('\n', out);
    return ferror(out) ? OX_EIO : OX_OK;
}
