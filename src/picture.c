/*
 * Graph pictures (picture.h).  A 6,000-node listing is read; a picture is
 * looked at: so the DOT keeps what a reader needs to find their way and
 * drops what only adds ink.
 *
 *  - Scopes ("M/Sequential[features]/Conv2d[0]") become nested clusters, so
 *    the picture is organised by module like the model's source.
 *  - Initializers are not drawn as nodes of their own (a ResNet has more of
 *    them than operators): each operator box lists the ones it reads.
 *  - Edges carry the tensor type flowing along them.
 *  - A view (scope prefix, depth) draws one part of a large graph, deeper
 *    modules collapsed into one box each.
 */
#include "picture.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "context.h"
#include "hash64.h"
#include "strmap.h"
#include "write_files.h"

extern char **environ;

/* ------------------------------------------------------------ scope paths */

static size_t n_components(const char *s)
{
    if (!s || !*s)
        return 0;
    size_t n = 1;
    for (; *s; s++)
        n += *s == '/';
    return n;
}

/* Length of the first `k` components of s (k <= n_components(s)). */
static size_t prefix_len(const char *s, size_t k)
{
    if (k == 0)
        return 0;
    size_t i = 0, seen = 0;
    for (; s[i]; i++)
        if (s[i] == '/' && ++seen == k)
            return i;
    return i;
}

/* Is scope `s` the module `prefix` or inside it? */
static bool in_scope(const char *s, const char *prefix)
{
    if (!prefix || !*prefix)
        return true;
    size_t l = strlen(prefix);
    if (!s || strncmp(s, prefix, l) != 0)
        return false;
    return s[l] == '\0' || s[l] == '/';
}

/* The module path a node's name holds when the file has no scope for it:
 * torch.onnx 1.13 leaves doc_string empty and names nodes by module,
 * "/layer1/layer1.0/conv1/Conv" for layer1.0.conv1's Conv, so its files
 * draw in clusters and take --scope too ("layer1/layer1.0/conv1").  The
 * path (the name without its leading '/' and last component) goes to buf;
 * "" when the name holds none or it does not fit. */
static const char *scope_from_name(const ox_node *n, char *buf, size_t cap)
{
    const char *name = n->name;
    buf[0] = '\0';
    if (!name || name[0] != '/')
        return buf;
    const char *last = strrchr(name, '/');
    size_t len = (size_t)(last - name);
    if (len <= 1 || len > cap)
        return buf;
    memcpy(buf, name + 1, len - 1);
    buf[len - 1] = '\0';
    return buf;
}

#define NAME_SCOPE_MAX 1024

/* The scope a node is drawn and selected by: its own, else its name's. */
static const char *node_scope(const ox_node *n, char buf[NAME_SCOPE_MAX])
{
    if (n->scope && n->scope[0])
        return n->scope;
    return scope_from_name(n, buf, NAME_SCOPE_MAX);
}

/* Component-wise order: "A/B" sorts right after "A", before "A-x", so each
 * module's items are contiguous and clusters can be opened and closed while
 * walking the sorted list. */
static int path_cmp(const char *a, size_t la, const char *b, size_t lb)
{
    for (size_t i = 0;; i++) {
        int ca = i < la ? (a[i] == '/' ? 1 : (unsigned char)a[i] + 1) : 0;
        int cb = i < lb ? (b[i] == '/' ? 1 : (unsigned char)b[i] + 1) : 0;
        if (ca != cb)
            return ca - cb;
        if (ca == 0)
            return 0;
    }
}

/* ------------------------------------------------------------------ items */

/* Something drawn as one box: an operator, or a collapsed module. */
typedef struct item {
    const ox_node *node;  /* NULL for a module box */
    const char *path;     /* the module box's scope, or the node's */
    size_t cluster_len;   /* the enclosing cluster: path[0..cluster_len) */
    size_t order;         /* position in the graph, for a stable sort */
    size_t index;         /* op_<index> or module_<index> */
    size_t n_nodes;       /* operators a module box stands for */
} item;

typedef struct view_state {
    const ox_graph *g;
    const ox_picture_view *view;
    size_t n_nodes;
    const ox_node **nodes;  /* graph order */
    size_t *item_of_node;   /* SIZE_MAX when not drawn */
    size_t *node_of_id;     /* node id -> graph position + 1 */
    item *items;
    size_t n_items, n_boxes;
    char **name_scopes; /* per graph position: a scope from the node's name, or NULL */
    /* A collapsed module's path -> its item: one lookup per node, where a
     * scan of the boxes made so far was quadratic in the modules. */
    ox_strmap box_of_path;
    char **box_paths; /* the map's keys, n_boxes of them */
} view_state;

static void view_free(view_state *s)
{
    for (size_t k = 0; s->name_scopes && k < s->n_nodes; k++)
        free(s->name_scopes[k]);
    free(s->name_scopes);
    free(s->nodes);
    free(s->item_of_node);
    free(s->node_of_id);
    free(s->items);
    for (size_t k = 0; s->box_paths && k < s->n_boxes; k++)
        free(s->box_paths[k]);
    free(s->box_paths);
    ox_strmap_free(&s->box_of_path);
}

/* The cluster level below which modules collapse; SIZE_MAX = never. */
static size_t collapse_level(const ox_picture_view *v)
{
    if (!v || v->depth < 0)
        return SIZE_MAX;
    return n_components(v->scope) + (size_t)v->depth;
}

static ox_status view_build(view_state *s, const ox_graph *g, const ox_picture_view *view)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->view = view;
    s->n_nodes = 0;
    for (const ox_node *n = g->first; n; n = n->next)
        s->n_nodes++;
    size_t cap = s->n_nodes ? s->n_nodes : 1;
    s->nodes = malloc(cap * sizeof *s->nodes);
    s->item_of_node = malloc(cap * sizeof *s->item_of_node);
    s->node_of_id = calloc((size_t)g->next_node_id + 1, sizeof *s->node_of_id);
    s->items = malloc(cap * sizeof *s->items);
    s->name_scopes = calloc(cap, sizeof *s->name_scopes);
    s->box_paths = calloc(cap, sizeof *s->box_paths);
    if (!s->nodes || !s->item_of_node || !s->node_of_id || !s->items || !s->name_scopes ||
        !s->box_paths || ox_strmap_init(&s->box_of_path, 64) != 0) {
        view_free(s);
        return OX_ENOMEM;
    }
    const char *prefix = view ? view->scope : NULL;
    size_t level = collapse_level(view);
    size_t k = 0;
    for (const ox_node *n = g->first; n; n = n->next, k++) {
        s->nodes[k] = n;
        s->item_of_node[k] = SIZE_MAX;
        if (n->id <= g->next_node_id)
            s->node_of_id[n->id] = k + 1;
        char buf[NAME_SCOPE_MAX];
        const char *scope = node_scope(n, buf);
        if (scope == buf && buf[0]) { /* kept: items point into it */
            if (!(s->name_scopes[k] = strdup(buf))) {
                view_free(s);
                return OX_ENOMEM;
            }
            scope = s->name_scopes[k];
        }
        if (!in_scope(scope, prefix))
            continue;
        size_t nc = n_components(scope);
        if (nc <= level) {
            item *it = &s->items[s->n_items];
            *it = (item){n, scope, strlen(scope), k, k, 1};
            s->item_of_node[k] = s->n_items++;
            continue;
        }
        /* Collapsed: the module one level below the last cluster. */
        size_t box_len = prefix_len(scope, level + 1);
        const uint64_t *at = ox_strmap_findn(&s->box_of_path, scope, box_len);
        size_t found = at ? (size_t)*at : SIZE_MAX;
        if (found == SIZE_MAX) {
            char *key = strndup(scope, box_len);
            if (!key) {
                view_free(s);
                return OX_ENOMEM;
            }
            s->box_paths[s->n_boxes] = key;
            item *it = &s->items[s->n_items];
            *it = (item){NULL, scope, prefix_len(scope, level), k, s->n_boxes++, 0};
            found = s->n_items++;
            if (ox_strmap_put(&s->box_of_path, key, found) < 0) {
                view_free(s);
                return OX_ENOMEM;
            }
        }
        s->items[found].n_nodes++;
        s->item_of_node[k] = found;
    }
    return OX_OK;
}

size_t ox_picture_count(const ox_graph *g, const ox_picture_view *view)
{
    size_t n = 0;
    char buf[NAME_SCOPE_MAX];
    for (const ox_node *nd = g->first; nd; nd = nd->next)
        n += in_scope(node_scope(nd, buf), view ? view->scope : NULL);
    return n;
}

/* --------------------------------------------------------------- writing */

/* A DOT double-quoted string's contents: quotes and backslashes escaped,
 * control characters shown as spaces (a name from a file may hold any). */
static void put_escaped(FILE *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fputc('\\', out);
        fputc(c < 0x20 || c == 0x7f ? ' ' : (int)c, out);
    }
}

static void put_str(FILE *out, const char *s)
{
    put_escaped(out, s ? s : "", s ? strlen(s) : 0);
}

/* "Float(1, 64, 55, 55)", as the verbose listing spells types. */
static void put_type(FILE *out, const ox_type *t)
{
    if (t->nontensor) {
        put_str(out, t->nontensor);
        return;
    }
    if (t->dtype == OX_UNDEFINED) {
        fputs("Tensor", out);
        return;
    }
    fputs(ox_dtype_torch_name(t->dtype), out);
    if (t->rank < 0)
        return;
    fputc('(', out);
    for (int32_t i = 0; i < t->rank; i++) {
        if (i)
            fputs(", ", out);
        if (t->dim_params && t->dim_params[i] && t->dim_params[i][0])
            put_str(out, t->dim_params[i]);
        else if (!t->dims || t->dims[i] < 0)
            fputc('*', out);
        else
            fprintf(out, "%lld", (long long)t->dims[i]);
    }
    fputc(')', out);
}

static const ox_value *value_of(const ox_graph *g, ox_vid id)
{
    return id && id < g->n_values ? g->values[id] : NULL;
}

/* A value with no producing node that the file holds as data. */
static bool is_folded(const ox_value *v)
{
    return v && !v->producer && (v->kind == OX_VAL_PARAM || v->kind == OX_VAL_CONST);
}

static void put_value_name(FILE *out, const ox_value *v)
{
    if (v->name && v->name[0])
        put_str(out, v->name);
    else
        fprintf(out, "%u", (unsigned)v->id);
}

static void put_item_id(FILE *out, const item *it)
{
    fprintf(out, "%s%zu", it->node ? "op_" : "module_", it->index);
}

/* Initializers an operator box names before counting the rest: a box
 * thousands of lines tall (a Sum of every parameter) is no picture, and
 * Graphviz's dot crashes on one. */
#define MAX_LISTED_INITIALIZERS 32

static void put_item(FILE *out, const ox_graph *g, const item *it, unsigned indent)
{
    fprintf(out, "%*s\"", (int)indent, "");
    put_item_id(out, it);
    fputs("\" [id=\"", out);
    put_item_id(out, it);
    fputs("\", label=\"", out);
    if (!it->node) {
        /* The module's own name: the component right after its cluster. */
        size_t start = it->cluster_len ? it->cluster_len + 1 : 0;
        size_t end = start;
        while (it->path[end] && it->path[end] != '/')
            end++;
        put_escaped(out, it->path + start, end - start);
        fprintf(out, "\\n%zu node%s\", shape=box3d, style=filled, fillcolor=\"#e8e8f8\", "
                     "tooltip=\"",
                it->n_nodes, it->n_nodes == 1 ? "" : "s");
        put_escaped(out, it->path, end);
        fputs("\"];\n", out);
        return;
    }
    const ox_node *n = it->node;
    if (n->domain && n->domain[0]) {
        put_str(out, n->domain);
        fputs("::", out);
    }
    put_str(out, n->op_type);
    size_t listed = 0, more = 0;
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        const ox_value *v = value_of(g, n->inputs[i]);
        if (!is_folded(v))
            continue;
        if (listed == MAX_LISTED_INITIALIZERS) {
            more++;
            continue;
        }
        listed++;
        fputs("\\n", out);
        put_value_name(out, v);
        fputs(" : ", out);
        put_type(out, &v->type);
    }
    if (more)
        fprintf(out, "\\n... and %zu more", more);
    fputs("\", shape=box, style=\"rounded,filled\", fillcolor=\"#fff4d8\", tooltip=\"", out);
    put_str(out, n->name && n->name[0] ? n->name : n->op_type);
    if (n->scope && n->scope[0]) {
        fputs(" in ", out);
        put_str(out, n->scope);
    }
    fputs("\"];\n", out);
}

/* Components in an item's cluster path. */
static size_t cluster_depth(const item *it)
{
    if (it->cluster_len == 0)
        return 0;
    size_t n = 1;
    for (size_t i = 0; i < it->cluster_len; i++)
        n += it->path[i] == '/';
    return n;
}

static int item_cmp(const void *pa, const void *pb)
{
    const item *a = *(const item *const *)pa, *b = *(const item *const *)pb;
    int c = path_cmp(a->path, a->cluster_len, b->path, b->cluster_len);
    if (c)
        return c;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Items sorted by module, clusters opened and closed along the way. */
static ox_status put_clusters(FILE *out, view_state *s)
{
    const item **sorted = malloc((s->n_items ? s->n_items : 1) * sizeof *sorted);
    if (!sorted)
        return OX_ENOMEM;
    for (size_t i = 0; i < s->n_items; i++)
        sorted[i] = &s->items[i];
    qsort(sorted, s->n_items, sizeof *sorted, item_cmp);
    const char *open_path = "";
    size_t open_depth = 0, open_len = 0, cluster_no = 0;
    for (size_t i = 0; i < s->n_items; i++) {
        const item *it = sorted[i];
        size_t want = cluster_depth(it);
        /* Levels shared with the open cluster stack stay open. */
        size_t common = 0;
        while (common < open_depth && common < want) {
            size_t la = prefix_len(open_path, common + 1), lb = prefix_len(it->path, common + 1);
            if (la > open_len || lb > it->cluster_len || path_cmp(open_path, la, it->path, lb) != 0)
                break;
            common++;
        }
        for (; open_depth > common; open_depth--)
            fprintf(out, "%*s}\n", (int)(2 * open_depth), "");
        for (; open_depth < want; open_depth++) {
            size_t from = prefix_len(it->path, open_depth);
            from += from ? 1 : 0;
            size_t to = prefix_len(it->path, open_depth + 1);
            fprintf(out, "%*ssubgraph cluster_%zu {\n%*slabel=\"", (int)(2 * open_depth + 2), "",
                    cluster_no++, (int)(2 * open_depth + 4), "");
            put_escaped(out, it->path + from, to - from);
            fputs("\"; style=rounded; color=\"#9090b0\";\n", out);
        }
        open_path = it->path;
        open_len = it->cluster_len;
        put_item(out, s->g, it, (unsigned)(2 * open_depth + 2));
    }
    for (; open_depth > 0; open_depth--)
        fprintf(out, "%*s}\n", (int)(2 * open_depth), "");
    free(sorted);
    return OX_OK;
}

/* One edge per (from, to, value): a value read twice by one node, or many
 * nodes of one collapsed module reading it, still draws one arrow. */
typedef struct edge_set {
    uint64_t *keys; /* 0 = empty slot */
    size_t cap, n;
} edge_set;

/* 1 new, 0 seen, -1 out of memory.  Keys are hashed triples: a collision
 * would hide one arrow of two, which 64 bits make vanishingly rare. */
static int edge_add(edge_set *e, uint64_t from, uint64_t to, uint64_t value)
{
    uint64_t key = ox_hash64_mix(ox_hash64_mix(ox_hash64_mix(0, from), to), value);
    key += !key; /* 0 marks an empty slot */
    if (2 * (e->n + 1) > e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 64;
        uint64_t *keys = calloc(cap, sizeof *keys);
        if (!keys)
            return -1;
        for (size_t i = 0; i < e->cap; i++) {
            if (!e->keys[i])
                continue;
            size_t j = e->keys[i] & (cap - 1);
            while (keys[j])
                j = (j + 1) & (cap - 1);
            keys[j] = e->keys[i];
        }
        free(e->keys);
        e->keys = keys;
        e->cap = cap;
    }
    size_t j = key & (e->cap - 1);
    while (e->keys[j]) {
        if (e->keys[j] == key)
            return 0;
        j = (j + 1) & (e->cap - 1);
    }
    e->keys[j] = key;
    e->n++;
    return 1;
}

/* Where a value comes from, as an endpoint id written into `buf`; false
 * when it is not drawn as an arrow (folded data, an absent input). */
static bool source_of(const view_state *s, const ox_value *v, FILE *out, bool *external,
                      uint64_t *key)
{
    const ox_graph *g = s->g;
    *external = false;
    if (v->producer) {
        size_t k = v->producer->id <= g->next_node_id ? s->node_of_id[v->producer->id] : 0;
        if (k && s->item_of_node[k - 1] != SIZE_MAX) {
            const item *it = &s->items[s->item_of_node[k - 1]];
            if (out)
                put_item_id(out, it);
            *key = (uint64_t)s->item_of_node[k - 1] + 1;
            return true;
        }
        *external = true; /* produced outside the drawn part */
        if (out)
            fprintf(out, "value_%u", (unsigned)v->id);
        *key = ((uint64_t)1 << 40) + v->id;
        return true;
    }
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        if (g->inputs[i] == v->id) {
            if (out)
                fprintf(out, "input_%u", (unsigned)i);
            *key = ((uint64_t)2 << 40) + i;
            return true;
        }
    }
    return false;
}

static ox_status put_edges(FILE *out, view_state *s)
{
    const ox_graph *g = s->g;
    edge_set seen = {0};
    edge_set externals = {0};
    ox_status st = OX_OK;
    bool *input_drawn = calloc(g->n_inputs ? g->n_inputs : 1, sizeof *input_drawn);
    if (!input_drawn)
        return OX_ENOMEM;
    bool whole = !s->view || !s->view->scope || !s->view->scope[0];
    /* Graph inputs: all of them for the whole graph, the ones read by the
     * drawn part otherwise. */
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        const ox_value *v = value_of(g, g->inputs[i]);
        if (!v || (!whole && v->n_uses == 0))
            continue;
        bool used = whole;
        for (size_t k = 0; !used && k < s->n_nodes; k++) {
            if (s->item_of_node[k] == SIZE_MAX)
                continue;
            for (uint32_t j = 0; j < s->nodes[k]->n_inputs; j++)
                used |= s->nodes[k]->inputs[j] == v->id;
        }
        if (!used)
            continue;
        input_drawn[i] = true;
        fprintf(out, "  \"input_%u\" [id=\"input_%u\", label=\"", (unsigned)i, (unsigned)i);
        put_value_name(out, v);
        fputs("\\n", out);
        put_type(out, &v->type);
        fputs("\", shape=ellipse, style=filled, fillcolor=\"#d8f0d8\"];\n", out);
    }
    for (size_t k = 0; k < s->n_nodes && st == OX_OK; k++) {
        if (s->item_of_node[k] == SIZE_MAX)
            continue;
        const ox_node *n = s->nodes[k];
        uint64_t to = (uint64_t)s->item_of_node[k] + 1;
        for (uint32_t j = 0; j < n->n_inputs; j++) {
            const ox_value *v = value_of(g, n->inputs[j]);
            bool external;
            uint64_t from;
            if (!v || is_folded(v) || !source_of(s, v, NULL, &external, &from))
                continue;
            if (from == to)
                continue; /* inside one collapsed module */
            int added = edge_add(&seen, from, to, v->id);
            if (added < 0) {
                st = OX_ENOMEM;
                break;
            }
            if (!added)
                continue;
            if (external) {
                int first = edge_add(&externals, v->id, 0, 0);
                if (first < 0) {
                    st = OX_ENOMEM;
                    break;
                }
                if (first) {
                    fprintf(out, "  \"value_%u\" [id=\"value_%u\", label=\"", (unsigned)v->id,
                            (unsigned)v->id);
                    put_value_name(out, v);
                    fputs("\\n(from outside)\", shape=ellipse, style=dashed];\n", out);
                }
            }
            fputs("  \"", out);
            source_of(s, v, out, &external, &from);
            fputs("\" -> \"", out);
            put_item_id(out, &s->items[s->item_of_node[k]]);
            fputs("\" [label=\"", out);
            put_type(out, &v->type);
            fputs("\"];\n", out);
        }
    }
    for (uint32_t i = 0; i < g->n_outputs && st == OX_OK; i++) {
        const ox_value *v = value_of(g, g->outputs[i]);
        bool external;
        uint64_t from;
        if (!v || !source_of(s, v, NULL, &external, &from) || external)
            continue;
        if (from >> 40 == 2 && !input_drawn[from & 0xffffffffu])
            continue;
        fprintf(out, "  \"output_%u\" [id=\"output_%u\", label=\"", (unsigned)i, (unsigned)i);
        put_value_name(out, v);
        fputs("\", shape=ellipse, style=filled, fillcolor=\"#f0d8d8\"];\n  \"", out);
        source_of(s, v, out, &external, &from);
        fprintf(out, "\" -> \"output_%u\" [label=\"", (unsigned)i);
        put_type(out, &v->type);
        fputs("\"];\n", out);
    }
    free(input_drawn);
    free(seen.keys);
    free(externals.keys);
    return st;
}

ox_status ox_picture_write_dot(const ox_graph *g, const ox_picture_view *view, FILE *out)
{
    view_state s;
    ox_status st = view_build(&s, g, view);
    if (st != OX_OK)
        return st;
    fputs("digraph \"", out);
    put_str(out, g->name && g->name[0] ? g->name : "graph");
    fputs("\" {\n  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11];\n"
          "  node [fontname=\"Helvetica\", fontsize=10];\n"
          "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#606060\"];\n",
          out);
    st = put_clusters(out, &s);
    if (st == OX_OK)
        st = put_edges(out, &s);
    fputs("}\n", out);
    view_free(&s);
    if (st == OX_OK && ferror(out))
        st = OX_EIO;
    return st;
}

/* -------------------------------------------------------------- rendering */

const char *ox_picture_format_of(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return NULL;
    /* x.SVG is an SVG too */
    static const char *const known[] = {"dot", "svg", "png"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcasecmp(dot + 1, known[i]) == 0)
            return known[i];
    if (strcasecmp(dot + 1, "gv") == 0)
        return "dot";
    return NULL;
}

/* A hidden temp file beside `path` ("dir/.name.oxport-XXXXXX"), so the final
 * rename stays on one file system. */
static char *temp_beside(const char *path, int *fd)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return NULL;
    snprintf(tmp, len, "%.*s.%s.oxport-XXXXXX", (int)dir_len, path, path + dir_len);
    *fd = mkstemp(tmp);
    if (*fd < 0) {
        free(tmp);
        return NULL;
    }
    return tmp;
}

/* Graphviz's first complaint, to quote in our message. */
static void first_line(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)cap, f)) {
        size_t l = strlen(buf);
        while (l && (buf[l - 1] == '\n' || buf[l - 1] == '\r'))
            buf[--l] = '\0';
    }
    fclose(f);
}

static ox_status run_dot(ox_context *ctx, const char *format, const char *dot_path,
                         const char *out_path, const char *err_path, const char *dest)
{
    char tflag[16];
    snprintf(tflag, sizeof tflag, "-T%s", format);
    char oflag[] = "-o";
    char prog[] = "dot";
    char *argv[] = {prog, tflag, oflag, (char *)out_path, (char *)dot_path, NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory starting Graphviz", dest);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_TRUNC, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == ENOENT)
        return ox_fail(ctx, OX_EUNSUPPORTED,
                       "%s: drawing %s needs Graphviz's 'dot' program, which is not on PATH; "
                       "install Graphviz (Debian: apt-get install graphviz) or write DOT "
                       "(--format dot) and render it elsewhere",
                       dest, format);
    if (rc != 0)
        return ox_fail(ctx, OX_EIO, "%s: cannot run Graphviz's 'dot': %s", dest, strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return ox_fail(ctx, OX_EIO, "%s: waiting for Graphviz's 'dot': %s", dest,
                           strerror(errno));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char why[256];
        first_line(err_path, why, sizeof why);
        if (WIFEXITED(status))
            return ox_fail(ctx, OX_EIO, "%s: Graphviz's 'dot -T%s' failed (exit %d)%s%s", dest,
                           format, WEXITSTATUS(status), why[0] ? ": " : "", why);
        return ox_fail(ctx, OX_EIO, "%s: Graphviz's 'dot -T%s' was killed by signal %d", dest,
                       format, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    return OX_OK;
}

ox_status ox_picture_render(ox_context *ctx, const ox_graph *g, const ox_picture_view *view,
                            const char *path, const char *format)
{
    if (!ctx || !g || !path || !*path)
        return ctx ? ox_fail(ctx, OX_EINVAL, "ox_picture_render: graph and path are required")
                   : OX_EINVAL;
    if (!format)
        format = ox_picture_format_of(path);
    if (!format)
        return ox_fail(ctx, OX_EINVAL, "%s: cannot tell the picture format from the name: name "
                                       "it *.svg, *.png or *.dot, or give the format", path);
    if (strcmp(format, "dot") && strcmp(format, "svg") && strcmp(format, "png"))
        return ox_fail(ctx, OX_EINVAL, "%s: picture format '%s' is not one of dot, svg, png",
                       path, format);
    if (view && view->scope && view->scope[0] && ox_picture_count(g, view) == 0)
        return ox_fail(ctx, OX_EINVAL, "%s: no node of graph '%s' is in scope '%s'", path,
                       g->name ? g->name : "", view->scope);
    int fd;
    char *dot_tmp = temp_beside(path, &fd);
    if (!dot_tmp)
        return ox_fail(ctx, OX_EIO, "%s: cannot create a temporary file beside it: %s", path,
                       strerror(errno));
    FILE *f = fdopen(fd, "w");
    ox_status st = OX_OK;
    if (!f) {
        close(fd);
        st = ox_fail(ctx, OX_EIO, "%s: %s", path, strerror(errno));
    } else {
        st = ox_picture_write_dot(g, view, f);
        if (fclose(f) != 0 && st == OX_OK)
            st = OX_EIO;
        if (st != OX_OK)
            st = ox_fail(ctx, st, "%s: could not write the picture (%s)", path, ox_strerror(st));
    }
    char *out_tmp = NULL, *err_tmp = NULL;
    if (st == OX_OK && strcmp(format, "dot") != 0) {
        int ofd = -1, efd = -1;
        out_tmp = temp_beside(path, &ofd);
        err_tmp = out_tmp ? temp_beside(path, &efd) : NULL;
        if (ofd >= 0)
            close(ofd);
        if (efd >= 0)
            close(efd);
        if (!out_tmp || !err_tmp)
            st = ox_fail(ctx, OX_EIO, "%s: cannot create a temporary file beside it: %s", path,
                         strerror(errno));
        else
            st = run_dot(ctx, format, dot_tmp, out_tmp, err_tmp, path);
    }
    const char *result = out_tmp ? out_tmp : dot_tmp;
    if (st == OX_OK) {
        /* mkstemp made it 0600; a picture gets the usual permissions. */
        mode_t mask = umask(0);
        umask(mask);
        chmod(result, 0666 & ~mask);
        int e = ox_put_in_place(result, path);
        if (e != 0)
            st = ox_fail(ctx, OX_EIO, "%s: cannot move the picture into place: %s", path,
                         strerror(e));
    }
    if (st != OX_OK || out_tmp)
        unlink(dot_tmp);
    if (out_tmp && st != OX_OK)
        unlink(out_tmp);
    if (err_tmp)
        unlink(err_tmp);
    free(dot_tmp);
    free(out_tmp);
    free(err_tmp);
    return st;
}

OX_API ox_status ox_graph_picture(ox_context *ctx, const ox_graph *g, const char *path,
                                  const char *format, const char *scope, int depth)
{
    ox_picture_view view = {scope, depth};
    return ox_picture_render(ctx, g, &view, path, format);
}
