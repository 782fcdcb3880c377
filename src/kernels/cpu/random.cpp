#include "kernels/cpu/random.h"

#include <atomic>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

std::atomic<uint64_t> g_next_stream{0x5eed0000};

// Calls fill(data, i) for each unit i of `units` (in parallel) on out seen as float32 or float64
// (half types convert from float32).
template <class Fill>
void fill_floating(const Tensor& out, int64_t units, const Fill& fill) {
  auto run = [&](auto zero) {
    using T = decltype(zero);
    write_as<T>(out, [&](T* data) {
      parallel_for(0, units, 1 << 13, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) fill(data, i);
      });
    });
  };
  visit_floating(out.dtype(), run);
}

}  // namespace

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void seed_random(uint64_t seed) { g_next_stream.store(seed, std::memory_order_relaxed); }

uint64_t next_stream() { return g_next_stream.fetch_add(1, std::memory_order_relaxed); }

namespace {

uint64_t stream_key(uint64_t stream) { return stream * 0xbf58476d1ce4e5b9ull; }

double uniform_keyed(uint64_t key, uint64_t i) {
  return static_cast<double>(mix64(key + (i + 1) * 0x9e3779b97f4a7c15ull) >> 11) * 0x1.0p-53;
}

}  // namespace

double uniform01(uint64_t stream, uint64_t i) { return uniform_keyed(stream_key(stream), i); }

void uniform_fill(const Tensor& out, uint64_t key) {
  fill_floating(out, out.int_numel(), [&](auto* data, int64_t i) {
    using T = std::remove_pointer_t<decltype(data)>;
    // In float32 a draw just below 1 may round up to 1: keep it inside [0, 1).
    const T u = static_cast<T>(uniform_keyed(key, static_cast<uint64_t>(i)));
    data[i] = u < T(1) ? u : std::nextafter(T(1), T(0));
  });
}

void normal_fill(const Tensor& out, uint64_t key) {
  const int64_t n = out.int_numel();
  fill_floating(out, (n + 1) / 2, [&](auto* data, int64_t j) {
    using T = std::remove_pointer_t<decltype(data)>;
    const uint64_t i = 2 * static_cast<uint64_t>(j);
    const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform_keyed(key, i)));  // (0, 1]
    const double angle = 2.0 * M_PI * uniform_keyed(key, i + 1);
    data[i] = static_cast<T>(radius * std::cos(angle));
    if (static_cast<int64_t>(i) + 1 < n) data[i + 1] = static_cast<T>(radius * std::sin(angle));
  });
}

void uniform_out(const Tensor& out) { uniform_fill(out, stream_key(next_stream())); }

void normal_out(const Tensor& out) { normal_fill(out, stream_key(next_stream())); }

void randperm_out(const Tensor& out) {
  const uint64_t stream = next_stream();
  const int64_t n = out.int_numel();
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(uniform01(stream, static_cast<uint64_t>(i)) *
                                        static_cast<double>(i + 1));
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(std::min(j, i))]);
  }
  const Tensor values = Tensor::empty_contiguous({n}, DType::Int64);
  std::copy(perm.begin(), perm.end(), values.mutable_data<int64_t>());
  copy_into(out, values);
}

}  // namespace xport::kernels::cpu
