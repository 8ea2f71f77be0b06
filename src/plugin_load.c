/*
 * Symbolic-pack loader: finds packs on the search path, validates their
 * descriptors field by field, runs init, and indexes every operator
 * declaration by name so conversion resolves each node in O(1).
 */
#include "plugin_load.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "crash_note.h"
#include "introspect.h"
#include "opset_yaml.h"
#include "param_decl.h"
#include "strmap.h"

/* The 1.0 layouts: a pack may declare larger structs (a newer minor), never smaller. */
#define DESC_MIN_1_0 (offsetof(ox_plugin_desc, fini) + sizeof(((ox_plugin_desc *)0)->fini))
#define OP_DECL_MIN_1_0 (offsetof(ox_op_decl, symbolic) + sizeof(((ox_op_decl *)0)->symbolic))

typedef struct loaded_pack {
    ox_plugin_info info;
    ox_plugin_desc desc;  /* copy of the fields inside the declared size */
    ox_op_decl *decls;    /* copies, desc.n_ops entries */
    ox_op_impl *impls;    /* one per decl */
    void *handle;
    char *path;
    char *real;           /* realpath, to load a file once however often it is listed */
    int inited;
    bool ctx_owned;       /* in-process pack: the context frees it, not the registry */
} loaded_pack;

typedef struct op_entry {
    const char *name;
    ox_op_impl **impls; /* sorted by since_opset, ascending */
    size_t n, cap;
} op_entry;

struct ox_registry {
    loaded_pack **packs;
    size_t n_packs, cap_packs;
    const ox_plugin_info **infos;
    op_entry *entries;
    size_t n_entries, cap_entries;
    ox_strmap index; /* operator name -> entries[] index */
    const ox_op_impl **all; /* sorted by name, then since_opset */
    size_t n_all;
};

/* ------------------------------------------------------------ name index */

static op_entry *index_find(const ox_registry *r, const char *name, size_t len)
{
    const uint64_t *k = r ? ox_strmap_findn(&r->index, name, len) : NULL;
    return k ? &r->entries[*k] : NULL;
}

/* A new entry for a name index_find did not find. */
static op_entry *index_add(ox_registry *r, const char *name)
{
    if (r->n_entries == r->cap_entries) {
        size_t ncap = r->cap_entries ? r->cap_entries * 2 : 64;
        op_entry *ne = realloc(r->entries, ncap * sizeof(*ne));
        if (!ne)
            return NULL;
        r->entries = ne;
        r->cap_entries = ncap;
    }
    if (ox_strmap_put(&r->index, name, r->n_entries) < 0)
        return NULL;
    op_entry *e = &r->entries[r->n_entries++];
    memset(e, 0, sizeof(*e));
    e->name = name;
    return e;
}

/* In-place ops ("aten::relu_") are converted by the out-of-place symbolic. */
static const op_entry *entry_for(const ox_registry *r, const char *name)
{
    size_t len = strlen(name);
    const op_entry *e = index_find(r, name, len);
    if (!e && len > 2 && name[len - 1] == '_' && name[len - 2] != '_')
        e = index_find(r, name, len - 1);
    return e;
}

const ox_op_impl *ox_registry_find(const ox_registry *r, const char *name, int opset)
{
    if (!r || !name)
        return NULL;
    const op_entry *e = entry_for(r, name);
    if (!e)
        return NULL;
    const ox_op_impl *best = NULL;
    for (size_t i = 0; i < e->n && e->impls[i]->decl->since_opset <= opset; i++)
        best = e->impls[i];
    return best;
}

int ox_registry_lowest_since(const ox_registry *r, const char *name)
{
    if (!r || !name)
        return 0;
    const op_entry *e = entry_for(r, name);
    return e && e->n ? e->impls[0]->decl->since_opset : 0;
}

size_t ox_registry_plugins(const ox_registry *r, const ox_plugin_info *const **out)
{
    if (!r) {
        *out = NULL;
        return 0;
    }
    *out = r->infos;
    return r->n_packs;
}

size_t ox_registry_ops(const ox_registry *r, const ox_op_impl *const **out)
{
    if (!r) {
        *out = NULL;
        return 0;
    }
    *out = r->all;
    return r->n_all;
}

/* -------------------------------------------------------------- freeing */

static void pack_free(loaded_pack *p)
{
    if (!p)
        return;
    if (p->inited && p->desc.fini)
        p->desc.fini();
    if (p->handle)
        dlclose(p->handle);
    for (uint32_t i = 0; p->decls && i < p->desc.n_ops; i++)
        free((void *)(uintptr_t)p->decls[i].params);
    free(p->decls);
    free(p->impls);
    free(p->path);
    free(p->real);
    free(p);
}

void ox_registry_free(ox_registry *r)
{
    if (!r)
        return;
    /* reverse order: a later pack may have overridden an earlier one */
    for (size_t i = r->n_packs; i-- > 0;)
        if (!r->packs[i]->ctx_owned)
            pack_free(r->packs[i]);
    for (size_t i = 0; i < r->n_entries; i++)
        free(r->entries[i].impls);
    free(r->packs);
    free(r->infos);
    free(r->entries);
    ox_strmap_free(&r->index);
    free(r->all);
    free(r);
}

/* ----------------------------------------------------------- validation */

/* Descriptor checks + op declaration checks + init, for a descriptor from a
 * .so or from memory; `path` names it in every diagnostic.  Returns 0 when
 * the pack is usable. */
static int accept_desc(const char *path, const ox_plugin_desc *d, loaded_pack *p, ox_report *r)
{
    size_t before = r->n;
    /* The four leading fields are the same in every ABI, so reading them is safe. */
    if (d->magic != OX_PLUGIN_MAGIC) {
        ox_report_add(r, "plugin %s: bad magic 0x%08X (expected 0x%08X)", path,
                      (unsigned)d->magic, (unsigned)OX_PLUGIN_MAGIC);
        return -1;
    }
    if (d->abi_major != OX_PLUGIN_ABI_MAJOR || d->abi_minor > OX_PLUGIN_ABI_MINOR) {
        ox_report_add(r, "plugin %s: built for plugin ABI %u.%u; this liboxport provides %d.%d",
                      path, (unsigned)d->abi_major, (unsigned)d->abi_minor, OX_PLUGIN_ABI_MAJOR,
                      OX_PLUGIN_ABI_MINOR);
        return -1;
    }
    if (d->struct_size < DESC_MIN_1_0)
        ox_report_add(r, "plugin %s: descriptor struct_size %u is smaller than the 1.0 minimum %zu",
                      path, (unsigned)d->struct_size, (size_t)DESC_MIN_1_0);
    if (d->op_decl_size < OP_DECL_MIN_1_0)
        ox_report_add(r, "plugin %s: descriptor op_decl_size %u is smaller than the 1.0 minimum %zu",
                      path, (unsigned)d->op_decl_size, (size_t)OP_DECL_MIN_1_0);
    if (r->n != before)
        return -1;
    size_t dsz = d->struct_size < sizeof(ox_plugin_desc) ? d->struct_size : sizeof(ox_plugin_desc);
    memset(&p->desc, 0, sizeof(p->desc));
    memcpy(&p->desc, d, dsz);

    if (!p->desc.name || !*p->desc.name)
        ox_report_add(r, "plugin %s: descriptor name is %s", path, p->desc.name ? "empty" : "NULL");
    if (p->desc.n_ops && !p->desc.ops) {
        ox_report_add(r, "plugin %s: descriptor n_ops is %u but ops is NULL", path,
                      (unsigned)p->desc.n_ops);
        return -1;
    }
    if (p->desc.n_ops) {
        p->decls = calloc(p->desc.n_ops, sizeof(*p->decls));
        p->impls = calloc(p->desc.n_ops, sizeof(*p->impls));
        if (!p->decls || !p->impls) {
            ox_report_add(r, "plugin %s: out of memory reading %u operator declarations", path,
                          (unsigned)p->desc.n_ops);
            return -1;
        }
    }
    size_t osz = d->op_decl_size < sizeof(ox_op_decl) ? d->op_decl_size : sizeof(ox_op_decl);
    const unsigned char *base = (const unsigned char *)p->desc.ops;
    for (uint32_t i = 0; i < p->desc.n_ops; i++) {
        ox_op_decl *o = &p->decls[i];
        memcpy(o, base + (size_t)i * d->op_decl_size, osz);
        /* o->params becomes the engine's own copy below; until then it is NULL,
         * so pack_free never frees the pack's static rows */
        const void *pack_rows = o->params;
        o->params = NULL;
        if (!o->name) {
            ox_report_add(r, "plugin %s: operator #%u: name is NULL", path, (unsigned)i);
            continue;
        }
        const char *sep = strstr(o->name, "::");
        if (!sep || sep == o->name || sep[2] == '\0') {
            ox_report_add(r,
                          "plugin %s: operator #%u: name '%s' is not qualified (expected "
                          "'domain::op', e.g. 'aten::relu')",
                          path, (unsigned)i, o->name);
            continue;
        }
        if (o->since_opset < 1 || o->since_opset > OX_SINCE_OPSET_MAX)
            ox_report_add(r, "plugin %s: operator %s: since_opset %d is invalid (must be 1 to %d)",
                          path, o->name, o->since_opset, OX_SINCE_OPSET_MAX);
        if (!o->symbolic)
            ox_report_add(r, "plugin %s: operator %s: symbolic is NULL", path, o->name);
        if (o->n_outputs == 0)
            ox_report_add(r, "plugin %s: operator %s: n_outputs is 0 (an operator has at least "
                          "one output)", path, o->name);
        else if (o->n_outputs > OX_NODE_OUTPUTS_MAX)
            ox_report_add(r, "plugin %s: operator %s: n_outputs is %u (at most %u)", path,
                          o->name, (unsigned)o->n_outputs, (unsigned)OX_NODE_OUTPUTS_MAX);
        if (o->n_params && !pack_rows) {
            ox_report_add(r, "plugin %s: operator %s: n_params is %u but params is NULL", path,
                          o->name, (unsigned)o->n_params);
            continue;
        }
        if (p->desc.abi_minor == 0) {
            /* 1.0 fields only: whatever follows them in a 1.0 row is not ours */
            o->param_size = 0;
            o->flags = 0;
            o->check = NULL;
        }
        if (o->flags & ~OX_OP_OUTPUTS_AS_RECORDED)
            ox_report_add(r, "plugin %s: operator %s: unknown flags 0x%X", path, o->name,
                          (unsigned)(o->flags & ~OX_OP_OUTPUTS_AS_RECORDED));
        if (o->n_params > OX_DECL_PARAMS_MAX) {
            ox_report_add(r, "plugin %s: operator %s: n_params is %u (at most %u)", path,
                          o->name, (unsigned)o->n_params, (unsigned)OX_DECL_PARAMS_MAX);
            continue;
        }
        ox_param_decl *rows = o->n_params ? calloc(o->n_params, sizeof(*rows)) : NULL;
        if (o->n_params && !rows) {
            ox_report_add(r, "plugin %s: out of memory reading operator %s", path, o->name);
            continue;
        }
        ox_params_read(path, o->name, p->desc.abi_minor, pack_rows, o->n_params, o->param_size,
                       rows, r);
        /* from here on every reader sees the engine's copy in the 1.1 layout */
        o->params = rows;
        o->param_size = (uint32_t)sizeof(ox_param_decl);
    }
    if (r->n != before)
        return -1;

    if (p->desc.init) {
        char err[512] = "";
        ox_crash_note_enter("init", path, NULL, NULL);
        int rc = p->desc.init(ox_symbolic_api(), err, sizeof err);
        ox_crash_note_leave();
        err[sizeof err - 1] = '\0';
        if (rc != 0) {
            if (err[0])
                ox_report_add(r, "plugin %s: init failed: %s", path, err);
            else
                ox_report_add(r, "plugin %s: init failed: returned %d without a message", path, rc);
            return -1;
        }
    }
    p->inited = 1;
    return 0;
}

/* glibc's dlerror() text when an allocation of the dynamic loader failed:
 * "cannot allocate ...", "...: Cannot allocate memory", "cannot create shared
 * object descriptor", or "cannot open shared object file" with no reason
 * after it (a missing file says ": No such file or directory").  Matching
 * the loader's words is the only way to tell; another libc's messages read
 * as "cannot open". */
static bool dlopen_out_of_memory(const char *e)
{
    static const char tail[] = "cannot open shared object file";
    size_t n = strlen(e), t = sizeof tail - 1;
    return strstr(e, "annot allocate") || strstr(e, "cannot create shared object descriptor") ||
           (n >= t && strcmp(e + n - t, tail) == 0);
}

/* dlopen + entry symbol, then the descriptor checks. */
static int open_pack(const char *path, loaded_pack *p, ox_report *r)
{
    /* A name without a slash would send dlopen to the library search path,
     * where a system library of the same name may be: it is a file here. */
    char *local = NULL;
    if (!strchr(path, '/')) {
        local = malloc(strlen(path) + 3);
        if (!local) {
            ox_report_add(r, "plugin %s: out of memory", path);
            return -1;
        }
        sprintf(local, "./%s", path);
    }
    dlerror();
    /* RTLD_NODELETE: a pack stays mapped until the process ends, whatever
     * dlclose says.  Unmapped when its last context went, it would be mapped
     * again by the next context, perhaps in another thread, at the same
     * address, and its first-call writes (aten's table, any pack's lazy
     * state) would race for TSan with the first mapping's: the loader's lock
     * orders them out of TSan's sight.  Staying loaded also spares every
     * later context the relocation, and code a pack left behind (a
     * thread-local destructor, an atexit handler) never outlives its text. */
    p->handle = dlopen(local ? local : path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    free(local);
    if (!p->handle) {
        const char *e = dlerror();
        if (e && dlopen_out_of_memory(e))
            ox_report_add(r, "plugin %s: out of memory in the dynamic loader (%s)", path, e);
        else
            ox_report_add(r, "plugin %s: cannot open: %s", path, e ? e : "unknown dlopen error");
        return -1;
    }
    dlerror();
    void *sym = dlsym(p->handle, OX_PLUGIN_ENTRY_SYMBOL);
    if (!sym) {
        ox_report_add(r, "plugin %s: no entry symbol '%s' (is it an oxport symbolic pack?)", path,
                      OX_PLUGIN_ENTRY_SYMBOL);
        return -1;
    }
    ox_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof(entry));
    const ox_plugin_desc *d = entry();
    if (!d) {
        ox_report_add(r, "plugin %s: %s() returned NULL", path, OX_PLUGIN_ENTRY_SYMBOL);
        return -1;
    }
    return accept_desc(path, d, p, r);
}

/* ------------------------------------------------------------- registry */

static int impl_insert(op_entry *e, ox_op_impl *impl)
{
    if (e->n == e->cap) {
        size_t ncap = e->cap ? e->cap * 2 : 2;
        ox_op_impl **ni = realloc(e->impls, ncap * sizeof(*ni));
        if (!ni)
            return -1;
        e->impls = ni;
        e->cap = ncap;
    }
    size_t at = e->n;
    while (at > 0 && e->impls[at - 1]->decl->since_opset > impl->decl->since_opset) {
        e->impls[at] = e->impls[at - 1];
        at--;
    }
    e->impls[at] = impl;
    e->n++;
    return 0;
}

/* The lowest since_opset among e's implementations from packs ranked above
 * `rank`: from there up they replace those of `rank` (INT_MAX: none). */
static int covered_from(const op_entry *e, ox_pack_rank rank)
{
    int from = INT_MAX;
    for (size_t k = 0; k < e->n; k++)
        if (e->impls[k]->plugin->rank > rank && e->impls[k]->decl->since_opset < from)
            from = e->impls[k]->decl->since_opset;
    return from;
}

/* Record on `im` the pack that would serve in its place without the
 * override: the strongest of those it replaces at some opset. */
static void note_override(ox_op_impl *im, const ox_plugin_info *weaker)
{
    if (weaker->rank < im->plugin->rank && (!im->overrides || im->overrides->rank < weaker->rank))
        im->overrides = weaker;
}

/* Add a validated pack's operators.  A pack of a higher rank overrides one of
 * a lower rank from its lowest since_opset of that name up (whichever loads
 * first): below it the lower pack's versions still serve, as an override
 * declared since opset 9 says nothing about opset 8.  Packs of the same rank
 * may not both provide one (name, since_opset). */
static int register_ops(ox_registry *reg, loaded_pack *p, ox_report *r)
{
    size_t before = r->n;
    for (uint32_t i = 0; i < p->desc.n_ops; i++) {
        ox_op_impl *impl = &p->impls[i];
        impl->decl = &p->decls[i];
        impl->plugin = &p->info;
        impl->overrides = NULL; /* an in-process pack is registered again on every reload */
        const char *name = impl->decl->name;
        int since = impl->decl->since_opset;
        op_entry *e = index_find(reg, name, strlen(name));
        if (!e) {
            if (!(e = index_add(reg, name)) || impl_insert(e, impl) != 0)
                goto oom;
            continue;
        }
        if (since >= covered_from(e, p->info.rank)) {
            /* a stronger pack already replaces this version */
            for (size_t k = 0; k < e->n; k++)
                note_override(e->impls[k], &p->info);
            continue;
        }
        int dup = 0;
        for (size_t k = 0; k < e->n && !dup; k++) {
            if (e->impls[k]->plugin->rank == p->info.rank && e->impls[k]->decl->since_opset == since) {
                ox_report_add(r,
                              "plugin %s: operator %s (since opset %d) is already provided by %s",
                              p->info.path, name, since, e->impls[k]->plugin->path);
                dup = 1;
            }
        }
        if (dup)
            continue;
        /* the weaker packs' versions from `since` up give way; whatever
         * stays of another rank overrides or is overridden from some opset */
        size_t kept = 0;
        for (size_t k = 0; k < e->n; k++) {
            ox_op_impl *o = e->impls[k];
            note_override(impl, o->plugin);
            note_override(o, impl->plugin);
            if (o->plugin->rank < p->info.rank && o->decl->since_opset >= since)
                continue;
            e->impls[kept++] = o;
        }
        e->n = kept;
        if (impl_insert(e, impl) != 0)
            goto oom;
        /* a version of a pack that already overrides this name keeps the record */
        for (size_t k = 0; k < e->n && !impl->overrides; k++)
            if (e->impls[k] != impl && e->impls[k]->plugin == impl->plugin)
                impl->overrides = e->impls[k]->overrides;
    }
    return r->n == before ? 0 : -1;
oom:
    ox_report_add(r, "plugin %s: out of memory registering operators", p->info.path);
    return -1;
}

static int pack_push(ox_registry *reg, loaded_pack *p)
{
    if (reg->n_packs == reg->cap_packs) {
        size_t ncap = reg->cap_packs ? reg->cap_packs * 2 : 8;
        loaded_pack **np = realloc(reg->packs, ncap * sizeof(*np));
        if (!np)
            return -1;
        reg->packs = np;
        const ox_plugin_info **ni = realloc(reg->infos, ncap * sizeof(*ni));
        if (!ni)
            return -1;
        reg->infos = ni;
        reg->cap_packs = ncap;
    }
    reg->packs[reg->n_packs] = p;
    reg->infos[reg->n_packs] = &p->info;
    reg->n_packs++;
    return 0;
}

static int load_file(ox_registry *reg, const char *path, bool explicit_path, ox_report *r)
{
    /* dlopen of a FIFO blocks until something writes to it: only regular
     * files (or links to them) are packs. */
    struct stat st;
    if (stat(path, &st) != 0) {
        ox_report_add(r, "plugin %s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        ox_report_add(r, "plugin %s: not a regular file; a pack is a shared library (.so)", path);
        return -1;
    }
    char *real = realpath(path, NULL);
    if (real) {
        for (size_t i = 0; i < reg->n_packs; i++)
            if (reg->packs[i]->real && strcmp(reg->packs[i]->real, real) == 0) {
                free(real);
                return 0;
            }
    }
    loaded_pack *p = calloc(1, sizeof(*p));
    if (!p || !(p->path = strdup(path))) {
        free(p);
        free(real);
        ox_report_add(r, "plugin %s: out of memory", path);
        return -1;
    }
    p->real = real;
    p->info.path = p->path;
    p->info.desc = &p->desc;
    p->info.explicit_path = explicit_path;
    p->info.rank = explicit_path ? OX_PACK_CONFIGURED : OX_PACK_BUILTIN;
    if (open_pack(path, p, r) != 0) {
        pack_free(p);
        return -1;
    }
    if (pack_push(reg, p) != 0) {
        pack_free(p);
        ox_report_add(r, "plugin %s: out of memory", path);
        return -1;
    }
    return register_ops(reg, p, r);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_so_suffix(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

/* Load a directory (every *.so, sorted by name) or a single file. */
static int load_path(ox_registry *reg, const char *path, bool explicit_path, const char *origin,
                     bool missing_ok, ox_report *r)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (missing_ok && errno == ENOENT)
            return 0;
        ox_report_add(r, "plugin path %s (%s): %s", path, origin, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return load_file(reg, path, explicit_path, r);
    DIR *dir = opendir(path);
    if (!dir) {
        ox_report_add(r, "plugin path %s (%s): %s", path, origin, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(dir))) {
        if (!has_so_suffix(de->d_name))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **nn = realloc(names, ncap * sizeof(*nn));
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
            cap = ncap;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(dir);
    if (rc != 0)
        ox_report_add(r, "plugin path %s: out of memory listing the directory", path);
    if (n)
        qsort(names, n, sizeof(*names), cmp_str);
    size_t plen = strlen(path);
    bool slash = plen && path[plen - 1] == '/';
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *full = malloc(plen + strlen(names[i]) + 2);
        if (!full) {
            ox_report_add(r, "plugin path %s: out of memory", path);
            rc = -1;
            break;
        }
        sprintf(full, "%s%s%s", path, slash ? "" : "/", names[i]);
        if (load_file(reg, full, explicit_path, r) != 0)
            rc = -1;
        free(full);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int cmp_impl(const void *a, const void *b)
{
    const ox_op_impl *x = *(const ox_op_impl *const *)a;
    const ox_op_impl *y = *(const ox_op_impl *const *)b;
    int c = strcmp(x->decl->name, y->decl->name);
    if (c)
        return c;
    return (x->decl->since_opset > y->decl->since_opset) -
           (x->decl->since_opset < y->decl->since_opset);
}

static int build_sorted(ox_registry *reg)
{
    size_t total = 0;
    for (size_t i = 0; i < reg->n_entries; i++)
        total += reg->entries[i].n;
    reg->all = malloc((total ? total : 1) * sizeof(*reg->all));
    if (!reg->all)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < reg->n_entries; i++)
        for (size_t j = 0; j < reg->entries[i].n; j++)
            reg->all[k++] = reg->entries[i].impls[j];
    reg->n_all = total;
    if (total)
        qsort(reg->all, total, sizeof(*reg->all), cmp_impl);
    return 0;
}

/* ------------------------------------------------------- in-process packs */

static void check_decl(ox_context *ctx, const char *path, const ox_op_decl *d, int until,
                       ox_report *r);

/* Report each (name, since_opset) of p that p itself or another in-process
 * pack of ctx already provides. */
static void mem_pack_conflicts(const ox_context *ctx, const loaded_pack *p, ox_report *r)
{
    for (uint32_t i = 0; i < p->desc.n_ops; i++) {
        const ox_op_decl *d = &p->decls[i];
        const char *by = NULL;
        for (uint32_t j = 0; j < i && !by; j++)
            if (strcmp(p->decls[j].name, d->name) == 0 &&
                p->decls[j].since_opset == d->since_opset)
                by = p->path;
        for (size_t k = 0; k < ctx->n_mem_packs && !by; k++) {
            const loaded_pack *q = ctx->mem_packs[k];
            for (uint32_t j = 0; j < q->desc.n_ops && !by; j++)
                if (strcmp(q->decls[j].name, d->name) == 0 &&
                    q->decls[j].since_opset == d->since_opset)
                    by = q->path;
        }
        if (by)
            ox_report_add(r, "plugin %s: operator %s (since opset %d) is already provided by %s",
                          p->path, d->name, d->since_opset, by);
    }
}

/* Into a loaded registry: register p and rebuild the sorted listing. */
static int mem_pack_register(ox_registry *reg, loaded_pack *p, ox_report *r)
{
    if (pack_push(reg, p) != 0 || register_ops(reg, p, r) != 0)
        return -1;
    free(reg->all);
    reg->all = NULL;
    reg->n_all = 0;
    if (build_sorted(reg) != 0) {
        ox_report_add(r, "out of memory indexing operators");
        return -1;
    }
    return 0;
}

ox_status ox_mem_pack_add(ox_context *ctx, const ox_plugin_desc *desc, const char *origin)
{
    if (!desc)
        return ox_fail(ctx, OX_EINVAL, "ox_context_add_pack: desc is NULL");
    if (!origin || !*origin)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_context_add_pack: origin is NULL or empty (name where the pack comes "
                       "from, e.g. \"python:mylib\")");
    if (ctx->n_mem_packs == ctx->cap_mem_packs) {
        size_t ncap = ctx->cap_mem_packs ? ctx->cap_mem_packs * 2 : 4;
        loaded_pack **np = realloc(ctx->mem_packs, ncap * sizeof(*np));
        if (!np)
            return ox_fail(ctx, OX_ENOMEM, "out of memory adding pack %s", origin);
        ctx->mem_packs = np;
        ctx->cap_mem_packs = ncap;
    }
    loaded_pack *p = calloc(1, sizeof(*p));
    if (!p || !(p->path = strdup(origin))) {
        free(p);
        return ox_fail(ctx, OX_ENOMEM, "out of memory adding pack %s", origin);
    }
    p->info.path = p->path;
    p->info.desc = &p->desc;
    p->info.explicit_path = true;
    p->info.rank = OX_PACK_IN_PROCESS;
    p->ctx_owned = true;
    ox_report r;
    ox_report_init(&r);
    if (accept_desc(p->path, desc, p, &r) == 0)
        mem_pack_conflicts(ctx, p, &r);
    bool registered = false;
    if (!r.n && ctx->registry) {
        registered = true; /* from here on the registry may point into p */
        ox_introspect_forget(ctx);
        mem_pack_register(ctx->registry, p, &r);
    }
    if (registered || (!r.n && !r.oom))
        ctx->mem_packs[ctx->n_mem_packs++] = p;
    if (!r.n && !r.oom) {
        ox_report_free(&r);
        return OX_OK;
    }
    char *msg = r.oom ? NULL : ox_report_join(&r, NULL);
    ox_report_free(&r);
    if (!registered)
        pack_free(p);
    if (!msg)
        return ox_fail(ctx, OX_ENOMEM, "out of memory adding pack %s", origin);
    return ox_fail_take(ctx, registered ? OX_ENOMEM : OX_EPLUGIN, msg);
}

void ox_mem_packs_free(ox_context *ctx)
{
    for (size_t i = ctx->n_mem_packs; i-- > 0;)
        pack_free(ctx->mem_packs[i]);
    free(ctx->mem_packs);
    ctx->mem_packs = NULL;
    ctx->n_mem_packs = ctx->cap_mem_packs = 0;
}

ox_status ox_registry_load(ox_context *ctx)
{
    if (!ctx)
        return OX_EINVAL;
    if (ctx->registry)
        return OX_OK;
    ox_registry *reg = calloc(1, sizeof(*reg));
    if (!reg)
        return ox_fail(ctx, OX_ENOMEM, "out of memory loading plugins");
    ox_report r;
    ox_report_init(&r);

    /* In-process packs were validated when added; they only need indexing. */
    for (size_t i = 0; i < ctx->n_mem_packs && !r.n; i++) {
        if (pack_push(reg, ctx->mem_packs[i]) != 0)
            ox_report_add(&r, "out of memory loading plugins");
        else
            register_ops(reg, ctx->mem_packs[i], &r);
    }
    /* Stop at the first rejected path: loading is all-or-nothing anyway. */
    for (size_t i = 0; i < ctx->n_plugin_paths && !r.n; i++) {
        const ox_path_entry *pe = &ctx->plugin_paths[i];
        load_path(reg, pe->path, pe->explicit_path,
                  pe->explicit_path ? "added with ox_context_add_plugin_path"
                                    : "added as a built-in plugin path",
                  false, &r);
    }
    if (!r.n && !(ctx->flags & OX_CONTEXT_NO_ENV)) {
        const char *env = getenv("OXPORT_PLUGIN_PATH");
        char *copy = env && *env ? strdup(env) : NULL;
        if (env && *env && !copy)
            ox_report_add(&r, "out of memory reading OXPORT_PLUGIN_PATH");
        char *save = NULL;
        for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok && !r.n;
             tok = strtok_r(NULL, ":", &save))
            load_path(reg, tok, true, "from OXPORT_PLUGIN_PATH", false, &r);
        free(copy);
    }
    if (!r.n && ctx->config) {
        const ox_config *cfg = ctx->config;
        for (size_t i = 0; i < cfg->n_plugin_dirs && !r.n; i++) {
            char origin[PATH_MAX + 32];
            snprintf(origin, sizeof origin, "plugin_dirs in %s",
                     cfg->path ? cfg->path : "the config");
            load_path(reg, cfg->plugin_dirs[i], true, origin, false, &r);
        }
    }
    /* The built-in packs come last, so every path above may override them: the
     * installed plugindir, or a build tree's (OXPORT_BUILTIN_PLUGIN_PATH, which
     * `meson devenv` and the build tree's CLI set).  OXPORT_NO_DEFAULT_PLUGINDIR
     * drops them, leaving only the paths given explicitly. */
    const char *no_default = getenv("OXPORT_NO_DEFAULT_PLUGINDIR");
    bool builtins = !(ctx->flags & OX_CONTEXT_NO_DEFAULT_PLUGINS) && !(no_default && *no_default);
    const char *builtin_env = ctx->flags & OX_CONTEXT_NO_ENV ? NULL
                                                              : getenv("OXPORT_BUILTIN_PLUGIN_PATH");
    if (!r.n && builtins && builtin_env && *builtin_env) {
        char *copy = strdup(builtin_env);
        if (!copy)
            ox_report_add(&r, "out of memory reading OXPORT_BUILTIN_PLUGIN_PATH");
        char *save = NULL;
        for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok && !r.n;
             tok = strtok_r(NULL, ":", &save))
            load_path(reg, tok, false, "from OXPORT_BUILTIN_PLUGIN_PATH", false, &r);
        free(copy);
    } else if (!r.n && builtins) {
        load_path(reg, OXPORT_PLUGINDIR, false, "the installed plugin directory", true, &r);
    }

    if (!r.n && build_sorted(reg) != 0)
        ox_report_add(&r, "out of memory indexing operators");
    if (r.n || r.oom) {
        /* every problem an allocation failure: the packs are fine, memory is not */
        bool all_oom = r.n > 0;
        for (size_t i = 0; i < r.n && all_oom; i++)
            all_oom = strstr(r.lines[i], "out of memory") != NULL;
        char *msg = r.oom ? NULL : ox_report_join(&r, NULL);
        ox_report_free(&r);
        ox_registry_free(reg);
        if (!msg)
            return ox_fail(ctx, OX_ENOMEM, "a symbolic pack could not be loaded (out of memory "
                                           "formatting the message)");
        return ox_fail_take(ctx, all_oom ? OX_ENOMEM : OX_EPLUGIN, msg);
    }
    ox_report_free(&r);
    ctx->registry = reg;
    return OX_OK;
}

ox_status ox_context_print_overrides(ox_context *ctx, FILE *out, size_t *n_out)
{
    if (n_out)
        *n_out = 0;
    if (!ctx)
        return OX_EINVAL;
    if (!out)
        return ox_fail(ctx, OX_EINVAL, "ox_context_print_overrides: out is NULL");
    ox_status st = ox_context_load(ctx);
    if (st != OX_OK)
        return st;
    const ox_registry *reg = ctx->registry;
    size_t n = 0;
    const char *last = NULL; /* the operator last listed: once per operator */
    for (size_t i = 0; i < reg->n_all; i++) {
        const ox_op_impl *im = reg->all[i];
        /* the first version that overrides: with an override from opset 11,
         * the built-in version below it comes first and overrides nothing */
        if (!im->overrides || (last && strcmp(last, im->decl->name) == 0))
            continue;
        last = im->decl->name;
        if (fprintf(out, "%s: %s overrides %s\n", im->decl->name, im->plugin->path,
                    im->overrides->path) < 0)
            return ox_fail(ctx, OX_EIO, "ox_context_print_overrides: write failed");
        n++;
    }
    if (n_out)
        *n_out = n;
    return OX_OK;
}

static void crosscheck_impls(ox_context *ctx, const ox_registry *reg, ox_report *r);

ox_status ox_plugin_check_file(ox_context *ctx, const char *path, ox_report *r)
{
    if (!path || !r)
        return ox_fail(ctx, OX_EINVAL, "ox_plugin_check_file: path and report are required");
    size_t before = r->n;
    ox_registry *reg = calloc(1, sizeof(*reg));
    if (!reg)
        return ox_fail(ctx, OX_ENOMEM, "out of memory");
    struct stat st;
    if (stat(path, &st) != 0)
        ox_report_add(r, "plugin %s: cannot open: %s", path, strerror(errno));
    else if (S_ISDIR(st.st_mode))
        ox_report_add(r, "plugin %s: is a directory (give one .so file)", path);
    else if (load_file(reg, path, true, r) == 0 && r->n == before) {
        /* A pack that loads can still declare what never works with these
         * descriptors (a version past the newest opset, a parameter the YAML
         * lists and the pack lacks); a user checks a pack before installing
         * it, so say so here rather than only with every pack loaded.  The
         * file itself is judged without descriptors too (a host may check
         * packs with none installed), so none found skips this part. */
        if (!ctx->opsets)
            (void)ox_opset_db_load(ctx, ox_context_opset_dir(ctx), &ctx->opsets);
        if (ctx->opsets) {
            if (build_sorted(reg) != 0)
                ox_report_add(r, "plugin %s: out of memory checking it", path);
            else
                crosscheck_impls(ctx, reg, r);
        }
    }
    ox_registry_free(reg);
    return r->n == before ? OX_OK : OX_EPLUGIN;
}

/* -------------------------------------------------- YAML cross-checking */

/* One declaration against the descriptors of the opsets it serves
 * (since_opset..until).
 * loading fail. */
static void check_decl(ox_context *ctx, const char *path, const ox_op_decl *d, int until,
                       ox_report *r)
{
    const ox_opset_db *db = ctx->opsets;
    const char *dir = ox_context_opset_dir(ctx);
    int lo = ox_opset_db_min(db);
    int last_declared = -1;
    for (int o = d->since_opset > lo ? d->since_opset : lo; o <= until; o++) {
        const ox_opset_op *y = ox_opset_db_lookup(db, o, d->name);
        if (!y || y->declared_in == last_declared)
            continue;
        last_declared = y->declared_in;
        for (size_t k = 0; k < y->n_params; k++)
            if (!ox_param_find(d, y->params[k].name))
                ox_report_add(r,
                              "plugin %s: operator %s does not declare parameter '%s', which "
                              "%s/opset_%d.yaml lists",
                              path, d->name, y->params[k].name, dir, y->declared_in);
    }
}

/* Compare every implementation of reg (its sorted list) with the descriptors
 * of the opsets it serves: the loaded packs for `oxport plugins --check`, one
 * file's for `--check FILE`. */
static void crosscheck_impls(ox_context *ctx, const ox_registry *reg, ox_report *r)
{
    const ox_opset_db *db = ctx->opsets;
    const char *dir = ox_context_opset_dir(ctx);
    int hi = ox_opset_db_max(db);
    for (size_t i = 0; i < reg->n_all; i++) {
        const ox_op_impl *im = reg->all[i];
        const ox_op_decl *d = im->decl;
        int until = hi;
        if (i + 1 < reg->n_all && strcmp(reg->all[i + 1]->decl->name, d->name) == 0 &&
            reg->all[i + 1]->decl->since_opset - 1 < hi)
            until = reg->all[i + 1]->decl->since_opset - 1; /* never past the descriptors */
        if (d->since_opset > hi)
            ox_report_add(r,
                          "plugin %s: operator %s: since_opset %d is past the newest opset "
                          "descriptor (%d) in %s, so that version is never used",
                          im->plugin->path, d->name, d->since_opset, hi, dir);
        check_decl(ctx, im->plugin->path, d, until, r);
    }
}

/* The loaded packs against the descriptors, and the descriptors against the
 * loaded packs. */
static size_t crosscheck(ox_context *ctx, ox_report *r)
{
    const ox_registry *reg = ctx->registry;
    const ox_opset_db *db = ctx->opsets;
    if (!reg || !db)
        return 0;
    size_t before = r->n;
    const char *dir = ox_context_opset_dir(ctx);
    int lo = ox_opset_db_min(db), hi = ox_opset_db_max(db);
    crosscheck_impls(ctx, reg, r);
    {
        /* an exclusion is for what no pack converts: one that a pack now
         * converts is stale data (report it once, at its first opset) */
        for (int o = lo; o <= hi; o++) {
            const ox_opset_exclusion *const *ex;
            size_t n = ox_opset_db_exclusions(db, o, &ex);
            for (size_t k = 0; k < n; k++) {
                const ox_op_impl *im = ox_registry_find(reg, ex[k]->name, o);
                if (!im || (o > lo && ox_opset_db_excluded(db, o - 1, ex[k]->name) &&
                            ox_registry_find(reg, ex[k]->name, o - 1)))
                    continue;
                ox_report_add(r,
                              "%s/opset_%d.yaml: operator %s is excluded (\"%s\"), but plugin %s "
                              "converts it from opset %d; remove the exclusion",
                              dir, ex[k]->declared_in, ex[k]->name, ex[k]->reason,
                              im->plugin->path, im->decl->since_opset);
            }
        }
    }
    {
        /* every operator the YAML promises needs a symbolic */
        for (int o = lo; o <= hi; o++) {
            const ox_opset_op *const *ops;
            size_t n = ox_opset_db_ops(db, o, &ops);
            for (size_t k = 0; k < n; k++) {
                const ox_opset_op *y = ops[k];
                if (ox_registry_find(reg, y->name, o))
                    continue;
                /* report once per operator: at the first opset it is missing */
                if (o > lo && ox_opset_db_lookup(db, o - 1, y->name) &&
                    !ox_registry_find(reg, y->name, o - 1))
                    continue;
                ox_report_add(r,
                              "%s/opset_%d.yaml: operator %s is declared for opset %d, but no "
                              "loaded pack provides a symbolic for it",
                              dir, y->declared_in, y->name, o);
            }
        }
    }
    return r->n - before;
}

size_t ox_registry_consistency(ox_context *ctx, ox_report *r)
{
    if (!ctx || !r)
        return 0;
    return crosscheck(ctx, r);
}
