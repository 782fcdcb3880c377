#pragma once
// Offsets for a program's intermediate buffers inside one arena, assigned from their lifetimes:
// two buffers share bytes only when they are never live at the same step.

#include <cstdint>
#include <vector>

namespace xport::runtime {

/// One buffer: `bytes` live from step `first` to step `last`, both included (a step's inputs and
/// outputs are live together, so an output never reuses an input of its own step).
struct BufferLifetime {
  int64_t bytes = 0;
  int64_t first = 0;
  int64_t last = 0;
};

struct MemoryPlan {
  std::vector<int64_t> offsets;   ///< per buffer, a multiple of the alignment
  int64_t arena_bytes = 0;        ///< the planned peak: the end of the highest buffer
  int64_t lower_bound_bytes = 0;  ///< most bytes live at any one step (sizes rounded up)
};

/// Greedy best-fit: buffers in each of four orders (decreasing size; size x lifetime; lifetime;
/// first use; the smallest arena wins), each in the tightest gap among already placed buffers
/// whose lifetimes overlap its own (Pisarchyk and Lee, "Efficient Memory Management for Deep Neural
/// Net Inference", 2020).
MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, int64_t alignment = 64);

}  // namespace xport::runtime
