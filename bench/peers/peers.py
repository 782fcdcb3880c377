#!/usr/bin/env python3
"""The peer benchmark: the same models with the same weights in PyTorch eager, torch.compile,
AOTInductor, ONNX Runtime, the xport runtime and xport's ahead-of-time compiled library,
interleaved in one run; prints one table of median latencies and one of compile times.

Usage (bench/peers/run.sh calls this with the test environment's Python):
  peers.py [--build DIR] [--rows REGEX] [--rounds R] [--runs K] [--warmup W] [--min-time S]
           [--threads N] [--tolerance T] [--baseline OTHER_BUILD] [--engines LIST] [--quick]
Defaults: 5 rounds, 3 warm-up runs, >= 3 timed runs and >= 1 s per engine and round, 2 threads
(about 10 minutes for all rows on 2 cores once prepared); --quick: 1 round, 2 warm-up runs, 2
timed runs. --engines xport,aot times only those engines (of eager, compile, aoti, ort, xport,
aot), numerics then compared with the first of them. --baseline OTHER_BUILD adds an earlier
build's xport runtime (its xport_peer_bench and the archive it exports) as one more engine,
xport@B, interleaved with the rest: before and after a change in one run.

Rows: MLP 1024-4096-4096-1024 batch 32, ResNet-50 batch 1 and 8 at 224 px, BERT-base encoder
batch 1 and 8 at sequence 128, GPT-2 (logits of one 128-token sequence). Each row is prepared once
and cached in BUILD/peers/<row>/: the reference model of tests/models/reference_models.py (fixed
seed) writes its weights once (BUILD/peers/weights/<model>.safetensors); every engine's model
comes from that file: eager loads it (torch.compile compiles that model in its own process, during
the warm-up runs), the PyTorch model loaded from it is exported with torch.export and compiled
ahead of time (torch._inductor.aoti_compile_and_package) and exported to ONNX
(torch.onnx.export), and xport_peer_bench builds xport's model, loads the file and exports the PT2
archive, which `xport compile` compiles ahead of time (model.aot.so). The compile table gives
AOTInductor's time (torch.export.export plus aoti_compile_and_package) and `xport compile`'s
(the whole command: reading the archive, planning, the C++ compiler and linker), each measured
once when the row is prepared, and the library's size.

Then R rounds: in each, every row runs each engine in a fresh process (eager, compile, AOTInductor
and ONNX Runtime: torch_peer.py; xport: xport_peer_bench time), in an order rotated
from round to round; an engine times runs after W warm-up runs until it has K runs and S seconds.
An engine's latency is the median over rounds of its round's median. All engines use N threads
(default 2; ONNX Runtime: N intra-op threads, one inter-op thread, graph optimizations 'all').

Numerics: in the first round every engine writes its output; each is compared with eager's as
max|y - y_eager| / max|y_eager|; the script fails (exit 1, after the table) when any exceeds
--tolerance (1e-3) or an engine fails. GFLOP/s counts 2 x multiply-adds of the matrix products
(compare_models.py's model_flops).
"""
import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PYTHON = os.environ.get("PYTHON", sys.executable)  # the test environment's (make venv)
ENGINE_TIMEOUT_S = 900  # one engine process, one round

# row -> (model, batch, image side or sequence length)
ROWS = {
    "mlp_b32": ("mlp", 32, None),
    "resnet50_b1": ("resnet50", 1, 224),
    "resnet50_b8": ("resnet50", 8, 224),
    "bert_b1_t128": ("bert", 1, 128),
    "bert_b8_t128": ("bert", 8, 128),
    "gpt2_b1_t128": ("gpt2", 1, 128),
}
ENGINES = ("eager", "compile", "aoti", "ort", "xport", "aot")
PEERS = ENGINES[:4]
LABELS = {"eager": "eager", "compile": "compile", "aoti": "AOTI", "ort": "ORT", "xport": "xport",
          "aot": "xp-aot", "baseline": "xport@B"}
# The reference models (and their weights) come from reference_models.py; the prepared files of a
# row are stale when it, torch_peer.py or PREPARE_VERSION (bump it when prepare() changes what it
# writes) changes. The xport archive also follows the xport_peer_bench binary.
REFERENCE = os.path.join(ROOT, "tests", "models", "reference_models.py")
PREPARE_VERSION = 4


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
        self.dir = os.path.join(peers_dir, name)
        self.weights = os.path.join(peers_dir, "weights", self.model + ".safetensors")
        self.input = os.path.join(self.dir, "input.npy")
        self.aoti = os.path.join(self.dir, "model.aoti.pt2")
        # The program torch.export made (torch.export.save): what the ONNX side bench starts from.
        self.torch_program = os.path.join(self.dir, "model.torch.pt2")
        self.onnx = os.path.join(self.dir, "model.onnx")
        self.archive = os.path.join(self.dir, "model.pt2")
        self.aot = os.path.join(self.dir, "model.aot.so")
        self.baseline_archive = os.path.join(self.dir, "model.baseline.pt2")
        self.manifest = os.path.join(self.dir, "manifest.json")
        self.flops = None

    def output(self, engine):
        return os.path.join(self.dir, "out.%s.npy" % engine)


# ---- preparation ---------------------------------------------------------------------------------

def torch_modules():
    """torch, make_parity_data and compare_models' model_flops, imported only when a row needs
    preparing (importing torch takes seconds)."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    sys.path.insert(0, HERE)
    import torch_peer
    from compare_models import model_flops
    return torch, torch_peer, model_flops


def write_weights(row):
    """The row's model weights, written once per model (and again when the reference changes)."""
    source_digest = digest([REFERENCE])
    stamp_path = row.weights + ".json"
    if os.path.exists(row.weights) and read_json(stamp_path).get("sources") == source_digest:
        return
    torch, torch_peer, _ = torch_modules()
    ref = torch_peer.ref
    os.makedirs(os.path.dirname(row.weights), exist_ok=True)
    start = time.perf_counter()
    model = ref.build_model(row.model, seed=0)
    state = model.hub_state_dict() if row.model == "gpt2" else model.state_dict()
    ref.save_safetensors(state, row.weights + ".tmp")
    os.replace(row.weights + ".tmp", row.weights)
    write_json(stamp_path, {"sources": source_digest})
    log("  %s: weights %s (%.1f s)" % (row.model, row.weights, time.perf_counter() - start))


def export_archive(row, manifest, binary, archive, stamp_key):
    """The row's xport archive as `binary` exports it, unless it is up to date."""
    if manifest.get(stamp_key) == binary_stamp(binary) and os.path.exists(archive):
        return
    start = time.perf_counter()
    subprocess.run([binary, "export", row.model, row.weights, archive, "--input", row.input],
                   check=True, stdout=subprocess.DEVNULL)
    manifest[stamp_key] = binary_stamp(binary)
    write_json(row.manifest, manifest)
    log("  %s: xport archive %s (%.1f s)" % (row.name, archive, time.perf_counter() - start))


def compile_library(row, manifest, args):
    """The row's archive compiled ahead of time by `xport compile`, unless it is up to date."""
    stamp = binary_stamp(args.xport_cli) + "/" + manifest.get("xport_binary", "")
    if manifest.get("aot_stamp") == stamp and os.path.exists(row.aot):
        return
    start = time.perf_counter()
    subprocess.run([args.xport_cli, "compile", row.archive, row.aot], check=True,
                   stdout=subprocess.DEVNULL)
    manifest["aot_compile_s"] = time.perf_counter() - start
    manifest["aot_bytes"] = os.path.getsize(row.aot)
    manifest["aot_stamp"] = stamp
    write_json(row.manifest, manifest)
    log("  %s: xport compile %s (%.1f s)" % (row.name, row.aot, manifest["aot_compile_s"]))


def prepare(row, args, source_digest):
    """Writes the row's input, AOTInductor package, ONNX file and xport archive(s) unless they
    are up to date; sets row.flops."""
    write_weights(row)
    manifest = read_json(row.manifest)
    files = (row.input, row.aoti, row.onnx, row.torch_program)
    if manifest.get("sources") != source_digest or not all(map(os.path.exists, files)):
        torch, torch_peer, model_flops = torch_modules()
        os.makedirs(row.dir, exist_ok=True)
        torch.set_num_threads(2)
        model = torch_peer.load_model(row.model, row.weights)
        x = torch_peer.ref.model_input(row.model, row.batch, row.size, seed=0)
        np.save(row.input, x.numpy())
        flops = model_flops(row.model, model, x)
        start = time.perf_counter()
        with torch.no_grad():
            program = torch.export.export(model, (x,))
            torch.export.save(program, row.torch_program)
            torch._inductor.aoti_compile_and_package(program, package_path=row.aoti)
        aoti_s = time.perf_counter() - start
        log("  %s: AOTInductor %s (%.1f s)" % (row.name, row.aoti, aoti_s))
        start = time.perf_counter()
        with torch.no_grad():
            torch.onnx.export(model, (x,), row.onnx, input_names=["x"], output_names=["y"],
                              dynamo=True, external_data=False)
        log("  %s: ONNX %s (%.1f s)" % (row.name, row.onnx, time.perf_counter() - start))
        manifest = {"sources": source_digest, "flops": flops, "aoti_compile_s": aoti_s}
        write_json(row.manifest, manifest)
    export_archive(row, manifest, args.xport_bin, row.archive, "xport_binary")
    compile_library(row, manifest, args)
    if args.baseline_bin:
        # The baseline build exports its own archive: it reads what it writes.
        export_archive(row, manifest, args.baseline_bin, row.baseline_archive, "baseline_binary")
    row.flops = manifest["flops"]
    row.compile = {k: manifest.get(k) for k in ("aoti_compile_s", "aot_compile_s", "aot_bytes")}


# ---- timing --------------------------------------------------------------------------------------

def engine_command(engine, row, args, out):
    timing = ["--runs", str(args.runs), "--warmup", str(args.warmup), "--min-time",
              str(args.min_time), "--threads", str(args.threads)]
    if out:
        timing += ["--out", out]
    peer = [PYTHON, os.path.join(HERE, "torch_peer.py"), "--engine", engine, "--input", row.input]
    if engine in ("eager", "compile"):
        return peer + ["--model", row.model, "--weights", row.weights] + timing
    if engine == "aoti":
        return peer + ["--package", row.aoti] + timing
    if engine == "ort":
        return peer + ["--onnx", row.onnx] + timing
    if engine == "aot":
        return [args.xport_bin, "time", row.aot, "--input", row.input] + timing
    if engine == "baseline":
        return [args.baseline_bin, "time", row.baseline_archive, "--input", row.input] + timing
    return [args.xport_bin, "time", row.archive, "--input", row.input] + timing


def run_engine(engine, row, args, out):
    """The engine's JSON report, or None (with the reason logged) when it failed."""
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    try:
        proc = subprocess.run(engine_command(engine, row, args, out), env=env,
                              capture_output=True, text=True, timeout=ENGINE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        log("  %s / %s failed: no result in %d s" % (row.name, engine, ENGINE_TIMEOUT_S))
        return None
    if proc.returncode != 0:
        log("  %s / %s failed (exit %d):\n%s" % (row.name, engine, proc.returncode,
                                                proc.stderr.strip()[-2000:]))
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def rel_diff(a, ref):
    """max |a - ref| / max |ref| (inf on a shape mismatch)."""
    if a.shape != ref.shape:
        return float("inf")
    ref64 = ref.astype(np.float64)
    scale = max(float(np.abs(ref64).max()), 1e-30)
    return float(np.abs(a.astype(np.float64) - ref64).max()) / scale


# ---- report --------------------------------------------------------------------------------------

def machine():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"^Model name:\s*(.+)$", out, re.M)
        return m.group(1).strip() if m else "unknown"
    except OSError:
        return "unknown"


def fmt(v, spec):
    return "-" if v is None else spec % v


def print_table(rows, medians, diffs, paired, versions, args):
    print("machine: %s, %d cores; threads per engine: %d" % (machine(), os.cpu_count(),
                                                           args.threads))
    print("PyTorch %s (eager, torch.compile, AOTInductor), ONNX Runtime %s, xport runtime"
          % (versions.get("torch", "?"), versions.get("ort", "?")))
    print("%d round(s); per engine and round: %d warm-up runs, then >= %d runs and >= %g s; "
          "latency = median over rounds of the round's median" % (
              args.rounds, args.warmup, args.runs, args.min_time))
    print()
    engines = args.engines
    if args.baseline_bin:
        print("xport@B: the xport runtime of the baseline build %s, interleaved with the others"
              % args.baseline)
    cols = len(engines)
    line = "%-13s " + "%8s " * cols + "%7s %8s | " + "%7s " * cols + "| %9s"
    print(line % ("row", *(LABELS[e] for e in engines), "xport/", "best",
                  *(LABELS[e] for e in engines), "max rel"))
    print(line % ("", *(["ms"] * cols), "best", "peer", *(["GFLOP/s"] * cols), "diff"))
    print("-" * (14 + 9 * cols + 18 + 8 * cols + 11))
    for row in rows:
        ms = medians[row.name]
        peers = {e: ms[e] for e in PEERS if ms.get(e) is not None}
        best = min(peers, key=peers.get) if peers else None
        ratio = ms["xport"] / peers[best] if best and ms.get("xport") is not None else None
        gflops = [None if ms.get(e) is None else row.flops * 1e-6 / ms[e] for e in engines]
        worst = max(diffs[row.name].values()) if diffs[row.name] else None
        print(line % (row.name, *(fmt(ms.get(e), "%.2f") for e in engines), fmt(ratio, "%.2f"),
                      LABELS[best] if best else "-", *(fmt(g, "%.1f") for g in gflops),
                      fmt(worst, "%.1e")))
    print()
    print("max rel diff: max over every engine of max|y - y_%s| / max|y_%s| (limit %.0e)"
          % (args.reference, args.reference, args.tolerance))
    print()
    head = "%-13s %9s %9s %7s %9s %9s %15s"
    print(head % ("row", "AOTI", "xport", "xport/", ".so", "xp-aot/", "xp-aot/xport"))
    print(head % ("", "compile s", "compile s", "AOTI", "MB", "xport", "per round"))
    print("-" * 78)
    for row in rows:
        c, ms = row.compile, medians[row.name]
        ratio = (c["aot_compile_s"] / c["aoti_compile_s"]
                 if c["aot_compile_s"] and c["aoti_compile_s"] else None)
        speed = (ms["aot"] / ms["xport"]
                 if ms.get("aot") is not None and ms.get("xport") is not None else None)
        rounds = paired.get(row.name)
        spread = ("%.3f %.3f-%.3f" % (statistics.median(rounds), rounds[0], rounds[-1])
                  if rounds else "-")
        print(head % (
            row.name, fmt(c["aoti_compile_s"], "%.1f"), fmt(c["aot_compile_s"], "%.2f"),
            fmt(ratio, "%.3f"), fmt(c["aot_bytes"] and c["aot_bytes"] / 1e6, "%.1f"),
            fmt(speed, "%.3f"), spread))
    print("compile times measured once when each row was prepared (AOTI: torch.export.export and "
          "aoti_compile_and_package; xport: the whole `xport compile` command); xp-aot/xport per "
          "round: the median, lowest and highest of each round's ratio")


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
                             "xport_peer_bench runs as one more engine, xport@B, interleaved "
                             "with the others, for before/after comparisons in one run")
    parser.add_argument("--engines", default=None,
                        help="comma-separated engines to time (default: all): " +
                             ",".join(ENGINES))
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
    if not os.access(args.xport_bin, os.X_OK):
        sys.exit("peers.py: %s is missing; build it (make build, or cmake --build %s --target "
                 "xport_peer_bench)" % (args.xport_bin, args.build))
    rows = [Row(name, args.peers_dir) for name in ROWS if re.search(args.rows, name)]
    if not rows:
        sys.exit("peers.py: --rows %r matches none of %s" % (args.rows, ", ".join(ROWS)))

    start = time.perf_counter()
    log("preparing %d row(s) in %s" % (len(rows), args.peers_dir))
    source_digest = digest([REFERENCE, os.path.join(HERE, "torch_peer.py")],
                           extra="prepare %d" % PREPARE_VERSION)
    for row in rows:
        prepare(row, args, source_digest)

    engines = args.engines
    times = {r.name: {e: [] for e in engines} for r in rows}  # round medians
    failed = {r.name: set() for r in rows}
    versions = {}
    for rnd in range(args.rounds):
        for i, row in enumerate(rows):
            k = (rnd + i) % len(engines)
            order = engines[k:] + engines[:k]
            for engine in order:
                if engine in failed[row.name]:
                    continue
                report = run_engine(engine, row, args, row.output(engine) if rnd == 0 else None)
                if report is None:
                    failed[row.name].add(engine)
                    continue
                times[row.name][engine].append(statistics.median(report["times_ms"]))
                if engine in ("eager", "ort"):
                    versions["torch" if engine == "eager" else "ort"] = report["version"]
            log("round %d/%d %-13s %s" % (rnd + 1, args.rounds, row.name, "  ".join(
                "%s %.2f" % (e, times[row.name][e][-1]) for e in order
                if e not in failed[row.name])))

    medians, diffs, problems = {}, {}, []
    for row in rows:
        medians[row.name] = {e: statistics.median(t) if t and e not in failed[row.name] else None
                             for e, t in times[row.name].items()}
        diffs[row.name] = {}
        problems += ["%s: %s failed" % (row.name, e) for e in sorted(failed[row.name])]
        if args.reference in failed[row.name]:
            continue
        reference = np.load(row.output(args.reference))
        for engine in engines:
            if engine in failed[row.name] or engine == args.reference:
                continue
            d = rel_diff(np.load(row.output(engine)), reference)
            diffs[row.name][engine] = d
            if not d <= args.tolerance:
                problems.append("%s: %s differs from %s by %.2e (> %.0e)"
                                % (row.name, engine, args.reference, d, args.tolerance))
    # xp-aot / xport per round (the two ran back to back in each): the compiled library against
    # the runtime, paired, so a round's load on the machine weighs on both.
    paired = {}
    for row in rows:
        t = times[row.name]
        if {"aot", "xport"} <= set(engines) and not {"aot", "xport"} & failed[row.name]:
            paired[row.name] = sorted(a / x for a, x in zip(t["aot"], t["xport"]))
    print_table(rows, medians, diffs, paired, versions, args)
    print("total time %.0f s" % (time.perf_counter() - start))
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
