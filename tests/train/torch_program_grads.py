#!/usr/bin/env python3
"""torch.autograd's gradients of a saved program (PyTorch 2.13, the oracle).

  torch_program_grads.py ARCHIVE OUT_DIR NAME... -- INPUT.npy...

Loads ARCHIVE (a .pt2 whose program returns one 0-dim loss) with torch.export.load, runs its
module on the inputs and writes OUT_DIR/loss.npy and OUT_DIR/grad_<k>.npy: d loss / d the k-th
NAME, a parameter by its path or a user input by its position ("input:0").
"""
import os
import sys

import numpy as np
import torch


def main():
    archive, out_dir = sys.argv[1], sys.argv[2]
    split = sys.argv.index("--")
    names, files = sys.argv[3:split], sys.argv[split + 1:]
    module = torch.export.load(archive).module()
    inputs = [torch.from_numpy(np.load(f)) for f in files]
    params = dict(module.named_parameters())
    wanted = []
    for name in names:
        if name.startswith("input:"):
            t = inputs[int(name[len("input:"):])]
            t.requires_grad_(True)
            wanted.append(t)
        else:
            wanted.append(params[name])
    loss = module(*inputs)
    if isinstance(loss, (tuple, list)):
        (loss,) = loss
    grads = torch.autograd.grad(loss, wanted, allow_unused=True)
    np.save(os.path.join(out_dir, "loss.npy"), loss.detach().numpy())
    for k, g in enumerate(grads):
        g = torch.zeros_like(wanted[k]) if g is None else g
        np.save(os.path.join(out_dir, "grad_%d.npy" % k), g.detach().numpy())


if __name__ == "__main__":
    main()
