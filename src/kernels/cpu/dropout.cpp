#include "kernels/cpu/dropout.h"

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/random.h"

namespace xport::kernels::cpu {

void dropout_out(const Tensor& input, double p, const Tensor& out, const Tensor& mask) {
  const int64_t n = input.int_numel();
  const uint64_t stream = next_stream();
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor x = contiguous_as(input, dtype_v<T>);
    const T* xd = x.data<T>();
    write_as<bool>(mask, [&](bool* m) {
      write_as<T>(out, [&](T* y) {
        parallel_for(0, n, 1 << 14, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            m[i] = uniform01(stream, static_cast<uint64_t>(i)) >= p;
            y[i] = m[i] ? static_cast<T>(static_cast<double>(xd[i]) * scale) : T(0);
          }
        });
      });
    });
  };
  visit_floating(input.dtype(), run);
}

}  // namespace xport::kernels::cpu
