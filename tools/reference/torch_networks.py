#!/usr/bin/env python3
"""Whole networks written in PyTorch, converted with litert-torch, with
LiteRT's outputs: tests/data/networks/pt_<name>_float32/.

Usage:
    python3 tools/reference/torch_networks.py [--out DIR] [--only NAME ...] [--list]

Needs torch, torchvision, timm and litert-torch (0.10; it brings
ai-edge-litert) in a virtual environment of their own (tools/reference/README.md).
Nothing is downloaded at run time: torchvision models with weights=None,
timm models with pretrained=False, all weights from torch.manual_seed.
Widths, depths and inputs are small so the files stay small (each a few
hundred KB at most). The graphs are kept as the converter emits them: NCHW
inputs, TRANSPOSEs around the convolutions, rank-5/6 reshapes.

Every folder is what make_networks.py writes (the same manifest and input
rules, make_reference.generate): model.tflite, input_<i>.npy (or its head),
output_<i>.npy (LiteRT, resolver BUILTIN_REF), manifest.json with "network",
"variant" ("float32"), "shape_signatures" and "source" (the builder's
docstring).

The networks (pt_ prefix in the folder names):
    vit           timm VisionTransformer (patch 8 on 32x32, dim 64, depth 2, 2 heads)
    swin          timm SwinTransformer (32x32, patch 2, window 4, dims 32/64, depths 1/1)
    mobilevit     a conv stem and timm's MobileVitBlock (unfold / attention / fold)
    shufflenet    torchvision ShuffleNetV2 (repeats 1/1/1, channels 8/16/32/64/128)
    regnet        torchvision RegNet (Y: squeeze-excite, grouped 3x3 convolutions)
    mobilenet_v3  torchvision mobilenet_v3_small(width_mult=0.25)
    resnet        torchvision BasicBlocks (16 and 32 channels)
    pixel_grid    pixel_shuffle upsampling then grid_sample on an affine grid
    encoder       nn.TransformerEncoder (2 layers, d 32, 4 heads) with a mask
    audio         Conv1d keyword-spotting style model on 1600 samples

PT2E-quantized forms (torchao's prepare_pt2e / convert_pt2e with
litert-torch's PT2EQuantizer, symmetric per-channel weights, calibrated on
four seeded inputs, converted with its QuantConfig) of two CNNs, resnet and
mobilenet_v3:
    pt_<name>_int8           static: int8 activations, int8 input and output
    pt_<name>_dynamic_range  dynamic: int8 weights, float activations
                             (quantized per call by the kernels)
Their folders add output_<i>_default.npy (LiteRT's default kernels, the
"outputs_default" list) and torch_output_<i>.npy: the float output of the
quantized PyTorch module itself (its fake-quant graph) on the same input,
the model PyTorch meant ("torch_outputs" in the manifest).
"""

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference  # noqa: E402
import reflib  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CLASSES = 10


def build_vit():
    """timm VisionTransformer: patch embedding convolution, class token,
    position embedding, attention with the qkv split reshape(B, N, 3, H, D)
    .permute(2, 0, 3, 1, 4), GELU MLP, layer norms."""
    from timm.models.vision_transformer import VisionTransformer
    return VisionTransformer(img_size=32, patch_size=8, embed_dim=64, depth=2, num_heads=2, mlp_ratio=2,
                             num_classes=CLASSES), (1, 3, 32, 32)


def build_swin():
    """timm SwinTransformer: window partition and reverse (rank-6 reshapes
    and transposes), shifted windows (roll), relative position bias, patch
    merging."""
    from timm.models.swin_transformer import SwinTransformer
    return SwinTransformer(img_size=32, patch_size=2, window_size=4, embed_dim=32, depths=(1, 1), num_heads=(2, 4),
                           mlp_ratio=2, num_classes=CLASSES), (1, 3, 32, 32)


def build_mobilevit():
    """A MobileViT: conv stem, timm's MobileVitBlock (local conv, unfold into
    patches, transformer, fold back, fusion), pooling head."""
    import torch.nn as nn
    from timm.models.mobilevit import MobileVitBlock
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.SiLU(),
        MobileVitBlock(16, 24, transformer_dim=32, transformer_depth=1, patch_size=2, num_heads=2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(24, CLASSES))
    return model, (1, 3, 32, 32)


def build_shufflenet():
    """torchvision ShuffleNetV2: channel shuffle as reshape-transpose-reshape,
    chunk, concatenation, depthwise convolutions."""
    from torchvision.models import ShuffleNetV2
    return ShuffleNetV2([1, 1, 1], [8, 16, 32, 64, 128], num_classes=CLASSES), (1, 3, 64, 64)


def build_regnet():
    """torchvision RegNetY: grouped 3x3 convolutions (group width 8),
    squeeze-excite."""
    from torchvision.models.regnet import BlockParams, RegNet
    params = BlockParams.from_init_params(depth=4, w_0=16, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25)
    return RegNet(params, num_classes=CLASSES, stem_width=16), (1, 3, 64, 64)


def build_mobilenet_v3():
    """torchvision MobileNetV3-small at width 0.25: hard-swish, squeeze-excite
    with hard-sigmoid, depthwise convolutions."""
    from torchvision.models import mobilenet_v3_small
    return mobilenet_v3_small(weights=None, width_mult=0.25, num_classes=CLASSES), (1, 3, 64, 64)


def build_resnet():
    """torchvision ResNet BasicBlocks (16 and 32 channels, a strided block
    with a 1x1 downsample), max pooling, average pooling, Linear."""
    import torch.nn as nn
    from torchvision.models.resnet import BasicBlock
    down = nn.Sequential(nn.Conv2d(16, 32, 1, stride=2, bias=False), nn.BatchNorm2d(32))
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.MaxPool2d(3, stride=2, padding=1),
        BasicBlock(16, 16), BasicBlock(16, 32, stride=2, downsample=down), BasicBlock(32, 32),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, CLASSES))
    return model, (1, 3, 64, 64)


def build_pixel_grid():
    """pixel_shuffle (rank-6 reshape and transpose) then grid_sample
    (bilinear, zeros padding) on a fixed affine_grid, then a convolution."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class PixelGrid(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_in = nn.Conv2d(3, 32, 3, padding=1)
            self.conv_out = nn.Conv2d(8, 4, 3, padding=1)
            theta = torch.tensor([[[0.9, -0.2, 0.05], [0.15, 0.8, -0.1]]])
            self.register_buffer("grid", F.affine_grid(theta, (1, 8, 32, 32), align_corners=False))

        def forward(self, x):
            y = F.pixel_shuffle(torch.relu(self.conv_in(x)), 2)
            y = F.grid_sample(y, self.grid, mode="bilinear", padding_mode="zeros", align_corners=False)
            return self.conv_out(y)

    return PixelGrid(), (1, 3, 16, 16)


def build_encoder():
    """nn.TransformerEncoder (batch_first, 2 layers, d_model 32, 4 heads,
    GELU) with a fixed additive attention mask (banded; is_causal=False) and
    a Linear head, on [1, 16, 32] features."""
    import torch
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0, activation="gelu",
                                               batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            idx = torch.arange(16)
            band = (idx[None, :] - idx[:, None]).abs() > 4
            self.register_buffer("mask", torch.zeros(16, 16).masked_fill(band, float("-inf")))
            self.head = nn.Linear(32, CLASSES)

        def forward(self, x):
            return self.head(self.encoder(x, mask=self.mask, is_causal=False))

    return Encoder(), (1, 16, 32)


def build_audio():
    """A Conv1d audio model: strided Conv1d front end, BatchNorm1d, ReLU,
    max pooling, global average pooling, Linear, on 1600 samples."""
    import torch.nn as nn
    model = nn.Sequential(
        nn.Conv1d(1, 16, 40, stride=8, padding=16), nn.BatchNorm1d(16), nn.ReLU(),
        nn.Conv1d(16, 24, 5, padding=2), nn.BatchNorm1d(24), nn.ReLU(), nn.MaxPool1d(4),
        nn.Conv1d(24, 32, 3, padding=1, groups=1), nn.BatchNorm1d(32), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, CLASSES))
    return model, (1, 1, 1600)


NETWORKS = {
    "vit": build_vit,
    "swin": build_swin,
    "mobilevit": build_mobilevit,
    "shufflenet": build_shufflenet,
    "regnet": build_regnet,
    "mobilenet_v3": build_mobilenet_v3,
    "resnet": build_resnet,
    "pixel_grid": build_pixel_grid,
    "encoder": build_encoder,
    "audio": build_audio,
}


QUANTIZED = ("resnet", "mobilenet_v3")
VARIANTS = ("int8", "dynamic_range")
CALIBRATION_SEEDS = (100, 101, 102, 103)


def randomize_norms(model, seed):
    """Non-trivial BatchNorm statistics (the converter folds them) and, from a
    generator of their own (seed + 1), LayerNorm and GroupNorm affines, as a
    trained model has them (initialized, they are 1 and 0 and the converter
    drops them)."""
    import torch
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            n = m.num_features
            with torch.no_grad():
                m.weight.copy_(torch.rand(n, generator=g) + 0.5)
                m.bias.copy_(torch.rand(n, generator=g) * 0.6 - 0.3)
                m.running_mean.copy_(torch.rand(n, generator=g) * 0.6 - 0.3)
                m.running_var.copy_(torch.rand(n, generator=g) * 1.5 + 0.5)
    g = torch.Generator().manual_seed(seed + 1)
    for m in model.modules():
        if isinstance(m, (torch.nn.LayerNorm, torch.nn.GroupNorm)) and m.weight is not None:
            with torch.no_grad():
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
                if m.bias is not None:
                    m.bias.copy_(torch.rand(m.bias.shape, generator=g) * 0.6 - 0.3)


def pt2e_quantize(model, sample, shape, variant):
    """`model` quantized with PT2E (static for int8, dynamic for
    dynamic_range): the converted module and litert-torch's QuantConfig."""
    import torch
    from litert_torch.quantize import pt2e_quantizer, quant_config
    from torchao.quantization.pt2e import quantize_pt2e
    exported = torch.export.export(model, (sample,)).module()
    config = pt2e_quantizer.get_symmetric_quantization_config(is_per_channel=True,
                                                              is_dynamic=variant == "dynamic_range")
    quantizer = pt2e_quantizer.PT2EQuantizer().set_global(config)
    prepared = quantize_pt2e.prepare_pt2e(exported, quantizer)
    for s in CALIBRATION_SEEDS:
        prepared(torch.from_numpy(reflib.uniform_pm1(s, 0, shape)))
    quantized = quantize_pt2e.convert_pt2e(prepared, fold_quantize=False)
    return quantized, quant_config.QuantConfig(pt2e_quantizer=quantizer)


def convert(name, seed, variant="float32"):
    """The .tflite bytes of network `name`, its weights from seed `seed`,
    and the PyTorch module's own outputs on the test input for the quantized
    variants (None for float32)."""
    import litert_torch
    import torch
    torch.manual_seed(seed)
    model, shape = NETWORKS[name]()
    randomize_norms(model, seed + 1)
    model.eval()
    sample = torch.from_numpy(reflib.uniform_pm1(seed, 0, shape))
    torch_outputs = None
    if variant == "float32":
        edge = litert_torch.convert(model, (sample,))
    else:
        model, config = pt2e_quantize(model, sample, shape, variant)
        with torch.no_grad():
            out = model(sample)
        torch_outputs = [o.numpy() for o in (out if isinstance(out, (tuple, list)) else (out,))]
        edge = litert_torch.convert(model, (sample,), quant_config=config)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.tflite")
        edge.export(path)
        with open(path, "rb") as f:
            return f.read(), torch_outputs


def make(name, out_root, seed=0, variant="float32"):
    import make_networks
    tflite, torch_outputs = convert(name, seed, variant)
    out_dir = os.path.join(out_root, f"pt_{name}_{variant}")
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    model_path = os.path.join(out_dir, "model.tflite")
    with open(model_path, "wb") as f:
        f.write(tflite)
    it = reflib.make_interpreter(model_content=tflite)
    in_details, out_details = it.get_input_details(), it.get_output_details()
    source = "PyTorch, litert-torch: " + " ".join(NETWORKS[name].__doc__.split())
    extra = {"network": f"pt_{name}", "variant": variant,
             "shape_signatures": [[int(s) for s in d["shape_signature"]] for d in in_details], "source": source}
    if variant == "float32":
        return make_reference.generate(model_path, out_dir, seed=seed, model_name="model.tflite", extra=extra)
    # The same float input as the float32 variant, quantized where the input is int8.
    inputs = [make_networks.quantize_input(reflib.uniform_pm1(seed, i, tuple(int(s) for s in d["shape"])), d)
              for i, d in enumerate(in_details)]
    extra["source"] = source + f" PT2E {'static' if variant == 'int8' else 'dynamic'} quantization (per-channel)"
    extra["input_quantization"] = [list(d["quantization"]) for d in in_details]
    extra["output_quantization"] = [list(d["quantization"]) for d in out_details]
    manifest = make_reference.generate(model_path, out_dir, seed=seed, model_name="model.tflite", inputs=inputs,
                                       extra=extra)
    manifest["outputs_default"] = make_networks.record_default_outputs(tflite, inputs, out_dir)
    manifest["torch_outputs"] = []
    for i, v in enumerate(torch_outputs):
        manifest["torch_outputs"].append(f"torch_output_{i}.npy")
        np.save(os.path.join(out_dir, manifest["torch_outputs"][-1]), v.astype(np.float32))
    reflib.write_json(os.path.join(out_dir, "manifest.json"), manifest)
    return manifest


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.path.join(REPO, "tests", "data", "networks"))
    p.add_argument("--only", nargs="*", help="network names (without pt_), or <name>_<variant>")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    every = [(n, "float32") for n in NETWORKS] + [(n, v) for n in QUANTIZED for v in VARIANTS]
    todo = [(n, v) for n, v in every if not a.only or n in a.only or f"{n}_{v}" in a.only]
    if a.list:
        print("\n".join(f"pt_{n}_{v}" for n, v in todo))
        return
    os.makedirs(a.out, exist_ok=True)
    for n, v in todo:
        m = make(n, a.out, variant=v)
        outs = ", ".join(f"{o['name']} {o['shape']} {o['dtype']}" for o in m["outputs"])
        print(f"pt_{n}_{v}: {m['model_bytes']} bytes, outputs {outs}")


if __name__ == "__main__":
    main()
