#!/usr/bin/env python3
"""PyTorch's side of the training-step benchmark: one process, one engine.

  torch_train_peer.py eager|compile FORWARD.pt2 OPTIMIZER_JSON IN0.npy IN1.npy
                      [--runs K] [--warmup W] [--min-time S] [--threads N]

Loads the loss program (torch.export.load(...).module(); with --cnn, the same CNN as an
nn.Module holding the program's weights), makes torch.optim's optimizer (SGD or
AdamW, for-loop implementation as on CPU by default) and times whole steps: zero_grad, the
forward (torch.compile's default mode for `compile`, compiled in the warm-up runs), backward and
the optimizer's step. Prints {"times_ms": [...], "compile_s": ...}.
"""
import argparse
import contextlib
import json
import time

import numpy as np
import torch


class Cnn(torch.nn.Module):
    """bench/train/train_bench.cpp's CNN, its layers named as there."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 64, 3)
        self.bn1 = torch.nn.BatchNorm2d(64)
        self.conv2 = torch.nn.Conv2d(64, 64, 3)
        self.bn2 = torch.nn.BatchNorm2d(64)
        self.fc = torch.nn.Linear(64, 10)

    def forward(self, x, labels):
        h = torch.nn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        h = torch.relu(self.bn2(self.conv2(h)))
        logits = self.fc(torch.nn.functional.adaptive_avg_pool2d(h, 1).flatten(1))
        return torch.nn.functional.cross_entropy(logits, labels)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("engine", choices=("eager", "compile"))
    p.add_argument("forward")
    p.add_argument("optimizer")
    p.add_argument("inputs", nargs=2)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--min-time", type=float, default=1.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cnn", action="store_true",
                   help="train bench/train/train_bench.cpp's CNN as an nn.Module")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    program = torch.export.load(a.forward)
    if a.cnn:
        # The CNN as PyTorch users write it: an nn.Module with the same names and weights. The
        # exported module writes batch norm's running statistics back in place after its forward,
        # which torch.compile's AOTAutograd refuses to differentiate through.
        module = Cnn()
        module.load_state_dict(program.state_dict)
        module.train()
    else:
        module = program.module()
    batch = [torch.from_numpy(np.load(f)) for f in a.inputs]
    o = json.loads(open(a.optimizer).read())
    params = list(module.parameters())
    if o["kind"] == "sgd":
        opt = torch.optim.SGD(params, lr=o["lr"], momentum=o["momentum"],
                              weight_decay=o["weight_decay"])
    else:
        opt = torch.optim.AdamW(params, lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"],
                                weight_decay=o["weight_decay"])
    forward = torch.compile(module) if a.engine == "compile" else module

    # Eager, the module writes updated buffers (batch norm's running statistics) back in place
    # into tensors autograd saved, as an eager module may; compiled, AOTAutograd makes that
    # functional itself (and the context would keep dynamo from compiling).
    def step():
        context = (torch.autograd.graph.allow_mutation_on_saved_tensors() if a.engine == "eager"
                   else contextlib.nullcontext())
        with context:
            out = forward(*batch)
            loss = out[0] if isinstance(out, (tuple, list)) else out
            opt.zero_grad()
            loss.backward()
        opt.step()
        return loss

    start = time.perf_counter()
    for _ in range(a.warmup):
        step()
    compile_s = time.perf_counter() - start
    times = []
    start = time.perf_counter()
    while len(times) < a.runs or time.perf_counter() - start < a.min_time:
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"times_ms": times, "compile_s": compile_s}))


if __name__ == "__main__":
    main()
