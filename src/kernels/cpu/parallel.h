#pragma once
// Intra-op parallelism on OpenMP's pool, which oneDNN uses too (one pool, no oversubscription).

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace xport::kernels::cpu {

/// Threads used by kernels on the calling thread: a ThreadCountScope's count where one is open,
/// else the process-wide count (defaults to the machine's cores).
int num_threads();
void set_num_threads(int n);

/// Runs the calling thread's kernels (ours and oneDNN's) on `n` threads until destroyed, without
/// touching other threads' counts: each runtime::Program sizes its own pool.
class ThreadCountScope {
 public:
  explicit ThreadCountScope(int n);
  ~ThreadCountScope();
  ThreadCountScope(const ThreadCountScope&) = delete;
  ThreadCountScope& operator=(const ThreadCountScope&) = delete;

 private:
  int previous_scope_;
  int previous_omp_;
};

/// Splits [begin, end) into contiguous ranges of at least `grain` items and calls
/// fn(range_begin, range_end) on the pool; runs inline when the work is small or when already
/// inside a parallel region.
template <class Fn>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const Fn& fn) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int64_t max_chunks = std::max<int64_t>(1, n / std::max<int64_t>(grain, 1));
  const int threads = static_cast<int>(std::min<int64_t>(num_threads(), max_chunks));
  if (threads <= 1 || omp_in_parallel()) {
    fn(begin, end);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num();
    const int64_t nt = omp_get_num_threads();
    const int64_t chunk = (n + nt - 1) / nt;
    const int64_t b = begin + t * chunk;
    const int64_t e = std::min(end, b + chunk);
    if (b < e) fn(b, e);
  }
}

}  // namespace xport::kernels::cpu
