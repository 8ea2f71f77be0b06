/* Spectral ops -> DFT-17 and STFT-17: the FFT primitives ATen dispatches
 * torch.fft.* to (_fft_r2c, _fft_c2c, _fft_c2r), torch.stft and torch.istft.
 *
 * A complex value is ONNX's float form throughout: a float tensor with a
 * trailing dimension of 2 (real, imaginary), which is how the host records
 * complex tensors (docs/recording-conventions.md).  DFT takes a leading batch
 * axis and a trailing axis of 1 (real) or 2 (complex), so each symbolic puts
 * a batch axis of 1 in front (and a trailing 1 on a real input), transforms
 * along the recorded dims shifted by one, and takes the batch axis off again.
 *
 * Normalization: ATen's transforms are unnormalized and scaled by
 * `normalization` (0 none, 1 by 1/sqrt(n), 2 by 1/n, n the product of the
 * transformed sizes); ONNX's forward DFT is unnormalized and its inverse
 * divides by n.  Each symbolic multiplies by what is left.
 *
 * Below opset 17 there is no DFT or STFT: the operators are declared from 17
 * (opset_17.yaml), so the pre-scan reports them as supported from opset 17. */
#include <stdbool.h>
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

#define MAX_DIMS OXU_MAX_RANK

/* The recorded dims (arg "dim") as non-negative axes of a tensor of `rank`
 * (the complex rank: the float form's rank minus one for complex inputs). */
static int fft_dims(ox_sym *g, const ox_api *api, int rank, int64_t *out, size_t *n)
{
    const int64_t *d = NULL;
    *n = api->arg_ints(g, "dim", &d);
    if (*n == 0 || *n > MAX_DIMS)
        return api->fail(g, "expected 1 to %d transformed dims, got %zu", MAX_DIMS, *n);
    for (size_t i = 0; i < *n; i++) {
        int64_t a = d[i] < 0 ? d[i] + rank : d[i];
        if (a < 0 || a >= rank)
            return api->fail(g, "dim %lld is out of range for a tensor of rank %d", (long long)d[i],
                             rank);
        out[i] = a;
    }
    return 0;
}

/* sqrt of a positive count, by Newton's iteration: the pack links no libm
 * (plugins/aten/math.c says why).  Converges to the double nearest in a few
 * dozen steps from v; stops when the iterate stops decreasing. */
static double root(double v)
{
    if (v <= 0)
        return 0;
    double r = v > 1 ? v : 1;
    for (int i = 0; i < 200; i++) {
        double next = 0.5 * (r + v / r);
        if (next >= r)
            break;
        r = next;
    }
    return r;
}

/* ATen's normalization of a transform of n_total points. */
static double norm_factor(int64_t normalization, double n_total)
{
    if (normalization == 1)
        return 1.0 / root(n_total);
    if (normalization == 2)
        return 1.0 / n_total;
    return 1.0;
}

static ox_vid scaled(ox_sym *g, const ox_api *api, ox_vid y, double factor)
{
    if (!y || factor == 1.0)
        return y;
    ox_vid c = api->scalar_like(g, factor, y);
    if (!c) {
        api->fail(g, "could not create the normalization constant");
        return 0;
    }
    return at_op2(g, api, "Mul", y, c);
}

/* DFT along `axis` of a batched float form. */
static ox_vid dft(ox_sym *g, const ox_api *api, ox_vid y, int64_t axis, bool inverse, bool onesided)
{
    if (!y)
        return 0;
    /* DFT-20 takes the axis as a third input (dft_length, the second, stays
     * absent) where DFT-17 had an attribute. */
    bool axis_input = api->opset(g) >= 20;
    ox_vid in[3] = {y, 0, 0};
    if (axis_input && !(in[2] = oxu_const_int(g, api, axis)))
        return 0;
    ox_onode *n = api->op(g, "DFT", axis_input ? 3 : 1, in, 1);
    if (n) {
        if (!axis_input)
            api->attr_int(n, "axis", axis);
        api->attr_int(n, "inverse", inverse);
        api->attr_int(n, "onesided", onesided);
    }
    return at_out(g, api, n, "DFT");
}

/* The product of x's sizes at axes[] (offset added), or -1 when one is unknown. */
static double points(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *axes, size_t n,
                     int offset)
{
    double p = 1;
    for (size_t i = 0; i < n; i++) {
        int64_t s = api->size(g, x, (int)(axes[i] + offset));
        if (s < 0)
            return -1;
        p *= (double)s;
    }
    return p;
}

static int need_points(ox_sym *g, const ox_api *api, double p)
{
    return p < 0 ? api->fail(g, "the normalization needs the transformed sizes, but one is unknown")
                 : 0;
}

/* _fft_r2c(self, dim, normalization, onesided): rfft along the last of
 * dims (half the spectrum when onesided), full transforms along the others. */
static int sym_fft_r2c(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t dims[MAX_DIMS];
    size_t n;
    if (rank < 0 || rank >= MAX_DIMS - 1)
        return api->fail(g, "the input's rank must be known and below %d", MAX_DIMS - 1);
    if (fft_dims(g, api, rank, dims, &n))
        return 1;
    int64_t norm = api->arg_int(g, "normalization", 0);
    double total = norm ? points(g, api, x, dims, n, 0) : 1;
    if (norm && need_points(g, api, total))
        return 1;
    int64_t around[2] = {0, rank + 1};
    ox_vid y = oxu_unsqueeze_axes(g, api, x, around, 2);
    y = dft(g, api, y, dims[n - 1] + 1, false, api->arg_int(g, "onesided", 1) != 0);
    for (size_t i = 0; i + 1 < n; i++)
        y = dft(g, api, y, dims[i] + 1, false, false);
    int64_t batch = 0;
    y = oxu_squeeze(g, api, scaled(g, api, y, norm_factor(norm, total)), &batch, 1);
    return oxu_set_result(g, api, 0, y);
}

/* _fft_c2c(self, dim, normalization, forward) */
static int sym_fft_c2c(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x) - 1; /* the complex tensor's */
    int64_t dims[MAX_DIMS];
    size_t n;
    if (rank < 0 || rank >= MAX_DIMS - 1 || api->size(g, x, -1) != 2)
        return api->fail(g, "the input must be a complex tensor's float form (trailing size 2) of "
                            "known rank below %d",
                         MAX_DIMS - 1);
    if (fft_dims(g, api, rank, dims, &n))
        return 1;
    bool forward = api->arg_int(g, "forward", 1) != 0;
    int64_t norm = api->arg_int(g, "normalization", 0);
    double total = points(g, api, x, dims, n, 0);
    if ((norm || !forward) && need_points(g, api, total))
        return 1;
    ox_vid y = oxu_unsqueeze(g, api, x, 0);
    for (size_t i = 0; i < n; i++)
        y = dft(g, api, y, dims[i] + 1, !forward, false);
    /* ONNX's inverse divided by total already */
    double factor = norm_factor(norm, total) * (forward ? 1.0 : total);
    int64_t batch = 0;
    return oxu_set_result(g, api, 0, oxu_squeeze(g, api, scaled(g, api, y, factor), &batch, 1));
}

/* The full spectrum of length n along `axis` (of a batched float form) from
 * its first n/2+1 bins: X[n-k] = conj(X[k]).  The imaginary parts of X[0]
 * (and X[n/2] for even n) are what a real inverse ignores, as torch's does. */
static ox_vid hermitian_full(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis, int64_t n)
{
    int64_t half = n / 2 + 1;
    ox_vid head = oxu_slice(g, api, x, axis, 0, half, 1);
    if (n - half <= 0)
        return head;
    ox_vid mirror = oxu_slice(g, api, head, axis, n - half, 0, -1);
    /* conj: (1, -1) over the trailing dimension, in the input's type */
    float flip[2] = {1.0f, -1.0f};
    double flip_d[2] = {1.0, -1.0};
    int64_t two = 2;
    ox_vid f = api->dtype(g, x) == OX_DOUBLE ? api->constant(g, OX_DOUBLE, 1, &two, flip_d)
                                             : api->constant(g, OX_FLOAT, 1, &two, flip);
    if (!f) {
        api->fail(g, "could not create the conjugation constant");
        return 0;
    }
    ox_vid parts[2] = {head, at_op2(g, api, "Mul", mirror, f)};
    return oxu_concat(g, api, parts, 2, axis);
}

/* The real part of a float form (its trailing dimension dropped). */
static ox_vid real_part(ox_sym *g, const ox_api *api, ox_vid y, int rank)
{
    int64_t last = rank - 1;
    return oxu_squeeze(g, api, oxu_slice(g, api, y, last, 0, 1, 1), &last, 1);
}

/* _fft_c2r(self, dim, normalization, last_dim_size): inverse transforms along
 * all but the last of dims, then the real inverse of the Hermitian spectrum
 * along the last, to last_dim_size points. */
static int sym_fft_c2r(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x) - 1;
    int64_t dims[MAX_DIMS];
    size_t n;
    if (rank < 0 || rank >= MAX_DIMS - 1 || api->size(g, x, -1) != 2)
        return api->fail(g, "the input must be a complex tensor's float form (trailing size 2) of "
                            "known rank below %d",
                         MAX_DIMS - 1);
    if (fft_dims(g, api, rank, dims, &n))
        return 1;
    int64_t len = api->arg_int(g, "last_dim_size", -1);
    if (len < 1)
        return api->fail(g, "last_dim_size must be at least 1, got %lld", (long long)len);
    double total = points(g, api, x, dims, n - 1, 0);
    if (need_points(g, api, total))
        return 1;
    total *= (double)len;
    ox_vid y = oxu_unsqueeze(g, api, x, 0);
    for (size_t i = 0; i + 1 < n; i++)
        y = dft(g, api, y, dims[i] + 1, true, false);
    int64_t axis = dims[n - 1] + 1;
    y = dft(g, api, hermitian_full(g, api, y, axis, len), axis, true, false);
    y = real_part(g, api, y, rank + 2);
    double factor = norm_factor(api->arg_int(g, "normalization", 0), total) * total;
    int64_t batch = 0;
    return oxu_set_result(g, api, 0, oxu_squeeze(g, api, scaled(g, api, y, factor), &batch, 1));
}

/* ---------------------------------------------------------------- stft */

typedef struct frame_params {
    int64_t n_fft, hop, win;
} frame_params;

static int read_frames(ox_sym *g, const ox_api *api, frame_params *f)
{
    f->n_fft = api->arg_int(g, "n_fft", 0);
    f->hop = api->arg_kind(g, "hop_length") == OX_ARG_INT ? api->arg_int(g, "hop_length", 0)
                                                          : f->n_fft / 4;
    f->win = api->arg_kind(g, "win_length") == OX_ARG_INT ? api->arg_int(g, "win_length", 0)
                                                          : f->n_fft;
    if (f->n_fft < 1 || f->hop < 1 || f->win < 1 || f->win > f->n_fft)
        return api->fail(g, "n_fft=%lld, hop_length=%lld, win_length=%lld: need n_fft >= 1, "
                            "hop_length >= 1 and 1 <= win_length <= n_fft",
                         (long long)f->n_fft, (long long)f->hop, (long long)f->win);
    return 0;
}

/* The window as torch applies it: the given one (or ones of win_length),
 * zero-padded on both sides to n_fft, (n_fft - win_length) / 2 on the left;
 * typed like `like`. */
static ox_vid full_window(ox_sym *g, const ox_api *api, const frame_params *f, ox_vid like)
{
    ox_vid w = api->arg_tensor(g, "window");
    ox_dtype dt = api->dtype(g, like);
    if (w && api->size(g, w, 0) != f->win) {
        api->fail(g, "the window has %lld elements, win_length is %lld",
                  (long long)api->size(g, w, 0), (long long)f->win);
        return 0;
    }
    if (!w) {
        ox_vid shape = oxu_const_int(g, api, f->win);
        w = oxu_full(g, api, oxu_unsqueeze(g, api, shape, 0), 1.0, dt);
    } else if (api->dtype(g, w) != dt) {
        w = oxu_cast(g, api, w, dt);
    }
    int64_t left = (f->n_fft - f->win) / 2, right = f->n_fft - f->win - left;
    if (!left && !right)
        return w;
    int64_t pads[2] = {left, right};
    ox_vid in[2] = {w, oxu_const_ints(g, api, pads, 2)};
    return oxu_opn(g, api, "Pad", 2, in);
}

/* The frames of a signal [B, L]: Gather of the positions t * hop + j ->
 * [B, T, n_fft], T = (L - n_fft) / hop + 1 computed from the signal's shape
 * at run time, so the file frames any length (a dynamic axis) as STFT does.
 * Spelled out rather than STFT itself so that onnx 1.12's checker accepts
 * the file: its STFT-17 shape inference counts one frame more than the
 * operator returns (measured: 27 for 26 frames of 464 samples, n_fft 64,
 * hop 16; ONNX Runtime returns 26, as torch does). */
static ox_vid gather_frames(ox_sym *g, const ox_api *api, ox_vid sig, const frame_params *f)
{
    ox_vid len = oxu_size_of(g, api, sig, 1); /* rank-0 int64 */
    ox_vid n_fft = oxu_const_int(g, api, f->n_fft), hop = oxu_const_int(g, api, f->hop);
    ox_vid one = oxu_const_int(g, api, 1), zero = oxu_const_int(g, api, 0);
    ox_vid count = at_op2(g, api, "Add", at_op2(g, api, "Div", at_op2(g, api, "Sub", len, n_fft), hop), one);
    ox_vid r1[3] = {zero, count, one}, r2[3] = {zero, n_fft, one};
    ox_vid starts = at_op2(g, api, "Mul", oxu_opn(g, api, "Range", 3, r1), hop); /* [T] */
    ox_vid pos = at_op2(g, api, "Add", oxu_unsqueeze(g, api, starts, 1),
                        oxu_unsqueeze(g, api, oxu_opn(g, api, "Range", 3, r2), 0)); /* [T, n_fft] */
    if (!pos)
        return 0;
    ox_vid in[2] = {sig, pos};
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", 1);
    return at_out(g, api, n, "Gather");
}

/* stft(self, n_fft, hop_length, win_length, window, normalized, onesided,
 * return_complex) of a real signal [L] or [B, L] -> [B?, bins, frames, 2]
 * (the float form, whether return_complex asked for a complex tensor or the
 * real one with the same trailing dimension).  torch.stft's center padding
 * runs before and is recorded as the pad it is.  Framed by Gather and
 * transformed by DFT (see gather_frames for why not STFT). */
static int sym_stft(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    frame_params f;
    if (rank != 1 && rank != 2)
        return api->fail(g, "stft takes a signal of rank 1 or 2, got rank %d", rank);
    if (read_frames(g, api, &f))
        return 1;
    int64_t len = api->size(g, x, -1);
    if (len >= 0 && len < f.n_fft)
        return api->fail(g, "stft: the signal has %lld samples, fewer than n_fft=%lld", (long long)len,
                         (long long)f.n_fft);
    bool onesided = api->arg_kind(g, "onesided") != OX_ARG_BOOL || api->arg_int(g, "onesided", 1);
    ox_vid sig = rank == 1 ? oxu_unsqueeze(g, api, x, 0) : x; /* [B, L] */
    ox_vid frames = at_op2(g, api, "Mul", gather_frames(g, api, sig, &f), full_window(g, api, &f, x));
    ox_vid y = dft(g, api, oxu_unsqueeze(g, api, frames, 3), 2, false, onesided); /* [B, T, bins, 2] */
    int64_t perm[4] = {0, 2, 1, 3};
    y = oxu_transpose(g, api, y, perm, 4);
    if (api->arg_int(g, "normalized", 0))
        y = scaled(g, api, y, 1.0 / root((double)f.n_fft));
    if (rank == 1) {
        int64_t batch = 0;
        y = oxu_squeeze(g, api, y, &batch, 1);
    }
    return oxu_set_result(g, api, 0, y);
}

/* ---------------------------------------------------------------- istft */

/* Overlap-add: frames [T, n_fft, C] -> [n_fft + hop (T - 1), C], element
 * (t, j) added at t * hop + j (ScatterND with reduction add, opset 16). */
static ox_vid overlap_add(ox_sym *g, const ox_api *api, ox_vid frames, int64_t t_count,
                          int64_t n_fft, int64_t hop, int64_t channels)
{
    int64_t k = t_count * n_fft, len = n_fft + hop * (t_count - 1);
    int64_t *pos = malloc((size_t)k * sizeof *pos);
    if (!pos) {
        api->fail(g, "out of memory for istft's %lld overlap-add positions", (long long)k);
        return 0;
    }
    for (int64_t t = 0; t < t_count; t++)
        for (int64_t j = 0; j < n_fft; j++)
            pos[t * n_fft + j] = t * hop + j;
    int64_t isz[2] = {k, 1};
    ox_vid idx = api->constant(g, OX_INT64, 2, isz, pos);
    free(pos);
    int64_t flat[2] = {k, channels}, dshape[2] = {len, channels};
    ox_vid zeros = oxu_full(g, api, oxu_const_ints(g, api, dshape, 2), 0.0, api->dtype(g, frames));
    ox_vid in[3] = {zeros, idx, oxu_reshape(g, api, frames, flat, 2)};
    if (!in[0] || !in[1] || !in[2]) {
        api->fail(g, "could not build istft's overlap-add");
        return 0;
    }
    ox_onode *s = api->op(g, "ScatterND", 3, in, 1);
    if (s)
        api->attr_string(s, "reduction", "add");
    return at_out(g, api, s, "ScatterND");
}

/* istft(self, n_fft, hop_length, win_length, window, center, normalized,
 * onesided, length, return_complex): the complex spectrogram's float form
 * [B?, bins, T, 2] -> a real signal [B?, length].  Each frame's real
 * inverse, times the window, overlap-added, divided by the overlap-added
 * squared window, trimmed by center's n_fft/2 and to length. */
static int sym_istft(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    frame_params f;
    if (rank != 3 && rank != 4)
        return api->fail(g, "istft takes a complex spectrogram [bins, frames] or [batch, bins, frames]");
    if (read_frames(g, api, &f))
        return 1;
    int64_t b = rank == 4 ? api->size(g, x, 0) : 1, bins = api->size(g, x, -3),
            t_count = api->size(g, x, -2);
    if (b < 0 || bins < 0 || t_count < 1)
        return api->fail(g, "istft needs the spectrogram's batch, bin and frame counts");
    bool onesided = api->arg_kind(g, "onesided") == OX_ARG_BOOL ? api->arg_int(g, "onesided", 1)
                                                                : bins != f.n_fft;
    if (onesided ? bins != f.n_fft / 2 + 1 : bins != f.n_fft)
        return api->fail(g, "istft: %lld frequency bins do not match n_fft=%lld (%s)", (long long)bins,
                         (long long)f.n_fft, onesided ? "onesided" : "two-sided");
    /* [B, bins, T, 2] -> [B, T, bins, 2], then per-frame real inverse along axis 2 */
    ox_vid y = rank == 3 ? oxu_unsqueeze(g, api, x, 0) : x;
    int64_t perm[4] = {0, 2, 1, 3};
    y = oxu_transpose(g, api, y, perm, 4);
    if (onesided)
        y = hermitian_full(g, api, y, 2, f.n_fft);
    y = real_part(g, api, dft(g, api, y, 2, true, false), 4); /* [B, T, n_fft], 1/n_fft applied */
    if (api->arg_int(g, "normalized", 0))
        y = scaled(g, api, y, root((double)f.n_fft));
    ox_vid w = full_window(g, api, &f, y);
    y = at_op2(g, api, "Mul", y, w);
    /* [B, T, n_fft] -> [T, n_fft, B] for the overlap-add over positions */
    int64_t to_frames[3] = {1, 2, 0};
    ox_vid sum = overlap_add(g, api, oxu_transpose(g, api, y, to_frames, 3), t_count, f.n_fft, f.hop, b);
    int64_t wshape[3] = {1, f.n_fft, 1}, tile[3] = {t_count, 1, 1};
    ox_vid w2 = oxu_reshape(g, api, at_op2(g, api, "Mul", w, w), wshape, 3);
    ox_vid w2_all = at_op2(g, api, "Tile", w2, oxu_const_ints(g, api, tile, 3));
    ox_vid env = overlap_add(g, api, w2_all, t_count, f.n_fft, f.hop, 1);
    int64_t len = f.n_fft + f.hop * (t_count - 1);
    int64_t start = api->arg_int(g, "center", 1) ? f.n_fft / 2 : 0;
    int64_t end = api->arg_kind(g, "length") == OX_ARG_INT ? start + api->arg_int(g, "length", 0)
                                                           : len - start;
    if (end > len || end <= start)
        return api->fail(g, "istft's length %lld is past the %lld samples the frames cover",
                         (long long)(end - start), (long long)(len - start));
    y = oxu_slice(g, api, at_op2(g, api, "Div", sum, env), 0, start, end, 1);
    int64_t back[2] = {1, 0};
    y = oxu_transpose(g, api, y, back, 2);
    if (rank == 3) {
        int64_t batch = 0;
        y = oxu_squeeze(g, api, y, &batch, 1);
    }
    return oxu_set_result(g, api, 0, y);
}

/* torch.istft returns a complex signal only for two-sided spectrograms with
 * return_complex=True, which has no real ONNX form to end in. */
static int check_istft(ox_sym *g, const ox_api *api)
{
    if (api->arg_int(g, "return_complex", 0))
        return api->limit(g, 0, "istft with return_complex=True (a complex signal) is not exported");
    return 0;
}

static const ox_param_decl p_fft_r2c[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INTS),
                                          OX_PARAM("normalization", OX_ARG_INT),
                                          OX_PARAM("onesided", OX_ARG_BOOL)};
static const ox_param_decl p_fft_c2c[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INTS),
                                          OX_PARAM("normalization", OX_ARG_INT),
                                          OX_PARAM("forward", OX_ARG_BOOL)};
static const ox_param_decl p_fft_c2r[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INTS),
                                          OX_PARAM("normalization", OX_ARG_INT),
                                          OX_PARAM("last_dim_size", OX_ARG_INT)};
/* stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None,
 *      Tensor? window=None, bool normalized=False, bool? onesided=None,
 *      bool? return_complex=None) */
static const ox_param_decl p_stft[] = {
    OX_PARAM("self", OX_ARG_TENSOR),           OX_PARAM("n_fft", OX_ARG_INT),
    OX_PARAM_NULL("hop_length", OX_ARG_INT),   OX_PARAM_NULL("win_length", OX_ARG_INT),
    OX_PARAM_NULL("window", OX_ARG_OPT_TENSOR), OX_PARAM_BOOL("normalized", 0),
    OX_PARAM_NULL("onesided", OX_ARG_BOOL),    OX_PARAM_NULL("return_complex", OX_ARG_BOOL)};
/* istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None,
 *       Tensor? window=None, bool center=True, bool normalized=False,
 *       bool? onesided=None, int? length=None, bool return_complex=False) */
static const ox_param_decl p_istft[] = {
    OX_PARAM("self", OX_ARG_TENSOR),           OX_PARAM("n_fft", OX_ARG_INT),
    OX_PARAM_NULL("hop_length", OX_ARG_INT),   OX_PARAM_NULL("win_length", OX_ARG_INT),
    OX_PARAM_NULL("window", OX_ARG_OPT_TENSOR), OX_PARAM_BOOL("center", 1),
    OX_PARAM_BOOL("normalized", 0),            OX_PARAM_NULL("onesided", OX_ARG_BOOL),
    OX_PARAM_NULL("length", OX_ARG_INT),       OX_PARAM_BOOL("return_complex", 0)};

const ox_op_decl at_ops_spectral[] = {
    OX_OP("aten::_fft_r2c", 17, p_fft_r2c, 1, sym_fft_r2c),
    OX_OP("aten::_fft_c2c", 17, p_fft_c2c, 1, sym_fft_c2c),
    OX_OP("aten::_fft_c2r", 17, p_fft_c2r, 1, sym_fft_c2r),
    OX_OP("aten::stft", 17, p_stft, 1, sym_stft),
    OX_OP_EX("aten::istft", 17, p_istft, 1, sym_istft, 0u, check_istft),
};
AT_FAMILY_SIZE(at_ops_spectral);
