#include "ir/passes/memory_planning.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>

#include "ir/ir_util.h"
#include "xport/core/error.h"

namespace xport::ir::passes {
namespace {

int64_t round_up(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

bool overlap(const BufferLifetime& a, const BufferLifetime& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Places buffers in `order`; returns the offsets and sets `arena_bytes`.
std::vector<int64_t> place(const std::vector<BufferLifetime>& buffers,
                           const std::vector<size_t>& order, int64_t alignment,
                           int64_t& arena_bytes) {
  constexpr int64_t kUnplaced = -1;
  std::vector<int64_t> offsets(buffers.size(), kUnplaced);
  std::vector<size_t> placed;  // kept sorted by offset
  arena_bytes = 0;
  for (size_t b : order) {
    const int64_t size = round_up(buffers[b].bytes, alignment);
    if (size == 0) {
      offsets[b] = 0;
      continue;
    }
    // Walk the live neighbours by offset: the best gap is the smallest one that fits.
    int64_t best = kUnplaced;
    int64_t best_gap = std::numeric_limits<int64_t>::max();
    int64_t end = 0;  // highest byte used by the neighbours seen so far
    for (size_t p : placed) {
      if (!overlap(buffers[p], buffers[b])) continue;
      const int64_t gap = offsets[p] - end;
      if (gap >= size && gap < best_gap) {
        best = end;
        best_gap = gap;
      }
      end = std::max(end, offsets[p] + round_up(buffers[p].bytes, alignment));
    }
    offsets[b] = best == kUnplaced ? end : best;
    arena_bytes = std::max(arena_bytes, offsets[b] + size);
    placed.insert(std::upper_bound(placed.begin(), placed.end(), b,
                                   [&](size_t x, size_t y) { return offsets[x] < offsets[y]; }),
                  b);
  }
  return offsets;
}

int64_t lower_bound(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  // Sweep the steps: +bytes where a buffer starts, -bytes after it ends.
  std::vector<std::pair<int64_t, int64_t>> events;
  for (const BufferLifetime& b : buffers) {
    const int64_t size = round_up(b.bytes, alignment);
    events.emplace_back(b.first, size);
    events.emplace_back(b.last + 1, -size);
  }
  std::sort(events.begin(), events.end());  // at one step, ends (negative) come first
  int64_t live = 0, peak = 0;
  for (const auto& [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  XPORT_CHECK(alignment > 0, Internal, "plan_memory: alignment ", alignment);
  for (const BufferLifetime& b : buffers) {
    XPORT_CHECK(b.bytes >= 0 && b.first <= b.last, Internal, "plan_memory: bad buffer (", b.bytes,
                " bytes, steps ", b.first, "..", b.last, ")");
  }
  // Greedy best-fit placement is order-sensitive and cheap (graphs have hundreds of buffers), so
  // several orders are tried and the smallest arena kept: largest first, largest size x lifetime
  // first, longest-lived first, and in order of first use.
  auto length = [&](size_t i) { return buffers[i].last - buffers[i].first; };
  auto area = [&](size_t i) {
    return static_cast<double>(buffers[i].bytes) * static_cast<double>(length(i) + 1);
  };
  using Before = std::function<bool(size_t, size_t)>;
  const Before orders[] = {
      [&](size_t a, size_t b) {
        return buffers[a].bytes != buffers[b].bytes ? buffers[a].bytes > buffers[b].bytes
                                                    : length(a) > length(b);
      },
      [&](size_t a, size_t b) { return area(a) > area(b); },
      [&](size_t a, size_t b) {
        return length(a) != length(b) ? length(a) > length(b) : buffers[a].bytes > buffers[b].bytes;
      },
      [&](size_t a, size_t b) {
        return buffers[a].first != buffers[b].first ? buffers[a].first < buffers[b].first
                                                    : buffers[a].bytes > buffers[b].bytes;
      }};
  MemoryPlan plan;
  plan.arena_bytes = std::numeric_limits<int64_t>::max();
  for (const Before& before : orders) {
    std::vector<size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), before);
    int64_t bytes = 0;
    std::vector<int64_t> offsets = place(buffers, order, alignment, bytes);
    if (bytes < plan.arena_bytes) {
      plan.offsets = std::move(offsets);
      plan.arena_bytes = bytes;
    }
  }
  plan.lower_bound_bytes = lower_bound(buffers, alignment);
  return plan;
}

GraphMemoryPlan plan_graph_memory(const Graph& graph, const ResultBytes& bytes,
                                  int64_t alignment) {
  const auto& nodes = graph.nodes();
  GraphMemoryPlan plan;
  plan.offsets.resize(nodes.size());
  plan.owner.resize(nodes.size());
  // Per owning value: its buffer (index into `buffers`), or -1.
  std::vector<std::vector<int>> buffer(nodes.size());
  std::vector<BufferLifetime> buffers;
  const auto owner_of = [&](const ValueRef& r) { return plan.owner[r.node->position()][r.index]; };
  const auto buffer_of = [&](const ValueRef& r) -> int {
    const ValueRef o = owner_of(r);
    return buffer[o.node->position()][o.index];
  };
  int64_t step = -1;
  for (const auto& node : nodes) {
    const size_t n = node->position();
    const size_t outputs = node->outputs().size();
    plan.offsets[n].assign(outputs, -1);
    buffer[n].assign(outputs, -1);
    for (size_t o = 0; o < outputs; ++o) plan.owner[n].push_back(node->out(static_cast<int>(o)));
    if (node->kind() != NodeKind::Call) continue;
    ++step;
    for (const Argument& a : node->args()) {
      detail::for_each_ref(a, [&](const ValueRef& r) {
        if (const int b = buffer_of(r); b >= 0) buffers[b].last = step;
      });
    }
    const OpDef& op = *node->op();
    const ValueRef* aliased = nullptr;
    if ((op.kind == OpKind::View || op.kind == OpKind::InPlace) && op.aliased_arg >= 0) {
      aliased = std::get_if<ValueRef>(&node->args().at(static_cast<size_t>(op.aliased_arg)).value);
    }
    for (size_t o = 0; o < outputs; ++o) {
      if (aliased != nullptr) {
        plan.owner[n][o] = owner_of(*aliased);
        continue;
      }
      if (const std::optional<int64_t> b = bytes(*node, o)) {
        buffer[n][o] = static_cast<int>(buffers.size());
        buffers.push_back(BufferLifetime{.bytes = *b, .first = step, .last = step});
      }
    }
  }
  // Graph outputs outlive the run: their buffers are not the arena's.
  std::vector<bool> outside(buffers.size(), false);
  for (const Argument& a : graph.output()->args()) {
    detail::for_each_ref(a, [&](const ValueRef& r) {
      if (const int b = buffer_of(r); b >= 0) outside[static_cast<size_t>(b)] = true;
    });
  }
  std::vector<BufferLifetime> arena;
  std::vector<int> arena_index(buffers.size(), -1);
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (outside[b]) continue;
    arena_index[b] = static_cast<int>(arena.size());
    arena.push_back(buffers[b]);
    plan.arena_values += buffers[b].bytes > 0 ? 1 : 0;
  }
  plan.arena = plan_memory(arena, alignment);
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (size_t o = 0; o < buffer[n].size(); ++o) {
      const int b = buffer[n][o];
      const int a = b >= 0 ? arena_index[static_cast<size_t>(b)] : -1;
      if (a >= 0) plan.offsets[n][o] = plan.arena.offsets[static_cast<size_t>(a)];
    }
  }
  return plan;
}

}  // namespace xport::ir::passes
