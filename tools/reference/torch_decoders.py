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

def _schema_without_tensorflow():
    """litert-torch's LoRA layer imports TensorFlow's schema_py_generated
    only for its flatbuffer schema; ai-edge-litert ships the same module, so
    the venv needs no TensorFlow (which litert-torch 0.10 does not install)."""
    import types
    try:
        import tensorflow.lite.python.schema_py_generated  # noqa: F401
        return
    except ImportError:
        pass
    from ai_edge_litert import schema_py_generated
    import importlib.machinery
    for name in ("tensorflow", "tensorflow.lite", "tensorflow.lite.python"):
        module = types.ModuleType(name)
        module.__spec__ = importlib.machinery.ModuleSpec(name, None)  # torch._dynamo looks for one
        sys.modules.setdefault(name, module)
    sys.modules["tensorflow.lite.python.schema_py_generated"] = schema_py_generated
    sys.modules["tensorflow.lite.python"].schema_py_generated = schema_py_generated


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
    """A GPT-style decoder (LayerNorm, GELU MLP, learned positions) whose
    caches [1, MAX_LEN, HEADS, HEAD_DIM] per layer are written with
    index_copy at the input positions; a causal mask from the positions."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.positions = nn.Embedding(MAX_LEN, WIDTH)
        self.qkv = nn.ModuleList(nn.Linear(WIDTH, 3 * WIDTH) for _ in range(LAYERS))
        self.proj = nn.ModuleList(nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS))
        self.mlp_in = nn.ModuleList(nn.Linear(WIDTH, 2 * WIDTH) for _ in range(LAYERS))
        self.mlp_out = nn.ModuleList(nn.Linear(2 * WIDTH, WIDTH) for _ in range(LAYERS))
        self.norm1 = nn.ModuleList(nn.LayerNorm(WIDTH) for _ in range(LAYERS))
        self.norm2 = nn.ModuleList(nn.LayerNorm(WIDTH) for _ in range(LAYERS))
        self.norm_f = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, tokens, input_pos, k_cache_0, v_cache_0, k_cache_1, v_cache_1):
        caches = [k_cache_0, v_cache_0, k_cache_1, v_cache_1]
        t = tokens.shape[1]
        x = self.embed(tokens) + self.positions(input_pos)[None]
        mask = torch.arange(MAX_LEN, dtype=torch.int32)[None, :] <= input_pos[:, None]  # [T, MAX_LEN]
        out = {}
        for layer in range(LAYERS):
            q, k, v = self.qkv[layer](self.norm1[layer](x)).split(WIDTH, dim=-1)
            k_cache = caches[2 * layer].index_copy(1, input_pos, k.reshape(1, t, HEADS, HEAD_DIM))
            v_cache = caches[2 * layer + 1].index_copy(1, input_pos, v.reshape(1, t, HEADS, HEAD_DIM))
            out[f"k_cache_{layer}"], out[f"v_cache_{layer}"] = k_cache, v_cache
            q = q.reshape(1, t, HEADS, HEAD_DIM).transpose(1, 2)  # [1, H, T, D]
            scores = q @ k_cache.permute(0, 2, 3, 1) / (HEAD_DIM**0.5)  # [1, H, T, MAX_LEN]
            scores = scores.masked_fill(~mask[None, None], -1e9)
            attn = (scores.softmax(dim=-1) @ v_cache.transpose(1, 2)).transpose(1, 2)  # [1, T, H, D]
            x = x + self.proj[layer](attn.reshape(1, t, WIDTH))
            h = torch.nn.functional.gelu(self.mlp_in[layer](self.norm2[layer](x)))
            x = x + self.mlp_out[layer](h)
        out["logits"] = self.head(self.norm_f(x))
        return out


def index_copy_model():
    import litert_torch

    torch.manual_seed(SEED)
    model = IndexCopyDecoder().eval()

    def kwargs(n):
        d = {"tokens": torch.zeros(1, n, dtype=torch.int32), "input_pos": torch.arange(n, dtype=torch.int32)}
        for layer in range(LAYERS):
            for kv in "kv":
                d[f"{kv}_cache_{layer}"] = torch.zeros(1, MAX_LEN, HEADS, HEAD_DIM)
        return d

    return (litert_torch.signature("prefill", model, sample_kwargs=kwargs(PREFILL))
            .signature("decode", model, sample_kwargs=kwargs(1)).convert())


def litert_gen_model():
    """litert-torch's toy decoder (its generative layers: TransformerBlock,
    RMS norm, RoPE, the external KV cache) at the small config, converted as
    its converter does (converter._add_signatures), with the signatures
    named prefill and decode and logits on both."""
    _schema_without_tensorflow()
    import litert_torch
    from litert_torch.generative.examples.test_models import toy_model_with_kv_cache as toy
    from litert_torch.generative.layers import kv_cache as kv_utils
    import litert_torch.generative.layers.model_config as cfg
    from litert_torch.generative.utilities import converter, export_config

    attn = cfg.AttentionConfig(num_heads=HEADS, head_dim=HEAD_DIM, num_query_groups=HEADS, rotary_base=10000,
                               rotary_percentage=1.0)
    ff = cfg.FeedForwardConfig(type=cfg.FeedForwardType.GATED, activation=cfg.ActivationConfig(cfg.ActivationType.SILU),
                               intermediate_size=2 * WIDTH)
    norm = cfg.NormalizationConfig(type=cfg.NormalizationType.RMS_NORM)
    block = cfg.TransformerBlockConfig(attn_config=attn, ff_config=ff, pre_attention_norm_config=norm,
                                       post_attention_norm_config=norm)
    config = cfg.ModelConfig(vocab_size=VOCAB, num_layers=LAYERS, max_seq_len=MAX_LEN, embedding_dim=WIDTH,
                             block_configs=block, final_norm_config=norm)
    torch.manual_seed(SEED)
    model = toy.ToyModelWithKVCache(config).eval()
    ec = export_config.ExportConfig(output_logits_on_prefill=True)
    mod = converter.ExportableModule(model, export_config=ec).eval()
    kv = kv_utils.KVCache.from_model_config(MAX_LEN, config)
    prefill = {"tokens": torch.zeros(1, PREFILL, dtype=torch.int), "input_pos": torch.arange(PREFILL, dtype=torch.int),
               "kv_cache": kv}
    decode = {"tokens": torch.zeros(1, 1, dtype=torch.int), "input_pos": torch.tensor([0], dtype=torch.int),
              "kv_cache": kv}
    return (litert_torch.signature("prefill", mod, sample_kwargs=prefill)
            .signature("decode", mod, sample_kwargs=decode).convert())


def greedy(interp, prompt):
    """LiteRT's prefill then DECODE_STEPS greedy steps, the caches fed back
    (each cache output has its input's name)."""
    prefill = interp.get_signature_runner("prefill")
    decode = interp.get_signature_runner("decode")
    details = prefill.get_input_details()
    caches = {n: np.zeros(d["shape"], d["dtype"]) for n, d in details.items() if n not in ("tokens", "input_pos")}
    out = prefill(tokens=prompt.reshape(1, -1), input_pos=np.arange(prompt.size, dtype=np.int32), **caches)
    logits_prefill = out["logits"][0, -1].astype(np.float32)
    tokens = [int(np.argmax(logits_prefill))]
    steps = []
    for s in range(DECODE_STEPS):
        caches = {n: out[n] for n in caches}
        out = decode(tokens=np.array([[tokens[-1]]], np.int32), input_pos=np.array([prompt.size + s], np.int32),
                     **caches)
        steps.append(out["logits"][0, -1].astype(np.float32))
        tokens.append(int(np.argmax(steps[-1])))
    return np.array(tokens, np.int32), logits_prefill, np.stack(steps)


MODELS = {"litert_gen": lambda: litert_gen_model(), "index_copy": lambda: index_copy_model()}


def make(name, out_dir):
    from ai_edge_litert import interpreter as litert

    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.tflite")
    MODELS[name]().export(path)
    # Optimized builtin kernels without XNNPACK (its own summation order stays out).
    interp = litert.Interpreter(
        model_path=path, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    prompt = np.random.default_rng(SEED).integers(0, VOCAB, PREFILL).astype(np.int32)
    tokens, logits_prefill, logits_decode = greedy(interp, prompt)
    np.save(os.path.join(folder, "prompt.npy"), prompt)
    np.save(os.path.join(folder, "tokens.npy"), tokens)
    np.save(os.path.join(folder, "logits_prefill.npy"), logits_prefill)
    np.save(os.path.join(folder, "logits_decode.npy"), logits_decode)
    manifest = {
        "model": "model.tflite", "generator": "tools/reference/torch_decoders.py", "seed": SEED,
        "litert": litert.__dict__.get("__version__", ""), "resolver": "BUILTIN_WITHOUT_DEFAULT_DELEGATES",
        "prefill_tokens": PREFILL, "decode_steps": DECODE_STEPS, "signatures": interp.get_signature_list(),
    }
    try:
        import importlib.metadata as md
        manifest["litert"] = md.version("ai-edge-litert")
        manifest["litert_torch"] = md.version("litert-torch")
    except Exception:  # noqa: BLE001 - versions are informative only
        pass
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    print(name, "tokens", tokens.tolist(), "bytes", os.path.getsize(path))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "..", "..", "tests", "data", "decoders"))
    parser.add_argument("--only", choices=sorted(MODELS), default=None)
    a = parser.parse_args()
    for name in sorted(MODELS):
        if a.only is None or a.only == name:
            make(name, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
