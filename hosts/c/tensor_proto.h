/*
 * Minimal TensorProto encoder for the ONNX backend-test layout
 * (test_data_set_0/input_0.pb ...): dims=1, data_type=2, name=8, raw_data=9.
 */
#ifndef HC_TENSOR_PROTO_H
#define HC_TENSOR_PROTO_H

#include "runtime.h"

/* Write `t` as a serialized TensorProto to `path`.  0 on success, -1 with
 * errno set on an I/O failure. */
int hc_write_tensor_proto(const char *path, const hc_tensor *t, const char *name);

#endif /* HC_TENSOR_PROTO_H */
