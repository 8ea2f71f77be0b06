#include "ort_run.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void ox_ort_tensors_free(ox_ort_tensors *ts)
{
    for (size_t i = 0; i < ts->n; i++) {
        free(ts->t[i].name);
        free(ts->t[i].data);
    }
    free(ts->t);
    ts->t = NULL;
    ts->n = 0;
}

const char *ox_ort_runner(void)
{
    const char *r = getenv("OXPORT_ORT_RUNNER");
    return r && *r ? r : NULL;
}

/* splitmix64: a fixed, portable sequence, so a seed means the same inputs
 * on every machine. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void fill_random(ox_dtype dt, unsigned char *p, size_t count, uint64_t *state)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t r = next_random(state);
        double u = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
        int64_t k = (int64_t)(r % 10);
        size_t es = ox_dtype_size(dt);
        unsigned char *e = p + i * es;
        switch (dt) {
        case OX_FLOAT: { float f = (float)u; memcpy(e, &f, 4); break; }
        case OX_DOUBLE: memcpy(e, &u, 8); break;
        case OX_BOOL: *e = (unsigned char)(r & 1); break;
        case OX_INT8: case OX_UINT8: *e = (unsigned char)k; break;
        case OX_INT16: case OX_UINT16: { uint16_t v = (uint16_t)k; memcpy(e, &v, 2); break; }
        case OX_INT32: case OX_UINT32: { uint32_t v = (uint32_t)k; memcpy(e, &v, 4); break; }
        case OX_INT64: case OX_UINT64: memcpy(e, &k, 8); break;
        case OX_FLOAT16: {
            /* u in [-1, 1) as half: sign, exponent, 10 mantissa bits */
            float f = (float)u;
            uint32_t b;
            memcpy(&b, &f, 4);
            uint16_t h = (uint16_t)((b >> 16) & 0x8000);
            int ex = (int)((b >> 23) & 0xff) - 127 + 15;
            if (ex > 0)
                h |= (uint16_t)((ex << 10) | ((b >> 13) & 0x3ff));
            memcpy(e, &h, 2);
            break;
        }
        default: memset(e, 0, es); break;
        }
    }
}

int ox_ort_random_inputs(const ox_graph *g, uint64_t seed, ox_ort_tensors *out, char *err,
                         size_t errcap)
{
    size_t n_inputs = ox_graph_input_count(g);
    out->t = calloc(n_inputs ? n_inputs : 1, sizeof *out->t);
    out->n = 0;
    if (!out->t) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    uint64_t state = seed;
    for (size_t i = 0; i < n_inputs; i++) {
        ox_value_info v;
        ox_graph_input_info(g, i, &v);
        const char *name = v.name[0] ? v.name : "?";
        ox_dtype dt = v.dtype;
        size_t es = ox_dtype_size(dt);
        if (es == 0 || dt == OX_BFLOAT16 || dt == OX_COMPLEX64 || dt == OX_COMPLEX128) {
            snprintf(err, errcap, "input '%s' is %s, which the ONNX Runtime runner cannot feed",
                     name, dt == OX_UNDEFINED ? "not a typed tensor" : ox_dtype_name(dt));
            ox_ort_tensors_free(out);
            return -1;
        }
        if (v.rank < 0 || v.rank > OX_ORT_MAX_RANK) {
            snprintf(err, errcap, "input '%s' has %s rank", name,
                     v.rank < 0 ? "an unknown" : "too large a");
            ox_ort_tensors_free(out);
            return -1;
        }
        ox_ort_tensor *t = &out->t[out->n++];
        t->name = strdup(name);
        t->dtype = dt;
        t->rank = v.rank;
        size_t count = 1;
        for (int d = 0; d < t->rank; d++) {
            int64_t dim = v.dims && v.dims[d] >= 0 ? v.dims[d] : 1;
            t->dims[d] = dim;
            if (dim > 0 && count > (SIZE_MAX / 16) / (size_t)dim) {
                snprintf(err, errcap, "input '%s' is too large to generate", name);
                ox_ort_tensors_free(out);
                return -1;
            }
            count *= (size_t)dim;
        }
        t->nbytes = count * es;
        t->data = malloc(t->nbytes ? t->nbytes : 1);
        if (!t->name || !t->data) {
            snprintf(err, errcap, "out of memory");
            ox_ort_tensors_free(out);
            return -1;
        }
        fill_random(dt, t->data, count, &state);
    }
    return 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            size_t nc = cap ? cap * 2 : 131072;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, 65536, f);
        n += got;
        if (got < 65536)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* The value of the next `"key": "..."` at or after p (no escapes: run.js
 * writes dtypes and file names, which have none); NULL if absent. */
static const char *find_key(const char *p, const char *key, const char *end)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *k = strstr(p, pat);
    if (!k || (end && k >= end))
        return NULL;
    k += strlen(pat);
    while (*k == ' ' || *k == ':' || *k == '\n')
        k++;
    return k;
}

static int copy_string(const char *p, char *out, size_t cap)
{
    if (!p || *p != '"')
        return -1;
    p++;
    size_t n = 0;
    while (*p && *p != '"' && n + 1 < cap)
        out[n++] = *p++;
    out[n] = '\0';
    return *p == '"' ? 0 : -1;
}

static ox_dtype dtype_named(const char *s)
{
    /* numbers without a type are named "undefined", which no output has */
    for (int d = 1; d <= 16; d++)
        if (strcmp(s, "undefined") != 0 && strcmp(ox_dtype_name((ox_dtype)d), s) == 0)
            return (ox_dtype)d;
    return OX_UNDEFINED;
}

/* outputs.json as run.js writes it: an array of {name, dtype, dims, file}. */
static int read_outputs(const char *dir, ox_ort_tensors *out, char *err, size_t errcap)
{
    char path[4400];
    if (snprintf(path, sizeof path, "%s/outputs.json", dir) >= (int)sizeof path) {
        snprintf(err, errcap, "scratch path too long");
        return -1;
    }
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        snprintf(err, errcap, "the runner wrote no %s", path);
        return -1;
    }
    size_t cap = 0;
    for (const char *p = text; (p = strstr(p, "\"file\"")); p++)
        cap++;
    out->t = calloc(cap ? cap : 1, sizeof *out->t);
    out->n = 0;
    int rc = out->t ? 0 : -1;
    const char *p = text;
    while (rc == 0 && out->n < cap) {
        const char *obj = strchr(p, '{');
        const char *obj_end = obj ? strchr(obj, '}') : NULL;
        if (!obj || !obj_end)
            break;
        ox_ort_tensor *t = &out->t[out->n];
        char name[1024], dtype[32], file[256];
        const char *dims = find_key(obj, "dims", obj_end);
        if (copy_string(find_key(obj, "name", obj_end), name, sizeof name) ||
            copy_string(find_key(obj, "dtype", obj_end), dtype, sizeof dtype) ||
            copy_string(find_key(obj, "file", obj_end), file, sizeof file) || !dims || *dims != '[') {
            rc = -1;
            break;
        }
        out->n++;
        t->name = strdup(name);
        t->dtype = dtype_named(dtype);
        t->rank = 0;
        for (const char *d = dims + 1; *d && *d != ']';) {
            char *e;
            long long v = strtoll(d, &e, 10);
            if (e == d) {
                d++;
                continue;
            }
            if (t->rank < OX_ORT_MAX_RANK)
                t->dims[t->rank++] = v;
            d = e;
        }
        if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) {
            rc = -1;
            break;
        }
        size_t n;
        t->data = (unsigned char *)read_file(path, &n);
        t->nbytes = n;
        if (!t->name || !t->data)
            rc = -1;
        p = obj_end + 1;
    }
    free(text);
    if (rc != 0) {
        snprintf(err, errcap, "cannot read the runner's outputs in %s", dir);
        ox_ort_tensors_free(out);
    }
    return rc;
}

int ox_ort_run(const char *runner, const char *model, const ox_ort_tensors *inputs,
               const char *const *names, const char *dir, ox_ort_tensors *outputs, char *err,
               size_t errcap)
{
    char in_dir[4200], out_dir[4200], path[4300], err_path[4300];
    snprintf(in_dir, sizeof in_dir, "%s/in", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    if (mkdir(dir, 0700) != 0 || mkdir(in_dir, 0700) != 0) {
        snprintf(err, errcap, "cannot create %s: %s", in_dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/inputs.json", in_dir);
    FILE *spec = fopen(path, "w");
    if (!spec) {
        snprintf(err, errcap, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fputc('[', spec);
    for (size_t i = 0; i < inputs->n; i++) {
        const ox_ort_tensor *t = &inputs->t[i];
        char file[32];
        snprintf(file, sizeof file, "input_%zu.bin", i);
        snprintf(path, sizeof path, "%s/%s", in_dir, file);
        if (write_file(path, t->data, t->nbytes) != 0) {
            fclose(spec);
            snprintf(err, errcap, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
        fprintf(spec, "%s{\"name\": ", i ? ", " : "");
        put_json_string(spec, names[i]);
        fprintf(spec, ", \"dtype\": \"%s\", \"dims\": [", ox_dtype_name(t->dtype));
        for (int d = 0; d < t->rank; d++)
            fprintf(spec, "%s%lld", d ? ", " : "", (long long)t->dims[d]);
        fprintf(spec, "], \"file\": \"%s\"}", file);
    }
    fputs("]\n", spec);
    if (fclose(spec) != 0) {
        snprintf(err, errcap, "cannot write %s/inputs.json", in_dir);
        return -1;
    }

    snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char *argv[] = {"node", (char *)runner, (char *)model, in_dir, out_dir, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "node", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        snprintf(err, errcap, "cannot run node (Node.js, for ONNX Runtime): %s", strerror(rc));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, errcap, "waiting for node: %s", strerror(errno));
            return -1;
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        size_t len = 0;
        char *msg = read_file(err_path, &len);
        /* run.js says "run.js: MODEL: what"; keep its last line. */
        char *line = msg;
        while (msg && len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
            msg[--len] = '\0';
        if (msg) {
            char *nl = strrchr(msg, '\n');
            line = nl ? nl + 1 : msg;
            if (strncmp(line, "run.js: ", 8) == 0)
                line += 8;
        }
        snprintf(err, errcap, "ONNX Runtime could not run it: %s",
                 line && *line ? line : "the runner failed without a message");
        free(msg);
        return -1;
    }
    return read_outputs(out_dir, outputs, err, errcap);
}
