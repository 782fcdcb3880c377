#include "runtime/memory_plan.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>

#include "xport/error.h"

namespace xport::runtime {
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

}  // namespace xport::runtime
