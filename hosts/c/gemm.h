/*
 * Single-precision GEMM for the host's kernels: C = alpha*op(A)*op(B) + beta*C,
 * row-major.  OpenBLAS when the build found it (HC_HAVE_OPENBLAS), otherwise
 * a cache-blocked C loop nest.
 */
#ifndef HC_GEMM_H
#define HC_GEMM_H

#include <stddef.h>

void hc_sgemm(int trans_a, int trans_b, size_t m, size_t n, size_t k, float alpha,
              const float *a, size_t lda, const float *b, size_t ldb, float beta, float *c,
              size_t ldc);

/* "openblas (<core> kernels)" or "builtin": shown by the benchmark. */
const char *hc_gemm_backend(void);

#endif /* HC_GEMM_H */
