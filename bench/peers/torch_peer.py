#!/usr/bin/env python3
"""The Python engines of the peer benchmark (bench/peers/peers.py): PyTorch eager, torch.compile,
AOTInductor, ONNX Runtime, OpenVINO and ExecuTorch; and the row models they start from.

Usage: torch_peer.py --engine eager|compile --model MODEL --weights W.pt --input IN.npy
       torch_peer.py --engine aoti --package FILE.pt2 --input IN.npy
       torch_peer.py --engine ort|openvino --onnx FILE.onnx --input IN.npy
       torch_peer.py --engine executorch --pte FILE.pte --input IN.npy
       [--runs K] [--warmup W] [--min-time S] [--threads N] [--out OUT.npy]
       torch_peer.py --lower-pte PROGRAM.pt2 OUT.pte
       torch_peer.py --check-executorch

eager builds the row's model (build_model, without initialising it) and loads the weights file
peers.py saved (torch.save of its state dict, strict); compile is that model through
torch.compile (inductor, CPU, torch._inductor.config.freezing on; compiled during the warm-up
runs, so compile time is not in the timed runs); aoti loads the package peers.py compiled from
the saved program (aoti_load_package); ort runs the ONNX file in ONNX Runtime (N intra-op
threads, one inter-op thread, every graph optimisation); openvino compiles the same ONNX file for
OpenVINO's CPU plugin (N inference threads, one stream, latency hint, f32 inference precision:
left alone the plugin runs in bf16 on CPUs with AMX or AVX-512 bf16); executorch runs the .pte
that --lower-pte wrote (the saved program through to_edge_transform_and_lower with the XNNPACK
partitioner, then to_executorch) with executorch.runtime, XNNPACK's thread pool reset to N
threads. All run with N threads (default 2), the torch engines under torch.inference_mode():
W untimed runs, then timed runs until there are at least K and S seconds have passed. Prints
{"times_ms": [...], "load_ms": ..., "version": ...} and writes the first run's first output to
OUT.npy. Only the forward calls are timed. --lower-pte also prints how many of the program's
nodes XNNPACK took (one JSON line). --check-executorch prints executorch's version, or fails with
the reason it does not import.

eager and compile run the module of a saved program instead with --program (a quantized row's:
PT2E's reference program, and torch.compile with freezing on it, Inductor's int8 path).
quantize_pt2e makes those programs with torchao's X86InductorQuantizer or ExecuTorch's
XNNPACKQuantizer (pt2e_quantizer).

Models (build_model): mlp is the reference MLP of tests/models/reference_models.py, bert_encoder
its BertEncoder (12 nn.TransformerEncoderLayer, 768 wide, float [N, T, 768] in);
resnet50, bert and gpt2 are Hugging Face's ResNetForImageClassification(ResNetConfig()),
BertModel(BertConfig()) and GPT2LMHeadModel(GPT2Config()) with their default attention, built
from the config (nothing is downloaded), in eval mode; GPT-2 with use_cache off, so that its
output is the logits alone. Each returns its ModelOutput as a plain tuple (TupleOutputs), so that
its saved program loads without importing transformers.
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "models"))
import make_parity_data as ref  # noqa: E402

MODELS = ("mlp", "resnet50", "bert", "gpt2", "bert_encoder")


class TupleOutputs(torch.nn.Module):
    """A Hugging Face model with its ModelOutput returned as a plain tuple (to_tuple(): the
    outputs that are not None, in order), so that the program torch.export makes of it loads
    without transformers: its output's pytree is a tuple, not a class transformers registers."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x).to_tuple()


def build_model(name, seed=None):
    """The model `name` in eval mode, initialised from `seed`, or left uninitialised without one
    (load_model fills it in); a Hugging Face model comes in TupleOutputs."""
    if name not in MODELS:
        raise ValueError("unknown model %r; expected one of %s" % (name, ", ".join(MODELS)))
    if name in ("mlp", "bert_encoder"):
        import reference_models
        reference = {"mlp": ("mlp", reference_models.MLP),
                     "bert_encoder": ("bert", reference_models.BertEncoder)}[name]
        return (ref.build_model(reference[0], seed=seed) if seed is not None
                else reference[1]().eval())
    import contextlib
    import transformers
    from transformers.initialization import no_init_weights
    if seed is not None:
        torch.manual_seed(seed)
    with no_init_weights() if seed is None else contextlib.nullcontext():
        if name == "resnet50":
            model = transformers.ResNetForImageClassification(transformers.ResNetConfig())
        elif name == "bert":
            model = transformers.BertModel(transformers.BertConfig())
        else:
            model = transformers.GPT2LMHeadModel(transformers.GPT2Config())
            model.config.use_cache = False
    return TupleOutputs(model.eval()).eval()


def load_model(name, weights):
    """The model `name` with the state dict saved in `weights` (torch.save), loaded strictly."""
    model = build_model(name)
    model.load_state_dict(torch.load(weights, weights_only=True), strict=True)
    if isinstance(model, TupleOutputs):
        model.model.tie_weights()  # GPT-2's lm_head is wte, as in the exported program
    return model


def model_input(name, batch, size, seed=0):
    """The row's input: float [N, 1024] (mlp), float [N, 3, size, size] (resnet50), float
    [N, size, 768] (bert_encoder), or int64 token ids [N, size] (bert, gpt2)."""
    g = torch.Generator().manual_seed(seed)
    if name == "mlp":
        return torch.randn(batch, 1024, generator=g)
    if name == "bert_encoder":
        return torch.randn(batch, size, 768, generator=g)
    if name == "resnet50":
        return torch.randn(batch, 3, size, size, generator=g)
    vocab = {"bert": 30522, "gpt2": 50257}[name]
    return torch.randint(0, vocab, (batch, size), generator=g)


def first_output(y):
    """The first output of a model call: a tensor, a tuple's first or a ModelOutput's first."""
    while not isinstance(y, (torch.Tensor, np.ndarray)):
        y = y[0]
    return y


# PT2E quantizers (quantize_pt2e's `quantizer`), each with its static config: calibrated
# activation ranges, int8 weights per output channel.
QUANTIZERS = ("x86", "xnnpack")


def pt2e_quantizer(name):
    """The PT2E quantizer `name` with its static config: x86 is torchao's X86InductorQuantizer
    (its default config: uint8 activations per tensor, int8 weights per channel; Inductor's CPU
    int8 path), xnnpack ExecuTorch's XNNPACKQuantizer (get_symmetric_quantization_config(
    is_per_channel=True): int8 activations per tensor, symmetric int8 weights per channel; what
    ExecuTorch's XNNPACK delegate runs in integers)."""
    if name == "x86":
        from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
            X86InductorQuantizer, get_default_x86_inductor_quantization_config)
        quantizer = X86InductorQuantizer()
        quantizer.set_global(get_default_x86_inductor_quantization_config())
        return quantizer
    if name == "xnnpack":
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
            XNNPACKQuantizer, get_symmetric_quantization_config)
        quantizer = XNNPACKQuantizer()
        quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
        return quantizer
    raise ValueError("unknown quantizer %r; expected one of %s" % (name, ", ".join(QUANTIZERS)))


def quantize_pt2e(model, x, calibration, quantizer="x86"):
    """The model quantized by PT2E as PyTorch documents it: exported, prepared with the quantizer
    `quantizer` (pt2e_quantizer), calibrated on `calibration`, converted (weights folded to
    int8)."""
    import logging
    import warnings
    logging.disable(logging.WARNING)  # torchao reports its optional CUDA kernels missing
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
        prepared = prepare_pt2e(torch.export.export(model, (x,)).module(),
                                pt2e_quantizer(quantizer))
        with torch.no_grad():
            for sample in calibration:
                prepared(sample)
        return convert_pt2e(prepared)


def load_program(path):
    """A saved program (torch.export.load; a quantized row's: its quantize ops defined first)."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401 (quantized_decomposed::*)
    return torch.export.load(path)


def load_program_module(path):
    """The module of a saved program (load_program)."""
    return load_program(path).module()


def lower_pte(program_path, out):
    """The saved program lowered for ExecuTorch with the XNNPACK partitioner
    (to_edge_transform_and_lower, as ExecuTorch documents it for float and PT2E-quantized
    programs alike: XNNPACK takes a quantized program's dequantize / op / quantize groups as its
    int8 operators), written to out; prints how many of the program's nodes XNNPACK took, as one
    JSON line: {"delegated_nodes", "other_nodes", "delegated_subgraphs"}."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.devtools.backend_debug import get_delegation_info
    from executorch.exir import to_edge_transform_and_lower
    program = load_program(program_path)
    lowered = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    info = get_delegation_info(lowered.exported_program().graph_module)
    with open(out + ".tmp", "wb") as f:
        f.write(lowered.to_executorch().buffer)
    os.replace(out + ".tmp", out)
    print(json.dumps({"delegated_nodes": info.num_delegated_nodes,
                      "other_nodes": info.num_non_delegated_nodes,
                      "delegated_subgraphs": info.num_delegated_subgraphs}))


def ort_session(path, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return (lambda x: session.run(None, {name: x})[0]), ort.__version__


def openvino_compiled(path, threads):
    """The ONNX file at path compiled for OpenVINO's CPU plugin with threads inference threads,
    one stream, the latency hint and f32 inference precision (left alone the plugin runs in bf16
    on CPUs with AMX or AVX-512 bf16); and OpenVINO's version. bench/compare_decode.py uses it
    too."""
    import openvino as ov
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", {
        "INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY",
        "INFERENCE_PRECISION_HINT": "f32"})
    return compiled, ov.get_version()


def openvino_model(path, threads):
    compiled, version = openvino_compiled(path, threads)
    request = compiled.create_infer_request()

    def run(x):
        request.infer({0: x})
        return request.get_output_tensor(0).data.copy()
    return run, version


def executorch_method(path, threads):
    from executorch import version as et_version
    from executorch.extension.pybindings.portable_lib import _unsafe_reset_threadpool
    from executorch.runtime import Runtime
    _unsafe_reset_threadpool(threads)
    method = Runtime.get().load_program(path).load_method("forward")
    return (lambda x: method.execute([x])[0]), et_version.__version__


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine",
                        choices=("eager", "compile", "aoti", "ort", "openvino", "executorch"))
    parser.add_argument("--model")
    parser.add_argument("--weights")
    parser.add_argument("--program", help="eager / compile: the module of this saved program "
                        "(a quantized row's), not --model with --weights")
    parser.add_argument("--package")
    parser.add_argument("--onnx")
    parser.add_argument("--pte")
    parser.add_argument("--input")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--min-time", type=float, default=0.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--lower-pte", nargs=2, metavar=("PROGRAM", "OUT"))
    parser.add_argument("--check-executorch", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.check_executorch:
        from executorch import version as et_version
        from executorch.runtime import Runtime  # noqa: F401
        print(et_version.__version__)
        return
    if args.lower_pte:
        lower_pte(*args.lower_pte)
        return
    if not (args.engine and args.input):
        parser.error("--engine and --input are required")
    needs = {"eager": "weights", "compile": "weights", "aoti": "package", "ort": "onnx",
             "openvino": "onnx", "executorch": "pte"}[args.engine]
    if needs == "weights" and args.program:
        needs = "program"
    if not getattr(args, needs) or (needs == "weights" and not args.model):
        parser.error("--engine %s needs --%s" % (args.engine, "model and --weights"
                                                 if needs == "weights" else needs))
    x_np = np.load(args.input)
    x = torch.from_numpy(x_np)
    version = torch.__version__
    start = time.perf_counter()
    if args.engine in ("eager", "compile"):
        model = load_program_module(args.program) if args.program else load_model(args.model,
                                                                                   args.weights)
        if args.engine == "compile":
            torch._inductor.config.freezing = True
            model = torch.compile(model)
    elif args.engine == "aoti":
        model = torch._inductor.aoti_load_package(args.package)
    elif args.engine == "ort":
        model, version = ort_session(args.onnx, args.threads)
        x = x_np
    elif args.engine == "openvino":
        model, version = openvino_model(args.onnx, args.threads)
        x = x_np
    else:
        model, version = executorch_method(args.pte, args.threads)
    load_ms = (time.perf_counter() - start) * 1e3
    first, times = None, []
    with torch.inference_mode():
        for _ in range(args.warmup):
            y = model(x)
            first = y if first is None else first
        timing_start = time.perf_counter()
        while len(times) < args.runs or time.perf_counter() - timing_start < args.min_time:
            t0 = time.perf_counter()
            y = model(x)
            times.append((time.perf_counter() - t0) * 1e3)
            first = y if first is None else first
    if args.out:
        first = first_output(first)
        np.save(args.out, first if isinstance(first, np.ndarray) else first.contiguous().numpy())
    print(json.dumps({"times_ms": times, "load_ms": load_ms, "version": version}))


if __name__ == "__main__":
    main()
