#!/usr/bin/env python3
"""Writes PyTorch 2.13 reference data for the model and layer parity tests.

Usage: tests/models/make_parity_data.py OUT_DIR [--verbose]

Builds the reference models and a few single layers with fixed seeds, runs them, and writes their
weights (safetensors), inputs and outputs (.npy) and OUT_DIR/manifest.json, which the C++ tests
read. Prints one summary line on success (--verbose: also the max |x| of every output) and exits
non-zero on failure. When OUT_DIR/manifest.json records the sha256 of this file and its files
exist, it exits at once (the data is only rebuilt when this script changes).

Reference outputs are computed with autograd enabled and outside torch.no_grad(), so PyTorch's
inference fast paths for TransformerEncoderLayer / MultiheadAttention (other numerics, padded
positions zeroed) are not taken; models are in eval mode unless a case says otherwise.
Initialisation is PyTorch's default, then randomized so that parity means something: every
BatchNorm gets weight ~ U(0.5, 1.5), bias ~ N(0, 0.1), running_mean ~ N(0, 0.1),
running_var ~ U(0.5, 1.5); every LayerNorm weight ~ U(0.5, 1.5), bias ~ N(0, 0.1); every
MultiheadAttention in_proj_bias and out_proj.bias (zero by default) ~ N(0, 0.02).

manifest.json (all paths relative to OUT_DIR):
{
  "script_sha256": "<sha256 of this file>",
  "models": [                                   # one entry per model case
    {"case": "resnet50_b4_224",                 # <model>_b<batch>[_<pixels> | _t<tokens>]
     "model": "resnet50",                       # mlp | resnet18 | resnet50 | bert | gpt2
     "weights": "resnet50.safetensors",         # one file per model, shared by its cases
     "input": "resnet50_b4_224.input.npy",
     "output": "resnet50_b4_224.output.npy"}, ...
  ],
  "layers": [                                   # one entry per single-layer case
    {"case": "mha_self_batch_first",
     "module": "MultiheadAttention",            # the torch.nn class name
     "args": {"embed_dim": 32, ...},            # constructor arguments by PyTorch's names;
                                                # Conv2d sizes are always [h, w] lists
     "training": false,                         # train() (true) or eval() mode
     "weights": "layers/mha_self_batch_first.safetensors",   # state_dict before the call(s)
     "inputs": {"query": "layers/...npy", ...},  # forward's tensor arguments by PyTorch's names
     "outputs": {"output": "layers/...npy", ...},
     "call": {"need_weights": true, ...}}, ...   # forward's other arguments
  ],
  "generation": {                               # Hugging Face GPT2LMHeadModel with its cache
    "config": {"vocab_size": 1000, "n_positions": 128, "n_embd": 64, "n_layer": 2, "n_head": 4},
    "weights": "generation/gpt2_small.safetensors",
    "prompt": "generation/prompt.npy",          # int64 [1, 7]
    "tokens": "generation/tokens.npy",          # int64 [32]: greedy, one step at a time
    "logits": "generation/logits.npy"}          # [33, vocab]: last-token logits per step
}
Models: reference_models.py beside this file (weights use PyTorch's names). gpt2.safetensors has
the Hub's layout: no `transformer.` prefix, no lm_head.weight, and the h.<i>.attn.bias causal-mask
buffers (float32 [1, 1, 1024, 1024], lower-triangular ones).
Layer cases: their input names are in layer_cases() below, their output names in run_layer().
Self-attention's query, key and value name one file. batchnorm_train runs two forward calls in train
mode, on x1 then x2, giving y1 then y2; its outputs also hold running_mean, running_var and
num_batches_tracked after both calls.
Safetensors: 8-byte little-endian header length, a compact JSON header {name: {"dtype", "shape",
"data_offsets": [begin, end]}, ..., "__metadata__": {"format": "pt"}} padded with spaces to a
multiple of 8, then each tensor's contiguous little-endian bytes in header order.
"""
import json
import os
import time

import cached_data


def manifest_files(manifest):
    files = [e[k] for e in manifest["models"] for k in ("weights", "input", "output")]
    files += [manifest["generation"][k] for k in ("weights", "prompt", "tokens", "logits")]
    for e in manifest["layers"]:
        files += [e["weights"], *e["inputs"].values(), *e["outputs"].values()]
    return files


# The cache check comes before importing torch, which alone takes seconds.
if __name__ == "__main__":
    HERE = os.path.dirname(os.path.abspath(__file__))
    START, ARGS, DIGEST = cached_data.start(
        __doc__, "print max |x| of every output",
        [os.path.join(HERE, n) for n in ("make_parity_data.py", "reference_models.py")],
        "script_sha256", manifest_files)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from reference_models import build_model, randomize  # noqa: E402

# ---- safetensors -------------------------------------------------------------------------------

_SAFETENSORS_DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}


def save_safetensors(tensors, path):
    """Writes {name: tensor} (in its order) as a safetensors file."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        if t.dtype not in _SAFETENSORS_DTYPES:
            raise TypeError("save_safetensors: %s has dtype %s, which has no safetensors code"
                            % (name, t.dtype))
        t = t.detach().contiguous()
        raw = t.view(torch.uint8) if t.dtype == torch.bfloat16 else t  # numpy has no bfloat16
        data = np.ascontiguousarray(raw.numpy())
        data = data.astype(data.dtype.newbyteorder("<"), copy=False)
        header[name] = {"dtype": _SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + data.nbytes]}
        blobs.append(data)
        offset += data.nbytes
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for data in blobs:
            f.write(data.data)


def model_input(name, batch, size, seed):
    """The sample input: size is the image side (ResNet) or the sequence length."""
    g = torch.Generator().manual_seed(seed)
    if name == "mlp":
        return torch.randn(batch, 1024, generator=g)
    if name.startswith("resnet"):
        return torch.randn(batch, 3, size, size, generator=g)
    if name == "bert":
        return torch.randn(batch, size, 768, generator=g)
    if name == "gpt2":
        return torch.randint(0, 50257, (batch, size), generator=g)
    raise ValueError("model_input: unknown model %r" % name)


# model -> [(batch, size)], size None for the MLP.
MODEL_CASES = {
    "mlp": [(1, None), (4, None)],
    "resnet18": [(b, s) for b in (1, 4) for s in (224, 160)],
    "resnet50": [(b, s) for b in (1, 4) for s in (224, 160)],
    "bert": [(b, t) for b in (1, 4) for t in (64, 128)],
    "gpt2": [(b, t) for b in (1, 4) for t in (1, 17, 64)],
}


def case_name(model, batch, size):
    if size is None:
        return "%s_b%d" % (model, batch)
    if model.startswith("resnet"):
        return "%s_b%d_%d" % (model, batch, size)
    return "%s_b%d_t%d" % (model, batch, size)


# ---- layer cases ---------------------------------------------------------------------------------


def causal_bool(n):
    return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)


def layer_cases():
    """Yields (case, module, args, training, inputs, run) with run(module, inputs) -> outputs."""
    g = torch.Generator().manual_seed(1234)

    def randn(*shape):
        return torch.randn(*shape, generator=g)

    args = {"embed_dim": 32, "num_heads": 4, "dropout": 0.0, "bias": True, "batch_first": True}
    x = randn(2, 5, 32)
    kpm = torch.zeros(2, 5, dtype=torch.bool)
    kpm[1, 3:] = True
    call = {"need_weights": True, "average_attn_weights": True}
    yield ("mha_self_batch_first", nn.MultiheadAttention, args, False, call,
           {"query": x, "key": x, "value": x, "key_padding_mask": kpm, "attn_mask": causal_bool(5)})

    args = dict(args, batch_first=False)
    call = {"need_weights": True, "average_attn_weights": False}
    yield ("mha_cross_seq_first", nn.MultiheadAttention, args, False, call,
           {"query": randn(4, 2, 32), "key": randn(6, 2, 32), "value": randn(6, 2, 32),
            "attn_mask": randn(4, 6)})

    args = {"d_model": 32, "nhead": 4, "dim_feedforward": 64, "dropout": 0.1,
            "activation": "gelu", "layer_norm_eps": 1e-5, "batch_first": True,
            "norm_first": False}
    kpm = torch.zeros(2, 7, dtype=torch.bool)
    kpm[1, 4:] = True
    yield ("encoder_post_norm_gelu", nn.TransformerEncoderLayer, args, False, {},
           {"src": randn(2, 7, 32), "src_key_padding_mask": kpm})

    args = dict(args, activation="relu", batch_first=False, norm_first=True)
    yield ("encoder_pre_norm_relu", nn.TransformerEncoderLayer, args, False, {},
           {"src": randn(7, 2, 32), "src_mask": causal_bool(7)})

    args = {"num_features": 8, "eps": 1e-5, "momentum": 0.1}
    yield ("batchnorm_train", nn.BatchNorm2d, args, True, {},
           {"x1": randn(4, 8, 5, 5), "x2": 2 * randn(4, 8, 5, 5) + 0.5})

    args = {"in_channels": 8, "out_channels": 16, "kernel_size": [3, 3], "stride": [2, 2],
            "padding": [1, 1], "dilation": [1, 1], "groups": 2, "bias": True}
    yield ("conv_groups", nn.Conv2d, args, False, {}, {"input": randn(2, 8, 9, 9)})

    args = {"in_channels": 4, "out_channels": 6, "kernel_size": [3, 2], "stride": [1, 2],
            "padding": [2, 1], "dilation": [2, 2], "groups": 1, "bias": False}
    yield ("conv_dilated_nobias", nn.Conv2d, args, False, {}, {"input": randn(1, 4, 10, 11)})

    ids = torch.randint(0, 20, (3, 4), generator=g)
    ids[0, 1] = ids[1, 3] = ids[2, 0] = 0
    yield ("embedding_padding", nn.Embedding,
           {"num_embeddings": 20, "embedding_dim": 8, "padding_idx": 0}, False, {},
           {"input": ids})

    yield ("layernorm_2d", nn.LayerNorm, {"normalized_shape": [6, 8], "eps": 1e-5}, False, {},
           {"input": randn(3, 6, 8)})


def run_layer(module, inputs, call):
    """Calls the module as the case says; returns {output name: tensor}."""
    if isinstance(module, nn.MultiheadAttention):
        out, weights = module(**inputs, **call)
        return {"output": out, "attn_weights": weights}
    if isinstance(module, nn.BatchNorm2d):
        y1 = module(inputs["x1"])
        y2 = module(inputs["x2"])
        return {"y1": y1, "y2": y2, "running_mean": module.running_mean,
                "running_var": module.running_var,
                "num_batches_tracked": module.num_batches_tracked}
    return {"output": module(**inputs, **call)}


# ---- driver --------------------------------------------------------------------------------------


def check_output(case, name, t, verbose):
    """Refuses outputs that would make a weak test: non-finite, all-zero or huge."""
    if not t.is_floating_point():
        return
    if not torch.isfinite(t).all():
        raise RuntimeError("%s: output %s is not finite" % (case, name))
    peak = t.abs().max().item()
    if verbose:
        print("  %-28s %-20s max|x| %10.4g  std %10.4g" % (case, name, peak, t.std().item()))
    if not 1e-3 < peak < 1e3:
        raise RuntimeError("%s: output %s has max |x| = %g, outside (1e-3, 1e3)"
                           % (case, name, peak))


def save_npy(out_dir, rel, t):
    arr = t.detach().contiguous().numpy()
    np.save(os.path.join(out_dir, rel), arr)
    return rel


def make_models(out_dir, verbose):
    entries = []
    for seed, (model_name, cases) in enumerate(MODEL_CASES.items()):
        model = build_model(model_name, seed)
        weights = model_name + ".safetensors"
        state = model.hub_state_dict() if model_name == "gpt2" else model.state_dict()
        save_safetensors(state, os.path.join(out_dir, weights))
        for i, (batch, size) in enumerate(cases):
            case = case_name(model_name, batch, size)
            x = model_input(model_name, batch, size, seed=1000 * seed + i)
            y = model(x).detach()  # autograd on: no inference fast paths
            check_output(case, "output", y, verbose)
            entries.append({"case": case, "model": model_name, "weights": weights,
                            "input": save_npy(out_dir, case + ".input.npy", x),
                            "output": save_npy(out_dir, case + ".output.npy", y)})
        del model, state
    return entries


def make_layers(out_dir, verbose):
    os.makedirs(os.path.join(out_dir, "layers"), exist_ok=True)
    entries = []
    for seed, (case, cls, args, training, call, inputs) in enumerate(layer_cases()):
        torch.manual_seed(100 + seed)
        module = randomize(cls(**args)).train(training)
        weights = "layers/%s.safetensors" % case
        save_safetensors(dict(module.state_dict()), os.path.join(out_dir, weights))
        saved = {}  # one file per tensor object: q = k = v share one
        in_files = {}
        for name, t in inputs.items():
            if id(t) not in saved:
                saved[id(t)] = save_npy(out_dir, "layers/%s.%s.npy" % (case, name), t)
            in_files[name] = saved[id(t)]
        outputs = run_layer(module, inputs, call)
        out_files = {}
        for name, t in outputs.items():
            t = t.detach()
            check_output(case, name, t, verbose)
            out_files[name] = save_npy(out_dir, "layers/%s.%s.npy" % (case, name), t)
        entries.append({"case": case, "module": cls.__name__, "args": args,
                        "training": training, "weights": weights, "inputs": in_files,
                        "outputs": out_files, "call": call})
    return entries


def make_generation(out_dir, verbose):
    """Greedy generation with Hugging Face's GPT2LMHeadModel and its own KV cache: a small
    randomly initialised model (wide init, so greedy choices are clear), a 7-token prompt, then
    32 one-token steps through past_key_values. Logits are each step's last-token logits
    (prefill, then after each generated token)."""
    from transformers import GPT2Config, GPT2LMHeadModel
    os.makedirs(os.path.join(out_dir, "generation"), exist_ok=True)
    torch.manual_seed(11)
    config = GPT2Config(vocab_size=1000, n_positions=128, n_embd=64, n_layer=2, n_head=4,
                        initializer_range=0.2)
    model = GPT2LMHeadModel(config).eval()
    g = torch.Generator().manual_seed(12)
    prompt = torch.randint(0, config.vocab_size, (1, 7), generator=g)
    logits, tokens = [], []
    with torch.no_grad():
        out = model(prompt, use_cache=True)
        logits.append(out.logits[0, -1])
        for _ in range(32):
            tokens.append(int(logits[-1].argmax()))
            out = model(torch.tensor([[tokens[-1]]]), past_key_values=out.past_key_values,
                        use_cache=True)
            logits.append(out.logits[0, -1])
    logits = torch.stack(logits)
    check_output("gpt2_generation", "logits", logits, verbose)
    state = {k: v for k, v in model.state_dict().items()
             if not k.endswith((".attn.bias", ".attn.masked_bias"))}
    weights = "generation/gpt2_small.safetensors"
    save_safetensors(state, os.path.join(out_dir, weights))
    return {"config": {"vocab_size": config.vocab_size, "n_positions": config.n_positions,
                       "n_embd": config.n_embd, "n_layer": config.n_layer,
                       "n_head": config.n_head},
            "weights": weights,
            "prompt": save_npy(out_dir, "generation/prompt.npy", prompt),
            "tokens": save_npy(out_dir, "generation/tokens.npy", torch.tensor(tokens)),
            "logits": save_npy(out_dir, "generation/logits.npy", logits)}


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main(args, digest, start):
    torch.set_num_threads(2)
    os.makedirs(args.out_dir, exist_ok=True)
    manifest = {"script_sha256": digest, "models": make_models(args.out_dir, args.verbose),
                "layers": make_layers(args.out_dir, args.verbose),
                "generation": make_generation(args.out_dir, args.verbose)}
    # The manifest goes last and whole, so an interrupted run is never mistaken for a cache hit.
    path = os.path.join(args.out_dir, "manifest.json")
    with open(path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print("make_parity_data: %d model and %d layer cases, %.0f MB in %s (%.1f s)"
          % (len(manifest["models"]), len(manifest["layers"]),
             dir_bytes(args.out_dir) / 1e6, args.out_dir, time.perf_counter() - start))


if __name__ == "__main__":
    cached_data.run(main, ARGS, DIGEST, START)
