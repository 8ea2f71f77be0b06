/*
 * libFuzzer target: opset descriptors (src/opset_yaml.c) read from files.
 * The input is split at the first "\n#8<\n" into opset_9.yaml and
 * opset_10.yaml so inheritance between files is exercised too; without the
 * marker it is opset_9.yaml alone (the base file; seed with opset/).  A descriptor set that loads is queried
 * the way `oxport ops` and the pre-scan query it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxport/oxport.h"
#include "opset_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void put(const char *name, const uint8_t *p, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (n && fwrite(p, 1, n, f) != n)
        abort();
    fclose(f);
}

static void clear(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

static void remove_dir(void)
{
    clear("opset_9.yaml");
    clear("opset_10.yaml");
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ox_context *ctx;
    if (!ctx) {
        snprintf(dir, sizeof dir, "/tmp/oxport-fuzz-opset-XXXXXX");
        if (!mkdtemp(dir) || atexit(remove_dir) != 0 || ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS |
                                                OX_CONTEXT_NO_DEFAULT_OPSETS | OX_CONTEXT_NO_ENV,
                                            &ctx) != OX_OK)
            abort();
    }
    static const char mark[] = "\n#8<\n";
    const uint8_t *cut = size >= sizeof mark - 1 ? memmem(data, size, mark, sizeof mark - 1) : NULL;
    clear("opset_9.yaml");
    clear("opset_10.yaml");
    if (cut) {
        size_t a = (size_t)(cut - data);
        put("opset_9.yaml", data, a);
        put("opset_10.yaml", cut + sizeof mark - 1, size - a - (sizeof mark - 1));
    } else {
        put("opset_9.yaml", data, size);
    }
    ox_opset_db *db = NULL;
    if (ox_opset_db_load(ctx, dir, &db) == OX_OK) {
        for (int v = ox_opset_db_min(db); v <= ox_opset_db_max(db); v++) {
            const ox_opset_op *const *ops;
            size_t n = ox_opset_db_ops(db, v, &ops);
            for (size_t i = 0; i < n; i++) {
                const ox_opset_op *op = ox_opset_db_lookup(db, v, ops[i]->name);
                char buf[256];
                for (size_t k = 0; op && k < op->n_limitations; k++)
                    ox_opset_limitation_describe(&op->limitations[k], buf, sizeof buf);
            }
        }
        ox_opset_db_free(db);
    }
    return 0;
}
