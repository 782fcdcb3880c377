"""The custom ops of xport's tests, defined in PyTorch under the same names and schemas as in C++
(examples/custom_ops/accel_ops.cpp, exportdb/custom_op_cases.cpp). An archive names its ops
(torch.ops.accel.conv2d.default); whichever side loads it must have them registered, as a user of
such archives registers them on both sides."""
import torch


def define_custom_ops():
    """Defines accel::conv2d and exportdb_ops::count; returns the libraries, which must stay
    alive while the ops are used."""
    accel = torch.library.Library("accel", "DEF")
    accel.define("conv2d(Tensor input, Tensor weight, Tensor? bias, SymInt[2] stride, "
                 "SymInt[2] padding, SymInt[2] dilation, SymInt groups) -> Tensor")

    def conv2d(input, weight, bias, stride, padding, dilation, groups):
        return torch.nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)

    accel.impl("conv2d", conv2d, "CompositeExplicitAutograd")
    torch.library.register_fake("accel::conv2d", conv2d)

    ops = torch.library.Library("exportdb_ops", "DEF")
    ops.define("count(Tensor counter, Tensor x) -> Tensor")

    def count(counter, x):
        return counter + (x > 0).sum().to(counter.dtype)

    ops.impl("count", count, "CompositeExplicitAutograd")
    torch.library.register_fake("exportdb_ops::count", count)
    return [accel, ops]
