#!/usr/bin/env python3
"""GPT-2 one-token decode with a KV cache: the xport runtime beside PyTorch eager with Hugging
Face's own cache, torch.compile, AOTInductor, ONNX Runtime and OpenVINO, interleaved in one run,
with the bytes a step must read against this machine's measured read bandwidth; and each of xport,
ONNX Runtime and OpenVINO with weight-only int8 and int4 weights.

Usage: bench/compare_decode.py [BUILD_DIR] [--cache N] [--rounds R] [--runs K] [--threads T]
                               [--discard]

The model is Hugging Face's GPT2LMHeadModel (124M parameters) with a fixed-seed random init; its
weights are written once to BUILD_DIR/decode/gpt2.safetensors, which every engine reads. Each step
runs one new token at position N-1 with N-1 cached positions before it (a full cache):
  xp-bf16, xp-int8, xp-int4  the same program with bfloat16 weights (xport::quant::to_bf16:
          linear layers as torch.autocast(bfloat16) runs them, on the runtime's
          xport::bf16_linear) and weight-only int8 (per output channel) / int4
          (groups of 128, affine) weights (xport::quant::prepare; xport::weight_only_linear);
  xport   BUILD_DIR/bench/xport_decode_bench: the KV-cache GPT-2 exported once (new tokens
          dynamic from 1), caches updated in place by runtime::Program;
  eager   GPT2LMHeadModel with its DynamicCache, cropped back to N-1 positions after each step;
  compile torch.compile (inductor) of the decode step below, with explicit past keys and values;
  AOTI    the same step through torch.export and torch._inductor.aoti_compile_and_package;
  ORT     the same step exported with torch.onnx.export (past keys and values in, logits and the
          new keys and values out, as GPT-2 ONNX exports are), graph optimizations 'all';
  OpenVINO the same ONNX file compiled for OpenVINO's CPU plugin as the peer benchmark does
          (bench/peers/torch_peer.py): INFERENCE_NUM_THREADS T, one stream, PERFORMANCE_HINT
          LATENCY and INFERENCE_PRECISION_HINT f32, so that it computes in f32 like the others
          (left alone the plugin runs in bf16 on CPUs with AMX or AVX-512 bf16); its inputs and
          outputs shared with numpy (share_inputs, share_outputs) rather than copied;
  ORT-int8, ORT-int4  that ONNX file through ONNX Runtime's MatMulNBitsQuantizer (its defaults:
          asymmetric, blocks of 128 input features; accuracy_level 4, as ORT's documentation
          has it for CPUs: its int8 kernel has no fast path without, and with it activations are
          quantized to int8 per block inside MatMulNBits). The quantizer converts MatMul over a
          constant weight only, so first the 48 Gemm of GPT-2's Conv1D layers become MatMul,
          and lm_head's Transpose of the tied wte a transposed initializer of its own (the
          embedding's Gather keeps the float one); all 4 x layers + 1 must become MatMulNBits;
  OV-int8, OV-int4  that ONNX file read by OpenVINO and compressed by NNCF, OpenVINO's way:
          nncf.compress_weights with INT8_ASYM (its default: per output channel) and INT4_ASYM
          with group_size 128, ratio 1 and all_layers (else the tied wte with lm_head, wpe and
          the last MatMul stay int8), saved as IR, compiled as OpenVINO's row; every
          fully connected layer of the compiled model must keep integer weights (the plugin's
          default DYNAMIC_QUANTIZATION_GROUP_SIZE 32 quantizes their activations to int8).
The quantized ONNX and IR files are made once in BUILD_DIR/decode; --discard deletes, at the end,
the files this run made there (CI's smoke run, whose 2 GB nothing else reads). The logits of
compile, AOTI, ORT and OpenVINO are checked against eager's on the same step (max |difference|
at most 1e-3 x max |eager|), those of the int8 rows within 1e-1 and of the int4 rows within
5e-1 of it (at cache 256 all four measure about 3e-2 and 3e-1; the same weights rounded in
PyTorch, activations float, give 1.6e-2 and 3.1e-1). All use T threads (default 2). Each round
runs every engine once (xport in a fresh process, which also measures the bandwidth); an
engine's figure is the median over rounds of its median step. "x bound" is the step time over
bytes / bandwidth: 1.0 would read every byte at the measured bandwidth.
"""
import argparse
import contextlib
import functools
import json
import logging
import os
import statistics
import subprocess
import sys
import time

import bench_common  # noqa: F401  (sets up OpenBLAS before torch)
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
import torch_peer  # noqa: E402  (OpenVINO's settings, shared with the peer benchmark)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def hf_model(cache):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(2026)
    return GPT2LMHeadModel(GPT2Config(n_positions=max(1024, cache))).eval()


def save_weights(model, path):
    from safetensors.torch import save_file
    state = {k: v.contiguous() for k, v in model.state_dict().items()
             if not k.endswith((".attn.bias", ".attn.masked_bias")) and k != "lm_head.weight"}
    save_file(state, path)


def check_logits(name, got, want, tolerance=1e-3):
    err = float(np.abs(got - want).max() / np.abs(want).max())
    if err > tolerance:
        sys.exit("compare_decode: %s's logits differ from eager's by %.1e" % (name, err))
    log("%s: logits within %.1e of eager's" % (name, err))


QUANT_TOLERANCE = {8: 1e-1, 4: 5e-1}


def ort_quantize(onnx_path, path, bits, layers):
    """onnx_path with its linear layers' weights quantized to `bits` by MatMulNBitsQuantizer,
    written to path; exits unless all `layers` became MatMulNBits."""
    import onnx
    from onnx import helper, numpy_helper
    from onnxruntime.quantization import matmul_nbits_quantizer as nbits
    logging.getLogger().setLevel(logging.WARNING)  # importing the quantizer set it to INFO
    model = onnx.load(onnx_path)
    graph = model.graph
    weights = {w.name: w for w in graph.initializer}
    nodes = []
    for node in graph.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        # torch.onnx.export's Gemm has no bias input (an Add follows it).
        if (node.op_type == "Gemm" and len(node.input) == 2 and node.input[1] in weights
                and not attrs.get("transA") and not attrs.get("transB")
                and attrs.get("alpha", 1.0) == 1.0):
            nodes.append(helper.make_node("MatMul", node.input, node.output, name=node.name))
        elif (node.op_type == "Transpose" and node.input[0] in weights
              and list(attrs.get("perm", [])) == [1, 0]):
            weight = numpy_helper.to_array(weights[node.input[0]])
            graph.initializer.append(numpy_helper.from_array(weight.T.copy(), node.output[0]))
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    quantizer = nbits.MatMulNBitsQuantizer(model, bits=bits, block_size=128, accuracy_level=4)
    quantizer.process()
    converted = sum(n.op_type == "MatMulNBits" for n in quantizer.model.model.graph.node)
    if converted != layers:
        sys.exit("compare_decode: MatMulNBitsQuantizer converted %d of %d linear layers"
                 % (converted, layers))
    quantizer.model.save_model_to_file(path + ".tmp", use_external_data_format=False)
    os.replace(path + ".tmp", path)


def openvino_compress(onnx_path, path, bits):
    """onnx_path read by OpenVINO with its weights compressed by NNCF to `bits`, saved as IR at
    path (.xml, with its .bin beside)."""
    import nncf
    import openvino as ov
    mode, options = ((nncf.CompressWeightsMode.INT8_ASYM, {}) if bits == 8 else
                     (nncf.CompressWeightsMode.INT4_ASYM,
                      {"group_size": 128, "ratio": 1.0, "all_layers": True}))
    nncf.set_log_level(logging.WARNING)
    with contextlib.redirect_stdout(sys.stderr):  # its progress bar
        model = nncf.compress_weights(ov.Core().read_model(onnx_path), mode=mode, **options)
    stem = path[:-len(".xml")]
    ov.save_model(model, stem + ".tmp.xml", compress_to_fp16=False)  # else f32 becomes f16
    os.replace(stem + ".tmp.bin", stem + ".bin")
    os.replace(stem + ".tmp.xml", path)


def integer_weight_layers(compiled):
    """How many fully connected layers of an OpenVINO compiled model read integer weights."""
    return sum(op.get_rt_info()["layerType"].astype(str) == "FullyConnected"
               and op.input(1).get_element_type().get_type_name() in ("u8", "i8", "u4", "i4")
               for op in compiled.get_runtime_model().get_ordered_ops())


def median_step(step, runs, warmup=3):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


class DecodeStep(torch.nn.Module):
    """One GPT-2 decode step over explicit past keys and values ([layers, 1, heads, past, head
    dim] each), in plain PyTorch with the Hugging Face model's weights; returns the logits and
    the present keys and values (past and the new token's), as GPT-2 ONNX exports do."""

    def __init__(self, hf):
        super().__init__()
        self.hf = hf

    def forward(self, ids, position, past_k, past_v):
        t = self.hf.transformer
        heads = self.hf.config.n_head
        h = t.wte(ids) + t.wpe(position)
        present_k, present_v = [], []
        for i, block in enumerate(t.h):
            x = block.ln_1(h)
            q, k, v = block.attn.c_attn(x).split(self.hf.config.n_embd, dim=2)
            q, k, v = (z.view(1, 1, heads, -1).transpose(1, 2) for z in (q, k, v))
            k = torch.cat([past_k[i], k], dim=2)
            v = torch.cat([past_v[i], v], dim=2)
            present_k.append(k)
            present_v.append(v)
            a = torch.nn.functional.scaled_dot_product_attention(q, k, v)
            h = h + block.attn.c_proj(a.transpose(1, 2).reshape(1, 1, -1))
            h = h + block.mlp(block.ln_2(h))
        return self.hf.lm_head(t.ln_f(h)), torch.stack(present_k), torch.stack(present_v)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--cache", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--discard", action="store_true",
                        help="delete the files this run made in BUILD_DIR/decode when it ends")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    work = os.path.join(args.build, "decode")
    os.makedirs(work, exist_ok=True)
    kept = set(os.listdir(work))
    try:
        compare(args, work)
    finally:
        if args.discard:
            for name in set(os.listdir(work)) - kept:
                os.remove(os.path.join(work, name))


def compare(args, work):
    binary = os.path.join(args.build, "bench", "xport_decode_bench")
    weights = os.path.join(work, "gpt2.safetensors")
    onnx_path = os.path.join(work, "gpt2_decode_c%d.onnx" % args.cache)
    model = hf_model(args.cache)
    if not os.path.exists(weights):
        save_weights(model, weights)
    past = args.cache - 1
    config = model.config
    head_dim = config.n_embd // config.n_head
    ids = torch.tensor([[464]])
    position = torch.tensor([[past]])

    # Eager: prefill past positions, then each step crops the cache back to them.
    with torch.no_grad():
        cache = model(torch.arange(past).view(1, -1) % config.vocab_size,
                      use_cache=True).past_key_values

        def eager_step():
            model(ids, past_key_values=cache, position_ids=position, use_cache=True)
            cache.crop(-1)  # drop the new position again

        eager_step()

    # ONNX Runtime: the same step with explicit past keys and values.
    import onnxruntime as ort
    past_k = torch.randn(config.n_layer, 1, config.n_head, past, head_dim)
    past_v = torch.randn(config.n_layer, 1, config.n_head, past, head_dim)
    if not os.path.exists(onnx_path):
        start = time.perf_counter()
        with torch.no_grad():
            torch.onnx.export(DecodeStep(model), (ids, position, past_k, past_v), onnx_path,
                              input_names=["ids", "position", "past_k", "past_v"],
                              output_names=["logits", "present_k", "present_v"], dynamo=True,
                              external_data=False)
        log("ONNX export: %s (%.1f s)" % (onnx_path, time.perf_counter() - start))
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
    feeds = {"ids": ids.numpy(), "position": position.numpy(), "past_k": past_k.numpy(),
             "past_v": past_v.numpy()}
    with torch.no_grad():
        want = DecodeStep(model)(ids, position, past_k, past_v)[0].numpy()
    check_logits("ONNX Runtime", session.run(None, feeds)[0], want)

    # OpenVINO: the same ONNX file, its inputs and outputs shared with numpy (no copies).
    start = time.perf_counter()
    ov_model, _ = torch_peer.openvino_compiled(onnx_path, args.threads)
    ov_request = ov_model.create_infer_request()
    log("OpenVINO compile: %.1f s" % (time.perf_counter() - start))

    def openvino_step():
        return ov_request.infer(feeds, share_inputs=True, share_outputs=True)

    check_logits("OpenVINO", openvino_step()["logits"], want)

    # The same file with weight-only int8 and int4 weights, in ONNX Runtime and OpenVINO.
    layers = 4 * config.n_layer + 1  # c_attn, c_proj, c_fc, mlp's c_proj; lm_head
    quantized = {}
    for bits in (8, 4):
        path = os.path.join(work, "gpt2_decode_c%d_ort_int%d.onnx" % (args.cache, bits))
        if not os.path.exists(path):
            start = time.perf_counter()
            ort_quantize(onnx_path, path, bits, layers)
            log("MatMulNBitsQuantizer: %s (%.1f s)" % (path, time.perf_counter() - start))
        name = "ORT-int%d" % bits
        q_session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        check_logits(name, q_session.run(None, feeds)[0], want, QUANT_TOLERANCE[bits])
        quantized[name] = functools.partial(q_session.run, None, feeds)
    for bits in (8, 4):
        path = os.path.join(work, "gpt2_decode_c%d_ov_int%d.xml" % (args.cache, bits))
        if not os.path.exists(path):
            start = time.perf_counter()
            openvino_compress(onnx_path, path, bits)
            log("nncf.compress_weights: %s (%.1f s)" % (path, time.perf_counter() - start))
        name = "OV-int%d" % bits
        q_model, _ = torch_peer.openvino_compiled(path, args.threads)
        kept = integer_weight_layers(q_model)
        if kept != layers:
            sys.exit("compare_decode: %s keeps integer weights in %d of %d linear layers"
                     % (name, kept, layers))
        quantized[name] = functools.partial(q_model.create_infer_request().infer, feeds,
                                            share_inputs=True, share_outputs=True)
        check_logits(name, quantized[name]()["logits"], want, QUANT_TOLERANCE[bits])

    # torch.compile and AOTInductor compile the same explicit-cache step.
    step_module = DecodeStep(model)
    with torch.no_grad():
        compiled = torch.compile(step_module)
        start = time.perf_counter()
        compiled(ids, position, past_k, past_v)
        log("torch.compile: %.1f s" % (time.perf_counter() - start))
        aoti_path = os.path.join(work, "gpt2_decode_c%d.pt2" % args.cache)
        if not os.path.exists(aoti_path):
            start = time.perf_counter()
            program = torch.export.export(step_module, (ids, position, past_k, past_v))
            torch._inductor.aoti_compile_and_package(program, package_path=aoti_path)
            log("AOTInductor: %s (%.1f s)" % (aoti_path, time.perf_counter() - start))
        aoti = torch._inductor.aoti_load_package(aoti_path)
        for name, fn in (("torch.compile", compiled), ("AOTInductor", aoti)):
            check_logits(name, fn(ids, position, past_k, past_v)[0].numpy(), want)

    results = {"xport": [], "xp-bf16": [], "xp-int8": [], "xp-int4": [], "eager": [],
               "compile": [], "AOTI": [], "ORT": [], "OpenVINO": [],
               **{name: [] for name in quantized}}
    bytes_per_step, bandwidth = None, []
    for r in range(args.rounds):
        # xport's float program, then the same with bfloat16 weights (xport::quant::to_bf16)
        # and int8 and int4 (groups of 128) weights (its weight-only schemes), each in a fresh
        # process.
        for name, scheme in (("xport", "fp32"), ("xp-bf16", "bf16"), ("xp-int8", "int8-weight"),
                             ("xp-int4", "int4-weight")):
            out = subprocess.run([binary, weights, "--cache", str(args.cache), "--runs",
                                  str(args.runs), "--threads", str(args.threads),
                                  "--scheme", scheme],
                                 check=True, capture_output=True, text=True)
            x = json.loads(out.stdout)
            results[name].append(statistics.median(x["times_ms"]))
            if scheme == "fp32":
                bytes_per_step = x["bytes_per_step"]
                bandwidth.append(x["bandwidth_gbs"])
        with torch.no_grad():
            results["eager"].append(median_step(eager_step, args.runs))
        with torch.no_grad():
            results["compile"].append(
                median_step(lambda: compiled(ids, position, past_k, past_v), args.runs))
            results["AOTI"].append(
                median_step(lambda: aoti(ids, position, past_k, past_v), args.runs))
        results["ORT"].append(median_step(lambda: session.run(None, feeds), args.runs))
        results["OpenVINO"].append(median_step(openvino_step, args.runs))
        for name, step in quantized.items():
            results[name].append(median_step(step, args.runs))
        log("round %d: %s" % (r + 1, ", ".join("%s %.2f ms" % (k, v[-1])
                                                for k, v in results.items())))

    gbs = statistics.median(bandwidth)
    bound_ms = bytes_per_step / (gbs * 1e9) * 1000
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model_name = next((line.split(":", 1)[1].strip() for line in cpu.splitlines()
                       if line.startswith("Model name")), "unknown CPU")
    print("GPT-2 decode step, cache %d (%d cached + 1 new), %d threads, %s" %
          (args.cache, past, args.threads, model_name))
    print("bytes per step %.1f MB; measured read bandwidth %.1f GB/s; bound %.2f ms" %
          (bytes_per_step / 1e6, gbs, bound_ms))
    print("%-8s %10s %10s %9s" % ("engine", "ms/step", "tokens/s", "x bound"))
    ms = {name: statistics.median(values) for name, values in results.items()}
    for name, step_ms in ms.items():
        print("%-8s %10.2f %10.1f %9.2f" % (name, step_ms, 1000 / step_ms, step_ms / bound_ms))
    fp32 = {"xp-bf16": "xport", "xp-int8": "xport", "xp-int4": "xport", "ORT-int8": "ORT",
            "ORT-int4": "ORT", "OV-int8": "OpenVINO", "OV-int4": "OpenVINO"}
    print("steps against the same engine's fp32 step (the bound above counts fp32 bytes): " +
          ", ".join("%s %.2fx" % (name, ms[name] / ms[of]) for name, of in fp32.items()))
    best = {bits: min(("ORT-int%d" % bits, "OV-int%d" % bits), key=ms.get) for bits in (8, 4)}
    print("xport's quantized steps against the faster peer's: int8 %.2fx (%s), int4 %.2fx (%s)"
          % (ms["xp-int8"] / ms[best[8]], best[8], ms["xp-int4"] / ms[best[4]], best[4]))


if __name__ == "__main__":
    main()
