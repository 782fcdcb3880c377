#!/usr/bin/env python3
"""PyTorch's loss curve for xport's training-step tests (PyTorch 2.13, the oracle).

  torch_training_curve.py eager FORWARD.pt2 DATA_DIR STEPS OPTIMIZER_JSON OUT.npy
  torch_training_curve.py continue STEP.pt2 DATA_DIR FIRST STEPS OUT.npy

eager: the forward program's module (torch.export.load), trained by torch.optim (SGD or AdamW,
the JSON's settings) with autograd for STEPS steps on DATA_DIR/step<t>_<k>.npy; writes each
step's loss (before its update). continue: runs the saved training step's module itself on steps
FIRST..STEPS-1 (each call is one step) and writes its losses.
"""
import json
import os
import sys

import numpy as np
import torch


def batch(data_dir, t):
    k, out = 0, []
    while os.path.exists(os.path.join(data_dir, "step%d_%d.npy" % (t, k))):
        out.append(torch.from_numpy(np.load(os.path.join(data_dir, "step%d_%d.npy" % (t, k)))))
        k += 1
    return out


def single(out):
    if isinstance(out, (tuple, list)):
        (out,) = out
    return out


def main():
    mode = sys.argv[1]
    torch.set_num_threads(1)
    losses = []
    if mode == "eager":
        archive, data_dir, steps, settings, out = sys.argv[2:7]
        module = torch.export.load(archive).module()
        o = json.loads(settings)
        params = list(module.parameters())
        if o["kind"] == "sgd":
            opt = torch.optim.SGD(params, lr=o["lr"], momentum=o["momentum"],
                                  weight_decay=o["weight_decay"], foreach=False)
        else:
            opt = torch.optim.AdamW(params, lr=o["lr"], betas=(o["beta1"], o["beta2"]),
                                    eps=o["eps"], weight_decay=o["weight_decay"], foreach=False)
        for t in range(int(steps)):
            # The module writes updated buffers (batch norm's running statistics) back in place
            # after the forward, into tensors autograd saved: it may, as the eager module does.
            with torch.autograd.graph.allow_mutation_on_saved_tensors():
                loss = single(module(*batch(data_dir, t)))
                opt.zero_grad()
                loss.backward()
            opt.step()
            losses.append(loss.item())
    else:
        archive, data_dir, first, steps, out = sys.argv[2:7]
        module = torch.export.load(archive).module()
        with torch.no_grad():
            for t in range(int(first), int(steps)):
                losses.append(single(module(*batch(data_dir, t))).item())
    np.save(out, np.array(losses, dtype=np.float64))


if __name__ == "__main__":
    main()
