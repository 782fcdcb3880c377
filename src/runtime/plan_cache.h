#pragma once
// What a program plans once per tuple of its symbols' values, kept by that tuple: the runtime's
// execution plans, and a compiled model's shapes (xport/runtime/aot_model.h). The oldest is dropped
// past a limit; runs holding one keep it alive.

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport::runtime {

template <class T>
class PlanCache {
 public:
  using Symbols = ir::SymbolValues;

  PlanCache(const std::vector<SymbolSpec>& symbols, size_t capacity) : capacity_(capacity) {
    for (const SymbolSpec& s : symbols) symbols_.push_back(sym::symbol(s.name));
  }

  /// The entry for `values` (the program's symbols; unbound ones count as -1), made by `make`
  /// the first time, under the cache's lock. A program without symbols has one entry, kept
  /// apart: no key and no lock per run.
  template <class Make>
  std::shared_ptr<const T> get(const Symbols& values, Make&& make) const {
    if (symbols_.empty()) {
      std::call_once(only_made_, [&] {
        only_ = make();
        has_only_ = true;
      });
      return only_;
    }
    std::vector<int64_t> key;
    key.reserve(symbols_.size());
    for (sym::ExprPtr s : symbols_) {
      const auto it = values.find(s);
      key.push_back(it == values.end() ? -1 : it->second);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = entries_.find(key); it != entries_.end()) return it->second;
    std::shared_ptr<const T> made = make();
    if (entries_.size() >= capacity_) {
      entries_.erase(order_.front());
      order_.pop_front();
    }
    entries_.emplace(key, made);
    order_.push_back(std::move(key));
    return made;
  }

  size_t size() const {
    if (symbols_.empty()) return has_only_ ? 1 : 0;
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

 private:
  std::vector<sym::ExprPtr> symbols_;
  size_t capacity_;
  mutable std::mutex mutex_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const T>> entries_;
  mutable std::deque<std::vector<int64_t>> order_;  // oldest first
  mutable std::once_flag only_made_;  // no symbols: the one entry
  mutable std::shared_ptr<const T> only_;
  mutable std::atomic<bool> has_only_ = false;
};

}  // namespace xport::runtime
