/*
 * The C reference host's kernels against small hand-computed cases, the
 * host's recording of ops through the tracer, its TensorProto encoder and the
 * zoo's parameter counts (torchvision's numbers).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm.h"
#include "ops.h"
#include "tensor_proto.h"
#include "zoo/zoo.h"

static hc_rt rt;

static void setup(void) { hc_rt_init(&rt, NULL, NULL); }
static void teardown(void) { hc_rt_release(&rt); }

/* A float temporary with the given values. */
static hc_tensor *tf(uint32_t rank, const int64_t *sizes, const float *vals)
{
    hc_tensor *t = hc_new(&rt, OX_FLOAT, rank, sizes);
    ck_assert_ptr_nonnull(t);
    memcpy(t->data, vals, (size_t)hc_numel(t) * sizeof(float));
    return t;
}

#define T(rank, sizes, ...) tf(rank, (const int64_t[])sizes, (const float[]){__VA_ARGS__})
#define S(...) {__VA_ARGS__}

static void expect(const hc_tensor *t, uint32_t rank, const int64_t *sizes, const float *vals,
                   double tol)
{
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(t->rank, rank);
    for (uint32_t i = 0; i < rank; i++)
        ck_assert_int_eq(t->sizes[i], sizes[i]);
    for (int64_t i = 0; i < hc_numel(t); i++)
        ck_assert_msg(fabs(hc_f32(t)[i] - vals[i]) <= tol, "element %lld: got %.7g, want %.7g",
                      (long long)i, hc_f32(t)[i], vals[i]);
}

#define EXPECT(t, rank, sizes, tol, ...) \
    expect(t, rank, (const int64_t[])sizes, (const float[]){__VA_ARGS__}, tol)

static const int64_t one2[2] = {1, 1}, zero2[2] = {0, 0};

/* ------------------------------------------------------------------ gemm */

START_TEST(gemm_all_transposes)
{
    /* A = [[1,2,3],[4,5,6]], B = [[1,2],[3,4],[5,6]]: AB = [[22,28],[49,64]]. */
    const float a[6] = {1, 2, 3, 4, 5, 6}, at[6] = {1, 4, 2, 5, 3, 6};
    const float b[6] = {1, 2, 3, 4, 5, 6}, bt[6] = {1, 3, 5, 2, 4, 6};
    const float want[4] = {22, 28, 49, 64};
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            float c[4] = {1, 1, 1, 1};
            hc_sgemm(ta, tb, 2, 2, 3, 2.0f, ta ? at : a, ta ? 2 : 3, tb ? bt : b, tb ? 3 : 2,
                     0.5f, c, 2);
            for (int i = 0; i < 4; i++)
                ck_assert_float_eq_tol(c[i], 2 * want[i] + 0.5f, 1e-4);
        }
}
END_TEST

/* ------------------------------------------------------------------ conv */

START_TEST(conv2d_basic_bias)
{
    hc_tensor *x = T(4, S(1, 1, 3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9);
    hc_tensor *w = T(4, S(1, 1, 2, 2), 1, 2, 3, 4);
    hc_tensor *b = T(1, S(1), 0.5f);
    hc_tensor *y = hc_conv2d(&rt, x, w, b, one2, zero2, one2, 1);
    EXPECT(y, 4, S(1, 1, 2, 2), 1e-5, 37.5f, 47.5f, 67.5f, 77.5f);
}
END_TEST

START_TEST(conv2d_stride_padding)
{
    hc_tensor *x = T(4, S(1, 1, 3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9);
    hc_tensor *w = T(4, S(1, 1, 3, 3), 1, 1, 1, 1, 1, 1, 1, 1, 1);
    const int64_t s2[2] = {2, 2};
    hc_tensor *y = hc_conv2d(&rt, x, w, NULL, s2, one2, one2, 1);
    EXPECT(y, 4, S(1, 1, 2, 2), 1e-5, 12, 16, 24, 28);
}
END_TEST

START_TEST(conv2d_dilation)
{
    hc_tensor *x = T(4, S(1, 1, 3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9);
    hc_tensor *w = T(4, S(1, 1, 2, 2), 1, 1, 1, 1);
    const int64_t d2[2] = {2, 2};
    hc_tensor *y = hc_conv2d(&rt, x, w, NULL, one2, zero2, d2, 1);
    EXPECT(y, 4, S(1, 1, 1, 1), 1e-5, 20);
}
END_TEST

START_TEST(conv2d_groups)
{
    /* Two groups, two outputs each: out = [3*1, 3*2, 5*3, 5*4]. */
    hc_tensor *x = T(4, S(1, 2, 1, 1), 3, 5);
    hc_tensor *w = T(4, S(4, 1, 1, 1), 1, 2, 3, 4);
    hc_tensor *y = hc_conv2d(&rt, x, w, NULL, one2, zero2, one2, 2);
    EXPECT(y, 4, S(1, 4, 1, 1), 1e-5, 3, 6, 15, 20);
}
END_TEST

START_TEST(conv2d_batch_and_channels)
{
    /* 1x1 conv mixing 2 channels, batch 2: y = 2*c0 - c1. */
    hc_tensor *x = T(4, S(2, 2, 1, 2), 1, 2, 3, 4, 5, 6, 7, 8);
    hc_tensor *w = T(4, S(1, 2, 1, 1), 2, -1);
    hc_tensor *y = hc_conv2d(&rt, x, w, NULL, one2, zero2, one2, 1);
    EXPECT(y, 4, S(2, 1, 1, 2), 1e-5, -1, 0, 3, 4);
}
END_TEST

START_TEST(conv_transpose2d_cases)
{
    hc_tensor *x = T(4, S(1, 1, 2, 2), 1, 2, 3, 4);
    hc_tensor *w = T(4, S(1, 1, 2, 2), 1, 1, 1, 1);
    const int64_t s2[2] = {2, 2};
    hc_tensor *y = hc_conv_transpose2d(&rt, x, w, NULL, s2, zero2, zero2, 1, one2);
    EXPECT(y, 4, S(1, 1, 4, 4), 1e-5, 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4);
    y = hc_conv_transpose2d(&rt, x, w, NULL, one2, zero2, zero2, 1, one2);
    EXPECT(y, 4, S(1, 1, 3, 3), 1e-5, 1, 3, 2, 4, 10, 6, 3, 7, 4);
    y = hc_conv_transpose2d(&rt, x, w, NULL, one2, one2, zero2, 1, one2);
    EXPECT(y, 4, S(1, 1, 1, 1), 1e-5, 10);
    /* output_padding grows the far edge with zeros. */
    hc_tensor *x1 = T(4, S(1, 1, 1, 1), 2);
    y = hc_conv_transpose2d(&rt, x1, w, NULL, s2, zero2, one2, 1, one2);
    EXPECT(y, 4, S(1, 1, 3, 3), 1e-5, 2, 2, 0, 2, 2, 0, 0, 0, 0);
    /* Two input channels sum into one output, plus bias. */
    hc_tensor *x2 = T(4, S(1, 2, 1, 1), 1, 2);
    hc_tensor *w2 = T(4, S(2, 1, 1, 1), 3, 4);
    hc_tensor *b = T(1, S(1), -1);
    y = hc_conv_transpose2d(&rt, x2, w2, b, one2, zero2, zero2, 1, one2);
    EXPECT(y, 4, S(1, 1, 1, 1), 1e-5, 10);
}
END_TEST

/* ------------------------------------------------------- norm, activations */

START_TEST(batch_norm_eval)
{
    hc_tensor *x = T(4, S(1, 2, 1, 2), 1, 2, 3, 4);
    hc_tensor *w = T(1, S(2), 2, 1), *b = T(1, S(2), 0, 1);
    hc_tensor *m = T(1, S(2), 1, 3), *v = T(1, S(2), 4, 0.25f);
    hc_tensor *y = hc_batch_norm(&rt, x, w, b, m, v, 0.1, 0.0);
    EXPECT(y, 4, S(1, 2, 1, 2), 1e-6, 0, 1, 1, 3);
}
END_TEST

START_TEST(activations)
{
    hc_tensor *x = T(1, S(3), -2, 0, 3);
    EXPECT(hc_relu(&rt, x, 0), 1, S(3), 0, 0, 0, 3);
    EXPECT(hc_leaky_relu(&rt, x, 0.1, 0), 1, S(3), 1e-7, -0.2f, 0, 3);
    /* In place: the same tensor comes back, overwritten. */
    hc_tensor *y = hc_relu(&rt, x, 1);
    ck_assert_ptr_eq(y, x);
    EXPECT(x, 1, S(3), 0, 0, 0, 3);
    hc_tensor *z = T(2, S(1, 2), 0, 1);
    EXPECT(hc_tanh(&rt, z), 2, S(1, 2), 1e-6, 0, 0.7615942f);
    hc_tensor *s = T(1, S(2), 0, 2);
    EXPECT(hc_sigmoid(&rt, s), 1, S(2), 1e-6, 0.5f, 0.8807971f);
}
END_TEST

START_TEST(softmax_and_log_softmax)
{
    hc_tensor *x = T(2, S(1, 3), 1, 2, 3);
    EXPECT(hc_softmax(&rt, x, -1), 2, S(1, 3), 1e-6, 0.0900306f, 0.2447285f, 0.6652410f);
    EXPECT(hc_log_softmax(&rt, x, 1), 2, S(1, 3), 1e-5, -2.4076059f, -1.4076059f, -0.4076059f);
    /* Along dim 0 of [[0, 1], [ln 3, 1]]: columns [1/4, 3/4] and [1/2, 1/2]. */
    hc_tensor *c = T(2, S(2, 2), 0, 1, logf(3.0f), 1);
    EXPECT(hc_softmax(&rt, c, 0), 2, S(2, 2), 1e-6, 0.25f, 0.5f, 0.75f, 0.5f);
}
END_TEST

/* ----------------------------------------------------------------- pooling */

static hc_tensor *iota(uint32_t rank, const int64_t *sizes)
{
    hc_tensor *t = hc_new(&rt, OX_FLOAT, rank, sizes);
    for (int64_t i = 0; i < hc_numel(t); i++)
        hc_f32(t)[i] = (float)(i + 1);
    return t;
}

START_TEST(max_pool_cases)
{
    const int64_t k2[2] = {2, 2}, s2[2] = {2, 2}, k3[2] = {3, 3};
    hc_tensor *x4 = iota(4, (const int64_t[]){1, 1, 4, 4});
    EXPECT(hc_max_pool2d(&rt, x4, k2, s2, zero2, one2, 0), 4, S(1, 1, 2, 2), 0, 6, 8, 14, 16);
    /* Padding counts as -inf. */
    EXPECT(hc_max_pool2d(&rt, x4, k3, s2, one2, one2, 0), 4, S(1, 1, 2, 2), 0, 6, 8, 14, 16);
    hc_tensor *x5 = iota(4, (const int64_t[]){1, 1, 5, 5});
    EXPECT(hc_max_pool2d(&rt, x5, k2, s2, zero2, one2, 0), 4, S(1, 1, 2, 2), 0, 7, 9, 17, 19);
    EXPECT(hc_max_pool2d(&rt, x5, k2, s2, zero2, one2, 1), 4, S(1, 1, 3, 3), 0, 7, 9, 10, 17,
           19, 20, 22, 24, 25);
    /* Dilation 2 on 5x5 with k2: corners of 3x3 windows. */
    const int64_t d2[2] = {2, 2};
    EXPECT(hc_max_pool2d(&rt, x5, k2, s2, zero2, d2, 0), 4, S(1, 1, 2, 2), 0, 13, 15, 23, 25);
}
END_TEST

START_TEST(avg_pool_cases)
{
    const int64_t k2[2] = {2, 2}, s2[2] = {2, 2};
    hc_tensor *x4 = iota(4, (const int64_t[]){1, 1, 4, 4});
    EXPECT(hc_avg_pool2d(&rt, x4, k2, s2, zero2, 0, 1), 4, S(1, 1, 2, 2), 1e-6, 3.5f, 5.5f,
           11.5f, 13.5f);
    hc_tensor *x2 = iota(4, (const int64_t[]){1, 1, 2, 2});
    EXPECT(hc_avg_pool2d(&rt, x2, k2, s2, one2, 0, 1), 4, S(1, 1, 2, 2), 1e-6, 0.25f, 0.5f,
           0.75f, 1.0f);
    EXPECT(hc_avg_pool2d(&rt, x2, k2, s2, one2, 0, 0), 4, S(1, 1, 2, 2), 1e-6, 1, 2, 3, 4);
    /* ceil_mode: the overhanging windows divide by the cells they cover. */
    hc_tensor *x3 = iota(4, (const int64_t[]){1, 1, 3, 3});
    EXPECT(hc_avg_pool2d(&rt, x3, k2, s2, zero2, 1, 1), 4, S(1, 1, 2, 2), 1e-6, 3, 4.5f, 7.5f,
           9);
}
END_TEST

START_TEST(adaptive_avg_pool_uneven_bins)
{
    hc_tensor *x = iota(4, (const int64_t[]){1, 1, 1, 5});
    EXPECT(hc_adaptive_avg_pool2d(&rt, x, 1, 3), 4, S(1, 1, 1, 3), 1e-6, 1.5f, 3, 4.5f);
    hc_tensor *x4 = iota(4, (const int64_t[]){1, 1, 4, 4});
    EXPECT(hc_adaptive_avg_pool2d(&rt, x4, 1, 1), 4, S(1, 1, 1, 1), 1e-6, 8.5f);
}
END_TEST

/* ------------------------------------------------------------------ linear */

START_TEST(linear_addmm_t)
{
    hc_tensor *w = T(2, S(3, 2), 1, 0, 0, 1, 1, 1), *b = T(1, S(3), 0, 0, 1);
    hc_tensor *x = T(2, S(1, 2), 1, 2);
    EXPECT(hc_linear(&rt, x, w, b), 2, S(1, 3), 1e-6, 1, 2, 4);
    hc_tensor *x3 = T(3, S(2, 1, 2), 1, 2, -1, 1);
    EXPECT(hc_linear(&rt, x3, w, NULL), 3, S(2, 1, 3), 1e-6, 1, 2, 3, -1, 1, 0);
    hc_tensor *self = T(1, S(2), 1, 1), *m1 = T(2, S(1, 2), 1, 2), *m2 = T(2, S(2, 2), 1, 2, 3, 4);
    EXPECT(hc_addmm(&rt, self, m1, m2, 2.0, 0.5), 2, S(1, 2), 1e-6, 5.5f, 7);
    hc_tensor *a = T(2, S(2, 3), 1, 2, 3, 4, 5, 6);
    EXPECT(hc_t(&rt, a), 2, S(3, 2), 0, 1, 4, 2, 5, 3, 6);
}
END_TEST

/* ------------------------------------------------------------------ shapes */

START_TEST(dropout_is_identity_view)
{
    hc_tensor *x = T(2, S(1, 3), 1, 2, 3);
    hc_tensor *y = hc_dropout(&rt, x, 0.5);
    EXPECT(y, 2, S(1, 3), 0, 1, 2, 3);
    ck_assert_ptr_eq(y->data, x->data);
}
END_TEST

START_TEST(cat_flatten_view_squeeze)
{
    hc_tensor *a = T(2, S(1, 2), 1, 2), *b = T(2, S(1, 1), 3), *c = T(2, S(1, 2), 5, 6);
    hc_tensor *ab[2] = {a, b}, *ac[2] = {a, c};
    EXPECT(hc_cat(&rt, ab, 2, 1), 2, S(1, 3), 0, 1, 2, 3);
    EXPECT(hc_cat(&rt, ac, 2, 0), 2, S(2, 2), 0, 1, 2, 5, 6);
    /* Channel concat of NCHW with batch 2 interleaves per image. */
    hc_tensor *p = T(4, S(2, 1, 1, 1), 1, 2), *q = T(4, S(2, 1, 1, 1), 3, 4);
    hc_tensor *pq[2] = {p, q};
    EXPECT(hc_cat(&rt, pq, 2, 1), 4, S(2, 2, 1, 1), 0, 1, 3, 2, 4);

    hc_tensor *x = iota(3, (const int64_t[]){2, 3, 2});
    hc_tensor *f = hc_flatten(&rt, x, 1, -1);
    ck_assert_uint_eq(f->rank, 2);
    ck_assert_int_eq(f->sizes[0], 2);
    ck_assert_int_eq(f->sizes[1], 6);
    const int64_t shape[2] = {-1, 4};
    hc_tensor *v = hc_view(&rt, x, shape, 2);
    EXPECT(v, 2, S(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    hc_tensor *col = T(2, S(3, 1), 1, 2, 3);
    EXPECT(hc_squeeze(&rt, col, 1), 1, S(3), 0, 1, 2, 3);
    EXPECT(hc_squeeze(&rt, col, 0), 2, S(3, 1), 0, 1, 2, 3);
}
END_TEST

START_TEST(pixel_shuffle_order)
{
    hc_tensor *x = T(4, S(1, 4, 1, 1), 1, 2, 3, 4);
    EXPECT(hc_pixel_shuffle(&rt, x, 2), 4, S(1, 1, 2, 2), 0, 1, 2, 3, 4);
    /* Channels a, b, c, d with two columns each. */
    hc_tensor *y = T(4, S(1, 4, 1, 2), 10, 11, 20, 21, 30, 31, 40, 41);
    EXPECT(hc_pixel_shuffle(&rt, y, 2), 4, S(1, 1, 2, 4), 0, 10, 20, 11, 21, 30, 40, 31, 41);
}
END_TEST

START_TEST(constant_pad_cases)
{
    hc_tensor *x = T(2, S(1, 2), 1, 2);
    const int64_t p1[2] = {1, 2}, p2[4] = {1, 0, 0, 1}, crop[2] = {-1, 0};
    EXPECT(hc_constant_pad(&rt, x, p1, 2, 9, 1), 2, S(1, 5), 0, 9, 1, 2, 9, 9);
    EXPECT(hc_constant_pad(&rt, x, p2, 4, 9, 0), 2, S(2, 3), 0, 9, 1, 2, 9, 9, 9);
    EXPECT(hc_constant_pad(&rt, x, crop, 2, 0, 0), 2, S(1, 1), 0, 2);
}
END_TEST

START_TEST(add_mul_broadcast)
{
    hc_tensor *a = T(2, S(2, 2), 1, 2, 3, 4), *b = T(1, S(2), 10, 20);
    EXPECT(hc_add(&rt, a, b, 2.0, 0), 2, S(2, 2), 0, 21, 42, 23, 44);
    hc_tensor *c = T(2, S(2, 1), 1, 2), *d = T(2, S(1, 3), 10, 20, 30);
    EXPECT(hc_add(&rt, c, d, 1.0, 0), 2, S(2, 3), 0, 11, 21, 31, 12, 22, 32);
    hc_tensor *s = T(1, S(1), 2);
    EXPECT(hc_mul(&rt, a, s, 0), 2, S(2, 2), 0, 2, 4, 6, 8);
    hc_tensor *r = hc_add(&rt, a, a, 1.0, 1);
    ck_assert_ptr_eq(r, a);
    EXPECT(a, 2, S(2, 2), 0, 2, 4, 6, 8);
    hc_tensor *bad = T(1, S(3), 1, 2, 3);
    ck_assert_ptr_null(hc_add(&rt, a, bad, 1.0, 0));
    ck_assert_int_eq(rt.status, OX_EINVAL);
}
END_TEST

START_TEST(embedding_lookup)
{
    hc_tensor *w = T(2, S(3, 2), 0, 1, 2, 3, 4, 5);
    hc_tensor *idx = hc_new(&rt, OX_INT64, 1, (const int64_t[]){2});
    hc_i64(idx)[0] = 2;
    hc_i64(idx)[1] = 0;
    EXPECT(hc_embedding(&rt, w, idx), 2, S(2, 2), 0, 4, 5, 0, 1);
    hc_i64(idx)[1] = 3;
    ck_assert_ptr_null(hc_embedding(&rt, w, idx));
    ck_assert_int_eq(rt.status, OX_EINVAL);
}
END_TEST

START_TEST(lstm_two_layers_two_steps)
{
    /* Reference: torch.nn.LSTM(2, 2, 2) with parameter i's element k set to
     * 0.1*k - 0.3 + 0.05*i (PyTorch 1.13). */
    hc_tensor *params[8];
    const int64_t shapes[8][2] = {{8, 2}, {8, 2}, {8, 0}, {8, 0}, {8, 2}, {8, 2}, {8, 0}, {8, 0}};
    for (int i = 0; i < 8; i++) {
        uint32_t rank = shapes[i][1] ? 2 : 1;
        params[i] = hc_new(&rt, OX_FLOAT, rank, shapes[i]);
        for (int64_t k = 0; k < hc_numel(params[i]); k++)
            hc_f32(params[i])[k] = 0.1f * (float)k - 0.3f + 0.05f * (float)i;
    }
    hc_tensor *x = T(3, S(2, 1, 2), 1, -1, 0.5f, 2);
    hc_tensor *h0 = T(3, S(2, 1, 2), 0.1f, -0.2f, 0.3f, 0);
    hc_tensor *c0 = T(3, S(2, 1, 2), 0.5f, 0.1f, -0.4f, 0.2f);
    hc_tensor *out, *hn, *cn;
    ck_assert_int_eq(hc_lstm(&rt, x, h0, c0, params, 2, 0.0, &out, &hn, &cn), 0);
    EXPECT(out, 3, S(2, 1, 2), 1e-5, 0.15282896f, 0.54934418f, 0.53414273f, 0.81971830f);
    EXPECT(hn, 3, S(2, 1, 2), 1e-5, 0.43956128f, 0.55512244f, 0.53414273f, 0.81971830f);
    EXPECT(cn, 3, S(2, 1, 2), 1e-5, 0.48558047f, 0.63516778f, 0.62500715f, 1.21451616f);
}
END_TEST

/* ------------------------------------------------------------ tensor_proto */

START_TEST(tensor_proto_bytes)
{
    char path[] = "/tmp/oxport-kernels-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    hc_tensor *t = hc_new(&rt, OX_INT64, 2, (const int64_t[]){2, 1});
    hc_i64(t)[0] = 1;
    hc_i64(t)[1] = 300;
    ck_assert_int_eq(hc_write_tensor_proto(path, t, "x"), 0);
    unsigned char buf[64];
    FILE *f = fdopen(fd, "rb");
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    unlink(path);
    /* dims 2, dims 1, data_type 7, name "x", raw_data 16 bytes. */
    const unsigned char head[] = {0x08, 0x02, 0x08, 0x01, 0x10, 0x07, 0x42, 0x01, 'x', 0x4a, 0x10};
    ck_assert_uint_eq(n, sizeof head + 16);
    ck_assert_mem_eq(buf, head, sizeof head);
    ck_assert_mem_eq(buf + sizeof head, t->data, 16);
}
END_TEST

/* --------------------------------------------------------------- recording */

START_TEST(records_conventions_and_scopes)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    ox_trace *tr;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &tr), OX_OK);
    hc_rt trt;
    hc_rt_init(&trt, ctx, tr);
    hc_tensor *x = hc_new(&trt, OX_FLOAT, 4, (const int64_t[]){1, 1, 4, 4});
    hc_trace_input(&trt, x, "x");
    hc_tensor w;
    float wd[4] = {1, 1, 1, 1};
    hc_tensor_set(&w, OX_FLOAT, 4, (const int64_t[]){1, 1, 2, 2}, wd);
    hc_trace_param(&trt, &w, "conv.weight");
    hc_scope_push(&trt, "Conv2d[%s]", "conv");
    hc_tensor *y = hc_conv2d(&trt, x, &w, NULL, one2, zero2, one2, 1);
    hc_scope_pop(&trt);
    y = hc_relu(&trt, y, 1);
    const int64_t k2[2] = {2, 2}, s1[2] = {1, 1};
    y = hc_max_pool2d(&trt, y, k2, s1, zero2, one2, 0);
    const int64_t pad[2] = {1, 1};
    y = hc_constant_pad(&trt, y, pad, 2, 0.0, 1);
    hc_trace_output(&trt, y, "y");
    ck_assert_msg(trt.status == OX_OK, "%s", trt.errmsg);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(tr, &g), OX_OK);
    ck_assert_uint_eq(ox_graph_node_count(g), 4);

    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ck_assert_int_eq(ox_graph_print(g, mem), OX_OK);
    fclose(mem);
    const char *want[] = {
        "aten::conv2d[bias=None, stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1]"
        "(%x, %conv.weight), scope: Net/Conv2d[conv]",
        "aten::relu_(",
        "aten::max_pool2d[kernel_size=[2, 2], stride=[1, 1], padding=[0, 0], "
        "dilation=[1, 1], ceil_mode=0](",
        "fn::ConstantPadNd[pad=[1, 1], value=0](",
        "return (%y);",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(text, want[i]) != NULL, "missing <%s> in:\n%s", want[i], text);
    free(text);
    ox_graph_free(g);
    hc_rt_release(&trt);
    ox_context_free(ctx);
}
END_TEST

START_TEST(recording_failure_is_sticky)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    ox_trace *tr;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &tr), OX_OK);
    hc_rt trt;
    hc_rt_init(&trt, ctx, tr);
    /* A tensor the trace never saw (vid 0) is not a valid op input. */
    hc_tensor *x = T(1, S(2), -1, 1);
    hc_tensor *y = hc_relu(&trt, x, 0);
    EXPECT(y, 1, S(2), 0, 0, 1); /* computed anyway */
    ck_assert_int_ne(trt.status, OX_OK);
    ck_assert_msg(strncmp(trt.errmsg, "ox_trace_op(aten::relu): ", 25) == 0, "%s", trt.errmsg);
    ox_status first = trt.status;
    hc_relu(&trt, y, 0);
    ck_assert_int_eq(trt.status, first);
    ox_trace_abort(tr);
    hc_rt_release(&trt);
    ox_context_free(ctx);
}
END_TEST

/* --------------------------------------------------------------------- zoo */

START_TEST(zoo_parameter_counts_match_torchvision)
{
    static const struct { const char *name; size_t params; const char *first, *last; } want[] = {
        {"alexnet", 61100840, "features.0.weight", "classifier.6.bias"},
        {"vgg16", 138357544, "features.0.weight", "classifier.6.bias"},
        {"resnet50", 25557032, "conv1.weight", "fc.bias"},
        {"densenet121", 7978856, "features.conv0.weight", "classifier.bias"},
        /* torchvision's 27161264 less the unused AuxLogits (3326696). */
        {"inception_v3", 23834568, "Conv2d_1a_3x3.conv.weight", "fc.bias"},
        {"dcgan_generator", 3576704, "main.0.weight", "main.12.weight"},
        {"dcgan_discriminator", 2765568, "main.0.weight", "main.11.weight"},
        {"superresolution", 59657, "conv1.weight", "conv4.bias"},
        {"word_language_model", 4653200, "encoder.weight", "decoder.bias"},
        /* 2 x (4 x 64 x 64 + 3 x 64 x 160 + 2 x 64) + 2 x 128 x 64 + 64 */
        {"decoder", 110912, "model.embed_tokens.weight", "lm_head.weight"},
    };
    size_t n;
    hc_zoo_models(&n);
    ck_assert_uint_eq(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++) {
        const hc_zoo_model *z = hc_zoo_find(want[i].name);
        ck_assert_ptr_nonnull(z);
        hc_model m;
        ck_assert_int_eq(hc_zoo_build(z, &m, 0, 1), 0);
        ck_assert_msg(m.n_elements == want[i].params, "%s: %zu parameters, want %zu",
                      want[i].name, m.n_elements, want[i].params);
        ck_assert_str_eq(m.params[0]->name, want[i].first);
        ck_assert_str_eq(m.params[m.n_params - 1]->name, want[i].last);
        hc_model_free(&m);
    }
    ck_assert_ptr_null(hc_zoo_find("resnet18"));
}
END_TEST

START_TEST(decoder_7b_configuration_has_llama_7b_parameter_count)
{
    /* LLaMA-7B's configuration; Hugging Face counts 6,738,415,616 parameters */
    char err[256];
    ck_assert_int_eq(hc_decoder_configure("layers=32,dim=4096,hidden=11008,heads=32,vocab=32000",
                                          err, sizeof err), 0);
    hc_model m;
    ck_assert_int_eq(hc_zoo_build(&hc_zoo_decoder, &m, 0, 1), 0);
    ck_assert_uint_eq(m.n_elements, 6738415616u);
    ck_assert_uint_eq(m.n_params, 2 + 32 * 9 + 1);
    hc_model_free(&m);
    ck_assert_int_eq(hc_decoder_configure("dim=4095", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "multiple of heads"));
    ck_assert_int_eq(hc_decoder_current()->dim, 4096); /* a refused spec changes nothing */
    ck_assert_int_eq(hc_decoder_configure("layers=0", err, sizeof err), -1);
    ck_assert_str_eq(err, "layers must be an integer in [1, 16777216], got '0'");
    ck_assert_int_eq(hc_decoder_configure("rope=2", err, sizeof err), -1);
    ck_assert_str_eq(err, "rope must be 0 or 1, got '2'");
    ck_assert_int_eq(hc_decoder_configure("layers=2,dim=64,hidden=160,heads=4,vocab=128", err,
                                          sizeof err), 0);
}
END_TEST

START_TEST(zoo_forward_is_deterministic)
{
    const hc_zoo_model *z = hc_zoo_find("dcgan_discriminator");
    float first = 0;
    for (int run = 0; run < 2; run++) {
        hc_model m;
        ck_assert_int_eq(hc_zoo_build(z, &m, 0, 0), 0);
        hc_rt r;
        hc_rt_init(&r, NULL, NULL);
        hc_tensor *in[HC_ZOO_MAX_IO], *out[HC_ZOO_MAX_IO];
        ck_assert_int_eq(hc_zoo_run(z, &m, &r, 2, in, out), 0);
        ck_assert_uint_eq(out[0]->rank, 1);
        ck_assert_int_eq(out[0]->sizes[0], 2);
        float v = hc_f32(out[0])[0];
        ck_assert(v > 0.0f && v < 1.0f); /* a sigmoid */
        if (run == 0)
            first = v;
        else
            ck_assert_float_eq(v, first);
        hc_rt_release(&r);
        hc_model_free(&m);
    }
}
END_TEST

static Suite *kernels_suite(void)
{
    Suite *s = suite_create("kernels");
    TCase *k = tcase_create("kernels");
    tcase_add_checked_fixture(k, setup, teardown);
    tcase_add_test(k, gemm_all_transposes);
    tcase_add_test(k, conv2d_basic_bias);
    tcase_add_test(k, conv2d_stride_padding);
    tcase_add_test(k, conv2d_dilation);
    tcase_add_test(k, conv2d_groups);
    tcase_add_test(k, conv2d_batch_and_channels);
    tcase_add_test(k, conv_transpose2d_cases);
    tcase_add_test(k, batch_norm_eval);
    tcase_add_test(k, activations);
    tcase_add_test(k, softmax_and_log_softmax);
    tcase_add_test(k, max_pool_cases);
    tcase_add_test(k, avg_pool_cases);
    tcase_add_test(k, adaptive_avg_pool_uneven_bins);
    tcase_add_test(k, linear_addmm_t);
    tcase_add_test(k, dropout_is_identity_view);
    tcase_add_test(k, cat_flatten_view_squeeze);
    tcase_add_test(k, pixel_shuffle_order);
    tcase_add_test(k, constant_pad_cases);
    tcase_add_test(k, add_mul_broadcast);
    tcase_add_test(k, embedding_lookup);
    tcase_add_test(k, lstm_two_layers_two_steps);
    tcase_add_test(k, tensor_proto_bytes);
    suite_add_tcase(s, k);
    TCase *r = tcase_create("recording");
    tcase_add_checked_fixture(r, setup, teardown);
    tcase_add_test(r, records_conventions_and_scopes);
    tcase_add_test(r, recording_failure_is_sticky);
    suite_add_tcase(s, r);
    TCase *z = tcase_create("zoo");
    tcase_set_timeout(z, 120);
    tcase_add_test(z, zoo_parameter_counts_match_torchvision);
    tcase_add_test(z, decoder_7b_configuration_has_llama_7b_parameter_count);
    tcase_add_test(z, zoo_forward_is_deterministic);
    suite_add_tcase(s, z);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(kernels_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
