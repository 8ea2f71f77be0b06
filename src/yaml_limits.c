#include "yaml_limits.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "strset.h"

#define LINE(m) ((unsigned long)(m).line + 1)
#define COL(m) ((unsigned long)(m).column + 1)

/* Expanded sizes of anchored nodes by anchor name (open addressing).  An
 * anchor in progress (its node not closed yet) has size UINT64_MAX: an alias
 * to it is recursive. */
typedef struct anchor {
    char *name; /* malloc'd */
    uint64_t size;
} anchor;

typedef struct anchors {
    anchor *slots;
    size_t cap, n;
} anchors;

static anchor *anchor_slot(anchors *a, const char *name)
{
    size_t i = (size_t)ox_str_hash(name) & (a->cap - 1);
    while (a->slots[i].name && strcmp(a->slots[i].name, name) != 0)
        i = (i + 1) & (a->cap - 1);
    return &a->slots[i];
}

static bool anchor_set(anchors *a, const char *name, uint64_t size)
{
    if ((a->n + 1) * 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        anchor *old = a->slots;
        size_t old_cap = a->cap;
        a->slots = calloc(cap, sizeof(*a->slots));
        if (!a->slots) {
            a->slots = old;
            return false;
        }
        a->cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].name)
                *anchor_slot(a, old[i].name) = old[i];
        free(old);
    }
    anchor *s = anchor_slot(a, name);
    if (!s->name) {
        s->name = strdup(name);
        if (!s->name)
            return false;
        a->n++;
    }
    s->size = size; /* a later anchor of the same name replaces the earlier one */
    return true;
}

static const anchor *anchor_get(anchors *a, const char *name)
{
    if (!a->cap)
        return NULL;
    const anchor *s = anchor_slot(a, name);
    return s->name ? s : NULL;
}

static void anchors_free(anchors *a)
{
    for (size_t i = 0; i < a->cap; i++)
        free(a->slots[i].name);
    free(a->slots);
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
    anchors an = {NULL, 0, 0};
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
            const anchor *a = anchor_get(&an, (const char *)e.data.alias.anchor);
            if (!a)
                break; /* undefined: the loader reports it */
            if (a->size == UINT64_MAX) {
                st = ox_fail(ctx, OX_ECONFIG, "%s:%lu:%lu: expected an alias to a finished node, "
                             "got *%s inside the node it names (a recursive structure)", path,
                             LINE(e.start_mark), COL(e.start_mark), e.data.alias.anchor);
                break;
            }
            add = a->size;
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
