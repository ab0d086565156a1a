#!/usr/bin/env python3
"""Tiny generative decoders converted by litert-torch, with LiteRT's greedy
decode as the reference (tests/data/decoders/<name>/).

Each model: vocab 512, 2 layers, a small width, a KV cache of 64 positions,
seeded random weights; two signatures, `prefill` (8 tokens) and `decode`
(1 token), the cache as inputs and outputs of both. LiteRT runs the prefill
on the prompt, then 16 greedy decode steps, each feeding back the caches the
step before returned. Stored beside each .tflite:

  prompt.npy          int32 [8]       the prompt tokens
  tokens.npy          int32 [17]      the argmax after the prefill, then after each decode step
  logits_prefill.npy  float32 [512]   the logits at the prompt's last position
  logits_decode.npy   float32 [16, 512] the logits of each decode step
  manifest.json       the signatures' input and output names, the LiteRT version

Models:
  litert_gen   built from litert-torch's generative layers (its KV cache as
               inputs and outputs, DYNAMIC_UPDATE_SLICE, the scaled-dot-product
               attention composite, RMS norm, RoPE)
  index_copy   plain PyTorch: the cache written with Tensor.index_copy
               (STABLEHLO_SCATTER)

Run with the venv that has litert-torch (tools/reference/README.md):
  /work/venvs/torch/bin/python tools/reference/torch_decoders.py [--out DIR] [--only NAME]
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
from torch import nn

VOCAB = 512
LAYERS = 2
WIDTH = 32
HEADS = 2
HEAD_DIM = WIDTH // HEADS
MAX_LEN = 64
PREFILL = 8
DECODE_STEPS = 16
SEED = 47


class IndexCopyDecoder(nn.Module):
    """A GPT-style decoder whose cache [1, MAX_LEN, HEADS, HEAD_DIM] per layer
    is written with index_copy at the input positions."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.qkv = nn.ModuleList(nn.Linear(WIDTH, 3 * WIDTH) for _ in range(LAYERS))
        self.proj = nn.ModuleList(nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS))
        self.mlp_in = nn.ModuleList(nn.Linear(WIDTH, 2 * WIDTH) for _ in range(LAYERS))
        self.mlp_out = nn.ModuleList(nn.Linear(2 * WIDTH, WIDTH) for _ in range(LAYERS))
        self.norm1 = nn.ModuleList(nn.LayerNorm(WIDTH) for _ in range(LAYERS))
        self.norm2 = nn.ModuleList(nn.LayerNorm(WIDTH) for _ in range(LAYERS))
        self.norm_f = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, tokens, input_pos, *caches):
        x = self.embed(tokens)  # [1, T, WIDTH]
        t = tokens.shape[1]
        positions = torch.arange(MAX_LEN, dtype=torch.int32)
        mask = positions[None, :] <= input_pos[:, None]  # [T, MAX_LEN]
        out_caches = []
        for layer in range(LAYERS):
            h = self.norm1[layer](x)
            q, k, v = self.qkv[layer](h).split(WIDTH, dim=-1)
            q = q.reshape(1, t, HEADS, HEAD_DIM)
            k = k.reshape(1, t, HEADS, HEAD_DIM)
            v = v.reshape(1, t, HEADS, HEAD_DIM)
            k_cache = caches[2 * layer].index_copy(1, input_pos, k)
            v_cache = caches[2 * layer + 1].index_copy(1, input_pos, v)
            out_caches += [k_cache, v_cache]
            scores = torch.einsum("bthd,bshd->bhts", q, k_cache) / (HEAD_DIM**0.5)
            scores = scores.masked_fill(~mask[None, None], -1e9)
            attn = torch.einsum("bhts,bshd->bthd", scores.softmax(dim=-1), v_cache)
            x = x + self.proj[layer](attn.reshape(1, t, WIDTH))
            x = x + self.mlp_out[layer](torch.nn.functional.gelu(self.mlp_in[layer](self.norm2[layer](x))))
        logits = self.head(self.norm_f(x))
        return (logits, *out_caches)


def index_copy_model():
    torch.manual_seed(SEED)
    model = IndexCopyDecoder().eval()
    cache = torch.zeros(1, MAX_LEN, HEADS, HEAD_DIM)
    caches = tuple(cache.clone() for _ in range(2 * LAYERS))

    def args(n):
        return (torch.zeros(1, n, dtype=torch.int32), torch.arange(n, dtype=torch.int32)) + caches

    import litert_torch

    edge = litert_torch.signature("prefill", model, args(PREFILL)).signature("decode", model, args(1)).convert()
    return edge


def litert_gen_model():
    """A decoder from litert-torch's generative layers (its toy model config)."""
    from litert_torch.generative.layers import kv_cache as kv_utils
    from litert_torch.generative.utilities import converter, export_config as export_cfg
    import litert_torch.generative.layers.model_config as cfg
    from litert_torch.generative.utilities import model_builder

    attn_config = cfg.AttentionConfig(
        num_heads=HEADS, head_dim=HEAD_DIM, num_query_groups=HEADS, rotary_base=10000, rotary_percentage=1.0
    )
    ff_config = cfg.FeedForwardConfig(
        type=cfg.FeedForwardType.GATED,
        activation=cfg.ActivationConfig(cfg.ActivationType.SILU),
        intermediate_size=2 * WIDTH,
    )
    norm_config = cfg.NormalizationConfig(type=cfg.NormalizationType.RMS_NORM)
    block_config = cfg.TransformerBlockConfig(
        attn_config=attn_config, ff_config=ff_config, pre_attention_norm_config=norm_config,
        post_attention_norm_config=norm_config,
    )
    config = cfg.ModelConfig(
        vocab_size=VOCAB, num_layers=LAYERS, max_seq_len=MAX_LEN, embedding_dim=WIDTH,
        block_configs=block_config, final_norm_config=norm_config, lm_head_share_weight_with_embedding=True,
    )
    torch.manual_seed(SEED)
    model = model_builder.DecoderOnlyModel(config).eval()
    return converter, export_cfg, kv_utils, model, config


def greedy(interp, prompt):
    """LiteRT's prefill then DECODE_STEPS greedy steps; the caches fed back."""
    prefill = interp.get_signature_runner("prefill")
    decode = interp.get_signature_runner("decode")
    pin = prefill.get_input_details()
    cache_names = sorted(n for n in pin if n not in ("tokens", "input_pos", "mask"))
    feeds = {n: np.zeros(pin[n]["shape"], pin[n]["dtype"]) for n in cache_names}
    out = prefill(tokens=prompt.reshape(1, -1), input_pos=np.arange(PREFILL, dtype=np.int32), **feeds)
    logits_prefill = out["logits"][0, -1].astype(np.float32)
    tokens = [int(np.argmax(logits_prefill))]
    steps = []
    caches = {n: out[output_name_for(n, out)] for n in cache_names}
    for s in range(DECODE_STEPS):
        pos = PREFILL + s
        out = decode(tokens=np.array([[tokens[-1]]], np.int32), input_pos=np.array([pos], np.int32), **caches)
        logits = out["logits"][0, -1].astype(np.float32)
        steps.append(logits)
        tokens.append(int(np.argmax(logits)))
        caches = {n: out[output_name_for(n, out)] for n in cache_names}
    return np.array(tokens, np.int32), logits_prefill, np.stack(steps)


def output_name_for(input_name, outputs):
    """The output that carries cache input `input_name` (the same name, or
    litert-torch's kv_cache_k_0 in / kv_cache_k_0 out)."""
    if input_name in outputs:
        return input_name
    raise KeyError("no output for cache input %r (outputs: %s)" % (input_name, sorted(outputs)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "decoders"))
    parser.add_argument("--only", default=None)
    a = parser.parse_args()
    return 0


if __name__ == "__main__":
    sys.exit(main())
