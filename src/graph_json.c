#include "graph_json.h"

static void json_dims(ox_json *j, uint32_t rank, const int64_t *dims, const char *const *params)
{
    ox_json_array(j);
    for (uint32_t i = 0; i < rank; i++) {
        if (params && params[i] && params[i][0])
            ox_json_string(j, params[i]);
        else if (!dims || dims[i] < 0)
            ox_json_null(j);
        else
            ox_json_int(j, dims[i]);
    }
    ox_json_array_end(j);
}

void ox_json_type(ox_json *j, const ox_type *t)
{
    ox_json_object(j);
    ox_json_key(j, "dtype");
    if (t->dtype == OX_UNDEFINED)
        ox_json_null(j);
    else
        ox_json_string(j, ox_dtype_name(t->dtype));
    ox_json_key(j, "shape");
    if (t->rank < 0)
        ox_json_null(j);
    else
        json_dims(j, (uint32_t)t->rank, t->dims, t->dim_params);
    ox_json_key(j, "other");
    ox_json_string(j, t->nontensor);
    ox_json_object_end(j);
}

static const ox_value *value_of(const ox_graph *g, ox_vid id)
{
    return id && id < g->n_values ? g->values[id] : NULL;
}

static void json_value_name(ox_json *j, const ox_graph *g, ox_vid id)
{
    const ox_value *v = value_of(g, id);
    if (!v)
        ox_json_string(j, ""); /* an absent optional input, as ONNX spells it */
    else if (v->name)
        ox_json_string(j, v->name);
    else
        ox_json_int(j, (int64_t)id);
}

/* [name, ...]: a node's inputs or outputs, a function's signature. */
static void json_value_names(ox_json *j, const ox_graph *g, const ox_vid *ids, uint32_t n)
{
    ox_json_array(j);
    for (uint32_t i = 0; i < n; i++)
        json_value_name(j, g, ids[i]);
    ox_json_array_end(j);
}

/* Name and type of each value; for initializers (`initializers`) also
 * whether the file lists it among the graph's inputs too, the IR <= 3
 * layout where a runtime may take a value for it (the reader keeps such a
 * parameter out of the graph's inputs, as the text form shows it). */
static void json_values_of(ox_json *j, const ox_graph *g, const ox_vid *ids, uint32_t n,
                           bool initializers)
{
    ox_json_array(j);
    for (uint32_t i = 0; i < n; i++) {
        const ox_value *v = value_of(g, ids[i]);
        ox_json_object(j);
        ox_json_key(j, "name");
        json_value_name(j, g, ids[i]);
        if (v) {
            ox_json_key(j, "type");
            ox_json_type(j, &v->type);
        }
        if (initializers) {
            ox_json_key(j, "also_input");
            ox_json_bool(j, v && v->listed_as_input);
        }
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
}

static void json_values(ox_json *j, const ox_graph *g, const ox_vid *ids, uint32_t n)
{
    json_values_of(j, g, ids, n, false);
}

static void json_tensor(ox_json *j, const ox_attr_tensor *t)
{
    if (!t) {
        ox_json_null(j);
        return;
    }
    ox_json_object(j);
    ox_json_key(j, "dtype");
    ox_json_string(j, ox_dtype_name(t->dtype));
    ox_json_key(j, "shape");
    json_dims(j, t->rank, t->dims, NULL);
    ox_json_key(j, "nbytes");
    ox_json_uint(j, t->data.nbytes);
    ox_json_object_end(j);
}

static void json_graph(ox_json *j, const ox_graph *g);

static void json_attr(ox_json *j, const ox_attr *a)
{
    switch (a->kind) {
    case OX_ATTR_FLOAT: ox_json_double(j, a->u.f); break;
    case OX_ATTR_INT: ox_json_int(j, a->u.i); break;
    case OX_ATTR_STRING:
    case OX_ATTR_SPARSE_TENSOR: /* its summary */
    case OX_ATTR_TYPE_PROTO:    /* the type as text */
        ox_json_string_n(j, a->u.s.p ? a->u.s.p : "", a->u.s.p ? a->u.s.len : 0);
        break;
    case OX_ATTR_GRAPHS:
        ox_json_array(j);
        for (size_t i = 0; i < a->u.graphs.n; i++)
            json_graph(j, a->u.graphs.p[i]);
        ox_json_array_end(j);
        break;
    case OX_ATTR_TENSOR: json_tensor(j, a->u.t); break;
    case OX_ATTR_GRAPH:
        if (a->u.g)
            json_graph(j, a->u.g);
        else
            ox_json_null(j);
        break;
    case OX_ATTR_FLOATS:
        ox_json_array(j);
        for (size_t i = 0; i < a->u.floats.n; i++)
            ox_json_double(j, a->u.floats.p[i]);
        ox_json_array_end(j);
        break;
    case OX_ATTR_INTS:
        ox_json_array(j);
        for (size_t i = 0; i < a->u.ints.n; i++)
            ox_json_int(j, a->u.ints.p[i]);
        ox_json_array_end(j);
        break;
    case OX_ATTR_STRINGS:
    case OX_ATTR_SPARSE_TENSORS:
    case OX_ATTR_TYPE_PROTOS:
        ox_json_array(j);
        for (size_t i = 0; i < a->u.strings.n; i++)
            ox_json_string(j, a->u.strings.p[i] ? a->u.strings.p[i] : "");
        ox_json_array_end(j);
        break;
    case OX_ATTR_TENSORS:
        ox_json_array(j);
        for (size_t i = 0; i < a->u.tensors.n; i++)
            json_tensor(j, a->u.tensors.p[i]);
        ox_json_array_end(j);
        break;
    default: ox_json_null(j); break;
    }
}

static const char *attr_kind_name(ox_attr_kind k)
{
    switch (k) {
    case OX_ATTR_FLOAT: return "float";
    case OX_ATTR_INT: return "int";
    case OX_ATTR_STRING: return "string";
    case OX_ATTR_TENSOR: return "tensor";
    case OX_ATTR_GRAPH: return "graph";
    case OX_ATTR_FLOATS: return "floats";
    case OX_ATTR_INTS: return "ints";
    case OX_ATTR_STRINGS: return "strings";
    case OX_ATTR_TENSORS: return "tensors";
    case OX_ATTR_GRAPHS: return "graphs";
    case OX_ATTR_SPARSE_TENSOR: return "sparse_tensor";
    case OX_ATTR_SPARSE_TENSORS: return "sparse_tensors";
    case OX_ATTR_TYPE_PROTO: return "type";
    case OX_ATTR_TYPE_PROTOS: return "types";
    }
    return "unknown";
}

static void json_node(ox_json *j, const ox_graph *g, const ox_node *n)
{
    ox_json_object(j);
    ox_json_key(j, "name");
    ox_json_string(j, n->name ? n->name : "");
    ox_json_key(j, "op_type");
    ox_json_string(j, n->op_type);
    ox_json_key(j, "domain");
    ox_json_string(j, n->domain ? n->domain : "");
    ox_json_key(j, "scope");
    ox_json_string(j, n->scope ? n->scope : "");
    ox_json_key(j, "inputs");
    json_value_names(j, g, n->inputs, n->n_inputs);
    ox_json_key(j, "outputs");
    json_value_names(j, g, n->outputs, n->n_outputs);
    ox_json_key(j, "attributes");
    ox_json_array(j);
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        const ox_attr *a = &n->attrs[i];
        ox_json_object(j);
        ox_json_key(j, "name");
        ox_json_string(j, a->name);
        ox_json_key(j, "kind");
        ox_json_string(j, attr_kind_name(a->kind));
        ox_json_key(j, "value");
        if (a->ref)
            ox_json_null(j); /* the calling node's value: see "ref" */
        else
            json_attr(j, a);
        ox_json_key(j, "ref");
        ox_json_string(j, a->ref);
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
    ox_json_object_end(j);
}

void ox_json_opset_imports(ox_json *j, const ox_graph *g)
{
    ox_json_array(j);
    for (uint32_t i = 0; i < g->n_opsets; i++) {
        ox_json_object(j);
        ox_json_key(j, "domain");
        ox_json_string(j, g->opsets[i].domain ? g->opsets[i].domain : "");
        ox_json_key(j, "version");
        ox_json_int(j, g->opsets[i].version);
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
}

/* A FunctionProto: its signature by name, its body's nodes as GRAPH's. */
static void json_function(ox_json *j, const ox_function *f)
{
    const ox_graph *b = f->body;
    ox_json_object(j);
    ox_json_key(j, "name");
    ox_json_string(j, f->name);
    ox_json_key(j, "domain");
    ox_json_string(j, f->domain);
    ox_json_key(j, "doc_string");
    ox_json_string(j, f->doc ? f->doc : "");
    ox_json_key(j, "inputs");
    json_value_names(j, b, b->inputs, b->n_inputs);
    ox_json_key(j, "outputs");
    json_value_names(j, b, b->outputs, b->n_outputs);
    ox_json_key(j, "attributes");
    ox_json_array(j);
    for (uint32_t i = 0; i < f->n_attributes; i++)
        ox_json_string(j, f->attributes[i]);
    ox_json_array_end(j);
    ox_json_key(j, "opset_imports");
    ox_json_opset_imports(j, b);
    ox_json_key(j, "nodes");
    ox_json_array(j);
    for (const ox_node *n = b->first; n; n = n->next)
        json_node(j, b, n);
    ox_json_array_end(j);
    ox_json_object_end(j);
}

static void json_graph(ox_json *j, const ox_graph *g)
{
    ox_json_object(j);
    ox_json_key(j, "name");
    ox_json_string(j, g->name ? g->name : "");
    ox_json_key(j, "inputs");
    json_values(j, g, g->inputs, g->n_inputs);
    ox_json_key(j, "outputs");
    json_values(j, g, g->outputs, g->n_outputs);
    ox_json_key(j, "initializers");
    json_values_of(j, g, g->params, g->n_params, true);
    ox_json_key(j, "sparse_initializers");
    ox_json_array(j);
    for (uint32_t i = 0; i < g->n_sparse; i++) {
        const ox_sparse_param *s = &g->sparse[i];
        ox_json_object(j);
        ox_json_key(j, "name");
        json_value_name(j, g, s->id);
        ox_json_key(j, "dtype");
        ox_json_string(j, s->values ? ox_dtype_name(s->values->dtype) : NULL);
        ox_json_key(j, "shape");
        json_dims(j, s->rank, s->dims, NULL);
        ox_json_key(j, "nnz");
        ox_json_uint(j, ox_sparse_param_nnz(s));
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
    ox_json_key(j, "nodes");
    ox_json_array(j);
    for (const ox_node *n = g->first; n; n = n->next)
        json_node(j, g, n);
    ox_json_array_end(j);
    ox_json_object_end(j);
}

void ox_json_model(ox_json *j, const ox_graph *g)
{
    ox_json_object(j);
    ox_json_key(j, "ir_version");
    ox_json_int(j, g->ir_version);
    ox_json_key(j, "opset_imports");
    ox_json_opset_imports(j, g);
    ox_json_key(j, "producer_name");
    ox_json_string(j, g->producer_name ? g->producer_name : "");
    ox_json_key(j, "producer_version");
    ox_json_string(j, g->producer_version ? g->producer_version : "");
    ox_json_key(j, "graph");
    json_graph(j, g);
    ox_json_key(j, "functions");
    ox_json_array(j);
    for (uint32_t i = 0; i < g->n_functions; i++)
        json_function(j, &g->functions[i]);
    ox_json_array_end(j);
    ox_json_object_end(j);
}
