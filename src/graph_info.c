/*
 * Public reads of a graph (oxport.h, "graphs read or traced"): its
 * interface, the summary line, the JSON document and the picture without a
 * file, for hosts and the CLI, which see graphs only through these.
 */
#include <string.h>

#include "graph_json.h"
#include "ir.h"
#include "json_out.h"
#include "picture.h"
#include "print.h"

OX_API const char *ox_graph_name(const ox_graph *g)
{
    return g && g->name ? g->name : "";
}

OX_API size_t ox_graph_input_count(const ox_graph *g)
{
    return g ? g->n_inputs : 0;
}

OX_API size_t ox_graph_output_count(const ox_graph *g)
{
    return g ? g->n_outputs : 0;
}

static ox_status value_info(const ox_graph *g, const ox_vid *ids, uint32_t n, size_t i,
                            ox_value_info *out)
{
    if (!g || !out || i >= n)
        return OX_EINVAL;
    const ox_value *v = ox_graph_value(g, ids[i]);
    memset(out, 0, sizeof *out);
    out->name = v && v->name ? v->name : "";
    out->rank = -1;
    if (v && !v->type.nontensor) {
        out->dtype = v->type.dtype;
        out->rank = v->type.rank;
        out->dims = v->type.rank >= 0 ? v->type.dims : NULL;
    }
    return OX_OK;
}

OX_API ox_status ox_graph_input_info(const ox_graph *g, size_t i, ox_value_info *out)
{
    return value_info(g, g ? g->inputs : NULL, g ? g->n_inputs : 0, i, out);
}

OX_API ox_status ox_graph_output_info(const ox_graph *g, size_t i, ox_value_info *out)
{
    return value_info(g, g ? g->outputs : NULL, g ? g->n_outputs : 0, i, out);
}

OX_API ox_status ox_graph_print_header(const ox_graph *g, FILE *out)
{
    if (!g || !out)
        return OX_EINVAL;
    return ox_print_header(g, out);
}

OX_API ox_status ox_graph_print_json(const ox_graph *g, const char *file, FILE *out)
{
    if (!g || !out)
        return OX_EINVAL;
    ox_json j;
    ox_json_init(&j, out);
    ox_json_document(&j, "dump");
    ox_json_key(&j, "file");
    ox_json_string(&j, file);
    ox_json_key(&j, "model");
    ox_json_model(&j, g);
    return ox_json_finish(&j) ? OX_OK : OX_EIO;
}

OX_API ox_status ox_graph_picture_dot(const ox_graph *g, const char *scope, int depth, FILE *out)
{
    if (!g || !out)
        return OX_EINVAL;
    ox_picture_view view = {scope, depth};
    return ox_picture_write_dot(g, &view, out);
}

OX_API size_t ox_graph_picture_count(const ox_graph *g, const char *scope, int depth)
{
    if (!g)
        return 0;
    ox_picture_view view = {scope, depth};
    return ox_picture_count(g, &view);
}
