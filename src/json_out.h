/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The JSON writer's state (the functions are public: oxport/json.h).  The
 * engine keeps writers on the stack; hosts get one from ox_json_new.
 */
#ifndef OXPORT_JSON_OUT_H
#define OXPORT_JSON_OUT_H

#include "oxport/json.h"

#define OX_JSON_MAX_DEPTH 64

struct ox_json {
    FILE *out;
    int depth;
    bool need_comma[OX_JSON_MAX_DEPTH];
    bool after_key;
};

void ox_json_init(ox_json *j, FILE *out);

#endif /* OXPORT_JSON_OUT_H */
