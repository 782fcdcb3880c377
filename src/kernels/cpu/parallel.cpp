#include "kernels/cpu/parallel.h"

#include <atomic>

namespace xport::kernels::cpu {
namespace {
std::atomic<int> g_threads{0};
thread_local int t_scope_threads = 0;
}  // namespace

int num_threads() {
  if (t_scope_threads > 0) return t_scope_threads;
  const int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_max_threads();
}

void set_num_threads(int n) {
  g_threads.store(n, std::memory_order_relaxed);
  if (n > 0) omp_set_num_threads(n);
}

// OpenMP's thread count is per thread (an ICV of the thread's implicit task), which is what
// oneDNN reads, so setting it here sizes oneDNN's regions for this thread only.
ThreadCountScope::ThreadCountScope(int n)
    : previous_scope_(t_scope_threads), previous_omp_(omp_get_max_threads()) {
  if (n <= 0) return;
  t_scope_threads = n;
  omp_set_num_threads(n);
}

ThreadCountScope::~ThreadCountScope() {
  t_scope_threads = previous_scope_;
  omp_set_num_threads(previous_omp_);
}

}  // namespace xport::kernels::cpu
