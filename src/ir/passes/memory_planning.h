#pragma once
// Offsets for a program's intermediate buffers inside one arena, assigned from their lifetimes:
// two buffers share bytes only when they are never live at the same step.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "xport/ir/ir.h"

namespace xport::ir::passes {

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

/// The bytes a call's fresh result takes (output `output` of `node`), or nothing when the result
/// is not the planner's to place (its kernel allocates it; its size is known only as it runs).
using ResultBytes = std::function<std::optional<int64_t>(const Node& node, size_t output)>;

/// Where a graph's results live when its calls run one after another.
struct GraphMemoryPlan {
  /// Per node position, per output: the arena offset, or -1 for a value outside the arena (a
  /// placeholder; a view or in-place result, which lives in its argument's buffer; a graph
  /// output or a value one views; a result `bytes` gives nothing for).
  std::vector<std::vector<int64_t>> offsets;
  /// Per node position, per output: the value whose buffer holds it (itself, unless the op
  /// aliases an argument: views and in-place updates, from the op's facts).
  std::vector<std::vector<ValueRef>> owner;
  MemoryPlan arena;
  int64_t arena_values = 0;  ///< results in the arena with at least one byte
};

/// Plans `graph`'s memory: a buffer is live from the call that makes it to the last call that
/// reads it or any view of it, and buffers never live together share no bytes (plan_memory).
GraphMemoryPlan plan_graph_memory(const Graph& graph, const ResultBytes& bytes,
                                  int64_t alignment = 64);

}  // namespace xport::ir::passes
