/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The ONNX serializer behind ox_write (oxport.h): a laid-out ONNX-domain
 * graph becomes a ModelProto file, streamed (weights go from the host's
 * memory straight to the file), atomic (temp file + rename), deterministic,
 * with optional external data.  See docs/onnx-writer.md.
 */
#ifndef OXPORT_ONNX_WRITE_H
#define OXPORT_ONNX_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "io_layout.h"
#include "oxport/oxport.h"

/* External tensors start at multiples of this (a page, so readers can mmap). */
#define OX_EXTERNAL_ALIGN 4096u
/* Default external_data_threshold when the option is 0. */
#define OX_EXTERNAL_DEFAULT_THRESHOLD 1024u
/* Protobuf refuses messages past 2 GiB. */
#define OX_PROTOBUF_LIMIT ((uint64_t)INT32_MAX)

/* Serialize the graph `layout` was made for (io_layout.h decides inputs,
 * initializers and names; this only writes them) to `path`.  From opts it
 * reads the producer, external-data and sync fields. */
ox_status ox_onnx_write(ox_context *ctx, const ox_io_layout *layout, const char *path,
                        const ox_export_options *opts);

/* A last word before the write commits: called once the model (and side
 * file) are written and closed, before the rename that makes them the
 * file at `path`.  A status other than OX_OK (with its message already on
 * the context) discards them, and the write returns that status. */
typedef ox_status (*ox_write_gate_fn)(void *user);
/* ox_onnx_write with a gate (NULL: none). */
ox_status ox_onnx_write_gated(ox_context *ctx, const ox_io_layout *layout, const char *path,
                              const ox_export_options *opts, ox_write_gate_fn gate, void *user);

/* Unlink the temp files of the writes in progress.  Async-signal-safe: a
 * program's SIGINT/SIGTERM handler calls it so an interrupted export leaves
 * no hidden partial file behind (the oxport CLI does). */
void ox_write_discard_temps(void);

/* Tests only: true writes every node and value info through protobuf-c
 * messages, as the items the hand encoder (onnx_encode.h) does not cover
 * always are, so tests can compare the two byte for byte. */
extern bool ox_write_items_via_protobuf_c;

#endif /* OXPORT_ONNX_WRITE_H */
