#pragma once
// The op table: every registered op's samples, run by one harness (op_table_test.cpp) against
// PyTorch, against the op's meta function, and against its decomposition. Adding an op adds a
// row here; families keep their rows in tests/ops/samples/<family>.cpp.

#include <functional>
#include <string>
#include <vector>

#include "xport/xport.h"

namespace xport::testing {

/// Deterministic input makers for samples.
class Gen {
 public:
  explicit Gen(uint64_t seed) : seed_(seed) {}
  /// N(0, 1) values (converted to `dtype`: integers get rounded normals scaled by 5).
  Tensor randn(SymIntList shape, DType dtype = DType::Float32);
  /// Uniform in [lo, hi).
  Tensor uniform(SymIntList shape, double lo, double hi, DType dtype = DType::Float32);
  /// Uniform in [0.1, 4): inputs for log, sqrt, division.
  Tensor positive(SymIntList shape, DType dtype = DType::Float32);
  /// Integers uniform in [lo, hi].
  Tensor ints(SymIntList shape, int64_t lo, int64_t hi, DType dtype = DType::Int64);
  Tensor bools(SymIntList shape);
  /// 0, -0, +-1, +-inf, nan, +-1e-8, +-20, +-100, 0.5, 2.5 (float types only).
  Tensor edge(DType dtype = DType::Float32);
  /// A non-contiguous tensor of `shape` (a transposed view of a contiguous one).
  Tensor transposed(SymIntList shape, DType dtype = DType::Float32);

 private:
  uint64_t next() { return seed_++; }
  uint64_t seed_;
};

struct OpSample {
  std::string op;     ///< qualified name, e.g. "aten::add.Tensor"
  std::string label;  ///< what this sample covers, e.g. "broadcast f32 [3,1]x[4]"
  std::function<std::vector<Value>(Gen&)> make;
  double rtol = -1;  ///< < 0: PyTorch's default for the output dtype
  double atol = -1;
  bool expect_error = false;   ///< both PyTorch and xport must refuse these inputs
  bool compare_values = true;  ///< false for ops whose values are unspecified (empty)

  /// The seed of the sample's inputs, from its op and label (FNV-1a): adding or moving samples
  /// leaves every other sample's inputs as they were.
  uint64_t seed() const {
    uint64_t h = 1469598103934665603ull;
    for (const std::string* part : {&op, &label}) {
      for (unsigned char c : *part) h = (h ^ c) * 1099511628211ull;
      h = (h ^ '|') * 1099511628211ull;
    }
    return h;
  }
};

using Rows = std::vector<OpSample>;
using Args = std::vector<Value>;

// Families (tests/ops/samples/*.cpp).
Rows pointwise_samples();
Rows creation_samples();
Rows view_samples();
Rows reduction_samples();
Rows linalg_samples();
Rows nn_samples();
Rows shape_samples();
Rows quant_samples();

/// Every sample of every family, in one list.
const std::vector<OpSample>& op_table();

// ---- row builders shared by families ----
/// The standard battery for a unary pointwise op: dtypes, 0-dim, empty, non-contiguous, edge
/// values; `positive_only` restricts inputs to (0.1, 4) (log, sqrt); `ints` adds integer inputs.
void add_unary(Rows& rows, const std::string& op, bool floating_only = false,
               bool positive_only = false, bool edge_values = true, bool ints = true);
/// The standard battery for a binary op (Tensor, Tensor): broadcasting, promotion, 0-dim, empty.
void add_binary(Rows& rows, const std::string& op, bool floating_only = false,
                bool positive_rhs = false, bool ints = true);

}  // namespace xport::testing
