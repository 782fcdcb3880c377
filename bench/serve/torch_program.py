"""torch.export.load(path).module() behind xport.Program's interface (inputs, outputs, contract,
run_flat), so that xport.serve's replicas serve PyTorch's module the same way as the runtime:
the same server, protocol, batching and threads, only the engine differs."""
import functools


class TorchProgram:
    """The module of a .pt2 on `threads` intra-op threads; `description` holds the archive's
    inputs, outputs and contract as xport.load describes them (the server's metadata)."""

    def __init__(self, path, threads, description):
        import torch
        torch.set_num_threads(threads)
        self._torch = torch
        self._module = torch.export.load(path).module()
        self.inputs = description["inputs"]
        self.outputs = description["outputs"]
        self.contract = description["contract"]

    def run_flat(self, leaves):
        torch = self._torch
        with torch.no_grad():
            out = self._module(*[torch.from_numpy(a) for a in leaves])
        return [t.numpy() for t in torch.utils._pytree.tree_leaves(out)]


def loader(program):
    """A loader for xport.serve.application: TorchProgram with `program`'s (an
    xport.Program's) description."""
    description = {"inputs": program.inputs, "outputs": program.outputs,
                   "contract": program.contract}
    return functools.partial(_load, description=description)


def _load(path, threads, description):
    return TorchProgram(path, threads, description)
