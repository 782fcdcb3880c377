#pragma once
/// \file Per-run memory pooled across runs: the runtime's frames (an arena, the tensors in it,
/// each step's bound arguments) and a compiled model's.

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace xport::runtime {

/// Frames reused across runs: a run leases one (a free one, or a new one from `make`) and gives
/// it back when the lease ends; any number of runs at once each get their own.
template <class Frame>
class FramePool {
 public:
  class Lease {
   public:
    Lease(const FramePool& pool, std::unique_ptr<Frame> frame)
        : pool_(pool), frame_(std::move(frame)) {}
    ~Lease() { pool_.release(std::move(frame_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Frame& operator*() const { return *frame_; }

   private:
    const FramePool& pool_;
    std::unique_ptr<Frame> frame_;
  };

  explicit FramePool(std::function<std::unique_ptr<Frame>()> make) : make_(std::move(make)) {}
  Lease acquire() const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<Frame> frame = std::move(free_.back());
        free_.pop_back();
        return Lease(*this, std::move(frame));
      }
    }
    return Lease(*this, make_());
  }

 private:
  void release(std::unique_ptr<Frame> frame) const {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(frame));
  }
  std::function<std::unique_ptr<Frame>()> make_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<Frame>> free_;
};

}  // namespace xport::runtime
