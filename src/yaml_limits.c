#include "yaml_limits.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "strmap.h"

#define LINE(m) ((unsigned long)(m).line + 1)
#define COL(m) ((unsigned long)(m).column + 1)

/* Expanded sizes of anchored nodes by anchor name (the names are malloc'd
 * copies the map owns).  An anchor in progress (its node not closed yet) has
 * size UINT64_MAX: an alias to it is recursive. */
typedef ox_strmap anchors;

static bool anchor_set(anchors *a, const char *name, uint64_t size)
{
    uint64_t *known = ox_strmap_find(a, name);
    if (known) {
        *known = size; /* a later anchor of the same name replaces the earlier one */
        return true;
    }
    char *copy = strdup(name);
    if (!copy || ox_strmap_put(a, copy, size) < 0) {
        free(copy);
        return false;
    }
    return true;
}

/* The anchor's size, NULL when no such anchor was seen. */
static const uint64_t *anchor_get(const anchors *a, const char *name)
{
    return ox_strmap_find(a, name);
}

static void anchors_free(anchors *a)
{
    for (size_t i = 0; i < a->cap; i++)
        free((char *)a->slots[i].key);
    ox_strmap_free(a);
}

/* One open sequence or mapping. */
typedef struct open_node {
    uint64_t size;   /* nodes so far, itself included, aliases expanded */
    char *anchor;    /* its anchor (owned by the event copy), NULL when none */
} open_node;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

ox_status ox_yaml_check_limits(ox_context *ctx, const char *path, FILE *f)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory while parsing YAML", path);
    yaml_parser_set_input_file(&p, f);
    anchors an = {0};
    open_node stack[OX_YAML_MAX_DEPTH + 1];
    int depth = 0;
    uint64_t total = 0;
    ox_status st = OX_OK;
    bool done = false;
    while (!done && st == OX_OK) {
        yaml_event_t e;
        if (!yaml_parser_parse(&p, &e)) {
            /* no error recorded: an allocation failed (libyaml's only silent failure) */
            if (p.error == YAML_MEMORY_ERROR || p.error == YAML_NO_ERROR)
                st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory while parsing YAML", path);
            break; /* a syntax error: the loader reports it with its context */
        }
        uint64_t add = 0;           /* nodes this event adds to its parent */
        const char *new_anchor = NULL;
        switch (e.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_SCALAR_EVENT:
            if (strlen((const char *)e.data.scalar.value) != e.data.scalar.length) {
                st = ox_fail(ctx, OX_ECONFIG, "%s:%lu:%lu: expected text without NUL characters, "
                             "got a scalar with an escaped NUL (\\0)", path,
                             LINE(e.start_mark), COL(e.start_mark));
                break;
            }
            add = 1;
            new_anchor = (const char *)e.data.scalar.anchor;
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            const char *anc = (const char *)(e.type == YAML_SEQUENCE_START_EVENT
                                                 ? e.data.sequence_start.anchor
                                                 : e.data.mapping_start.anchor);
            if (depth == OX_YAML_MAX_DEPTH) {
                st = ox_fail(ctx, OX_ECONFIG, "%s:%lu:%lu: expected at most %d levels of nested "
                             "sequences and mappings, got deeper", path, LINE(e.start_mark),
                             COL(e.start_mark), OX_YAML_MAX_DEPTH);
                break;
            }
            stack[depth].size = 1;
            stack[depth].anchor = anc ? strdup(anc) : NULL;
            if (anc && (!stack[depth].anchor || !anchor_set(&an, anc, UINT64_MAX))) {
                free(stack[depth].anchor);
                st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory while parsing YAML", path);
                break;
            }
            depth++;
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth == 0)
                break;
            depth--;
            add = stack[depth].size;
            if (stack[depth].anchor && !anchor_set(&an, stack[depth].anchor, add))
                st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory while parsing YAML", path);
            free(stack[depth].anchor);
            break;
        case YAML_ALIAS_EVENT: {
            const uint64_t *size = anchor_get(&an, (const char *)e.data.alias.anchor);
            if (!size)
                break; /* undefined: the loader reports it */
            if (*size == UINT64_MAX) {
                st = ox_fail(ctx, OX_ECONFIG, "%s:%lu:%lu: expected an alias to a finished node, "
                             "got *%s inside the node it names (a recursive structure)", path,
                             LINE(e.start_mark), COL(e.start_mark), e.data.alias.anchor);
                break;
            }
            add = *size;
            break;
        }
        default:
            break;
        }
        if (st == OX_OK && new_anchor && !anchor_set(&an, new_anchor, 1))
            st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory while parsing YAML", path);
        if (st == OX_OK && add) {
            if (depth > 0)
                stack[depth - 1].size = sat_add(stack[depth - 1].size, add);
            else
                total = sat_add(total, add);
            /* the document's size so far: every open node plus what is closed */
            uint64_t now = total;
            for (int i = 0; i < depth && now <= OX_YAML_MAX_NODES; i++)
                now = sat_add(now, stack[i].size);
            if (now > OX_YAML_MAX_NODES)
                st = ox_fail(ctx, OX_ECONFIG, "%s:%lu:%lu: expected at most %u YAML nodes with "
                             "aliases expanded, got more%s", path, LINE(e.start_mark),
                             COL(e.start_mark), OX_YAML_MAX_NODES,
                             e.type == YAML_ALIAS_EVENT ? " (this alias repeats a large node)"
                                                        : "");
        }
        yaml_event_delete(&e);
    }
    while (depth > 0)
        free(stack[--depth].anchor);
    anchors_free(&an);
    yaml_parser_delete(&p);
    rewind(f);
    return st;
}
