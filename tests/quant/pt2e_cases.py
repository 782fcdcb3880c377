#!/usr/bin/env python3
"""Writes quantized .pt2 archives made the way PyTorch users quantize: PT2E (torch.export, a
quantizer's prepare_pt2e, calibration, convert_pt2e, torch.export again, torch.export.save), with
inputs and PyTorch's outputs, in the manifest format of tests/serde/torch_export_cases.py, for
xport_torch_pt2_test to load and run.

Usage: tests/quant/pt2e_cases.py OUT_DIR [--verbose]

Also torchao 0.18's weight-only configurations (Int8WeightOnlyConfig; IntxWeightOnlyConfig int4
in groups of 32) on a small GPT-2-like decoder and on Hugging Face's GPT-2 (a small
configuration, its Conv1D layers as nn.Linear), written after run_decompositions() (core ATen:
the weights become plain int8 parameters with their scales; as exported, they are tensor
subclasses pickled into the archive, which no .pt2 reader but PyTorch's takes).

Quantizers: torchao 0.18's X86InductorQuantizer (Inductor's CPU int8 path: uint8 activations
per tensor, int8 weights per channel) and ExecuTorch's XNNPACKQuantizer (symmetric int8), each
static (calibrated activation ranges) and dynamic (choose_qparams at run time). The programs hold
quantized_decomposed::quantize_per_tensor / dequantize_per_tensor / dequantize_per_channel (and
choose_qparams.tensor with the .tensor overloads when dynamic) around float convolutions, linears
and adds. Each case records its "tolerance": the float ops between a dequantize and the next
quantize are not bit-equal across libraries, so a value on a rounding boundary may quantize one
step apart; the bound is that step's effect on the output (see step_tolerance).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TESTS, "models"))
sys.path.insert(0, os.path.join(TESTS, "serde"))
import cached_data  # noqa: E402

if __name__ == "__main__":
    START, ARGS, DIGEST = cached_data.start(
        __doc__, "print one line per case",
        [os.path.abspath(__file__), os.path.join(TESTS, "serde", "torch_export_cases.py"),
         os.path.join(TESTS, "models", "reference_models.py")], "digest",
        cached_data.pt2_manifest_files)

import logging  # noqa: E402
import warnings  # noqa: E402

import torch  # noqa: E402
import torch.ao.quantization.fx._decomposed  # noqa: E402,F401 (quantized_decomposed::*)
import torch.nn as nn  # noqa: E402
from torch.export import Dim  # noqa: E402

from torch_export_cases import Case, write_all  # noqa: E402

logging.disable(logging.WARNING)  # torchao reports its optional CUDA kernels missing
warnings.simplefilter("ignore")
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e  # noqa: E402
from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (  # noqa: E402
    X86InductorQuantizer, get_default_x86_inductor_quantization_config)
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (  # noqa: E402
    XNNPACKQuantizer, get_symmetric_quantization_config)
from torchao.quantization import (  # noqa: E402
    Int8DynamicActivationInt8WeightConfig, Int8DynamicActivationIntxWeightConfig,
    Int8WeightOnlyConfig, IntxWeightOnlyConfig, quantize_)
from torchao.quantization.granularity import PerAxis, PerGroup  # noqa: E402
from torchao.prototype.quantization.int4.inference_workflow import (  # noqa: E402
    PrototypeInt4WeightOnlyConfig)


class SmallCNN(nn.Module):
    """Convolutions with ReLUs (one quantized right after: xport's requantized_conv2d), a max
    pool (between a dequantize and a quantize of one scale: it pools the integers), residual
    adds as ResNet's blocks end (conv, add, ReLU, the residual's last reader; and Hugging Face's
    in-place `+=` without a ReLU, the residual also the convolution's input), pooling and a
    classifier."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1)
        self.conv4 = nn.Conv2d(32, 32, 3, padding=1)
        self.conv5 = nn.Conv2d(32, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        y = nn.functional.max_pool2d(torch.relu(self.conv(x)), 3, stride=2, padding=1)
        y = torch.relu(self.conv2(y))
        y = torch.relu(self.conv4(torch.relu(self.conv3(y))) + y)
        z = self.conv5(y)
        z += y
        y = nn.functional.adaptive_avg_pool2d(z, 4)
        return self.fc(y.flatten(1))


class MLP(nn.Module):
    """Linear layers with a ReLU, and with a GELU and eval-mode dropout as BERT's feed-forward
    has them (with static quantization, each quantizes its own result: requantized_linear)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 96)
        self.dropout = nn.Dropout(0.1)
        self.fc3 = nn.Linear(96, 32)

    def forward(self, x):
        y = self.fc2(torch.relu(self.fc1(x)))
        return self.fc3(self.dropout(nn.functional.gelu(y)))


class TinyDecoder(nn.Module):
    """A GPT-2-like decoder: token and position embeddings, two pre-norm blocks (causal
    attention, a GELU MLP), a head: the linear layers weight-only quantization targets."""

    def __init__(self, vocab=100, width=128, heads=4):
        super().__init__()
        self.heads = heads
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(64, width)
        self.blocks = nn.ModuleList(nn.ModuleDict({
            "ln1": nn.LayerNorm(width), "qkv": nn.Linear(width, 3 * width),
            "proj": nn.Linear(width, width), "ln2": nn.LayerNorm(width),
            "fc": nn.Linear(width, 4 * width), "out": nn.Linear(4 * width, width)})
            for _ in range(2))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, ids):
        b, t = ids.shape
        x = self.wte(ids) + self.wpe(torch.arange(t))
        for blk in self.blocks:
            q, k, v = blk["qkv"](blk["ln1"](x)).view(b, t, 3, self.heads, -1).unbind(2)
            a = nn.functional.scaled_dot_product_attention(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
            x = x + blk["proj"](a.transpose(1, 2).reshape(b, t, -1))
            x = x + blk["out"](nn.functional.gelu(blk["fc"](blk["ln2"](x))))
        return self.head(self.ln(x))


class Gpt2Logits(nn.Module):
    """Hugging Face's GPT2LMHeadModel (a small configuration, random weights), its logits. Its
    projections are Conv1D layers (weights [in, out]), which torchao's quantize_ leaves alone;
    they become nn.Linear (the weights transposed: the same function), so that every one is
    quantized, as a user quantizing GPT-2 with torchao does."""

    def __init__(self):
        super().__init__()
        from transformers import GPT2Config, GPT2LMHeadModel
        from transformers.pytorch_utils import Conv1D
        self.model = GPT2LMHeadModel(GPT2Config(vocab_size=1000, n_positions=64, n_embd=128,
                                                n_layer=2, n_head=4))
        for module in list(self.model.modules()):
            for name, child in list(module.named_children()):
                if isinstance(child, Conv1D):
                    linear = nn.Linear(*child.weight.shape)
                    linear.weight.data = child.weight.data.t().contiguous()
                    linear.bias.data = child.bias.data.clone()
                    setattr(module, name, linear)

    def forward(self, ids):
        return self.model(ids, use_cache=False).logits


def weight_only_cases():
    """torchao's weight-only configurations on the TinyDecoder and on Hugging Face's GPT-2
    (its Conv1D layers as nn.Linear): every linear layer quantized."""
    out = []
    for name, config in [("int8", Int8WeightOnlyConfig()),
                         ("int4", IntxWeightOnlyConfig(weight_dtype=torch.int4,
                                                       granularity=PerGroup(32)))]:
        for model_name, make, vocab in [("decoder", TinyDecoder, 100), ("gpt2", Gpt2Logits, 1000)]:
            torch.manual_seed(0)
            model = make().eval()
            quantize_(model, config)
            seq = Dim("seq", min=2, max=64)
            example = torch.randint(0, vocab, (1, 8))
            out.append(Case(name="%s_torchao_%s_weight" % (model_name, name), group="pt2e",
                            model=model, args=(example,), dynamic_shapes=({1: seq},),
                            core_only=True,
                            runs=[((example,), {}), ((torch.randint(0, vocab, (1, 13)),), {})],
                            refused=((torch.randint(0, vocab, (1, 65)),), {}), tolerance=1e-3))
    return out


def int_mm_exact():
    """Whether PyTorch's aten::_int_mm sums exactly on this CPU. It multiplies through oneDNN,
    whose kernels without VNNI (AVX2) sum pairs of 8-bit products in saturating int16: there
    PyTorch's own results for Int8DynamicActivationInt8WeightConfig are wrong, so they cannot
    be the reference (xport's sums are exact everywhere)."""
    a = torch.full((1, 64), 255, dtype=torch.uint8)
    b = torch.full((64, 1), -128, dtype=torch.int8)
    return int(torch._int_mm(a, b)) == 255 * -128 * 64


def torchao_cases():
    """torchao's other CPU configurations on the TinyDecoder, after run_decompositions():
    dynamic int8 activations (a scale per token) by int8 weights per row (aten::_int_mm on the
    activations shifted to uint8), and by int4 weights in groups of 32 or int8 weights per row
    (ExecuTorch's "8da4w" / "8da8w" LLM recipes: the activations quantized and dequantized, the
    weights dequantized, a float product). And two programs xport refuses, each with its reason
    (pt2e_refusals.txt): PrototypeInt4WeightOnlyConfig, torchao's CPU int4 path
    (aten::_weight_int4pack_mm_for_cpu, weights packed in a layout that depends on the packing
    machine's instruction set), and Int8WeightOnlyConfig's program as exported (its weights
    pickled tensor subclasses)."""
    configs = [
        ("int8_dynamic", Int8DynamicActivationInt8WeightConfig(), True),
        ("8da4w", Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
                                                        weight_granularity=PerGroup(32)), True),
        ("8da8w", Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int8,
                                                        weight_granularity=PerAxis(0)), True),
        ("int4_packed", PrototypeInt4WeightOnlyConfig(group_size=32), True),
        ("int8_weight_exported", Int8WeightOnlyConfig(), False),
    ]
    if not int_mm_exact():
        print("pt2e_cases: decoder_torchao_int8_dynamic not written: PyTorch's aten::_int_mm "
              "saturates on this CPU (no VNNI), so its outputs are no reference")
        configs = configs[1:]
    out = []
    for name, config, core_only in configs:
        torch.manual_seed(0)
        model = TinyDecoder(vocab=128).eval()  # the packed int4 path takes N in 16s
        quantize_(model, config)
        seq = Dim("seq", min=2, max=64)
        example = torch.randint(0, 128, (1, 8))
        out.append(Case(name="decoder_torchao_" + name, group="pt2e", model=model,
                        args=(example,), dynamic_shapes=({1: seq},), core_only=core_only,
                        runs=[((example,), {}), ((torch.randint(0, 128, (1, 13)),), {})],
                        refused=((torch.randint(0, 128, (1, 65)),), {}), tolerance=1e-2))
    return out


def x86(is_dynamic):
    q = X86InductorQuantizer()
    q.set_global(get_default_x86_inductor_quantization_config(is_dynamic=is_dynamic))
    return q


def xnnpack(is_dynamic):
    q = XNNPACKQuantizer()
    q.set_global(get_symmetric_quantization_config(is_per_channel=True, is_dynamic=is_dynamic))
    return q


def quantized(model, example, dynamic_shapes, quantizer, calibration):
    """PT2E: export, prepare with the quantizer, calibrate, convert (weights folded to int8)."""
    program = torch.export.export(model.eval(), (example,), dynamic_shapes=dynamic_shapes)
    prepared = prepare_pt2e(program.module(), quantizer)
    for x in calibration:
        prepared(x)
    return convert_pt2e(prepared)


def cases():
    out = []
    for model_name, make, shape in [("cnn", SmallCNN, (3, 16, 16)), ("mlp", MLP, (64,))]:
        for quantizer_name, quantizer in [("x86", x86), ("xnnpack", xnnpack)]:
            for mode in ("static", "dynamic"):
                torch.manual_seed(0)
                model = make()
                batch = Dim("batch", min=1, max=64)
                example = torch.randn(2, *shape)
                shapes = ({0: batch},)
                calibration = [torch.randn(4, *shape) for _ in range(4)]
                converted = quantized(model, example, shapes, quantizer(mode == "dynamic"),
                                      calibration)
                runs = [((example,), {}), ((torch.randn(5, *shape) * 1.5,), {}),
                        ((torch.randn(1, *shape),), {})]
                out.append(Case(name="%s_%s_%s" % (model_name, quantizer_name, mode),
                                group="pt2e", model=converted, args=(example,),
                                dynamic_shapes=shapes, runs=runs,
                                refused=((torch.randn(2, *shape[:-1], shape[-1] + 1),), {}),
                                tolerance=step_tolerance(converted)))
    return out


def step_tolerance(converted):
    """Bound on |xport - torch| / max |torch| for these programs: 1e-2. A quantize may round one
    element one step apart when the float op before it differs in its last bit between the two
    libraries (a value on the boundary of two steps). Such an element moves the output by one
    step times the weights after it: with these models' last scales (about 0.01) and weights
    (at most about 0.09), about 1e-3 against outputs of 0.26 to 0.69, so 1e-2 allows a few such
    elements. Measured: no element rounded apart, max difference about 1e-7 relative."""
    del converted
    return 1e-2


def main(args, digest, start):
    write_all(args, digest, start, [cases(), weight_only_cases(), torchao_cases()], [])


if __name__ == "__main__":
    cached_data.run(main, ARGS, DIGEST, START)
