#!/usr/bin/env python3
"""The runtime against the same archives compiled ahead of time (`xport compile`): per-call
latency of runtime::Program on NAME.so (through the library's C++ entrance, and through its C
ABI) and on the archive beside it, NAME.pt2, the same program (`xport_peer_bench time`, the
same inputs), interleaved, with the library's size; then the compile time of `xport compile`
(cold and warm cache) beside AOTInductor's on the same files. Small programs of many small ops
show the per-call cost of the runtime's plan walk that the generated code removes, and of the C
ABI's marshalling; large ones, that the kernels are the same.

Usage (make bench-aot):
  compare_aot.py [--build DIR] [--rows REGEX] [--rounds R] [--min-time S] [--threads T]
                 [--compile-rows REGEX] [--compile-rounds C] [--compile-time-only]
                 [--no-compile-time] [--quick]

Rows: tiny models exported by torch.export here (an MLP at batch 1, a 2-layer transformer
encoder of width 64 over 16 tokens), archives of the build's data sets (written by xport and by
torch.export.save: static ones, dynamic ones at their first recorded shape, and control flow)
and the peer benchmark's programs (bench/peers/peers.py: the reference MLP at batch 32, Hugging
Face's ResNet-50, BERT-base and GPT-2 at batch 1, each exported by torch.export.export and saved
with torch.export.save as BUILD/peers/<row>/model.torch.pt2; peers.prepare() writes a missing
one, weights, input and program alone).

Latency: each archive is compiled once into BUILD/aot_bench/ (the compile time printed beside
the latency is that one `xport compile`, with whatever its cache held); then in each of R
rounds every row runs the runtime and the library (both ways) in fresh processes, in an order
rotating from round to round, each timing runs for S seconds after warm-up; a latency is the
median over rounds of a round's median.

Compile time (the rows torch.export saved that --compile-rows matches: by default the tiny ones
and the peer benchmark's): both compilers start from the same .pt2, each in a cold process
timed end to end, from the process's start to its exit with the files written. AOTInductor:
`python -c "..."` with PyTorch 2.13 importing torch, torch.export.load of the file and
torch._inductor.aoti_compile_and_package of the loaded ExportedProgram with freezing on
(torch._inductor.config.freezing and inductor_configs={"freezing": True}, as PyTorch documents
for CPU inference, and as peers.py compiles its AOTI engine), writing the package (weights in
it); Inductor's compile threads left at its default. xport: `xport compile FILE NAME.so`
(load, decomposition of composite ops, planning, generated C++, the system compiler, NAME.so
and NAME.pt2 beside it). Cold: a fresh, empty cache directory (TORCHINDUCTOR_CACHE_DIR;
XPORT_AOT_CACHE, where xport keeps the generated code's headers precompiled); warm: a second
compile of the same file with that cache kept. In each of C rounds each row runs AOTInductor's
pair (cold, then warm) and xport's, which pair first alternating from row to row and round to
round, after one read of the file so that both find it in the page cache; a figure is the
median over rounds. The sizes are the last compile's: AOTInductor's package, and xport's
NAME.so plus the NAME.pt2 it reads.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "peers"))
import peers  # noqa: E402  (the peer benchmark's rows and their preparation)

# row -> (archive, inputs) relative to the build tree; "tiny ..." rows are made here, "peers
# ..." rows by peers.prepare().
ROWS = {
    "tiny mlp b1 (torch)": ("aot_bench/tiny_mlp.pt2", ["aot_bench/tiny_mlp_in0.npy"]),
    "tiny encoder (torch)": ("aot_bench/tiny_encoder.pt2", ["aot_bench/tiny_encoder_in0.npy"]),
    "static_if (torch)": ("torch_pt2/static_if/model.pt2", ["torch_pt2/static_if/run0_in0.npy"]),
    "mlp_static (torch)": ("torch_pt2/mlp_static/model.pt2",
                           ["torch_pt2/mlp_static/run0_in0.npy"]),
    "bert_static (torch)": ("torch_pt2/bert_static/model.pt2",
                            ["torch_pt2/bert_static/run0_in0.npy"]),
    "gpt2_static (torch)": ("torch_pt2/gpt2_static/model.pt2",
                            ["torch_pt2/gpt2_static/run0_in0.npy"]),
    "bert_dynamic (torch)": ("torch_pt2/bert_dynamic/model.pt2",
                             ["torch_pt2/bert_dynamic/run0_in0.npy"]),
    "gpt2_dynamic (torch)": ("torch_pt2/gpt2_dynamic/model.pt2",
                             ["torch_pt2/gpt2_dynamic/run0_in0.npy"]),
    "cond nested (xport)": ("xport_pt2/cond_branch_nested_function/model.pt2",
                            ["xport_pt2/cond_branch_nested_function/run0_in0.npy"]),
    "peers mlp_b32": ("peers/mlp_b32/model.torch.pt2", ["peers/mlp_b32/input.npy"]),
    "peers resnet50_b1": ("peers/resnet50_b1/model.torch.pt2",
                          ["peers/resnet50_b1/input.npy"]),
    "peers bert_b1_t128": ("peers/bert_b1_t128/model.torch.pt2",
                           ["peers/bert_b1_t128/input.npy"]),
    "peers gpt2_b1_t128": ("peers/gpt2_b1_t128/model.torch.pt2",
                           ["peers/gpt2_b1_t128/input.npy"]),
}
COMPILE_TIMEOUT_S = 1800  # one compiler process

# AOTInductor's compile of a saved program, as peers.py makes its AOTI package:
# argv: the program, the package to write, the thread count.
AOTI_COMPILE = r"""
import sys, warnings, logging
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
import torch
torch.set_num_threads(int(sys.argv[3]))
torch._inductor.config.freezing = True
program = torch.export.load(sys.argv[1])
torch._inductor.aoti_compile_and_package(program, package_path=sys.argv[2],
                                         inductor_configs={"freezing": True})
"""


def make_tiny_models(out_dir):
    """The tiny rows' archives and inputs, written once by torch.export.save."""
    if all(os.path.exists(os.path.join(out_dir, f)) for f in (
            "tiny_mlp.pt2", "tiny_mlp_in0.npy", "tiny_encoder.pt2", "tiny_encoder_in0.npy")):
        return
    import numpy as np
    import torch
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64),
                              torch.nn.GELU(), torch.nn.Linear(64, 16)).eval()
    layer = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    for name, model, x in (("tiny_mlp", mlp, torch.randn(1, 64)),
                           ("tiny_encoder", encoder, torch.randn(1, 16, 64))):
        with torch.no_grad():
            program = torch.export.export(model, (x,))
        torch.export.save(program, os.path.join(out_dir, name + ".pt2"))
        np.save(os.path.join(out_dir, name + "_in0.npy"), x.numpy())


def prepare_peer_row(name, build):
    """The peer row's weights, input and program (peers.prepare() with no engine), unless they
    are there and up to date."""
    row = peers.Row(name.split()[1], os.path.join(build, "peers"))
    args = argparse.Namespace(engines=(), xport_bin=os.path.join(build, "bench",
                                                                 "xport_peer_bench"),
                              xport_cli=os.path.join(build, "xport"), baseline_bin=None)
    source_digest = peers.digest([peers.REFERENCE, os.path.join(ROOT, "bench", "peers",
                                                                "torch_peer.py")],
                                 extra="prepare %d" % peers.PREPARE_VERSION)
    peers.prepare(row, args, source_digest)


def latency_ms(bench, path, inputs, args, env=None):
    command = [bench, "time", path, "--warmup", "20", "--runs", "20", "--min-time",
               str(args.min_time), "--threads", str(args.threads)]
    for i in inputs:
        command += ["--input", i]
    out = subprocess.run(command, capture_output=True, text=True, check=True,
                         env=env).stdout
    return statistics.median(json.loads(out.strip().splitlines()[-1])["times_ms"])


# ---- compile time ----------------------------------------------------------------------------

def timed_compile(argv, env, outputs):
    """Seconds from the start of the process `argv` to its exit, the files in `outputs` removed
    first; None (with the reason printed) when it fails."""
    for path in outputs:
        if os.path.exists(path):
            os.remove(path)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                              timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print("  %s: no result in %d s" % (" ".join(argv[:2]), COMPILE_TIMEOUT_S),
              file=sys.stderr)
        return None
    s = time.perf_counter() - t0
    if proc.returncode != 0:
        print("  %s failed (exit %d):\n%s" % (" ".join(argv[:2]), proc.returncode,
                                              proc.stderr.decode(errors="replace")[-2000:]),
              file=sys.stderr)
        return None
    return s


def compile_pair(argv, outputs, cache_var, args):
    """(cold s, warm s) of two compiles by `argv` sharing a fresh, empty cache directory (the
    environment variable cache_var names it): the first finds it empty, the second warm."""
    cache = tempfile.mkdtemp(prefix="cache.", dir=args.compile_dir)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), **{cache_var: cache})
    try:
        cold = timed_compile(argv, env, outputs)
        # --quick (CI's smoke run) skips AOTInductor's second compile: half a minute of CI.
        second = cold is not None and not (args.quick and cache_var == "TORCHINDUCTOR_CACHE_DIR")
        warm = timed_compile(argv, env, outputs) if second else None
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return cold, warm


def compile_times(rows, xport, args):
    """{row: {"aoti cold", "aoti warm", "xport cold", "xport warm": [s per round], "aoti MB",
    "xport MB"}}, AOTInductor and `xport compile` interleaved over the rows and rounds."""
    results = {name: {k: [] for k in ("aoti cold", "aoti warm", "xport cold", "xport warm")}
               for name, _ in rows}
    for rnd in range(args.compile_rounds):
        for i, (name, archive) in enumerate(rows):
            stem = os.path.join(args.compile_dir, re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_"))
            package, library = stem + ".aoti.pt2", stem + ".so"
            beside = [library, stem + ".pt2", stem + ".h"]
            pairs = {"aoti": ([peers.PYTHON, "-c", AOTI_COMPILE, archive, package,
                               str(args.threads)], [package], "TORCHINDUCTOR_CACHE_DIR"),
                     "xport": ([xport, "compile", archive, library], beside, "XPORT_AOT_CACHE")}
            with open(archive, "rb") as f:  # into the page cache, for both
                while f.read(1 << 24):
                    pass
            order = ("aoti", "xport") if (rnd + i) % 2 == 0 else ("xport", "aoti")
            r = results[name]
            for compiler in order:
                argv, outputs, cache_var = pairs[compiler]
                cold, warm = compile_pair(argv, outputs, cache_var, args)
                r[compiler + " cold"].append(cold)
                r[compiler + " warm"].append(warm)
                if cold is not None:
                    r[compiler + " MB"] = sum(os.path.getsize(p) for p in outputs
                                              if p.endswith((".pt2", ".so"))) / 1e6
            print("compile round %d/%d %-22s %s" % (rnd + 1, args.compile_rounds, name, "  ".join(
                "%s %s" % (k, peers.fmt(v[-1], "%.2f")) for k, v in r.items()
                if isinstance(v, list))), file=sys.stderr, flush=True)
            for path in [package] + beside:
                if os.path.exists(path):
                    os.remove(path)
    return results


def print_compile_table(rows, results, args):
    print()
    print("compile time (s): each compile a cold process, start to exit with its files written, "
          "from the same .pt2 (torch.export.save); cold: a fresh, empty cache directory; warm: "
          "a second compile with that cache; median of %d round(s), AOTInductor and xport "
          "interleaved" % args.compile_rounds)
    line = "%-22s %9s %9s %9s %9s %8s %8s %9s %12s"
    print(line % ("row", "AOTI", "AOTI", "xport", "xport", "AOTI/xp", "AOTI/xp", "AOTI pkg",
                  "xport"))
    print(line % ("", "cold s", "warm s", "cold s", "warm s", "cold", "warm", "MB",
                  ".so+.pt2 MB"))
    print("-" * 105)
    failed = []

    def median(values):
        return None if not values or None in values else statistics.median(values)

    for name, _ in rows:
        r = results[name]
        m = {k: median(v) for k, v in r.items() if isinstance(v, list)}
        skipped = ("aoti warm",) if args.quick else ()  # compile_pair leaves it out
        failed += ["%s: %s" % (name, k) for k, v in r.items()
                   if isinstance(v, list) and None in v and k not in skipped]

        def ratio(kind):
            a, x = m["aoti " + kind], m["xport " + kind]
            return a / x if a is not None and x is not None else None
        print(line % (name, *(peers.fmt(m[k], "%.2f") for k in (
            "aoti cold", "aoti warm", "xport cold", "xport warm")),
            peers.fmt(ratio("cold"), "%.1f"), peers.fmt(ratio("warm"), "%.1f"),
            peers.fmt(r.get("aoti MB"), "%.1f"), peers.fmt(r.get("xport MB"), "%.1f")))
    print("AOTI: a Python process importing torch, torch.export.load, "
          "aoti_compile_and_package with freezing on (TORCHINDUCTOR_CACHE_DIR); xport: "
          "`xport compile FILE NAME.so` (XPORT_AOT_CACHE: the precompiled headers)")
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rows", default=".")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--compile-rows", default="tiny|peers",
                        help="regex over the rows (those --rows chose) that the compile-time "
                             "table compiles; default: the tiny ones and the peer benchmark's")
    parser.add_argument("--compile-rounds", type=int, default=1)
    parser.add_argument("--compile-time-only", action="store_true",
                        help="the compile-time table alone (no latency table)")
    parser.add_argument("--no-compile-time", action="store_true",
                        help="the latency table alone")
    parser.add_argument("--quick", action="store_true",
                        help="1 round, 0 s per engine, 1 compile round, no warm AOTInductor "
                             "compile")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.min_time, args.compile_rounds = 1, 0.0, 1
    if args.compile_time_only and args.no_compile_time:
        parser.error("--compile-time-only and --no-compile-time leave nothing to run")
    if args.rounds < 1 or args.compile_rounds < 1:
        parser.error("--rounds and --compile-rounds take positive counts")
    xport = os.path.join(args.build, "xport")
    bench = os.path.join(args.build, "bench", "xport_peer_bench")
    out_dir = os.path.join(args.build, "aot_bench")
    os.makedirs(out_dir, exist_ok=True)
    make_tiny_models(out_dir)
    selected = []  # (name, archive, inputs)
    for name, (rel, inputs) in ROWS.items():
        if not re.search(args.rows, name):
            continue
        archive = os.path.join(args.build, rel)
        inputs = [os.path.join(args.build, i) for i in inputs]
        if name.startswith("peers "):
            prepare_peer_row(name, args.build)
        if not all(map(os.path.exists, [archive] + inputs)):
            print("%s: %s is missing (make test writes it)" % (name, archive), file=sys.stderr)
            continue
        selected.append((name, archive, inputs))
    if not selected:
        sys.exit("compare_aot.py: no row to run (--rows %r)" % args.rows)

    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"^Model name:\s*(.+)$", cpu, re.M)
    print("machine: %s, %d cores; %d threads" % (model.group(1).strip() if model else "?",
                                                 os.cpu_count(), args.threads))
    if not args.compile_time_only:
        latency_table(selected, xport, bench, out_dir, args)
    failed = []
    if not args.no_compile_time:
        rows = [(name, archive) for name, archive, _ in selected
                if not name.endswith("(xport)") and re.search(args.compile_rows, name)]
        if rows:
            args.compile_dir = os.path.join(out_dir, "compile_time")
            os.makedirs(args.compile_dir, exist_ok=True)
            failed = print_compile_table(rows, compile_times(rows, xport, args), args)
        else:
            print("\ncompile time: no row torch.export saved among --rows that --compile-rows "
                  "%r matches" % args.compile_rows)
    if failed:
        print("FAILED: " + ", ".join(failed))
        return 1
    return 0


def latency_table(selected, xport, bench, out_dir, args):
    rows = []
    for name, archive, inputs in selected:
        stem = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")
        library = os.path.join(out_dir, stem + ".so")
        start = time.perf_counter()
        subprocess.run([xport, "compile", archive, library], check=True,
                       stdout=subprocess.DEVNULL)
        # The runtime runs the archive beside the library: the same program (PyTorch's
        # composite ops are decomposed there).
        rows.append((name, library[:-3] + ".pt2", library, inputs, time.perf_counter() - start,
                     os.path.getsize(library)))
    # The library as this build's runtime::Program calls it (its C++ entrance), and as a host
    # of another build would (its C ABI, XPORT_MODEL_C_ABI=1).
    c_abi = dict(os.environ, XPORT_MODEL_C_ABI="1")
    times = {row[0]: {"runtime": [], "aot": [], "aot C ABI": []} for row in rows}
    for rnd in range(args.rounds):
        for name, archive, library, inputs, *_ in rows:
            order = [("runtime", archive, None), ("aot", library, None),
                     ("aot C ABI", library, c_abi)]
            order = order[rnd % 3:] + order[:rnd % 3]
            for engine, path, env in (order if rnd % 2 == 0 else order[::-1]):
                times[name][engine].append(latency_ms(bench, path, inputs, args, env))
    print("latency: %d rounds, >= %g s per engine and round, interleaved" % (args.rounds,
                                                                          args.min_time))
    print("%-22s %12s %12s %12s %8s %10s %8s" % ("row", "runtime ms", "aot ms", "C ABI ms",
                                                 "aot/rt", "compile s", ".so MB"))
    for name, _, _, _, compile_s, size in rows:
        rt = statistics.median(times[name]["runtime"])
        aot = statistics.median(times[name]["aot"])
        through_c = statistics.median(times[name]["aot C ABI"])
        print("%-22s %12.4g %12.4g %12.4g %8.3f %10.2f %8.1f" % (
            name, rt, aot, through_c, aot / rt, compile_s, size / 1e6))


if __name__ == "__main__":
    sys.exit(main())
