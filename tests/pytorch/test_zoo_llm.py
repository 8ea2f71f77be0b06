#!/usr/bin/python3
"""Language-model architectures as a user writes them today (the way HuggingFace's
modeling files write them, small sizes, random weights), exported with dynamic batch,
sequence and past-length axes, then run in ONNX Runtime against eager PyTorch.

    /usr/bin/python3 tests/pytorch/test_zoo_llm.py [unittest args]

Each case is exported at opsets 13, 14 and 17 with every batch, sequence and past axis
dynamic, with no TracerWarning at all (nothing may be fixed to the example), checked with
onnx.checker, and run on the example, on a second input of the example's shapes with other
values, and at other shapes (batch 1 and sequence 1, longer sequences, other past
lengths), with tests/py/modelcheck.py's rules (non-trivial references, the output's
scale as tolerance, torch.onnx's own error as the fallback).  At opset 17, trace='fake'
must write the same file byte for byte.

What each model exercises:

- gpt2: Conv1D (addmm on a flattened view, `size()[:-1] + (nf,)`), position ids from
  `torch.arange(seq)`, a causal buffer sliced `[:, :, k - q:k, :k]` with
  `torch.where(mask, w, finfo.min)`, the tanh GELU written out and `F.gelu(approximate=
  'tanh')`, tied embeddings;
- nanogpt: `tril(ones)` buffer sliced `[:, :, :T, :T]`, `masked_fill(== 0, -inf)`,
  `split`, and the last position as `x[:, [-1], :]` (a list in the key);
- llama: RMSNorm (pow, mean, rsqrt), rotary embeddings from a non-persistent inv_freq
  buffer expanded to the batch (`inv_freq[None, :, None].expand(b, -1, 1)`), rotate_half
  by slicing and cat, grouped-query attention (repeat_kv: expand then reshape), SwiGLU,
  a causal mask `triu(full((s, s), finfo.min), 1)`;
- llama_decode: a KV-cache step, past keys/values as inputs with a dynamic past length,
  `cat` along the sequence, positions `arange(past, past + s)`, the causal mask
  `triu(full((s, past + s)), diagonal=past + 1)` plus a left-padding attention mask,
  presents as outputs; llama_decode_cumsum takes positions from the mask's cumsum;
- bert: attention_mask (int64) made additive with `(1 - mask[:, None, None, :]) *
  finfo.min`, token_type_ids, position ids and token types sliced from buffers by the
  sequence length (bert_defaults passes only input_ids), a tanh pooler;
- t5: relative position buckets (abs, log, `min` with `full_like`, `where`), an encoder
  and a decoder with cross attention, its causal mask from comparing aranges;
- old_decoder: transformers' older _make_causal_mask / _expand_mask, positions from the
  cumsum of non-padding tokens, a sinusoidal table read with index_select, GPT-J's
  rotate_every_two rotary, baddbmm scores, the last real token's logits picked by index;
- distilbert: DistilBERT's masking, positions written in place with masked_fill_, CLIP's
  pooling at argmax of the token ids;
- alibi: BLOOM-style ALiBi from the attention mask's cumsum, `einsum` attention, a
  sliding-window mask (alibi_window).
"""

import math
import os
import sys
import tempfile
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402

OPSETS = (13, 14, 17)
FAKE_OPSET = 17


def randomize_norms(model):
    """LayerNorm affines away from 1 and 0 (at their defaults a mistake in them hides)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    return model


# ---------------------------------------------------------------- GPT-2
class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.2)
        self.bias = nn.Parameter(torch.randn(nf) * 0.1)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class GPT2Attention(nn.Module):
    def __init__(self, d, heads, max_pos):
        super().__init__()
        causal = torch.tril(torch.ones((max_pos, max_pos), dtype=torch.bool))
        self.register_buffer("bias", causal.view(1, 1, max_pos, max_pos), persistent=False)
        self.heads, self.d, self.hd = heads, d, d // heads
        self.c_attn = Conv1D(3 * d, d)
        self.c_proj = Conv1D(d, d)

    def split_heads(self, t):
        return t.view(t.size()[:-1] + (self.heads, self.hd)).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(self.d, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype, device=w.device)
        q_len, k_len = q.size(-2), k.size(-2)
        causal = self.bias[:, :, k_len - q_len: k_len, :k_len]
        mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype).to(w.device)
        w = nn.functional.softmax(torch.where(causal, w, mask_value), dim=-1)
        a = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        return self.c_proj(a.view(a.size()[:-2] + (self.d,)))


class NewGELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Block(nn.Module):
    def __init__(self, d, heads, max_pos, written_gelu):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = GPT2Attention(d, heads, max_pos)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = Conv1D(4 * d, d)
        self.c_proj = Conv1D(d, 4 * d)
        self.act = NewGELU() if written_gelu else nn.GELU(approximate="tanh")

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(self.act(self.c_fc(self.ln_2(x))))


class GPT2(nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, layers=2, max_pos=64):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_pos, d)
        self.h = nn.ModuleList([GPT2Block(d, heads, max_pos, i % 2 == 0) for i in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, input_ids):
        input_shape = input_ids.size()
        input_ids = input_ids.view(-1, input_shape[-1])
        position_ids = torch.arange(0, input_shape[-1], dtype=torch.long, device=input_ids.device)
        position_ids = position_ids.unsqueeze(0).view(-1, input_shape[-1])
        x = self.wte(input_ids) + self.wpe(position_ids)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class NanoAttention(nn.Module):
    def __init__(self, d, heads, block):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.n_head, self.d = heads, d
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.d, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class NanoBlock(nn.Module):
    def __init__(self, d, heads, block):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = NanoAttention(d, heads, block)
        self.c_fc, self.c_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class NanoGPT(nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, layers=2, block=64):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.blocks = nn.ModuleList([NanoBlock(d, heads, block) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        x = self.ln_f(x)
        return self.lm_head(x[:, [-1], :]), self.lm_head(x)


# ---------------------------------------------------------------- LLaMA
class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.3 * torch.randn(d))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


class Rotary(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x, position_ids):
        inv = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(h, n_rep):
    b, kv_heads, s, hd = h.shape
    if n_rep == 1:
        return h
    return h[:, :, None, :, :].expand(b, kv_heads, n_rep, s, hd).reshape(b, kv_heads * n_rep, s, hd)


class LlamaAttention(nn.Module):
    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.q_proj = nn.Linear(d, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(heads * self.hd, d, bias=False)
        self.rotary = Rotary(self.hd)

    def forward(self, x, position_ids, mask, past=None):
        bsz, q_len, _ = x.size()
        q = self.q_proj(x).view(bsz, q_len, self.heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(bsz, q_len, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(bsz, q_len, self.kv_heads, self.hd).transpose(1, 2)
        cos, sin = self.rotary(v, position_ids)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        present = (k, v)
        rep = self.heads // self.kv_heads
        w = torch.matmul(q, repeat_kv(k, rep).transpose(2, 3)) / math.sqrt(self.hd) + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(w, repeat_kv(v, rep)).transpose(1, 2).contiguous().reshape(bsz, q_len, -1)
        return self.o_proj(o), present


class LlamaLayer(nn.Module):
    def __init__(self, d, heads, kv_heads, inter):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = LlamaAttention(d, heads, kv_heads)
        self.post_attention_layernorm = RMSNorm(d)
        self.gate_proj = nn.Linear(d, inter, bias=False)
        self.up_proj = nn.Linear(d, inter, bias=False)
        self.down_proj = nn.Linear(inter, d, bias=False)

    def forward(self, x, position_ids, mask, past=None):
        a, present = self.self_attn(self.input_layernorm(x), position_ids, mask, past)
        x = x + a
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h)), present


class Llama(nn.Module):
    """Prefill without a cache."""

    def __init__(self, vocab=64, d=32, heads=4, kv_heads=2, inter=48, layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([LlamaLayer(d, heads, kv_heads, inter) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids):
        bsz, seq = input_ids.shape
        x = self.embed_tokens(input_ids)
        pos = torch.arange(0, seq, dtype=torch.long, device=x.device).unsqueeze(0).expand(bsz, -1)
        mask = torch.full((seq, seq), torch.finfo(x.dtype).min, device=x.device)
        mask = torch.triu(mask, diagonal=1)[None, None, :, :].expand(bsz, 1, -1, -1)
        for layer in self.layers:
            x, _ = layer(x, pos, mask)
        return self.lm_head(self.norm(x))


class LlamaDecode(Llama):
    """One step with a KV cache: attention_mask (int64, 1 = keep) covers past and new
    tokens; positions follow the past length, or the mask's cumsum (left padding)."""

    def __init__(self, cumsum_positions=False):
        super().__init__()
        self.cumsum_positions = cumsum_positions

    def forward(self, input_ids, attention_mask, past_key_values):
        bsz, seq = input_ids.shape
        past_len = past_key_values[0][0].size(2)
        x = self.embed_tokens(input_ids)
        if self.cumsum_positions:
            pos = attention_mask.long().cumsum(-1) - 1
            pos = pos.masked_fill(attention_mask == 0, 1)[:, -seq:]
        else:
            pos = torch.arange(past_len, seq + past_len, dtype=torch.long, device=x.device)
            pos = pos.unsqueeze(0).expand(bsz, -1)
        dtype = x.dtype
        causal = torch.full((seq, past_len + seq), torch.finfo(dtype).min, device=x.device)
        causal = torch.triu(causal, diagonal=past_len + 1)[None, None, :, :].expand(bsz, 1, -1, -1)
        padding = (1.0 - attention_mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        mask = torch.clamp(causal + padding, min=torch.finfo(dtype).min)
        presents = []
        for layer, past in zip(self.layers, past_key_values):
            x, present = layer(x, pos, mask, past)
            presents.append(present)
        return self.lm_head(self.norm(x)), tuple(presents)


# ---------------------------------------------------------------- BERT
class BertLayer(nn.Module):
    def __init__(self, d, heads, inter):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.attn_out = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.inter, self.out = nn.Linear(d, inter), nn.Linear(inter, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def heads_first(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.hd)).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = self.heads_first(self.query(x)), self.heads_first(self.key(x)), self.heads_first(self.value(x))
        p = nn.functional.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd) + mask, dim=-1)
        c = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        x = self.ln1(x + self.attn_out(c.view(c.size()[:-2] + (self.heads * self.hd,))))
        return self.ln2(x + self.out(F.gelu(self.inter(x))))


class Bert(nn.Module):
    def __init__(self, vocab=60, d=32, heads=4, inter=64, layers=2, max_pos=64, types=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, d, padding_idx=0)
        self.position_embeddings = nn.Embedding(max_pos, d)
        self.token_type_embeddings = nn.Embedding(types, d)
        self.LayerNorm = nn.LayerNorm(d, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(max_pos).expand((1, -1)))
        self.register_buffer("token_type_ids", torch.zeros((1, max_pos), dtype=torch.long), persistent=False)
        self.layers = nn.ModuleList([BertLayer(d, heads, inter) for _ in range(layers)])
        self.pooler = nn.Linear(d, d)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        bsz, seq = input_ids.size()
        position_ids = self.position_ids[:, 0:seq]
        if token_type_ids is None:
            token_type_ids = self.token_type_ids[:, :seq].expand(bsz, seq)
        if attention_mask is None:
            attention_mask = torch.ones(((bsz, seq)), device=input_ids.device)
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        x = self.LayerNorm(x + self.position_embeddings(position_ids))
        dtype = x.dtype
        extended = (1.0 - attention_mask[:, None, None, :].to(dtype=dtype)) * torch.finfo(dtype).min
        for layer in self.layers:
            x = layer(x, extended)
        return x, torch.tanh(self.pooler(x[:, 0]))


# ---------------------------------------------------------------- T5
class T5Attention(nn.Module):
    def __init__(self, d, heads, has_bias, bidirectional, buckets=8, max_distance=20):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.bidirectional, self.buckets, self.max_distance = bidirectional, buckets, max_distance
        self.has_bias = has_bias
        if has_bias:
            self.relative_attention_bias = nn.Embedding(buckets, heads)

    @staticmethod
    def bucket(relative_position, bidirectional, num_buckets, max_distance):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        if_large = max_exact + (torch.log(relative_position.float() / max_exact)
                                / math.log(max_distance / max_exact) * (num_buckets - max_exact)).to(torch.long)
        if_large = torch.min(if_large, torch.full_like(if_large, num_buckets - 1))
        return relative_buckets + torch.where(is_small, relative_position, if_large)

    def compute_bias(self, q_len, k_len, device):
        context = torch.arange(q_len, dtype=torch.long, device=device)[:, None]
        memory = torch.arange(k_len, dtype=torch.long, device=device)[None, :]
        b = self.bucket(memory - context, self.bidirectional, self.buckets, self.max_distance)
        return self.relative_attention_bias(b).permute([2, 0, 1]).unsqueeze(0)

    def forward(self, x, mask=None, kv=None, position_bias=None):
        bsz, seq = x.shape[:2]
        src = x if kv is None else kv

        def shape(t):
            return t.view(bsz, -1, self.heads, self.hd).transpose(1, 2)
        q, k, v = shape(self.q(x)), shape(self.k(src)), shape(self.v(src))
        scores = torch.matmul(q, k.transpose(3, 2))
        if position_bias is None:
            if self.has_bias:
                position_bias = self.compute_bias(seq, src.shape[1], scores.device)
            else:
                position_bias = torch.zeros((1, self.heads, seq, src.shape[1]), device=scores.device,
                                            dtype=scores.dtype)
            if mask is not None:
                position_bias = position_bias + mask
        w = F.softmax((scores + position_bias).float(), dim=-1).type_as(scores)
        o = torch.matmul(w, v).transpose(1, 2).contiguous().view(bsz, -1, self.heads * self.hd)
        return self.o(o), position_bias


class T5Block(nn.Module):
    def __init__(self, d, heads, ff, has_bias, decoder):
        super().__init__()
        self.ln0, self.ln2 = RMSNorm(d), RMSNorm(d)
        self.sa = T5Attention(d, heads, has_bias, bidirectional=not decoder)
        self.decoder = decoder
        if decoder:
            self.ln1 = RMSNorm(d)
            self.ca = T5Attention(d, heads, False, bidirectional=True)
        self.wi, self.wo = nn.Linear(d, ff, bias=False), nn.Linear(ff, d, bias=False)

    def forward(self, x, mask, bias, enc=None, enc_mask=None, enc_bias=None):
        a, bias = self.sa(self.ln0(x), mask, position_bias=bias)
        x = x + a
        if self.decoder:
            a, enc_bias = self.ca(self.ln1(x), enc_mask, kv=enc, position_bias=enc_bias)
            x = x + a
        return x + self.wo(F.relu(self.wi(self.ln2(x)))), bias, enc_bias


class T5(nn.Module):
    def __init__(self, vocab=40, d=32, heads=4, ff=64, layers=2):
        super().__init__()
        self.shared = nn.Embedding(vocab, d)
        self.enc = nn.ModuleList([T5Block(d, heads, ff, i == 0, False) for i in range(layers)])
        self.dec = nn.ModuleList([T5Block(d, heads, ff, i == 0, True) for i in range(layers)])
        self.enc_norm, self.dec_norm = RMSNorm(d), RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.d = d

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        dtype = torch.float32
        ext = (1.0 - attention_mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        x, bias = self.shared(input_ids), None
        for block in self.enc:
            x, bias, _ = block(x, ext, bias)
        enc = self.enc_norm(x)
        bsz, tgt = decoder_input_ids.shape
        seq_ids = torch.arange(tgt, device=enc.device)
        causal = (seq_ids[None, None, :].repeat(bsz, tgt, 1) <= seq_ids[None, :, None]).to(dtype)[:, None, :, :]
        dmask = (1.0 - causal) * torch.finfo(dtype).min
        y, bias, enc_bias = self.shared(decoder_input_ids), None, None
        for block in self.dec:
            y, bias, enc_bias = block(y, dmask, bias, enc, ext, enc_bias)
        return self.lm_head(self.dec_norm(y) * (self.d ** -0.5))


# ---------------------------------------------------------------- ALiBi
def alibi_slopes(heads):
    base = torch.tensor(2 ** (-(2 ** -(math.log2(heads) - 3))), dtype=torch.float32)
    return torch.pow(base, torch.arange(1, 1 + heads, dtype=torch.int32))


class AlibiLM(nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, layers=2, window=None):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.emb = nn.Embedding(vocab, d)
        self.ln = nn.LayerNorm(d)
        self.qkv = nn.ModuleList([nn.Linear(d, 3 * d) for _ in range(layers)])
        self.out = nn.ModuleList([nn.Linear(d, d) for _ in range(layers)])
        self.register_buffer("slopes", alibi_slopes(heads))
        self.window = window

    def forward(self, input_ids, attention_mask):
        bsz, seq = input_ids.shape
        x = self.ln(self.emb(input_ids))
        positions = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
        alibi = (self.slopes[..., None] * positions).reshape(bsz, self.heads, 1, seq)
        i = torch.arange(seq, device=x.device)
        hidden = i[None, :] > i[:, None]
        if self.window is not None:
            hidden = hidden | (i[:, None] - i[None, :] >= self.window)
        hidden = hidden[None, None] | (attention_mask[:, None, None, :] == 0)
        for qkv, out in zip(self.qkv, self.out):
            q, k, v = qkv(x).view(bsz, seq, 3, self.heads, self.hd).unbind(2)
            s = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(self.hd) + alibi
            p = s.masked_fill(hidden, torch.finfo(s.dtype).min).softmax(-1)
            x = x + out(torch.einsum("bhqk,bkhd->bqhd", p, v).reshape(bsz, seq, -1))
        return x


# ---------------------------------------------------------------- older HF decoders, DistilBERT
def make_causal_mask(bsz, tgt_len, dtype, device):
    """transformers' _make_causal_mask (no past): masked_fill_ of a full(finfo.min)."""
    mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min, device=device)
    mask_cond = torch.arange(mask.size(-1), device=device)
    mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
    return mask.to(dtype)[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len)


def expand_mask(mask, dtype, tgt_len):
    """transformers' _expand_mask: [b, s] -> [b, 1, t, s] of 0 / finfo.min."""
    bsz, src_len = mask.size()
    inverted = 1.0 - mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    return inverted.masked_fill(inverted.to(torch.bool), torch.finfo(dtype).min)


class OldDecoder(nn.Module):
    """An OPT/GPT-J-style decoder with a classification head: positions from the cumsum of
    the non-padding tokens, a sinusoidal table (non-persistent) read with index_select,
    GPT-J's rotate_every_two rotary (strided slices, stack, flatten, einsum outer product,
    repeat_interleave), baddbmm scores clamped at finfo.min, and the last non-padding
    token's logits picked with `logits[arange(b), argmax(eq(ids, pad)) - 1]`."""

    def __init__(self, vocab=50, d=32, heads=4, pad=1):
        super().__init__()
        self.pad, self.heads, self.hd = pad, heads, d // heads
        self.emb = nn.Embedding(vocab, d, padding_idx=pad)
        self.pos = nn.Embedding(66, d)
        half = d // 2
        freq = torch.exp(torch.arange(half, dtype=torch.float) * -(math.log(10000) / (half - 1)))
        table = torch.arange(66, dtype=torch.float).unsqueeze(1) * freq.unsqueeze(0)
        self.register_buffer("sin_table", torch.cat([torch.sin(table), torch.cos(table)], dim=1), persistent=False)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd)),
                             persistent=False)
        self.qkv, self.out, self.score = nn.Linear(d, 3 * d), nn.Linear(d, d), nn.Linear(d, 3)
        self.embed_scale = math.sqrt(d)

    @staticmethod
    def rotate_every_two(x):
        return torch.stack((-x[:, :, :, 1::2], x[:, :, :, ::2]), dim=-1).flatten(-2)

    def forward(self, input_ids, attention_mask):
        bsz, seq = input_ids.shape
        not_pad = input_ids.ne(self.pad).int()
        positions = (torch.cumsum(not_pad, dim=1).type_as(not_pad) * not_pad).long() + self.pad
        x = self.emb(input_ids) * self.embed_scale + self.pos(positions)
        x = x + self.sin_table.index_select(0, positions.view(-1)).view(bsz, seq, -1).detach()
        mask = make_causal_mask(bsz, seq, x.dtype, x.device) + expand_mask(attention_mask, x.dtype, seq)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k = q.view(bsz, seq, self.heads, self.hd), k.view(bsz, seq, self.heads, self.hd)
        sinusoid = torch.einsum("i , j -> i j", torch.arange(seq, dtype=torch.float), self.inv_freq)
        sin = torch.repeat_interleave(torch.sin(sinusoid)[None, :, None, :], 2, 3)
        cos = torch.repeat_interleave(torch.cos(sinusoid)[None, :, None, :], 2, 3)
        q = q * cos + self.rotate_every_two(q) * sin
        k = k * cos + self.rotate_every_two(k) * sin
        q = q.transpose(1, 2).reshape(bsz * self.heads, seq, self.hd)
        k = k.transpose(1, 2).reshape(bsz * self.heads, seq, self.hd)
        v = v.view(bsz, seq, self.heads, self.hd).transpose(1, 2).reshape(bsz * self.heads, seq, self.hd)
        s = torch.baddbmm(torch.zeros(bsz * self.heads, seq, seq), q, k.transpose(1, 2), beta=0.0,
                          alpha=1 / math.sqrt(self.hd))
        s = torch.max(s.view(bsz, self.heads, seq, seq) + mask, torch.tensor(torch.finfo(s.dtype).min))
        p = F.softmax(s, dim=-1).view(bsz * self.heads, seq, seq)
        o = torch.bmm(p, v).view(bsz, self.heads, seq, self.hd).transpose(1, 2).reshape(bsz, seq, -1)
        logits = self.score(x + self.out(o))
        last = (torch.eq(input_ids, self.pad).int().argmax(-1) - 1) % input_ids.shape[-1]
        return logits, logits[torch.arange(bsz, device=logits.device), last]


class DistilBert(nn.Module):
    """DistilBERT's masking (`(mask == 0).view(b, 1, 1, s).expand_as(scores)`,
    masked_fill with `torch.tensor(finfo.min)`), positions from the mask's cumsum written
    in place (`masked_fill_`, as generate()'s prepare_inputs does), and CLIP's pooling at
    the highest token id (`x[arange(b), ids.argmax(-1)]`)."""

    def __init__(self, vocab=50, d=32, heads=4):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.emb, self.pos = nn.Embedding(vocab, d), nn.Embedding(64, d)
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.ln = nn.LayerNorm(d)

    def forward(self, input_ids, mask):
        bs, q_length = input_ids.shape
        position_ids = mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(mask == 0, 1)
        x = self.emb(input_ids) + self.pos(position_ids)

        def shape(t):
            return t.view(bs, -1, self.heads, self.hd).transpose(1, 2)
        q, k, v = shape(self.q(x)) / math.sqrt(self.hd), shape(self.k(x)), shape(self.v(x))
        scores = torch.matmul(q, k.transpose(2, 3))
        hidden = (mask == 0).view(bs, 1, 1, q_length).expand_as(scores)
        scores = scores.masked_fill(hidden, torch.tensor(torch.finfo(scores.dtype).min))
        ctx = torch.matmul(nn.functional.softmax(scores, dim=-1), v).transpose(1, 2).contiguous()
        x = self.ln(x + ctx.view(bs, -1, self.heads * self.hd))
        return x, x[torch.arange(x.shape[0], device=x.device), input_ids.to(dtype=torch.int).argmax(dim=-1)]


# ---------------------------------------------------------------- inputs
def token_ids(vocab):
    def make(shape, g):
        b, s = shape
        return (torch.randint(0, vocab, (b, s), generator=g),)
    return make


def bert_inputs(shape, g):
    """Padding at the end of the first row (its mask 0 and token 0), two segments."""
    b, s = shape
    ids = torch.randint(1, 60, (b, s), generator=g)
    mask = torch.ones(b, s, dtype=torch.long)
    if s > 2:
        mask[0, -2:] = 0
        ids[0, -2:] = 0
    types = torch.zeros(b, s, dtype=torch.long)
    types[:, s // 2:] = 1
    return ids, mask, types


def t5_inputs(shape, g):
    b, s, t = shape
    mask = torch.ones(b, s, dtype=torch.long)
    if s > 2:
        mask[-1, -2:] = 0
    return torch.randint(0, 40, (b, s), generator=g), mask, torch.randint(0, 40, (b, t), generator=g)


def decode_inputs(shape, g, layers=2, kv_heads=2, hd=8):
    """input_ids [b, s], attention_mask [b, past + s] (the second row left-padded by 2),
    past keys and values [b, kv_heads, past, hd] per layer."""
    b, s, past = shape
    mask = torch.ones(b, past + s, dtype=torch.long)
    if b > 1 and past > 2:
        mask[1, :2] = 0
    cache = tuple((torch.randn(b, kv_heads, past, hd, generator=g), torch.randn(b, kv_heads, past, hd, generator=g))
                  for _ in range(layers))
    return torch.randint(0, 64, (b, s), generator=g), mask, cache


def alibi_inputs(shape, g):
    b, s = shape
    mask = torch.ones(b, s, dtype=torch.long)
    if s > 2:
        mask[0, :2] = 0
    return torch.randint(0, 50, (b, s), generator=g), mask


def padded_inputs(shape, g):
    """Token ids 2.. with the first row's last two tokens padding (id 1, mask 0)."""
    b, s = shape
    ids = torch.randint(2, 50, (b, s), generator=g)
    mask = torch.ones(b, s, dtype=torch.long)
    if s > 2:
        ids[0, -2:] = 1
        mask[0, -2:] = 0
    return ids, mask


def seq_axes(inputs, outputs, out_axes=None):
    """Batch and sequence dynamic on every input and output named (out_axes overrides)."""
    axes = {n: {0: "batch", 1: "seq"} for n in inputs + outputs}
    axes.update(out_axes or {})
    return axes


CACHE_IN = [f"past.{i}.{kv}" for i in range(2) for kv in ("key", "value")]
CACHE_OUT = [f"present.{i}.{kv}" for i in range(2) for kv in ("key", "value")]
DECODE_AXES = dict({"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "total"},
                    "logits": {0: "batch", 1: "seq"}},
                   **{n: {0: "batch", 2: "past"} for n in CACHE_IN}, **{n: {0: "batch", 2: "total"} for n in CACHE_OUT})

# label -> (model factory, make(shape, generator) -> args, input names, output names, dynamic axes,
# [example shape, other shapes ...])
CASES = {
    "gpt2": (GPT2, token_ids(50), ["input_ids"], ["logits"], seq_axes(["input_ids"], ["logits"]),
             [(2, 7), (1, 1), (3, 12), (1, 20)]),
    "nanogpt": (NanoGPT, token_ids(50), ["idx"], ["last", "logits"],
                seq_axes(["idx"], ["logits"], {"last": {0: "batch"}}), [(2, 7), (1, 1), (3, 12)]),
    "llama": (Llama, token_ids(64), ["input_ids"], ["logits"], seq_axes(["input_ids"], ["logits"]),
              [(2, 7), (1, 1), (3, 12), (1, 20)]),
    "llama_decode": (LlamaDecode, decode_inputs, ["input_ids", "attention_mask"] + CACHE_IN, ["logits"] + CACHE_OUT,
                     DECODE_AXES, [(2, 1, 5), (1, 1, 1), (3, 1, 9), (2, 4, 3), (1, 3, 0)]),
    "llama_decode_cumsum": (lambda: LlamaDecode(cumsum_positions=True), decode_inputs,
                            ["input_ids", "attention_mask"] + CACHE_IN, ["logits"] + CACHE_OUT, DECODE_AXES,
                            [(2, 1, 5), (1, 1, 1), (3, 2, 9)]),
    "bert": (Bert, bert_inputs, ["input_ids", "attention_mask", "token_type_ids"],
             ["last_hidden_state", "pooler_output"],
             seq_axes(["input_ids", "attention_mask", "token_type_ids"], ["last_hidden_state"],
                      {"pooler_output": {0: "batch"}}), [(2, 7), (1, 1), (3, 12)]),
    "bert_defaults": (Bert, lambda shape, g: bert_inputs(shape, g)[:1], ["input_ids"],
                      ["last_hidden_state", "pooler_output"],
                      seq_axes(["input_ids"], ["last_hidden_state"], {"pooler_output": {0: "batch"}}),
                      [(2, 7), (1, 1), (3, 12)]),
    "t5": (T5, t5_inputs, ["input_ids", "attention_mask", "decoder_input_ids"], ["logits"],
           {"input_ids": {0: "batch", 1: "src"}, "attention_mask": {0: "batch", 1: "src"},
            "decoder_input_ids": {0: "batch", 1: "tgt"}, "logits": {0: "batch", 1: "tgt"}},
           [(2, 7, 5), (1, 1, 1), (3, 30, 4)]),
    "old_decoder": (OldDecoder, padded_inputs, ["input_ids", "attention_mask"], ["logits", "pooled"],
                    seq_axes(["input_ids", "attention_mask"], ["logits"], {"pooled": {0: "batch"}}),
                    [(2, 7), (1, 1), (3, 12)]),
    "distilbert": (DistilBert, padded_inputs, ["input_ids", "mask"], ["hidden", "eot"],
                   seq_axes(["input_ids", "mask"], ["hidden"], {"eot": {0: "batch"}}), [(2, 7), (1, 1), (3, 12)]),
    "alibi": (AlibiLM, alibi_inputs, ["input_ids", "attention_mask"], ["hidden"],
              seq_axes(["input_ids", "attention_mask"], ["hidden"]), [(2, 7), (1, 1), (3, 12)]),
    "alibi_window": (lambda: AlibiLM(window=3), alibi_inputs, ["input_ids", "attention_mask"], ["hidden"],
                     seq_axes(["input_ids", "attention_mask"], ["hidden"]), [(2, 7), (1, 1), (3, 12)]),
}


def eager(model, args):
    with torch.no_grad():
        return [t.numpy() for t in oxt._recorder.tensors_in(model(*args))]


def feeds(names, args):
    return dict(zip(names, [t.numpy() for t in oxt._recorder.tensors_in(args)]))


class LanguageModel(unittest.TestCase):
    label = None

    def setUp(self):
        factory, make, self.names, self.outs, self.axes, shapes = CASES[self.label]
        torch.manual_seed(0)
        self.model = randomize_norms(factory()).eval()
        g = torch.Generator().manual_seed(1)
        # the example, other values of its shapes, then the other shapes
        self.arg_sets = [make(shapes[0], g), make(shapes[0], g)] + [make(s, g) for s in shapes[1:]]
        self.example = self.arg_sets[0]
        self.wants = [eager(self.model, a) for a in self.arg_sets]
        modelcheck.assert_nontrivial(self.label, self.wants)
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-llm-")

    def tearDown(self):
        self.tmp.cleanup()

    def export(self, opset, trace="eager"):
        path = os.path.join(self.tmp.name, f"{self.label}_{opset}_{trace}.onnx")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            oxt.export(self.model, self.example, path, opset_version=opset, input_names=self.names,
                       output_names=self.outs, dynamic_axes=self.axes, trace=trace)
        said = [str(w.message) for w in caught if issubclass(w.category, oxt.TracerWarning)]
        self.assertEqual(said, [], f"opset {opset}, trace={trace}: a value was fixed to the example")
        return path

    def export_check_run(self, opset):
        path = self.export(opset)
        onnxval.check(path)
        for a, w in zip(self.arg_sets[2:], self.wants[2:]):
            print(f"{self.label}: run at {[list(t.shape) for t in oxt._recorder.tensors_in(a)]} "
                  f"-> {[list(x.shape) for x in w]}")
        modelcheck.assert_matches(f"{self.label} opset {opset}", path, [feeds(self.names, a) for a in self.arg_sets],
                                  self.wants, modelcheck.torch_onnx_reference(self.model, self.example, opset,
                                                                              self.names, self.outs, self.axes))
        if opset == FAKE_OPSET:
            with open(path, "rb") as f1, open(self.export(opset, trace="fake"), "rb") as f2:
                self.assertTrue(f1.read() == f2.read(), "trace='fake' wrote another file than trace='eager'")


def make_suite():
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for label in CASES:
        attrs = {"label": label}
        for opset in OPSETS:
            attrs[f"test_opset_{opset}"] = (lambda o: lambda self: self.export_check_run(o))(opset)
        suite.addTests(loader.loadTestsFromTestCase(type(f"Test_{label}", (LanguageModel,), attrs)))
    return suite


def load_tests(loader, tests, pattern):
    return make_suite()


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main(verbosity=2)
