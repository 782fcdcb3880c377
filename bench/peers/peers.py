#!/usr/bin/env python3
"""The peer benchmark: one program exported by PyTorch 2.13 per row, run by PyTorch eager,
torch.compile, AOTInductor, ONNX Runtime, OpenVINO, ExecuTorch, the xport runtime and xport's
ahead-of-time compiled library, interleaved in one run; prints a table of median latencies, one
of peak RSS and one of compile times.

Usage (bench/peers/run.sh calls this with the test environment's Python):
  peers.py [--build DIR] [--rows REGEX] [--rounds R] [--runs K] [--warmup W] [--min-time S]
           [--threads N] [--tolerance T] [--baseline OTHER_BUILD] [--engines LIST]
           [--executorch-python PY] [--quick]
Defaults: 5 rounds, 3 warm-up runs, >= 3 timed runs and >= 1 s per engine and round, 2 threads;
--quick: 1 round, 2 warm-up runs, 2 timed runs. --engines aoti,xport times only those engines
(of eager, compile, aoti, ort, openvino, executorch, xport, aot, own), numerics then compared
with the first of them. --baseline OTHER_BUILD adds an earlier build's xport runtime (its
xport_peer_bench on the same program) as one more engine, xport@B, interleaved with the rest:
before and after a change in one run. --executorch-python runs the ExecuTorch engine (lowering
and runtime) with another interpreter that has executorch installed beside torch 2.13 (default:
the test environment's; without executorch there, the engine is skipped and the table says why).

Rows: the reference MLP 1024-4096-4096-1024 of tests/models/reference_models.py, batch 32;
Hugging Face's ResNetForImageClassification(ResNetConfig()) (ResNet-50, 2 labels) at batch 1 and
8, 224 px; BertModel(BertConfig()) (BERT-base, default attention: sdpa) at batch 1 and 8,
sequence 128 (int64 token ids in, last hidden state and pooler output out); GPT2LMHeadModel(
GPT2Config()) (GPT-2, sdpa, use_cache off) on one 128-token sequence (logits out). The models are
built from their configs with weights from a fixed seed (nothing is downloaded; HF_HUB_OFFLINE=1),
in eval mode, each returning its ModelOutput as a plain tuple (torch_peer.TupleOutputs) so that
its saved program loads without transformers. Four int8 rows take ResNet-50 at batch 1 and the
reference BertEncoder (float [1, 128, 768] in) quantized by PT2E, static, as their program:
resnet50_int8_b1 and bert_int8_b1_t128 with torchao's X86InductorQuantizer, resnet50_xnn_int8_b1
and bert_xnn_int8_b1_t128 with ExecuTorch's XNNPACKQuantizer (QUANTIZER says more; BLANK says
which engines do not run them, and why).

Each row is prepared once and cached in BUILD/peers/<row>/ (stale when reference_models.py,
torch_peer.py or PREPARE_VERSION change, or a binary that made a file does): the model's state
dict is saved (BUILD/peers/weights/<model>.pt); the model loaded from it is exported with
torch.export.export on the row's input (input.npy) and saved with torch.export.save
(model.torch.pt2): THE program of the row. Every engine but eager, torch.compile and xp-own
starts from that file: AOTInductor compiles the program torch.export.load reads back
(aoti_compile_and_package, freezing on: model.aoti.pt2); torch.onnx.export (dynamo=True) exports
the loaded program (model.onnx), which ONNX Runtime and OpenVINO's CPU plugin both read (OpenVINO
from the ONNX file, not ov.convert_model); ExecuTorch lowers the loaded program with the XNNPACK
partitioner (model.pte, run by executorch.runtime; preparing it logs how many of the program's
nodes XNNPACK took); the xport runtime (runtime::Program, through
xport_peer_bench time) loads model.torch.pt2 itself, and `xport compile` compiles it ahead of time
(model.aot.so, timed the same way: column xp-aot). eager and torch.compile (inductor, CPU,
torch._inductor.config.freezing on) run the module, with the saved weights. xp-own is xport's own
C++ capture: xport_peer_bench builds xport's C++ model of the same architecture
(include/xport/nn/models.h), loads the same weights (a safetensors file in its layout) and exports
it with export_program (model.pt2), run by the xport runtime: its MLP, GPT2 (Hugging Face's
names), Bert (Hugging Face's BertModel) and ResNet-50 (torchvision's names, which own_layout
maps Hugging Face's onto; 2 classes, ResNetConfig()'s default). xport's GPT2 is its own C++
model with fused causal attention, so that column is xport's capture of the same weights, not
of the same graph.

Then R rounds: in each, every row runs each engine in a fresh process (torch_peer.py for the
Python engines, xport_peer_bench time for xport's), in an order rotated from round to round; an
engine times runs after W warm-up runs until it has K runs and S seconds. An engine's latency is
the median over rounds of its round's median. All engines use N threads (default 2; ONNX
Runtime: N intra-op threads, one inter-op thread, graph optimizations 'all'; OpenVINO: N
inference threads, one stream, f32 precision; ExecuTorch: XNNPACK's thread pool reset to N).
Peak RSS: the largest ru_maxrss of each engine's process over the rounds, from os.wait4 in a
small launcher that forks it (run_measured, one helper for every engine, xport's included; the
launcher keeps peers.py's own size, torch loaded, out of the child's figure): the whole process,
interpreter, libraries, loading, compiling (TORCHINDUCTOR_COMPILE_THREADS=1 keeps
torch.compile's compilation in the process) and the runs. The last table gives what preparing
each row cost, measured once: torch.export, AOTInductor's compile, torch.onnx.export,
ExecuTorch's lowering and `xport compile`, and the library's size.

Numerics: in the first round every engine writes its first output; each is compared with eager's
as max|y - y_eager| / max|y_eager|; the script fails (exit 1, after the tables) when any exceeds
--tolerance (1e-3; on a quantized row QUANTIZED_TOLERANCE or its ROW_TOLERANCE) or an engine
fails (a skipped engine is no failure, nor one that BLANK says does not run the row's program:
its cell is blank, the reason printed under the tables). GFLOP per forward counts
2 x multiply-adds of the matrix products (torch.utils.flop_counter on eager, plus attention's
QK^T and PV for BERT and GPT-2, which the counter does not see in sdpa).
"""
import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PYTHON = os.environ.get("PYTHON", sys.executable)  # the test environment's (make venv)
ENGINE_TIMEOUT_S = 900  # one engine process, one round
os.environ["HF_HUB_OFFLINE"] = "1"

# row -> (model, batch, image side or sequence length)
ROWS = {
    "mlp_b32": ("mlp", 32, None),
    "resnet50_b1": ("resnet50", 1, 224),
    "resnet50_b8": ("resnet50", 8, 224),
    "bert_b1_t128": ("bert", 1, 128),
    "bert_b8_t128": ("bert", 8, 128),
    "gpt2_b1_t128": ("gpt2", 1, 128),
    "resnet50_int8_b1": ("resnet50", 1, 224),
    "bert_int8_b1_t128": ("bert_encoder", 1, 128),
    "resnet50_xnn_int8_b1": ("resnet50", 1, 224),
    "bert_xnn_int8_b1_t128": ("bert_encoder", 1, 128),
}
# Rows whose program is the model quantized by PT2E (torch_peer.quantize_pt2e, static: calibrated
# on the row's input and 3 more seeded ones) -> the quantizer. x86: torchao's
# X86InductorQuantizer, PyTorch's own int8 path for CPUs; xnnpack: ExecuTorch's XNNPACKQuantizer
# (symmetric, per channel), the program ExecuTorch's XNNPACK delegate runs in integers. The
# xnn rows are the x86 rows' models, inputs and calibration with the other quantizer. BERT here
# is the reference BertEncoder of nn.TransformerEncoderLayer: the X86 quantizer fails inside its
# own linear annotator on Hugging Face's BertModel under PyTorch 2.13. eager is the PT2E reference
# program, compile is torch.compile (freezing on) of it; ExecuTorch runs the xnnpack rows only
# (it runs XNNPACKQuantizer's programs: the x86 rows' cell is blank, BLANK); there is no xp-own.
QUANTIZER = {"resnet50_int8_b1": "x86", "bert_int8_b1_t128": "x86",
             "resnet50_xnn_int8_b1": "xnnpack", "bert_xnn_int8_b1_t128": "xnnpack"}
QUANTIZED = tuple(QUANTIZER)
# Quantized engines differ from the reference program by a rounding step here and there.
QUANTIZED_TOLERANCE = 5e-2
# ... and by more where the program makes one step many: XNNPACKQuantizer quantizes every
# activation (BERT's residual stream too, its last one before the final LayerNorm in steps of
# 0.12), so that PyTorch eager's own output moves by 4e-2 (ResNet-50) and 1.5e-1 (BERT) when its
# input is scaled by 1 + 1e-6 noise; every engine lands that far from eager, and from the others
# (measured: up to 5.9e-2 and 1.6e-1). BERT's limit stays under the program's distance from the
# float model it quantizes (2.1e-1), which an engine that skipped the quantization would show.
ROW_TOLERANCE = {"resnet50_xnn_int8_b1": 1e-1, "bert_xnn_int8_b1_t128": 2e-1}
# Engines that do not run a row's program -> why: not prepared nor run there, their cell blank
# and the reason printed under the tables (no failure; drop an entry to try the engine again
# after an upgrade). Inductor's CPU int8 lowering (PyTorch 2.13) is written for
# X86InductorQuantizer's uint8 activations, not XNNPACKQuantizer's int8 ones.
INDUCTOR_INT8 = "Inductor's int8 lowering takes uint8 activations (X86InductorQuantizer's): "
BLANK = {
    ("resnet50_xnn_int8_b1", "compile"): INDUCTOR_INT8 + "onednn.qconv_pointwise refuses these "
    "int8 ones at the first run (Input tensor should have uint8 (unsigned char) or fp8 data type)",
    ("resnet50_xnn_int8_b1", "aoti"): INDUCTOR_INT8 + "the package's quantized::max_pool2d "
    "pools plain uint8 tensors, not these int8 ones (aten::quantized_max_pool2d: no CPU kernel)",
    ("bert_xnn_int8_b1_t128", "compile"): INDUCTOR_INT8 + "onednn.qlinear_pointwise on these "
    "int8 ones runs oneDNN's reference kernel (ref_int8: seconds a layer, minutes a "
    "forward, past the engine's %d s)" % ENGINE_TIMEOUT_S,
}
BLANK.update({(row, "executorch"): "ExecuTorch runs XNNPACKQuantizer's programs, not "
              "X86InductorQuantizer's" for row, q in QUANTIZER.items() if q == "x86"})
ENGINES = ("eager", "compile", "aoti", "ort", "openvino", "executorch", "xport", "aot", "own")
PEERS = ENGINES[:6]
LABELS = {"eager": "eager", "compile": "compile", "aoti": "AOTI", "ort": "ORT",
          "openvino": "OpenVINO", "executorch": "ET-XNN", "xport": "xport", "aot": "xp-aot",
          "own": "xp-own", "baseline": "xport@B"}
# Models xport_peer_bench builds with the same weights as the row's program (xp-own).
OWN_CAPTURE = ("mlp", "resnet50", "bert", "gpt2")
# The prepared files of a row are stale when reference_models.py, torch_peer.py or
# PREPARE_VERSION (bump it when prepare() changes what it writes) changes; compare_onnx.py
# computes the same digest.
REFERENCE = os.path.join(ROOT, "tests", "models", "reference_models.py")
PREPARE_VERSION = 9


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def digest(paths, extra=""):
    h = hashlib.sha256(extra.encode())
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def binary_stamp(path):
    st = os.stat(path)
    return "%d:%d" % (st.st_size, st.st_mtime_ns)


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def write_json(path, obj):
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(path + ".tmp", path)


class Row:
    def __init__(self, name, peers_dir):
        self.name = name
        self.model, self.batch, self.size = ROWS[name]
        self.quantizer = QUANTIZER.get(name)  # PT2E's quantizer of a quantized row's program
        self.quantized = self.quantizer is not None
        # Engines that do not run this row's program (not prepared, not run) -> why.
        self.blank = {e: why for (r, e), why in BLANK.items() if r == name}
        self.dir = os.path.join(peers_dir, name)
        # The state dict eager and torch.compile load, and the same weights in xport's layout.
        self.weights = os.path.join(peers_dir, "weights", self.model + ".pt")
        self.own_weights = os.path.join(peers_dir, "weights", self.model + ".safetensors")
        self.input = os.path.join(self.dir, "input.npy")
        # The program torch.export made (torch.export.save): what every engine starts from.
        self.torch_program = os.path.join(self.dir, "model.torch.pt2")
        self.aoti = os.path.join(self.dir, "model.aoti.pt2")
        self.onnx = os.path.join(self.dir, "model.onnx")
        self.pte = os.path.join(self.dir, "model.pte")
        self.aot = os.path.join(self.dir, "model.aot.so")
        # xport's own capture of its C++ model (xp-own), for the models in OWN_CAPTURE.
        self.archive = os.path.join(self.dir, "model.pt2")
        self.has_own = self.model in OWN_CAPTURE and not self.quantized
        self.manifest = os.path.join(self.dir, "manifest.json")
        self.flops = None
        self.compile = {}
        self.unprepared = set()  # engines whose file could not be made

    def output(self, engine):
        return os.path.join(self.dir, "out.%s.npy" % engine)

    def limit(self, tolerance):
        """The largest max|y - y_ref| / max|y_ref| accepted on this row, given --tolerance."""
        if not self.quantized:
            return tolerance
        return max(tolerance, ROW_TOLERANCE.get(self.name, QUANTIZED_TOLERANCE))


# ---- measuring one process ------------------------------------------------------------------------

# Runs the command in argv[3:] with a timeout of argv[1] seconds and writes its exit status and
# ru_maxrss (os.wait4) to argv[2]. A process's ru_maxrss starts at the resident size of the process
# that forked it, so the engines are forked from this small interpreter, not from peers.py (which
# holds torch once it has prepared a row): an engine's peak is then its own, above a floor of this
# launcher's size (about 10 MB).
LAUNCHER = r"""
import json, os, subprocess, sys, threading
p = subprocess.Popen(sys.argv[3:])
killed = []
timer = threading.Timer(float(sys.argv[1]), lambda: (killed.append(1), p.kill()))
timer.start()
_, status, usage = os.wait4(p.pid, 0)
timer.cancel()
p.returncode = os.waitstatus_to_exitcode(status)
with open(sys.argv[2], "w") as f:
    json.dump({"code": None if killed else p.returncode, "maxrss_kb": usage.ru_maxrss}, f)
"""


def run_measured(argv, env=None, timeout=ENGINE_TIMEOUT_S):
    """Runs argv to its end: (exit code or None on timeout, stdout, stderr, peak RSS in MB). The
    peak is the process's ru_maxrss from os.wait4 in a small launcher (LAUNCHER), so every engine
    is measured the same way."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(suffix=".json") as status:
        launcher = [sys.executable, "-I", "-S", "-c", LAUNCHER, str(timeout), status.name]
        proc = subprocess.run(launcher + list(argv), env=env, stdout=out, stderr=err,
                              timeout=timeout + 60)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
        result = read_json(status.name)
        if proc.returncode != 0 or "code" not in result:
            return proc.returncode or 1, stdout, stderr, None
        return result["code"], stdout, stderr, result["maxrss_kb"] * 1024 / 1e6


def check_run(argv, what, env=None):
    """Runs a preparation step: its stdout; raises with its stderr's tail when it fails."""
    code, out, err, _ = run_measured(argv, env=env)
    if code != 0:
        raise RuntimeError("%s failed (exit %s):\n%s" % (what, code, err.strip()[-3000:]))
    return out


# ---- preparation ---------------------------------------------------------------------------------

def torch_modules():
    """torch and torch_peer, imported only when a row needs preparing (importing torch takes
    seconds)."""
    import torch
    sys.path.insert(0, HERE)
    import torch_peer
    return torch, torch_peer


def model_flops(torch, model, x):
    """2 x multiply-adds of the matrix products of one forward (see the module's docstring)."""
    from torch.utils.flop_counter import FlopCounterMode
    # nn.TransformerEncoderLayer's fused fast path (bert_encoder) is invisible to the counter.
    fastpath = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            model(x)
    finally:
        torch.backends.mha.set_fastpath_enabled(fastpath)
    flops = counter.get_total_flops()
    config = getattr(getattr(model, "model", None), "config", None)
    if config is not None and hasattr(config, "num_attention_heads"):
        n, t = x.shape
        layers, width = config.num_hidden_layers, config.hidden_size
        flops += layers * 2 * (2 * n * t * t * width)  # QK^T and PV
    elif hasattr(model, "layers") and x.dim() == 3:  # bert_encoder: the same for its layers
        n, t, width = x.shape
        flops += len(model.layers) * 2 * (2 * n * t * t * width)
    return float(flops)


def resnet_name(hf_name):
    """Hugging Face ResNet's parameter name as torchvision spells it (xport's ResNet's layout):
    the stages' bottleneck layers hold conv k and its batch norm as layer.k.{convolution,
    normalization}, the projection as shortcut.{convolution, normalization}."""
    name = hf_name[len("resnet."):] if hf_name.startswith("resnet.") else hf_name
    m = re.match(r"embedder\.embedder\.(convolution|normalization)\.(.+)$", name)
    if m:
        return ("conv1." if m.group(1) == "convolution" else "bn1.") + m.group(2)
    m = re.match(r"encoder\.stages\.(\d+)\.layers\.(\d+)\.(.+)$", name)
    if m:
        block = "layer%d.%s." % (int(m.group(1)) + 1, m.group(2))
        rest = m.group(3)
        s = re.match(r"shortcut\.(convolution|normalization)\.(.+)$", rest)
        if s:
            return block + ("downsample.0." if s.group(1) == "convolution" else
                            "downsample.1.") + s.group(2)
        c = re.match(r"layer\.(\d)\.(convolution|normalization)\.(.+)$", rest)
        if c:
            k = int(c.group(1)) + 1
            return block + ("conv%d." % k if c.group(2) == "convolution" else "bn%d." % k) + \
                c.group(3)
    m = re.match(r"classifier\.1\.(weight|bias)$", name)
    if m:
        return "fc." + m.group(1)
    raise ValueError("no torchvision name for Hugging Face ResNet parameter %r" % hf_name)


def own_layout(model, state):
    """The row's state dict in the layout xport's C++ model of the same architecture loads
    (include/xport/nn/models.h): GPT-2 and BERT in the Hub's, ResNet-50 in torchvision's."""
    if model == "mlp":
        return state
    state = {k[len("model."):]: v for k, v in state.items()}  # TupleOutputs' own prefix
    if model == "gpt2":
        prefix = "transformer."
        return {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
    if model == "resnet50":
        return {resnet_name(k): v for k, v in state.items()}
    return state


def write_weights(row, source_digest):
    """The row's model weights (its state dict; and xport's layout where xp-own runs), written
    once per model, and again when the sources change."""
    stamp_path = os.path.join(os.path.dirname(row.weights), row.model + ".json")
    files = [row.weights] + ([row.own_weights] if row.has_own else [])
    if all(map(os.path.exists, files)) and read_json(stamp_path).get("sources") == source_digest:
        return
    torch, torch_peer = torch_modules()
    os.makedirs(os.path.dirname(row.weights), exist_ok=True)
    start = time.perf_counter()
    model = torch_peer.build_model(row.model, seed=0)
    state = model.state_dict()
    torch.save(state, row.weights + ".tmp")
    os.replace(row.weights + ".tmp", row.weights)
    if row.has_own:
        torch_peer.ref.save_safetensors(own_layout(row.model, state), row.own_weights + ".tmp")
        os.replace(row.own_weights + ".tmp", row.own_weights)
    write_json(stamp_path, {"sources": source_digest})
    log("  %s: weights %s (%.1f s)" % (row.model, row.weights, time.perf_counter() - start))


def export_program(row, source_digest):
    """The row's input and program (torch.export.export of the model eager loads, saved with
    torch.export.save); a new program drops every file made from the old one."""
    manifest = read_json(row.manifest)
    if (manifest.get("sources") == source_digest
            and all(map(os.path.exists, (row.input, row.torch_program)))):
        return manifest
    torch, torch_peer = torch_modules()
    os.makedirs(row.dir, exist_ok=True)
    torch.set_num_threads(2)
    model = torch_peer.load_model(row.model, row.weights)
    x = torch_peer.model_input(row.model, row.batch, row.size, seed=0)
    np.save(row.input, x.numpy())
    flops = model_flops(torch, model, x)
    start = time.perf_counter()
    with torch.no_grad():
        if row.quantized:
            calibration = [x] + [torch_peer.model_input(row.model, row.batch, row.size, seed=s)
                                 for s in (1, 2, 3)]
            model = torch_peer.quantize_pt2e(model, x, calibration, row.quantizer)
        program = torch.export.export(model, (x,))
    torch.export.save(program, row.torch_program)
    export_s = time.perf_counter() - start
    log("  %s: torch.export %s (%.1f s)" % (row.name, row.torch_program, export_s))
    manifest = {"sources": source_digest, "flops": flops, "export_s": export_s}
    write_json(row.manifest, manifest)
    return manifest


def prepare(row, args, source_digest):
    """Writes the row's weights, input and program, and what the chosen engines run from it
    (AOTInductor package, ONNX file, .pte, xport's library and own archive), unless they are up
    to date; sets row.flops and row.compile. args: parse_args()'s, or (compare_onnx.py,
    compare_aot.py) engines=() with xport_bin and xport_cli: the weights, input and program
    alone."""
    engines = getattr(args, "engines", ENGINES)
    write_weights(row, source_digest)
    manifest = export_program(row, source_digest)

    def step(key, path, users, make):
        """Makes `path` with make() for the chosen engines among `users`, unless it is there;
        when make() fails, those engines fail on this row."""
        users = [e for e in users if e in engines and e not in row.blank]
        if not users or (key in manifest and os.path.exists(path)):
            return
        try:
            manifest.update(make())
        except Exception as e:  # noqa: BLE001  (any failure of a peer's toolchain)
            log("  %s: preparing %s failed: %s" % (row.name, " and ".join(users),
                                                   str(e).strip()[-3000:]))
            row.unprepared.update(users)
            return
        write_json(row.manifest, manifest)

    def aoti():
        torch, _ = torch_modules()
        torch.set_num_threads(2)
        start = time.perf_counter()
        torch._inductor.config.freezing = True
        program = torch.export.load(row.torch_program)
        torch._inductor.aoti_compile_and_package(program, package_path=row.aoti,
                                                 inductor_configs={"freezing": True})
        s = time.perf_counter() - start
        log("  %s: AOTInductor %s (%.1f s)" % (row.name, row.aoti, s))
        return {"aoti_compile_s": s}

    def onnx():
        torch, _ = torch_modules()
        torch.set_num_threads(2)
        import warnings
        start = time.perf_counter()
        program = torch.export.load(row.torch_program)
        x = torch.from_numpy(np.load(row.input))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(program, (x,), row.onnx, dynamo=True, external_data=False,
                              verbose=False)
        s = time.perf_counter() - start
        log("  %s: ONNX %s (%.1f s)" % (row.name, row.onnx, s))
        return {"onnx_export_s": s}

    def pte():
        start = time.perf_counter()
        out = check_run([args.executorch_python, os.path.join(HERE, "torch_peer.py"),
                         "--lower-pte", row.torch_program, row.pte],
                        "ExecuTorch lowering of " + row.name)
        s = time.perf_counter() - start
        # How much of the program XNNPACK took (torch_peer.lower_pte's last line): a quantized
        # program's int8 operators should be in its subgraphs, not left to the portable ops.
        taken = json.loads(out.strip().splitlines()[-1])
        log("  %s: ExecuTorch %s (%.1f s): XNNPACK took %d nodes in %d subgraphs, %d left "
            "outside" % (row.name, row.pte, s, taken["delegated_nodes"],
                         taken["delegated_subgraphs"], taken["other_nodes"]))
        return {"pte_lower_s": s, "pte_python": args.executorch_python, "pte_delegation": taken}

    def own():
        start = time.perf_counter()
        check_run([args.xport_bin, "export", row.model, row.own_weights, row.archive, "--input",
                   row.input], "xport_peer_bench export " + row.model)
        log("  %s: xport's own capture %s (%.1f s)" % (row.name, row.archive,
                                                      time.perf_counter() - start))
        return {"own_binary": binary_stamp(args.xport_bin)}

    def aot():
        start = time.perf_counter()
        check_run([args.xport_cli, "compile", row.torch_program, row.aot], "xport compile")
        s = time.perf_counter() - start
        log("  %s: xport compile %s (%.1f s)" % (row.name, row.aot, s))
        return {"aot_compile_s": s, "aot_bytes": os.path.getsize(row.aot),
                "aot_stamp": binary_stamp(args.xport_cli)}

    # Files that follow a binary are stale when it changed.
    for key, binary in (("own_binary", args.xport_bin), ("aot_stamp", args.xport_cli)):
        if key in manifest and manifest[key] != binary_stamp(binary):
            del manifest[key]
    executorch = getattr(args, "executorch_version", None) is not None
    if executorch and manifest.get("pte_python") != args.executorch_python:
        manifest.pop("pte_lower_s", None)
    step("aoti_compile_s", row.aoti, ["aoti"], aoti)
    step("onnx_export_s", row.onnx, ["ort", "openvino"], onnx)
    step("pte_lower_s", row.pte, ["executorch"] if executorch else [], pte)
    step("own_binary", row.archive, ["own"] if row.has_own else [], own)
    step("aot_stamp", row.aot, ["aot"], aot)
    if not row.has_own and os.path.exists(row.archive):
        os.remove(row.archive)  # an earlier version's own capture of another model
    write_json(row.manifest, manifest)
    row.flops = manifest["flops"]
    row.compile = manifest


# ---- timing --------------------------------------------------------------------------------------

def engine_command(engine, row, args, out):
    timing = ["--runs", str(args.runs), "--warmup", str(args.warmup), "--min-time",
              str(args.min_time), "--threads", str(args.threads)]
    if out:
        timing += ["--out", out]
    python = args.executorch_python if engine == "executorch" else PYTHON
    peer = [python, os.path.join(HERE, "torch_peer.py"), "--engine", engine, "--input", row.input]
    if engine in ("eager", "compile"):
        if row.quantized:
            return peer + ["--program", row.torch_program] + timing
        return peer + ["--model", row.model, "--weights", row.weights] + timing
    if engine == "aoti":
        return peer + ["--package", row.aoti] + timing
    if engine in ("ort", "openvino"):
        return peer + ["--onnx", row.onnx] + timing
    if engine == "executorch":
        return peer + ["--pte", row.pte] + timing
    binary, program = {"xport": (args.xport_bin, row.torch_program),
                       "aot": (args.xport_bin, row.aot),
                       "own": (args.xport_bin, row.archive),
                       "baseline": (args.baseline_bin, row.torch_program)}[engine]
    return [binary, "time", program, "--input", row.input] + timing


def run_engine(engine, row, args, out):
    """(the engine's JSON report, its peak RSS in MB), or None (with the reason logged) when it
    failed."""
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), TORCHINDUCTOR_COMPILE_THREADS="1")
    code, stdout, stderr, rss = run_measured(engine_command(engine, row, args, out), env=env)
    if code is None:
        log("  %s / %s failed: no result in %d s" % (row.name, engine, ENGINE_TIMEOUT_S))
        return None
    if code != 0:
        log("  %s / %s failed (exit %d):\n%s" % (row.name, engine, code, stderr.strip()[-2000:]))
        return None
    return json.loads(stdout.strip().splitlines()[-1]), rss


def rel_diff(a, ref):
    """max |a - ref| / max |ref| (inf on a shape mismatch)."""
    if a.shape != ref.shape:
        return float("inf")
    ref64 = ref.astype(np.float64)
    scale = max(float(np.abs(ref64).max()), 1e-30)
    return float(np.abs(a.astype(np.float64) - ref64).max()) / scale


def executorch_version(python):
    """(executorch's version, None) where `python` imports executorch.runtime, else (None, the
    reason)."""
    code, out, err, _ = run_measured([python, os.path.join(HERE, "torch_peer.py"),
                                      "--check-executorch"], timeout=300)
    if code == 0:
        return out.strip().splitlines()[-1], None
    lines = [l for l in err.strip().splitlines() if l.strip()]
    return None, (lines[-1] if lines else "exit %s" % code)


# ---- report --------------------------------------------------------------------------------------

def machine():
    """The CPU's model name (lscpu)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"^Model name:\s*(.+)$", out, re.M)
        return m.group(1).strip() if m else "unknown"
    except OSError:
        return "unknown"


def cpu_line():
    """The CPU, its family and model, and the vector and matrix extensions it has."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    flags = set(info.get("flags", "").split())
    isa = ["AVX2" if "avx2" in flags else "no AVX2"]
    avx512 = [f for f in ("f", "bw", "vl", "vnni", "bf16", "fp16")
              if "avx512" + f in flags or "avx512_" + f in flags]
    isa.append("AVX-512 (%s)" % " ".join(avx512) if "f" in avx512 else "no AVX-512")
    amx = [f for f in ("tile", "bf16", "int8", "fp16") if "amx_" + f in flags]
    isa.append("AMX (%s)" % " ".join(amx) if amx else "no AMX")
    return "CPU: %s (family %s model %s), %d cores; %s" % (
        machine(), info.get("cpu family", "?"), info.get("model", "?"), os.cpu_count(),
        ", ".join(isa))


def fmt(v, spec):
    return "-" if v is None else spec % v


def cell(row, engine, values, failed, skipped, spec):
    """A table cell: the value, FAIL, n/a (engine skipped) or blank (no such program)."""
    if (engine == "own" and not row.has_own) or engine in row.blank:
        return ""
    if engine in skipped:
        return "n/a"
    if engine in failed[row.name]:
        return "FAIL"
    return fmt(values.get(engine), spec)


def print_latency(title, rows, values, diffs, failed, skipped, engines):
    cols = len(engines)
    line = "%-13s %6s " + "%8s " * cols + "%7s %8s %9s"
    print(title)
    print(line % ("row", "GFLOP", *(LABELS[e] for e in engines), "xport/", "best", "max rel"))
    print(line % ("", "", *([""] * cols), "best", "peer", "diff"))
    print("-" * (14 + 7 + 9 * cols + 27))
    for row in rows:
        ms = values[row.name]
        peers = {e: ms[e] for e in PEERS if ms.get(e) is not None}
        best = min(peers, key=peers.get) if peers else None
        mine = [ms[e] for e in ("xport", "aot") if ms.get(e) is not None]
        ratio = min(mine) / peers[best] if best and mine else None
        worst = max(diffs[row.name].values()) if diffs[row.name] else None
        print(line % (row.name, fmt(row.flops and row.flops / 1e9, "%.1f"),
                      *(cell(row, e, ms, failed, skipped, "%.2f") for e in engines),
                      fmt(ratio, "%.2f"), LABELS[best] if best else "-", fmt(worst, "%.1e")))


def print_tables(rows, medians, fastest, rss, diffs, paired, versions, failed, skipped, args):
    engines = args.engines
    print(cpu_line())
    names = {"torch": "PyTorch %s", "ort": "ONNX Runtime %s", "openvino": "OpenVINO %s",
             "executorch": "ExecuTorch %s (XNNPACK)"}
    print("threads per engine: %d; %s" % (args.threads, ", ".join(
        names[k] % v.split("-")[0] for k, v in versions.items() if v)))
    print("%d round(s); per engine and round: a fresh process, %d warm-up runs, then >= %d runs "
          "and >= %g s; latency = median over rounds of the round's median" % (
              args.rounds, args.warmup, args.runs, args.min_time))
    print()
    cols = len(engines)
    for title, values in (("median latency (ms)", medians),
                          ("fastest round (ms): each engine's least disturbed round, the lowest "
                           "of its round medians (load on a shared machine only adds time)",
                           fastest)):
        print_latency(title, rows, values, diffs, failed, skipped, engines)
        print()
    print("xport/best: the faster of xport and xp-aot (the runtime or its compiled library on "
          "PyTorch's program) over the fastest peer")
    print()
    print("peak RSS (MB): the largest ru_maxrss of the engine's whole process (start, load, "
          "compile, runs) over the rounds")
    line = "%-13s " + "%8s " * cols
    print(line % ("row", *(LABELS[e] for e in engines)))
    print("-" * (14 + 9 * cols))
    for row in rows:
        print(line % (row.name, *(cell(row, e, rss[row.name], failed, skipped, "%.0f")
                                  for e in engines)))
    print()
    limits = {}  # limit -> its rows (Row.limit)
    for row in rows:
        limits.setdefault(row.limit(args.tolerance), []).append(row.name)
    limit = ("%.0e" % args.tolerance if list(limits) == [args.tolerance] else "; ".join(
        "%.0e on %s" % (l, ", ".join(names)) for l, names in sorted(limits.items())))
    print("max rel diff: max over every engine of max|y - y_%s| / max|y_%s| (first output; "
          "limit %s)" % (args.reference, args.reference, limit))
    print("xport: the xport runtime on PyTorch's program (model.torch.pt2); xp-aot: that "
          "program through `xport compile`; xp-own: xport's own C++ capture of its C++ model "
          "with the same weights (blank: no C++ model of that program)")
    if args.baseline_bin:
        print("xport@B: the xport runtime of the baseline build %s on the same program"
              % args.baseline)
    for engine, reason in skipped.items():
        print("%s: n/a, skipped: %s" % (LABELS[engine], reason))
    for row in rows:
        for engine, reason in row.blank.items():
            if engine in engines:
                print("%s on %s: blank, not run: %s" % (LABELS[engine], row.name, reason))
    print()
    head = "%-13s %9s %9s %9s %9s %9s %7s %15s"
    print(head % ("row", "export", "AOTI", "ONNX", "ET lower", "xport", ".so", "xp-aot/xport"))
    print(head % ("", "s", "compile s", "export s", "s", "compile s", "MB", "per round"))
    print("-" * 87)
    for row in rows:
        c = row.compile
        rounds = paired.get(row.name)
        spread = ("%.3f %.3f-%.3f" % (statistics.median(rounds), rounds[0], rounds[-1])
                  if rounds else "-")
        print(head % (row.name, fmt(c.get("export_s"), "%.1f"),
                      fmt(c.get("aoti_compile_s"), "%.1f"), fmt(c.get("onnx_export_s"), "%.1f"),
                      fmt(c.get("pte_lower_s"), "%.1f"), fmt(c.get("aot_compile_s"), "%.2f"),
                      fmt(c.get("aot_bytes") and c["aot_bytes"] / 1e6, "%.1f"), spread))
    print("measured once, when each row was prepared: torch.export.export and save; the "
          "program's torch.export.load plus aoti_compile_and_package (freezing on), plus "
          "torch.onnx.export (dynamo=True), plus ExecuTorch's XNNPACK lowering (a whole process); "
          "the whole `xport compile` command. xp-aot/xport per round: the median, lowest and "
          "highest of each round's ratio")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rows", default=".", help="regex over the row names")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3, help="at least this many timed runs")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=1.0,
                        help="seconds each engine times per round (at least --runs runs)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tolerance", type=float, default=1e-3,
                        help="largest max|y - y_eager| / max|y_eager| accepted")
    parser.add_argument("--baseline", default=None,
                        help="another configured release build (an earlier commit's): its "
                             "xport_peer_bench runs the same program as one more engine, "
                             "xport@B, interleaved with the others, for before/after "
                             "comparisons in one run")
    parser.add_argument("--engines", default=None,
                        help="comma-separated engines to time (default: all): " +
                             ",".join(ENGINES))
    parser.add_argument("--executorch-python", default=PYTHON,
                        help="the interpreter of the ExecuTorch engine (lowering and runtime); "
                             "default: the test environment's")
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: 1 round, 2 warm-up runs, 2 timed runs")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.warmup, args.runs, args.min_time = 1, 2, 2, 0.0
    if args.rounds < 1 or args.runs < 1 or args.warmup < 0 or args.threads < 1:
        parser.error("--rounds, --runs and --threads take positive counts, --warmup >= 0")
    args.peers_dir = os.path.join(args.build, "peers")
    args.xport_bin = os.path.join(args.build, "bench", "xport_peer_bench")
    args.xport_cli = os.path.join(args.build, "xport")
    args.baseline_bin = (os.path.join(os.path.abspath(args.baseline), "bench", "xport_peer_bench")
                         if args.baseline else None)
    if args.baseline_bin and not os.access(args.baseline_bin, os.X_OK):
        parser.error("--baseline: %s is missing; build it there first" % args.baseline_bin)
    chosen = tuple(args.engines.split(",")) if args.engines else ENGINES
    unknown = [e for e in chosen if e not in ENGINES]
    if unknown or not chosen:
        parser.error("--engines: %s is none of %s" % (",".join(unknown), ",".join(ENGINES)))
    args.engines = chosen + (("baseline",) if args.baseline_bin else ())
    # Numerics are compared with eager's output, or with the first engine's without eager.
    args.reference = "eager" if "eager" in args.engines else args.engines[0]
    return args


def main():
    args = parse_args()
    for binary in (args.xport_bin, args.xport_cli):
        if not os.access(binary, os.X_OK):
            sys.exit("peers.py: %s is missing; build it (make build, or cmake --build %s "
                     "--target xport xport_peer_bench)" % (binary, args.build))
    rows = [Row(name, args.peers_dir) for name in ROWS if re.search(args.rows, name)]
    if not rows:
        sys.exit("peers.py: --rows %r matches none of %s" % (args.rows, ", ".join(ROWS)))

    start = time.perf_counter()
    engines = args.engines
    versions, skipped = {"torch": None, "ort": None, "openvino": None}, {}
    args.executorch_version = None
    if "executorch" in engines:
        args.executorch_version, reason = executorch_version(args.executorch_python)
        if reason:
            skipped["executorch"] = "%s does not import executorch.runtime: %s" % (
                args.executorch_python, reason)
            log("ExecuTorch skipped: " + skipped["executorch"])
        versions["executorch"] = args.executorch_version
    log("preparing %d row(s) in %s" % (len(rows), args.peers_dir))
    source_digest = digest([REFERENCE, os.path.join(HERE, "torch_peer.py")],
                           extra="prepare %d" % PREPARE_VERSION)
    for row in rows:
        prepare(row, args, source_digest)

    times = {r.name: {e: [] for e in engines} for r in rows}  # round medians
    rss = {r.name: {} for r in rows}  # peak RSS over the rounds, MB
    failed = {r.name: set(r.unprepared) for r in rows}
    absent = {r.name: set(skipped) | (set() if r.has_own else {"own"}) |
              set(r.blank) for r in rows}
    for rnd in range(args.rounds):
        for i, row in enumerate(rows):
            k = (rnd + i) % len(engines)
            order = [e for e in engines[k:] + engines[:k] if e not in absent[row.name]]
            for engine in order:
                if engine in failed[row.name]:
                    continue
                result = run_engine(engine, row, args, row.output(engine) if rnd == 0 else None)
                if result is None:
                    failed[row.name].add(engine)
                    continue
                report, peak = result
                times[row.name][engine].append(statistics.median(report["times_ms"]))
                rss[row.name][engine] = max(peak, rss[row.name].get(engine, 0.0))
                if engine in ("eager", "compile", "aoti", "ort", "openvino"):
                    versions[engine if engine in ("ort", "openvino") else "torch"] = \
                        report["version"]
            log("round %d/%d %-13s %s" % (rnd + 1, args.rounds, row.name, "  ".join(
                "%s %.2f" % (e, times[row.name][e][-1]) for e in order
                if e not in failed[row.name])))

    medians, fastest, diffs, problems = {}, {}, {}, []
    for row in rows:
        medians[row.name] = {e: statistics.median(t) if t and e not in failed[row.name] else None
                             for e, t in times[row.name].items()}
        fastest[row.name] = {e: min(t) if t and e not in failed[row.name] else None
                             for e, t in times[row.name].items()}
        diffs[row.name] = {}
        problems += ["%s: %s failed" % (row.name, e) for e in sorted(failed[row.name])]
        if args.reference in failed[row.name] | absent[row.name]:
            continue
        reference = np.load(row.output(args.reference))
        for engine in engines:
            if engine in failed[row.name] | absent[row.name] or engine == args.reference:
                continue
            d = rel_diff(np.load(row.output(engine)), reference)
            diffs[row.name][engine] = d
            limit = row.limit(args.tolerance)
            if not d <= limit:
                problems.append("%s: %s differs from %s by %.2e (> %.0e)"
                                % (row.name, engine, args.reference, d, limit))
    # xp-aot / xport per round (the two ran in the same round): the compiled library against
    # the runtime, paired, so a round's load on the machine weighs on both.
    paired = {}
    for row in rows:
        t = times[row.name]
        if {"aot", "xport"} <= set(engines) and not {"aot", "xport"} & failed[row.name]:
            paired[row.name] = sorted(a / x for a, x in zip(t["aot"], t["xport"]))
    print_tables(rows, medians, fastest, rss, diffs, paired, versions, failed, skipped, args)
    print("total time %.0f s" % (time.perf_counter() - start))
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
