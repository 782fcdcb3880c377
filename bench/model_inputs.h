#pragma once
// Inputs shared by the model benchmarks.

#include <cstdint>
#include <vector>

#include "xport/ops/functions.h"
#include "xport/tensor/tensor.h"

namespace xport::bench {

/// Token ids spread over the vocabulary (any fixed ids do: the cost does not depend on them).
inline Tensor token_ids(int64_t batch, int64_t seq, int64_t vocab) {
  std::vector<int64_t> ids(static_cast<size_t>(batch * seq));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 7919 + 13) % vocab);
  return from_vector(ids, {batch, seq});
}

}  // namespace xport::bench
