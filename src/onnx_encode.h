/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The protobuf encoding of the graph items the writer emits once or twice
 * per node: NodeProto (with its attributes) and ValueInfoProto, written
 * field by field from the IR.  Building a protobuf-c message for each item,
 * asking protobuf-c its size and then packing it (which measures every
 * nested message again) was a third of an export's time on a large graph
 * (docs/performance.md).
 *
 * The bytes are protobuf-c's for the messages onnx_write.c builds from the
 * same IR: fields in field-number order, proto2 presence (a string field is
 * written when set, even empty), repeated scalars unpacked, as onnx.proto
 * declares them.  tests/test_write.c writes graphs both ways and compares
 * the files.  A node's size is the same code run in counting mode, and its
 * put checks the bytes against it; a value info's lengths are computed from
 * its type, and its put checks its bytes.
 *
 * Items the encoder does not cover (ox_pb_node_encodable,
 * ox_pb_value_info_encodable false: GRAPH and TENSORS attributes, values
 * of non-tensor types, attributes that fail the writer's checks) go through
 * protobuf-c as before, so every message about them stays the writer's.
 */
#ifndef OXPORT_ONNX_ENCODE_H
#define OXPORT_ONNX_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "ir.h"

/* Bytes gathered before they are handed to the sink. */
#define OX_PB_STAGE 1024u
/* Where encoded bytes go: staged, then appended to `sink`; with sink NULL
 * they are only counted. */
typedef struct ox_pb_out {
    ProtobufCBuffer *sink;
    uint8_t *stage; /* OX_PB_STAGE bytes (unused when counting) */
    size_t staged;
    uint64_t n;     /* bytes produced so far */
} ox_pb_out;

/* `stage` must hold OX_PB_STAGE bytes and outlive the writes. */
void ox_pb_out_init(ox_pb_out *o, ProtobufCBuffer *sink, uint8_t *stage);
/* Hand the staged bytes to the sink (call before the sink is used directly). */
void ox_pb_out_flush(ox_pb_out *o);

/* Bytes of a varint and of a length-delimited field's key + length. */
size_t ox_pb_varint_len(uint64_t v);
size_t ox_pb_field_head_len(uint32_t field, uint64_t len);

/* The names a node's items refer to: `value_names` indexed by value id
 * (the layout's), `node_name` the node's (NULL: the field is not written). */
typedef struct ox_pb_node_names {
    const char *const *value_names;
    const char *node_name;
} ox_pb_node_names;

/* Whether every attribute of n is of a kind the encoder writes (FLOAT, INT,
 * STRING, TENSOR with a tensor, FLOATS, INTS, STRINGS, or a reference) and
 * holds the values it says it holds. */
bool ox_pb_node_encodable(const ox_node *n);
/* The size of n's NodeProto (a counting run of the code that writes it),
 * and the field (key, length, message) written with the size that counting
 * gave: the writer counts each node in its measuring pass and keeps the
 * size for the writing pass, so a node is encoded once per pass.  The put
 * returns false when the bytes it wrote do not fill `size` (an internal
 * error: the node changed between the passes). */
uint64_t ox_pb_node_size(const ox_node *n, const ox_pb_node_names *names);
bool ox_pb_put_node(ox_pb_out *o, uint32_t field, const ox_node *n,
                    const ox_pb_node_names *names, uint64_t size);

/* Whether v is a tensor value (the writer refuses the others). */
bool ox_pb_value_info_encodable(const ox_value *v);
/* The size of v's ValueInfoProto under `name` (NULL: not written), and the
 * field written.  Its lengths come from the type directly (no counting run:
 * one per value, five messages deep); the put returns false when the bytes
 * it wrote do not fill them (an internal error). */
/* The bytes of the type field of the last value info encoded (a known rank
 * up to OX_PB_TYPE_MEMO_RANK, its dims, no dim_param).  A graph's values
 * share a few types, mostly one after another, and working out and writing
 * the type's four nested messages was most of a value info's cost, twice
 * (measuring, writing); a value of the same type copies these bytes.  The
 * writer keeps one for a write; a zeroed memo is empty. */
enum { OX_PB_TYPE_MEMO_RANK = 8 };
typedef struct ox_pb_type_memo {
    bool valid;
    ox_dtype dtype;
    int32_t rank;
    int64_t dims[OX_PB_TYPE_MEMO_RANK];
    size_t len;
    uint8_t b[160];
} ox_pb_type_memo;

uint64_t ox_pb_value_info_size(ox_pb_type_memo *memo, const ox_value *v, const char *name);
bool ox_pb_put_value_info(ox_pb_out *o, ox_pb_type_memo *memo, uint32_t field, const ox_value *v,
                          const char *name);

#endif /* OXPORT_ONNX_ENCODE_H */
