#pragma once
// accel::conv2d: the convolution unit of a (pretend) accelerator, registered the way a backend
// author registers an op of their own. Its kernel stands in for the hardware (it runs xport's
// convolution and counts the calls); its meta function says what the result looks like, so
// export can trace it and the runtime can plan its memory.
//
// Shared by ExportDB's `replace_convolution` case and by libxport_example_ops.so, the library
// `xport run --ops` loads.

#include <cstdint>

namespace accel {

/// Defines accel::conv2d(Tensor input, Tensor weight, Tensor? bias, SymInt[2] stride,
/// SymInt[2] padding, SymInt[2] dilation, SymInt groups) -> Tensor, once per process.
void register_ops();

/// How many times accel::conv2d's kernel has run in this process.
int64_t conv2d_calls();

}  // namespace accel
