/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * A fast non-cryptographic 64-bit hash, used to name external-data files by
 * their content (docs/onnx-writer.md, "Atomic writes"): four independent
 * multiply-rotate lanes so it runs well above disk speed.
 */
#ifndef OXPORT_HASH64_H
#define OXPORT_HASH64_H

#include <stddef.h>
#include <stdint.h>

uint64_t ox_hash64(const void *data, size_t len, uint64_t seed);
/* Combine a running hash with another 64-bit value (order matters). */
uint64_t ox_hash64_mix(uint64_t h, uint64_t v);

#endif /* OXPORT_HASH64_H */
