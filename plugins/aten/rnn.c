/* Recurrent layers: aten::lstm / gru / rnn_tanh / rnn_relu -> one ONNX
 * LSTM / GRU / RNN node per layer.
 *
 * torch's flat params list holds, per layer and direction, w_ih [G*H, I],
 * w_hh [G*H, H] and (with biases) b_ih, b_hh [G*H].  ONNX wants per layer
 * W [D, G*H, I], R [D, G*H, H], B [D, 2*G*H] with gates in its own order, so
 * the gate blocks are re-sliced with graph ops on the parameter values (the
 * weights themselves are never copied). */
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

typedef enum rnn_mode { RNN_LSTM, RNN_GRU, RNN_TANH, RNN_RELU } rnn_mode;

static int gate_count(rnn_mode m)
{
    return m == RNN_LSTM ? 4 : m == RNN_GRU ? 3 : 1;
}

/* Reorder the gate blocks along axis 0.  LSTM: torch i,f,g,o -> ONNX i,o,f,c
 * (i | o | f,g contiguous).  GRU: torch r,z,n -> ONNX z,r,h. */
static ox_vid reorder(ox_sym *g, const ox_api *api, rnn_mode m, ox_vid w, int64_t h)
{
    if (m == RNN_LSTM) {
        ox_vid parts[3] = {at_slice(g, api, w, 0, 0, h, 1), at_slice(g, api, w, 0, 3 * h, 4 * h, 1),
                           at_slice(g, api, w, 0, h, 3 * h, 1)};
        return at_concat(g, api, parts, 3, 0);
    }
    if (m == RNN_GRU) {
        ox_vid parts[3] = {at_slice(g, api, w, 0, h, 2 * h, 1), at_slice(g, api, w, 0, 0, h, 1),
                           at_slice(g, api, w, 0, 2 * h, 3 * h, 1)};
        return at_concat(g, api, parts, 3, 0);
    }
    return w;
}

/* Stack per-direction tensors into [D, ...]. */
static ox_vid stack_dirs(ox_sym *g, const ox_api *api, const ox_vid *v, int nd)
{
    ox_vid u[2];
    for (int d = 0; d < nd; d++)
        u[d] = at_unsqueeze(g, api, v[d], 0);
    return nd == 1 ? u[0] : at_concat(g, api, u, 2, 0);
}

static const char *const onnx_type[] = {"LSTM", "GRU", "RNN", "RNN"};

typedef struct rnn_state {
    ox_vid *yh, *yc; /* per layer */
} rnn_state;

static int lower_layer(ox_sym *g, const ox_api *api, rnn_mode m, const ox_vid *params,
                       int has_b, int nd, int64_t hidden, int64_t layer, ox_vid h0, ox_vid c0,
                       ox_vid seq_lens, int64_t n_layers, ox_vid *cur, rnn_state *st)
{
    int per = has_b ? 4 : 2;
    ox_vid w[2] = {0, 0}, r[2] = {0, 0}, b[2] = {0, 0};
    for (int d = 0; d < nd; d++) {
        const ox_vid *p = params + ((size_t)layer * (size_t)nd + (size_t)d) * (size_t)per;
        w[d] = reorder(g, api, m, p[0], hidden);
        r[d] = reorder(g, api, m, p[1], hidden);
        if (has_b) {
            ox_vid bb[2] = {reorder(g, api, m, p[2], hidden), reorder(g, api, m, p[3], hidden)};
            b[d] = at_concat(g, api, bb, 2, 0);
        }
        if (!w[d] || !r[d] || (has_b && !b[d]))
            return 1;
    }
    ox_vid in[7] = {*cur, stack_dirs(g, api, w, nd), stack_dirs(g, api, r, nd),
                    has_b ? stack_dirs(g, api, b, nd) : 0, seq_lens, 0, 0};
    if (!in[1] || !in[2] || (has_b && !in[3]))
        return 1;
    /* Initial states: this layer's directions out of [L*D, batch, H]. */
    if (h0)
        in[5] = n_layers == 1 ? h0 : at_slice(g, api, h0, 0, layer * nd, (layer + 1) * nd, 1);
    if (c0)
        in[6] = n_layers == 1 ? c0 : at_slice(g, api, c0, 0, layer * nd, (layer + 1) * nd, 1);
    if ((h0 && !in[5]) || (c0 && !in[6]))
        return 1;
    size_t n_in = m == RNN_LSTM ? 7 : 6;
    while (n_in > 3 && !in[n_in - 1])
        n_in--;
    size_t n_out = m == RNN_LSTM ? 3 : 2;
    ox_onode *n = api->op(g, onnx_type[m], n_in, in, n_out);
    if (!n)
        return api->fail(g, "could not create ONNX node %s", onnx_type[m]);
    api->attr_int(n, "hidden_size", hidden);
    api->attr_string(n, "direction", nd == 2 ? "bidirectional" : "forward");
    if (m == RNN_GRU)
        api->attr_int(n, "linear_before_reset", 1);
    if (m == RNN_TANH || m == RNN_RELU) {
        const char *act = m == RNN_TANH ? "Tanh" : "Relu";
        const char *acts[2] = {act, act};
        api->attr_strings(n, "activations", acts, (size_t)nd);
    }
    ox_vid y = api->node_output(n, 0);
    st->yh[layer] = api->node_output(n, 1);
    if (m == RNN_LSTM)
        st->yc[layer] = api->node_output(n, 2);
    /* Y is [seq, D, batch, H]; the next layer (and the result) want
     * [seq, batch, D*H]. */
    if (nd == 1) {
        int64_t axis = 1;
        *cur = at_squeeze(g, api, y, &axis, 1);
    } else {
        static const int64_t perm[4] = {0, 2, 1, 3};
        static const int64_t shape[3] = {0, 0, -1};
        *cur = at_reshape(g, api, at_transpose(g, api, y, perm, 4), shape, 3);
    }
    return *cur ? 0 : 1;
}

/* Training mode only differs from inference through the dropout between
 * layers, which no ONNX RNN node expresses (at any opset). */
static int check_rnn(ox_sym *g, const ox_api *api)
{
    /* nn.LSTM(proj_size=) adds a w_hr per layer and direction: ONNX's LSTM has
     * no projection of the hidden state (at any opset), and the count would
     * otherwise be refused as a malformed recording */
    const ox_vid *params = NULL;
    size_t np = api->arg_tensors(g, "params", &params);
    int64_t per = api->arg_int(g, "has_biases", 1) ? 4 : 2,
            groups = api->arg_int(g, "num_layers", 1) * (api->arg_int(g, "bidirectional", 0) ? 2 : 1);
    if (groups > 0 && (int64_t)np == groups * (per + 1))
        return api->limit(g, 0, "%s with proj_size (a projection of the hidden state) is not "
                                "exported: ONNX's LSTM has no projection",
                          api->op_name(g));
    double p = api->arg_float(g, "dropout", 0.0);
    if (api->arg_int(g, "train", 0) && p > 0.0 && api->arg_int(g, "num_layers", 1) > 1)
        return api->limit(g, 0, "%s in training mode with dropout=%g between layers is not "
                                "exported; put the model in eval mode (train=False)",
                          api->op_name(g), p);
    return 0;
}

/* Whether v is a float32 constant of zeros only. */
static int constant_zeros(ox_sym *g, const ox_api *api, ox_vid v)
{
    ox_dtype t;
    size_t n = 0;
    const float *d = v ? api->const_data(g, v, &t, &n) : NULL;
    if (!d || t != OX_FLOAT)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0.0f)
            return 0;
    return 1;
}

static int lower_rnn(ox_sym *g, const ox_api *api, rnn_mode m)
{
    ox_vid x = api->arg_tensor(g, "input");
    const ox_vid *params = NULL;
    size_t np = api->arg_tensors(g, "params", &params);
    int has_b = api->arg_int(g, "has_biases", 1) != 0;
    int64_t n_layers = api->arg_int(g, "num_layers", 1);
    int nd = api->arg_int(g, "bidirectional", 0) ? 2 : 1;
    int batch_first = api->arg_int(g, "batch_first", 0) != 0;
    int per = has_b ? 4 : 2;

    if (n_layers < 1 || n_layers > 1024)
        return api->fail(g, "argument 'num_layers' is %lld; expected 1 to 1024",
                         (long long)n_layers);
    if (np != (size_t)n_layers * (size_t)nd * (size_t)per)
        return api->fail(g, "argument 'params' has %zu tensors; expected %lld (num_layers %lld x "
                            "%d direction(s) x %d)",
                         np, (long long)(n_layers * nd * per), (long long)n_layers, nd, per);
    for (size_t i = 0; i < np; i++)
        if (!params[i])
            return api->fail(g, "argument 'params' has None at position %zu", i);
    int64_t gh = api->size(g, params[1], 0), hidden = api->size(g, params[1], 1);
    if (hidden < 1 || gh != gate_count(m) * hidden)
        return api->fail(g, "the first w_hh parameter must have known sizes [%d*hidden, hidden] "
                            "(got [%lld, %lld])",
                         gate_count(m), (long long)gh, (long long)hidden);

    ox_vid h0 = 0, c0 = 0;
    if (m == RNN_LSTM) {
        const ox_vid *hx = NULL;
        size_t nh = api->arg_tensors(g, "hx", &hx);
        if (nh != 0 && nh != 2)
            return api->fail(g, "argument 'hx' has %zu tensors; expected (h0, c0)", nh);
        if (nh == 2) {
            h0 = hx[0];
            c0 = hx[1];
        }
    } else {
        h0 = api->arg_tensor(g, "hx");
    }
    /* nn.LSTM & co. make a missing state zeros of the traced batch size; ONNX's
     * RNNs start from zeros when it is absent, at whatever batch the file
     * runs with (a dynamic batch keeps working). */
    if (constant_zeros(g, api, h0) && (!c0 || constant_zeros(g, api, c0)))
        h0 = c0 = 0;

    /* A packed sequence (torch.onnx's form): input is the padded, time-major
     * tensor and batch_sizes the lengths, ONNX's sequence_lens (int32). */
    ox_vid lens = api->arg_tensor(g, "batch_sizes");
    ox_vid seq_lens = lens ? oxu_cast_to(g, api, lens, OX_INT32) : 0;
    if (lens && !seq_lens)
        return 1;
    static const int64_t swap01[3] = {1, 0, 2};
    ox_vid cur = batch_first ? at_transpose(g, api, x, swap01, 3) : x;
    if (!cur)
        return api->fail(g, "argument 'input' is missing");
    rnn_state st;
    st.yh = calloc((size_t)n_layers, sizeof *st.yh);
    st.yc = calloc((size_t)n_layers, sizeof *st.yc);
    int rc = 0;
    if (!st.yh || !st.yc) {
        rc = api->fail(g, "out of memory");
        goto out;
    }
    for (int64_t l = 0; l < n_layers && rc == 0; l++)
        rc = lower_layer(g, api, m, params, has_b, nd, hidden, l, h0, c0, seq_lens, n_layers, &cur,
                         &st);
    if (rc)
        goto out;
    ox_vid y = batch_first ? at_transpose(g, api, cur, swap01, 3) : cur;
    ox_vid hn = n_layers == 1 ? st.yh[0] : at_concat(g, api, st.yh, (size_t)n_layers, 0);
    ox_vid cn = 0;
    if (m == RNN_LSTM)
        cn = n_layers == 1 ? st.yc[0] : at_concat(g, api, st.yc, (size_t)n_layers, 0);
    if (!y || !hn || (m == RNN_LSTM && !cn)) {
        rc = 1;
        goto out;
    }
    rc = api->set_output(g, 0, y);
    if (rc == 0)
        rc = api->set_output(g, 1, hn);
    if (rc == 0 && m == RNN_LSTM)
        rc = api->set_output(g, 2, cn);
out:
    free(st.yh);
    free(st.yc);
    return rc;
}

static int sym_lstm(ox_sym *g, const ox_api *api)
{
    return lower_rnn(g, api, RNN_LSTM);
}

static int sym_gru(ox_sym *g, const ox_api *api)
{
    return lower_rnn(g, api, RNN_GRU);
}

static int sym_rnn_tanh(ox_sym *g, const ox_api *api)
{
    return lower_rnn(g, api, RNN_TANH);
}

static int sym_rnn_relu(ox_sym *g, const ox_api *api)
{
    return lower_rnn(g, api, RNN_RELU);
}

/* lstm_cell: one LSTM step, gates x W_ih^T + h W_hh^T (+ biases) split
 * into torch's (input, forget, cell, output) order:
 * c' = sigmoid(f) c + sigmoid(i) tanh(g), h' = sigmoid(o) tanh(c'). */
static int sym_lstm_cell(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    const ox_vid *hx = NULL;
    if (api->arg_tensors(g, "hx", &hx) != 2 || !hx[0] || !hx[1])
        return api->fail(g, "argument 'hx' must hold (h, c)");
    static const int64_t tr[2] = {1, 0};
    ox_vid gates = oxu_op2(g, api, "Add",
                           oxu_op2(g, api, "MatMul", x,
                                   oxu_transpose(g, api, api->arg_tensor(g, "w_ih"), tr, 2)),
                           oxu_op2(g, api, "MatMul", hx[0],
                                   oxu_transpose(g, api, api->arg_tensor(g, "w_hh"), tr, 2)));
    const char *bias[2] = {"b_ih", "b_hh"};
    for (int i = 0; i < 2; i++)
        if (api->arg_tensor(g, bias[i]))
            gates = oxu_op2(g, api, "Add", gates, api->arg_tensor(g, bias[i]));
    ox_vid part[4];
    if (oxu_split(g, api, gates, api->rank(g, x) - 1, NULL, 4, part))
        return 1;
    ox_vid c = oxu_op2(g, api, "Add", oxu_op2(g, api, "Mul", oxu_op1(g, api, "Sigmoid", part[1]), hx[1]),
                       oxu_op2(g, api, "Mul", oxu_op1(g, api, "Sigmoid", part[0]),
                               oxu_op1(g, api, "Tanh", part[2])));
    ox_vid h = oxu_op2(g, api, "Mul", oxu_op1(g, api, "Sigmoid", part[3]), oxu_op1(g, api, "Tanh", c));
    if (oxu_set_result(g, api, 0, h))
        return 1;
    return oxu_set_result(g, api, 1, c);
}

/* ------------------------------------------------ packed sequences
 *
 * As torch.onnx carries them: a PackedSequence is its padded, time-major
 * tensor (T, B, *) with the lengths (B,) standing for batch_sizes; the RNNs
 * above take the lengths as sequence_lens (and ONNX zeroes their outputs
 * past each length, as pad_packed_sequence pads). */

static int sym_pack_padded_sequence(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input"), lens = api->arg_tensor(g, "lengths");
    int rank = api->rank(g, x);
    if (rank < 2 || rank > AT_MAX_RANK)
        return api->fail(g, "pack_padded_sequence needs an input of known rank 2 to %d, got %d",
                         AT_MAX_RANK, rank);
    ox_vid data = x;
    if (api->arg_int(g, "batch_first", 0)) {
        int64_t perm[AT_MAX_RANK];
        for (int i = 0; i < rank; i++)
            perm[i] = i;
        perm[0] = 1;
        perm[1] = 0;
        data = at_transpose(g, api, x, perm, (size_t)rank);
    }
    if (oxu_set_result(g, api, 0, data))
        return 1;
    return oxu_set_result(g, api, 1, oxu_cast_to(g, api, lens, OX_INT64));
}

/* Padding with another value than 0 masks the steps past each length,
 * which needs Range (opset 11); trimming to the longest length (total_length
 * -1) needs Slice's ends as an input (opset 10). */
static int check_pad_packed_sequence(ox_sym *g, const ox_api *api)
{
    int opset = api->opset(g);
    if (opset < 11 && api->arg_float(g, "padding_value", 0.0) != 0.0)
        return api->limit(g, 11, "pad_packed_sequence with padding_value %g masks the steps past "
                                 "each length with Range",
                          api->arg_float(g, "padding_value", 0.0));
    if (opset < 10 && api->arg_int(g, "total_length", -1) < 0)
        return api->limit(g, 10, "pad_packed_sequence without total_length trims to the longest "
                                 "length, known at run time, which needs Slice's ends input");
    return 0;
}

static int sym_pad_packed_sequence(ox_sym *g, const ox_api *api)
{
    ox_vid data = api->arg_tensor(g, "data");
    ox_vid lens = oxu_cast_to(g, api, api->arg_tensor(g, "batch_sizes"), OX_INT64);
    int rank = api->rank(g, data);
    int64_t t = oxu_fixed_size(g, api, data, 0), total = api->arg_int(g, "total_length", -1);
    double pv = api->arg_float(g, "padding_value", 0.0);
    if (rank < 2 || rank > AT_MAX_RANK)
        return api->fail(g, "pad_packed_sequence needs data of known rank 2 to %d, got %d",
                         AT_MAX_RANK, rank);
    ox_vid y = data;
    if (total >= 0) {
        if (t < 0)
            return api->fail(g, "pad_packed_sequence to total_length %lld needs the data's "
                                "time size, which is unknown; record it",
                             (long long)total);
        if (total < t) {
            y = oxu_slice(g, api, y, 0, 0, total, 1);
        } else if (total > t) {
            int64_t pads[2 * AT_MAX_RANK] = {0};
            pads[rank] = total - t;
            y = oxu_pad(g, api, y, "constant", pads, 2 * (size_t)rank, 0.0);
        }
    } else {
        /* the longest length: Slice(y, 0, [max(lengths)]) on axis 0 */
        int64_t zero = 0;
        int64_t one = 1;
        ox_vid longest =
            oxu_reshape(g, api, oxu_reduce(g, api, "ReduceMax", lens, NULL, 0, 0), &one, 1);
        ox_vid in[4] = {y, oxu_const_ints(g, api, &zero, 1), longest,
                        oxu_const_ints(g, api, &zero, 1)};
        y = oxu_opn(g, api, "Slice", 4, in);
    }
    if (pv != 0.0) {
        /* step t of sequence b is padding when t >= lengths[b]:
         * Where(Range(T)[:, None, ...] < lengths[None, :, ...], y, pv) */
        ox_vid rin[3] = {oxu_const_int(g, api, 0), oxu_size_of(g, api, y, 0),
                         oxu_const_int(g, api, 1)};
        ox_vid steps = oxu_opn(g, api, "Range", 3, rin);
        int64_t tail[AT_MAX_RANK];
        ox_vid st = oxu_unsqueeze(g, api, steps, 1);
        ox_vid ln = oxu_unsqueeze(g, api, lens, 0);
        if (rank > 2) {
            for (int i = 2; i < rank; i++)
                tail[i - 2] = i;
            st = oxu_unsqueeze_axes(g, api, st, tail, (size_t)rank - 2);
            ln = oxu_unsqueeze_axes(g, api, ln, tail, (size_t)rank - 2);
        }
        ox_vid win[3] = {oxu_op2(g, api, "Less", st, ln), y, oxu_scalar_like(g, api, pv, y)};
        y = oxu_opn(g, api, "Where", 3, win);
    }
    if (api->arg_int(g, "batch_first", 0)) {
        int64_t perm[AT_MAX_RANK];
        for (int i = 0; i < rank; i++)
            perm[i] = i;
        perm[0] = 1;
        perm[1] = 0;
        y = at_transpose(g, api, y, perm, (size_t)rank);
    }
    if (oxu_set_result(g, api, 0, y))
        return 1;
    return oxu_set_result(g, api, 1, lens);
}

static const ox_param_decl p_lstm[] = {
    OX_PARAM("input", OX_ARG_TENSOR),     OX_PARAM("hx", OX_ARG_TENSOR_LIST),
    OX_PARAM("params", OX_ARG_TENSOR_LIST), OX_PARAM("has_biases", OX_ARG_BOOL),
    OX_PARAM("num_layers", OX_ARG_INT),   OX_PARAM("dropout", OX_ARG_FLOAT),
    OX_PARAM("train", OX_ARG_BOOL),       OX_PARAM("bidirectional", OX_ARG_BOOL),
    OX_PARAM("batch_first", OX_ARG_BOOL),
    /* not ATen's: the packed overload's batch_sizes, which a host carrying
     * packed sequences as padded tensors records as the lengths */
    OX_PARAM_NULL("batch_sizes", OX_ARG_OPT_TENSOR)};
/* gru, rnn_tanh, rnn_relu: one initial state tensor. */
static const ox_param_decl p_rnn[] = {
    OX_PARAM("input", OX_ARG_TENSOR),     OX_PARAM("hx", OX_ARG_TENSOR),
    OX_PARAM("params", OX_ARG_TENSOR_LIST), OX_PARAM("has_biases", OX_ARG_BOOL),
    OX_PARAM("num_layers", OX_ARG_INT),   OX_PARAM("dropout", OX_ARG_FLOAT),
    OX_PARAM("train", OX_ARG_BOOL),       OX_PARAM("bidirectional", OX_ARG_BOOL),
    OX_PARAM("batch_first", OX_ARG_BOOL),
    /* not ATen's: the packed overload's batch_sizes, which a host carrying
     * packed sequences as padded tensors records as the lengths */
    OX_PARAM_NULL("batch_sizes", OX_ARG_OPT_TENSOR)};

static const ox_param_decl p_lstm_cell[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("hx", OX_ARG_TENSOR_LIST),
    OX_PARAM("w_ih", OX_ARG_TENSOR), OX_PARAM("w_hh", OX_ARG_TENSOR),
    OX_PARAM_NULL("b_ih", OX_ARG_OPT_TENSOR), OX_PARAM_NULL("b_hh", OX_ARG_OPT_TENSOR)};
static const ox_param_decl p_pack_padded_sequence[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("lengths", OX_ARG_TENSOR),
    OX_PARAM("batch_first", OX_ARG_BOOL)};
/* total_length: -1 (not ATen's) trims to the longest length at run time */
static const ox_param_decl p_pad_packed_sequence[] = {
    OX_PARAM("data", OX_ARG_TENSOR), OX_PARAM("batch_sizes", OX_ARG_TENSOR),
    OX_PARAM("batch_first", OX_ARG_BOOL), OX_PARAM("padding_value", OX_ARG_SCALAR),
    OX_PARAM("total_length", OX_ARG_INT)};

const ox_op_decl at_ops_rnn[] = {
    OX_OP_EX("aten::lstm", 9, p_lstm, 3, sym_lstm, 0u, check_rnn),
    OX_OP_EX("aten::gru", 9, p_rnn, 2, sym_gru, 0u, check_rnn),
    OX_OP_EX("aten::rnn_tanh", 9, p_rnn, 2, sym_rnn_tanh, 0u, check_rnn),
    OX_OP_EX("aten::rnn_relu", 9, p_rnn, 2, sym_rnn_relu, 0u, check_rnn),
    OX_OP("aten::lstm_cell", 9, p_lstm_cell, 2, sym_lstm_cell),
    OX_OP("aten::_pack_padded_sequence", 9, p_pack_padded_sequence, 2, sym_pack_padded_sequence),
    OX_OP_EX("aten::_pad_packed_sequence", 9, p_pad_packed_sequence, 2, sym_pad_packed_sequence,
             0u, check_pad_packed_sequence),
};
AT_FAMILY_SIZE(at_ops_rnn);
