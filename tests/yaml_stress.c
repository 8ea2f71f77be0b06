/* Hostile YAML inputs (yaml_stress.h). */
#include "yaml_stress.h"

#include <stdio.h>

static int done(FILE *f)
{
    int bad = ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}

int yaml_stress_alias_bomb(const char *path, int n, const char *prefix)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("a: &a [", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s%d", i ? ", " : "", prefix, i);
    fputs("]\nb: [", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s*a", i ? ", " : "");
    fputs("]\n", f);
    return done(f);
}

int yaml_stress_keys(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(f, "k%d: %d\n", i, i);
    return done(f);
}

int yaml_stress_descriptors(const char *opset9, const char *opset10, int n, int n_new)
{
    FILE *f = fopen(opset9, "w");
    if (!f)
        return -1;
    fputs("opset: 9\noperators:\n", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "  aten::op%d: {params: [self]}\n", i);
    if (done(f) != 0 || !(f = fopen(opset10, "w")))
        return -1;
    fputs("opset: 10\noperators:\n", f);
    for (int i = 0; i < n_new; i++)
        fprintf(f, "  aten::new%d: {params: [self]}\n", i);
    fputs("removed:\n", f);
    for (int i = 0; i < n; i += 2)
        fprintf(f, "  - aten::op%d\n", i);
    return done(f);
}
