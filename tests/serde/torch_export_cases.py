#!/usr/bin/env python3
"""Writes real .pt2 archives made by torch.export (PyTorch 2.13), with inputs and PyTorch's outputs.

Usage: tests/serde/torch_export_cases.py OUT_DIR [--verbose]

Each case is a model exported with torch.export.export and written with torch.export.save, then
run by PyTorch itself (ep.module()) on one to three input sets; the C++ tests load the archives in
xport, run them on the same inputs and compare. Prints one summary line on success (--verbose: one
line per case) and exits non-zero on failure. When OUT_DIR/manifest.json records the sha256 of
this file and of tests/models/reference_models.py and its files exist, it exits at once.

Groups:
  reference     tests/models/reference_models.py (full size, seeded), static and dynamic.
  exportdb      every example of PyTorch's ExportDB (torch._export.db.examples), exported as its
                own tests do (strict=True); the others are listed under "not_exported".
Some cases also write "<name>_core": the same program after ep.run_decompositions() (core ATen).
The full-size models' weights are written once per archive: about 2.7 GB in all, ~50 s on 2 cores.

Files (all paths relative to OUT_DIR): <case>/model.pt2, <case>/run<k>_in<i>.npy,
<case>/run<k>_out<i>.npy, <case>/refused_in<i>.npy. Inputs are the leaves of
tree_flatten((args, kwargs)) with kwargs in the order of the program's in_spec, the order
ep.module() and the graph's user inputs use; outputs are the leaves of tree_flatten(output).
A tensor leaf is {"npy", "dtype", "shape"} (bfloat16 is stored as float32, "dtype" keeps the real
one); any other leaf (int, float, bool, str) is {"value": v}. None is no leaf in torch's pytree.

manifest.json:
{"digest": "<sha256 of this file and reference_models.py>", "torch_version": "2.13.0+cpu",
 "cases": [{"name": "mlp_dynamic", "group": "reference", "pt2": "mlp_dynamic/model.pt2",
            "dynamic": true, "strict": false,
            "input_paths": ["args[0]"], "output_paths": ["out"],   # pytree key paths of leaves
            "runs": [{"inputs": [leaf, ...], "outputs": [leaf, ...],
                      "inputs_after": [leaf, ...]}, ...],   # run 0: the example
            "refused_inputs": [leaf, ...],     # optional: outside the range; ep.module() raises
            "refused_error": "<first line of PyTorch's error>",
            "range_constraints": {"s77": [2, 64]}},   # str(symbol): [lower, upper], null = inf
           ...],
 "not_exported": [{"name": "dynamic_shape_round", "group": "exportdb", "reason": "..."}]}
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS_DIR = os.path.join(os.path.dirname(HERE), "models")


# The cache check comes before importing torch, which alone takes seconds.
sys.path.insert(0, MODELS_DIR)
import cached_data  # noqa: E402

if __name__ == "__main__":
    START, ARGS, DIGEST = cached_data.start(
        __doc__, "print one line per case",
        [os.path.abspath(__file__), os.path.join(MODELS_DIR, "reference_models.py"),
         os.path.join(HERE, "custom_ops.py")], "digest",
        cached_data.pt2_manifest_files)

os.environ["HF_HUB_OFFLINE"] = "1"  # models come from config objects only: never download
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import copy  # noqa: E402
import dataclasses  # noqa: E402
import inspect  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.utils._pytree as pytree  # noqa: E402
from torch.export import Dim  # noqa: E402
from torch.export._tree_utils import reorder_kwargs  # noqa: E402
from torch.utils._sympy.numbers import int_oo  # noqa: E402

from custom_ops import define_custom_ops  # noqa: E402
from reference_models import build_model, randomize  # noqa: E402


@dataclasses.dataclass
class Case:
    name: str
    group: str
    model: nn.Module
    args: tuple  # the example inputs torch.export traces with
    kwargs: dict = dataclasses.field(default_factory=dict)
    dynamic_shapes: object = None
    runs: list = None  # [(args, kwargs)]; None: the example inputs only
    refused: tuple = None  # (args, kwargs) outside the dynamic range, which ep.module() refuses
    strict: bool = False
    core: bool = False  # also write <name>_core, after run_decompositions()
    # Write <name>_core only: the program as exported holds what a .pt2 reader cannot take
    # (torchao's weights, tensor subclasses pickled into the archive).
    core_only: bool = False
    updates_state: bool = False  # updates its buffers: eager runs on a copy of the model
    # Where PyTorch's own run_decompositions() fails on the program: the start of its error. The
    # _core twin is then recorded as not exported; an error that differs, or none, fails the run.
    core_fails: str = None
    # max |xport - torch| / max |torch| allowed (the test's default: 1e-4); a quantized program
    # may round a value on a step's boundary one step apart (tests/quant/pt2e_cases.py).
    tolerance: float = None


# ---- reference models ----------------------------------------------------------------------------


def reference_cases():
    g = torch.Generator().manual_seed(2024)

    def randn(*shape):
        return torch.randn(*shape, generator=g)

    def ids(*shape):
        return torch.randint(0, 50257, shape, generator=g)

    model = build_model("mlp", 0)
    x = randn(4, 1024)
    yield Case("mlp_static", "reference", model, (x,), runs=[((x,), {}), ((randn(4, 1024),), {})],
               core=True)
    batch = Dim("batch", min=2, max=64)
    yield Case("mlp_dynamic", "reference", model, (x,), dynamic_shapes=({0: batch},),
               runs=[((x,), {}), ((randn(2, 1024),), {}), ((randn(64, 1024),), {})],
               refused=((randn(65, 1024),), {}))

    model = build_model("resnet50", 1)
    x = randn(1, 3, 64, 64)
    yield Case("resnet50_static", "reference", model, (x,), runs=[((x,), {})])
    x = randn(4, 3, 64, 64)
    batch = Dim("batch", min=2, max=16)
    yield Case("resnet50_dynamic", "reference", model, (x,), dynamic_shapes=({0: batch},),
               runs=[((x,), {}), ((randn(2, 3, 64, 64),), {}), ((randn(16, 3, 64, 64),), {})],
               refused=((randn(17, 3, 64, 64),), {}))

    model = build_model("bert", 2)
    x = randn(1, 16, 768)
    yield Case("bert_static", "reference", model, (x,), runs=[((x,), {})], core=True)
    x = randn(2, 16, 768)
    dims = {0: Dim("batch", min=2, max=8), 1: Dim("seq", min=2, max=128)}
    yield Case("bert_dynamic", "reference", model, (x,), dynamic_shapes=(dims,),
               runs=[((x,), {}), ((randn(3, 7, 768),), {}), ((randn(8, 128, 768),), {})],
               refused=((randn(2, 129, 768),), {}))

    model = build_model("gpt2", 3)
    x = ids(1, 16)
    yield Case("gpt2_static", "reference", model, (x,), runs=[((x,), {}), ((ids(1, 16),), {})])
    # max=1024 fails to export: slicing the [1024, 1024] causal mask to [:t, :t] guards t != 1024.
    # Runs stay short of the maximum: the logits at seq 1023 alone would be a 206 MB file.
    dims = {1: Dim("seq", min=2, max=1023)}
    yield Case("gpt2_dynamic", "reference", model, (x,), dynamic_shapes=(dims,),
               runs=[((x,), {}), ((ids(1, 2),), {}), ((ids(1, 77),), {})],
               refused=((ids(1, 1024),), {}))


class Stateful(nn.Module):
    """Training-mode BatchNorm (running statistics), a call counter and an input updated in
    place: in the _core program, buffer and user-input mutation outputs."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))

    def forward(self, x, scale):
        self.calls.add_(1)
        scale.mul_(2.0)
        return torch.relu(self.bn(self.conv(x))) * scale.view(1, -1, 1, 1) + self.calls


def mutation_cases():
    g = torch.Generator().manual_seed(7)
    torch.manual_seed(7)
    model = Stateful().train()
    x = torch.randn(4, 3, 8, 8, generator=g)
    scale = torch.rand(4, generator=g)
    runs = [((x, scale), {})] + [((torch.randn(n, 3, 8, 8, generator=g),
                                   torch.rand(4, generator=g)), {}) for n in (2, 6)]
    yield Case("stateful_training", "mutation", model, (x, scale),
               dynamic_shapes=({0: Dim("batch", min=2, max=8)}, None), runs=runs, core=True,
               updates_state=True)


# ---- data-dependent floats ------------------------------------------------------------------------


class FloatItem(nn.Module):
    """A tensor's float value used as a number: torch.export writes aten.item with an
    as_sym_float output, Python arithmetic on it as _operator.mul / add / truediv / neg nodes,
    and passes it to ops where the schema says Scalar or Tensor (aten.mul.Tensor(x, item))."""

    def forward(self, x, y):
        v = y.item()
        w = v * 0.5 + 1.0
        return x * v, torch.full((2,), w), (x - v / 4.0).clamp(min=-v), (x > v).float()


def float_item_cases():
    g = torch.Generator().manual_seed(11)
    x = torch.randn(3, 5, generator=g)
    runs = [((x, torch.tensor(2.5)), {}),
            ((torch.randn(3, 5, generator=g), torch.tensor(-0.75)), {}),
            ((torch.randn(3, 5, generator=g), torch.tensor(1e-3)), {})]
    yield Case("float_item", "data_dependent", FloatItem(), (x, torch.tensor(2.5)), runs=runs,
               core=True)


# ---- core ops added in issue 27 -------------------------------------------------------------------


class CoreOpsBlock(nn.Module):
    """The ops as PyTorch's modules and functions emit them: GroupNorm (aten.group_norm, core
    native_group_norm), ELU, LeakyReLU, ReLU6 (hardtanh), fmod, a Scalar base to a tensor of
    powers, inverse trigonometric and hyperbolic functions, log10, isinf, any over several dims
    and var(unbiased); interpolate (nearest and bilinear upsampling) and reflect / replicate
    padding."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.norm = nn.GroupNorm(4, 8)
        self.elu = nn.ELU(alpha=0.7)
        self.leaky = nn.LeakyReLU(0.2)
        self.relu6 = nn.ReLU6()

    def forward(self, x):
        h = self.norm(self.conv(x))
        t = torch.tanh(h) * 0.9
        act = self.elu(h) + self.leaky(h) + self.relu6(h * 4.0)
        trig = (torch.asin(t) + torch.acos(t) + torch.atan(h) + torch.atanh(t) + torch.asinh(h)
                + torch.acosh(h.abs() + 1.0) + torch.cosh(t) + torch.sinh(t)
                + torch.log10(h.abs() + 1.0))
        rest = torch.fmod(h * 3.0, 1.5) + torch.pow(2.0, t)
        flags = torch.isinf(h / (h > 0).float()).any(dim=(2, 3))
        resized = (F.interpolate(h, scale_factor=2.0, mode="nearest"),
                   F.interpolate(h, size=(7, 5), mode="bilinear", align_corners=False),
                   F.interpolate(h, scale_factor=1.5, mode="bilinear", align_corners=True))
        padded = F.pad(h, (1, 2, 1, 0), mode="reflect"), F.pad(h, (2, 0, 0, 1), mode="replicate")
        return (act + trig + rest, h.var(dim=(2, 3), unbiased=True), flags) + resized + padded


class NormBackward(nn.Module):
    """A training graph's normalization backward ops, called as autograd calls them, with
    output_mask leaving gradients out: PyTorch writes those None results as as_none."""

    def forward(self, grad, x, w, b):
        aten = torch.ops.aten
        n = x.shape[0]
        _, mean, rstd = aten.native_layer_norm(x, [24], w, b, 1e-5)
        dx, _, db = aten.native_layer_norm_backward(grad, x, [24], mean, rstd, w, b,
                                                    [True, False, True])
        xg, gg, wg = x.reshape(n, 4, 6), grad.reshape(n, 4, 6), w[:4]
        _, gmean, grstd = aten.native_group_norm(xg, wg, None, n, 4, 6, 2, 1e-5)
        dxg, dwg, _ = aten.native_group_norm_backward(gg, xg, gmean, grstd, wg, n, 4, 6, 2,
                                                      [True, True, False])
        return dx, db, dxg, dwg


class ConvTranspose(nn.Module):
    """nn.ConvTranspose2d / 1d (aten.conv_transpose2d.input and conv_transpose1d, and
    convolution with transposed=True after run_decompositions), and convolution_backward as
    autograd calls it, leaving the bias gradient out."""

    def __init__(self):
        super().__init__()
        self.up2d = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.up1d = nn.ConvTranspose1d(4, 2, 4, stride=2, groups=2)
        self.weight = nn.Parameter(torch.randn(5, 4, 3, 3))

    def forward(self, x, grad):
        dx, dw, _ = torch.ops.aten.convolution_backward(
            grad, x, self.weight, [5], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
            [True, True, False])
        return self.up2d(x), self.up1d(x.flatten(2)), dx, dw


class Spectrum(nn.Module):
    """torch.fft.rfft / irfft (fft_rfft and fft_irfft; _fft_r2c and _fft_c2r after
    run_decompositions) with complex64 values in between, seen through view_as_real."""

    def forward(self, x):
        spectrum = torch.fft.rfft(x, dim=-1, norm="ortho")
        parts = torch.view_as_real(spectrum)
        smooth = torch.fft.irfft(spectrum, n=x.shape[-1], dim=-1, norm="ortho")
        return parts * 2.0, smooth + x


def core_op_cases():
    torch.manual_seed(27)
    g = torch.Generator().manual_seed(27)
    x = torch.randn(2, 3, 6, 6, generator=g)
    runs = [((x,), {})] + [((torch.randn(n, 3, 6, 6, generator=g),), {}) for n in (1, 5)]
    yield Case("core_ops_block", "core_ops", CoreOpsBlock().eval(), (x,),
               dynamic_shapes=({0: Dim("batch", min=1, max=8)},), runs=runs, core=True)
    w, b = torch.randn(24, generator=g), torch.randn(24, generator=g)
    inputs = [(torch.randn(n, 24, generator=g), torch.randn(n, 24, generator=g), w, b)
              for n in (3, 2, 7)]
    conv_inputs = [(torch.randn(n, 4, 5, 6, generator=g), torch.randn(n, 5, 5, 6, generator=g))
                   for n in (2, 1, 4)]
    conv_batch = Dim("batch", min=1, max=8)
    yield Case("conv_transpose", "core_ops", ConvTranspose(), conv_inputs[0],
               dynamic_shapes=({0: conv_batch}, {0: conv_batch}),
               runs=[(args, {}) for args in conv_inputs], core=True)
    signals = [torch.randn(n, 3, 20, generator=g) for n in (2, 1, 5)]
    yield Case("spectrum", "core_ops", Spectrum(), (signals[0],),
               dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
               runs=[((s,), {}) for s in signals], core=True)
    batch = Dim("batch", min=2, max=8)
    yield Case("norm_backward", "core_ops", NormBackward(), inputs[0],
               dynamic_shapes=({0: batch}, {0: batch}, None, None),
               runs=[(args, {}) for args in inputs])


# ---- custom ops -----------------------------------------------------------------------------------


class AccelConv(nn.Module):
    """A convolution through accel::conv2d (tests/serde/custom_ops.py), which xport registers
    from examples/custom_ops."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = torch.ops.accel.conv2d(x, self.conv.weight, self.conv.bias, [1, 1], [1, 1], [1, 1], 1)
        return y.relu()


def custom_op_cases():
    torch.manual_seed(11)
    g = torch.Generator().manual_seed(11)
    model = AccelConv().eval()
    x = torch.randn(4, 3, 8, 8, generator=g)
    runs = [((x,), {})] + [((torch.randn(n, 3, 8, 8, generator=g),), {}) for n in (2, 16)]
    yield Case("accel_conv2d", "custom_op", model, (x,),
               dynamic_shapes=({0: Dim("batch", min=2, max=16)},), runs=runs,
               refused=((torch.randn(17, 3, 8, 8, generator=g),), {}))


# ---- Hugging Face transformers -------------------------------------------------------------------


@torch.no_grad()
def hf_model(model):
    """Eval mode; every parameter that Hugging Face initialises to a constant (zero biases, unit
    norm weights) gets noise, so that a parity test sees them. The architectures themselves are
    tests/serde/hf_architectures.py."""
    model = randomize(model).eval()
    for p in model.parameters():
        if p.numel() > 1 and bool((p == p.flatten()[0]).all()):
            p.add_(0.1 * torch.randn_like(p))
    return model


# ---- ExportDB ------------------------------------------------------------------------------------


def resized_inputs(case, size_of, seed):
    """The example inputs with each dynamic dim d of a tensor resized to size_of(d's size), filled
    with fresh random values; None where that leaves every size as it was."""
    g = torch.Generator().manual_seed(seed)
    bound = inspect.signature(case.model.forward).bind(*case.example_args, **case.example_kwargs)
    changed = False
    for name, dims in case.dynamic_shapes.items():
        if not dims:
            continue
        t = bound.arguments[name]
        shape = list(t.shape)
        for d in dims:
            shape[d] = size_of(shape[d])
        changed |= shape != list(t.shape)
        bound.arguments[name] = torch.randn(shape, generator=g).to(t.dtype)
    return (bound.args, bound.kwargs) if changed else None


def exportdb_cases(not_exported):
    # The examples draw their inputs from the global generator when first imported.
    torch.manual_seed(0)
    from torch._export.db.case import SupportLevel
    from torch._export.db.examples import all_examples

    for name, example in sorted(all_examples().items()):
        if example.support_level != SupportLevel.SUPPORTED:
            not_exported.append({"name": name, "group": "exportdb",
                                 "reason": "support_level " + example.support_level.name})
            continue
        runs = [(example.example_args, example.example_kwargs)]
        if example.extra_args is not None:
            runs.append((example.extra_args, {}))
        if example.dynamic_shapes:
            # Sizes other than the example's; 2 and up, as 0 and 1 specialise.
            for k, size_of in enumerate((lambda s: 2, lambda s: s + 3)):
                inputs = resized_inputs(example, size_of, seed=k)
                if inputs is not None:
                    runs.append(inputs)
        yield Case(name, "exportdb", example.model, example.example_args, example.example_kwargs,
                   dynamic_shapes=example.dynamic_shapes, runs=runs, strict=True,
                   core=name == "cond_operands")


# ---- writing a case ------------------------------------------------------------------------------


def first_line(error):
    lines = [line for line in str(error).splitlines() if line.strip()]
    return "%s: %s" % (type(error).__name__, lines[0] if lines else "")


def path_text(prefix, path):
    return prefix + pytree.keystr(path)


def write_leaves(out_dir, case_dir, stem, leaves):
    """Writes the tensor leaves as .npy; returns the manifest's list of leaves."""
    entries = []
    for i, x in enumerate(leaves):
        if isinstance(x, torch.Tensor):
            t = x.detach()
            dtype = str(t.dtype).removeprefix("torch.")
            if t.dtype == torch.bfloat16:
                t = t.float()  # numpy has no bfloat16
            rel = "%s/%s%d.npy" % (case_dir, stem, i)
            np.save(os.path.join(out_dir, rel), t.contiguous().numpy())
            entries.append({"npy": rel, "dtype": dtype, "shape": list(t.shape)})
        elif x is None or isinstance(x, (bool, int, float, str)):
            entries.append({"value": x})
        else:
            raise TypeError("%s: leaf %s has type %s, which the manifest cannot hold"
                            % (case_dir, stem + str(i), type(x).__name__))
    return entries


def flat_inputs(ep, args, kwargs):
    """(key paths, leaves) of the inputs, in the order of the program's in_spec."""
    spec = ep.call_spec.in_spec
    inputs = (tuple(args), reorder_kwargs(kwargs, spec) if kwargs else {})
    paths_leaves, flat_spec = pytree.tree_flatten_with_path(inputs)
    if flat_spec != spec:
        raise RuntimeError("inputs flatten to %s, the program expects %s" % (flat_spec, spec))
    paths = [path_text(("args", "kwargs")[path[0].idx], path[1:]) for path, _ in paths_leaves]
    return paths, [leaf for _, leaf in paths_leaves]


def check_outputs(name, actual, expected, tolerance=None):
    """The exported program must agree with the eager model, and give finite values. A quantized
    case's own tolerance (relative to the largest |value|) bounds it instead of 1e-4: torchao's
    eager path may quantize a value on a step's boundary one step apart from its decomposition."""
    def message(m):
        return "%s: ep.module() differs from the eager model: %s" % (name, m)

    atol = 1e-4
    if tolerance is not None:
        largest = max((float(x.abs().max()) for x in pytree.tree_leaves(expected)
                       if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel()),
                      default=1.0)
        atol = max(atol, tolerance * largest)
    torch.testing.assert_close(actual, expected, rtol=1e-4, atol=atol, msg=message)
    for leaf in pytree.tree_leaves(actual):
        if isinstance(leaf, torch.Tensor) and leaf.is_floating_point() and \
                not torch.isfinite(leaf).all():
            raise RuntimeError("%s: an output is not finite" % name)


def bound(v):
    # An unbounded size (int_oo), or an unbounded float symbol's -oo/oo (a float from item()).
    return None if v in (int_oo, -int_oo) or v.is_infinite else int(v)


def write_program(out_dir, case, name, ep):
    """Saves ep as <name>/model.pt2 and runs it on the case's inputs; returns its manifest entry."""
    os.makedirs(os.path.join(out_dir, name), exist_ok=True)
    pt2 = name + "/model.pt2"
    torch.export.save(ep, os.path.join(out_dir, pt2))
    module = ep.module()
    # The eager reference starts from the state the program was exported with: a model that
    # updates its buffers must not share them with the program.
    eager = copy.deepcopy(case.model) if case.updates_state else case.model
    runs, in_paths, out_paths = [], None, None
    for k, (args, kwargs) in enumerate(case.runs or [(case.args, case.kwargs)]):
        in_paths, leaves = flat_inputs(ep, args, kwargs)
        inputs = write_leaves(out_dir, name, "run%d_in" % k, leaves)  # before a call mutates them
        # Each call gets its own copy: some examples mutate their inputs.
        call_args, call_kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
        out = module(*call_args, **call_kwargs)
        check_outputs(name, out, eager(*copy.deepcopy(args), **copy.deepcopy(kwargs)),
                      case.tolerance)
        paths_leaves, _ = pytree.tree_flatten_with_path(out)
        out_paths = [path_text("out", path) for path, _ in paths_leaves]
        outputs = write_leaves(out_dir, name, "run%d_out" % k, [x for _, x in paths_leaves])
        # What the call left in its inputs (a program may update them in place).
        after = write_leaves(out_dir, name, "run%d_after" % k,
                             flat_inputs(ep, call_args, call_kwargs)[1])
        runs.append({"inputs": inputs, "outputs": outputs, "inputs_after": after})
    entry = {"name": name, "group": case.group, "pt2": pt2,
             "dynamic": case.dynamic_shapes is not None, "strict": case.strict,
             "input_paths": in_paths, "output_paths": out_paths, "runs": runs}
    if case.refused is not None:
        args, kwargs = case.refused
        try:
            module(*args, **kwargs)
        except Exception as e:  # PyTorch's own input check; its exception types vary
            entry["refused_error"] = first_line(e)
        else:
            raise RuntimeError("%s: ep.module() accepted the inputs meant to be refused" % name)
        entry["refused_inputs"] = write_leaves(out_dir, name, "refused_in",
                                               flat_inputs(ep, args, kwargs)[1])
    if case.tolerance is not None:
        entry["tolerance"] = case.tolerance
    entry["range_constraints"] = {str(s): [bound(r.lower), bound(r.upper)]
                                  for s, r in ep.range_constraints.items()}
    return entry


def write_case(out_dir, case, not_exported, verbose):
    """Exports and writes one case (and its _core twin); returns their manifest entries."""
    start = time.perf_counter()
    try:
        ep = torch.export.export(case.model, copy.deepcopy(case.args),
                                 copy.deepcopy(case.kwargs), dynamic_shapes=case.dynamic_shapes,
                                 strict=case.strict)
    except Exception as e:
        if case.group != "exportdb":  # only ExportDB documents what torch.export cannot do
            raise
        not_exported.append({"name": case.name, "group": case.group,
                             "reason": "torch.export: " + first_line(e)})
        return []
    entries = [] if case.core_only else [write_program(out_dir, case, case.name, ep)]
    if case.core or case.core_only:
        try:
            core = ep.run_decompositions()
        except Exception as e:
            if not case.core_fails or not first_line(e).startswith(case.core_fails):
                raise
            not_exported.append({"name": case.name + "_core", "group": case.group,
                                 "reason": "run_decompositions: " + first_line(e)})
        else:
            if case.core_fails:
                raise RuntimeError("%s: run_decompositions() now works: drop core_fails"
                                   % case.name)
            entries.append(write_program(out_dir, case, case.name + "_core", core))
    if verbose:
        mb = [os.path.getsize(os.path.join(out_dir, e["pt2"])) / 1e6 for e in entries]
        name = case.name + " (+ _core)" * case.core + " (_core)" * case.core_only
        print("  %-32s %-12s %5.1f s  %s MB" % (name, case.group,
                                              time.perf_counter() - start,
                                              " + ".join("%.1f" % x for x in mb)))
    return entries


# ---- driver --------------------------------------------------------------------------------------


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def write_all(args, digest, start, groups, not_exported):
    """Exports and writes every case of `groups` (iterables of Case) under args.out_dir, then the
    manifest; prints the summary line. not_exported: the list the groups record the cases that
    PyTorch cannot export in (write_case adds ExportDB's too)."""
    torch.set_num_threads(2)
    # torch.export and transformers warn about things the cases do on purpose; the summary line
    # should be the only output.
    warnings.simplefilter("ignore")
    os.makedirs(args.out_dir, exist_ok=True)
    cases = []
    libraries = define_custom_ops()  # noqa: F841 (kept alive while the cases export)
    for group in groups:
        for case in group:
            cases += write_case(args.out_dir, case, not_exported, args.verbose)
    names = [c["name"] for c in cases] + [c["name"] for c in not_exported]
    if len(set(names)) != len(names):
        raise RuntimeError("case names repeat: %s" % sorted(n for n in names
                                                             if names.count(n) > 1))
    manifest = {"digest": digest, "torch_version": torch.__version__, "cases": cases,
                "not_exported": not_exported}
    # The manifest goes last and whole, so an interrupted run is never mistaken for a cache hit.
    path = os.path.join(args.out_dir, "manifest.json")
    with open(path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print("%s: %d cases, %d not exported, %.0f MB in %s (%.1f s)"
          % (os.path.basename(sys.argv[0]).split(".")[0], len(cases), len(not_exported),
             dir_bytes(args.out_dir) / 1e6, args.out_dir, time.perf_counter() - start))


def main(args, digest, start):
    not_exported = []
    write_all(args, digest, start,
              [reference_cases(), mutation_cases(), float_item_cases(), core_op_cases(),
               custom_op_cases(), exportdb_cases(not_exported)], not_exported)


if __name__ == "__main__":
    cached_data.run(main, ARGS, DIGEST, START)
