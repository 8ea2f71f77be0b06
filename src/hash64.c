#include "hash64.h"

#include <string.h>

#define K1 0x9E3779B97F4A7C15ull /* 2^64 / golden ratio */
#define K2 0xBF58476D1CE4E5B9ull /* splitmix64's multipliers */
#define K3 0x94D049BB133111EBull

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v); /* unaligned-safe; one instruction on x86/arm64 */
    return v;
}

/* splitmix64's finalizer: every input bit reaches every output bit */
static inline uint64_t avalanche(uint64_t h)
{
    h ^= h >> 30;
    h *= K2;
    h ^= h >> 27;
    h *= K3;
    h ^= h >> 31;
    return h;
}

static inline uint64_t lane(uint64_t v, uint64_t w) { return rotl(v + w * K2, 31) * K1; }

uint64_t ox_hash64_mix(uint64_t h, uint64_t v) { return avalanche(h ^ lane(K3, v)); }

uint64_t ox_hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t a = seed + K1, b = seed + K2, c = seed ^ K3, d = seed - K1;
    size_t n = len;
    while (n >= 32) {
        a = lane(a, load64(p));
        b = lane(b, load64(p + 8));
        c = lane(c, load64(p + 16));
        d = lane(d, load64(p + 24));
        p += 32;
        n -= 32;
    }
    uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + (uint64_t)len;
    while (n >= 8) {
        h = lane(h, load64(p));
        p += 8;
        n -= 8;
    }
    uint64_t tail = 0;
    if (n) {
        memcpy(&tail, p, n);
        h = lane(h ^ n, tail);
    }
    return avalanche(h);
}
