/*
 * The ONNX writer (ox_write in oxport.h): an ONNX-domain graph becomes a
 * ModelProto file, streamed (weights go from the host's memory straight to
 * the file), atomic (temp file + rename), deterministic, with optional
 * external data.  See docs/onnx-writer.md.
 */
#ifndef OXPORT_ONNX_WRITE_H
#define OXPORT_ONNX_WRITE_H

#include <stdint.h>

#include "oxport/oxport.h"

/* External tensors start at multiples of this (a page, so readers can mmap). */
#define OX_EXTERNAL_ALIGN 4096u
/* Default external_data_threshold when the option is 0. */
#define OX_EXTERNAL_DEFAULT_THRESHOLD 1024u
/* Protobuf refuses messages past 2 GiB. */
#define OX_PROTOBUF_LIMIT ((uint64_t)INT32_MAX)

/* The writer's defaults: export_params 1, keep_initializers_as_inputs -1,
 * external_data 0 (automatic), threshold 0 (= 1024), everything else 0/NULL.
 * ox_export_options_init may delegate here. */
void ox_write_options_default(ox_export_options *o);

/* Unlink the temp files of the writes in progress.  Async-signal-safe: a
 * program's SIGINT/SIGTERM handler calls it so an interrupted export leaves
 * no hidden partial file behind (the oxport CLI does). */
void ox_write_discard_temps(void);

#endif /* OXPORT_ONNX_WRITE_H */
