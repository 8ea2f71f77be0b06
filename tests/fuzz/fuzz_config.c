/*
 * libFuzzer target: the user config (src/config.c, oxport.yaml) read from a
 * file, as ox_context_load_config reads it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "oxport/oxport.h"
#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void remove_file(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ox_context *ctx;
    if (!ctx) {
        snprintf(path, sizeof path, "/tmp/oxport-fuzz-config-XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0 || atexit(remove_file) != 0 || ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS |
                                         OX_CONTEXT_NO_DEFAULT_OPSETS | OX_CONTEXT_NO_ENV,
                                     &ctx) != OX_OK)
            abort();
        close(fd);
    }
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size))
        abort();
    fclose(f);
    ox_config *cfg = NULL;
    if (ox_config_load(ctx, path, &cfg) == OX_OK)
        ox_config_free(cfg);
    return 0;
}
