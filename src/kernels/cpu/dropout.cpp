#include "kernels/cpu/dropout.h"

#include <atomic>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

std::atomic<uint64_t> g_next_stream{0x5eed0000};

uint64_t splitmix64(uint64_t stream, uint64_t i) {
  uint64_t z = stream * 0xbf58476d1ce4e5b9ull + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

void seed_dropout(uint64_t seed) { g_next_stream.store(seed, std::memory_order_relaxed); }

void dropout_out(const Tensor& input, double p, const Tensor& out, const Tensor& mask) {
  const int64_t n = input.int_numel();
  const uint64_t stream = g_next_stream.fetch_add(1, std::memory_order_relaxed);
  const double scale = p < 1 ? 1 / (1 - p) : 0;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor x = contiguous_as(input, dtype_v<T>);
    const T* xd = x.data<T>();
    write_as<bool>(mask, [&](bool* m) {
      write_as<T>(out, [&](T* y) {
        parallel_for(0, n, 1 << 14, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            const double u = static_cast<double>(splitmix64(stream, static_cast<uint64_t>(i)) >>
                                                 11) * 0x1.0p-53;
            m[i] = u >= p;
            y[i] = m[i] ? static_cast<T>(static_cast<double>(xd[i]) * scale) : T(0);
          }
        });
      });
    });
  };
  if (input.dtype() == DType::Float64) {
    run(double{});
  } else {
    run(float{});
  }
}

}  // namespace xport::kernels::cpu
