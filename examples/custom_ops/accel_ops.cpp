#include "examples/custom_ops/accel_ops.h"

#include <atomic>
#include <mutex>

#include "xport/ops/functions.h"
#include "xport/ops/library.h"

namespace accel {
namespace {

std::atomic<int64_t> calls{0};

xport::Tensor convolve(const std::vector<xport::Value>& a) {
  const xport::Tensor bias = a[2].is_none() ? xport::Tensor() : a[2].to_tensor();
  return xport::conv2d(a[0].to_tensor(), a[1].to_tensor(), bias, a[3].to_sym_int_list(),
                       a[4].to_sym_int_list(), a[5].to_sym_int_list(), a[6].to_int());
}

}  // namespace

void register_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    xport::Library("accel")
        .define("conv2d(Tensor input, Tensor weight, Tensor? bias, SymInt[2] stride, "
                "SymInt[2] padding, SymInt[2] dilation, SymInt groups) -> Tensor")
        .impl("conv2d",
              [](const std::vector<xport::Value>& a) -> xport::Value {
                ++calls;
                return convolve(a);
              })
        // In a meta function ops compute shapes only: this costs no convolution.
        .impl_meta("conv2d",
                   [](const std::vector<xport::Value>& a) -> xport::Value { return convolve(a); });
  });
}

int64_t conv2d_calls() { return calls.load(); }

}  // namespace accel
