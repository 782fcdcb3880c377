"""The small programs the serving tests serve, written with torch.export.save: `pair` has a
dynamic batch dim (dim 0 of both inputs and both outputs, 1 to 64 rows), `window` has none (a
fixed 3 rows and a dynamic width of 2 to 32), so it runs one request at a time."""
import torch
from torch.export import Dim


class Pair(torch.nn.Module):
    """Two inputs and two outputs along one batch dim; rows independent of each other."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(32)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                       torch.nn.Linear(32, 8))

    def forward(self, x, y):
        h = self.mlp(x)
        return h + y, (h * y).sum(-1)


class Window(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, -1) * 2.0


def write_pair(path):
    batch = Dim("batch", min=1, max=64)
    example = (torch.randn(4, 16), torch.randn(4, 8))
    program = torch.export.export(Pair().eval(), example,
                                  dynamic_shapes=({0: batch}, {0: batch}))
    torch.export.save(program, path)


def write_window(path):
    width = Dim("width", min=2, max=32)
    program = torch.export.export(Window(), (torch.randn(3, 5),), dynamic_shapes=({1: width},))
    torch.export.save(program, path)
