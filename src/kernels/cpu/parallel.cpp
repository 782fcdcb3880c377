#include "kernels/cpu/parallel.h"

#include <atomic>

namespace xport::kernels::cpu {
namespace {
std::atomic<int> g_threads{0};
}

int num_threads() {
  const int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_max_threads();
}

void set_num_threads(int n) {
  g_threads.store(n, std::memory_order_relaxed);
  if (n > 0) omp_set_num_threads(n);
}

}  // namespace xport::kernels::cpu
