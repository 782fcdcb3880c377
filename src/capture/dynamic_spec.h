#pragma once
// The user's dynamic-shape spec, checked against the example inputs and turned into symbols;
// and, after tracing, the guards that narrow it turned into a ConstraintViolation with a
// corrected spec.

#include <string>
#include <vector>

#include "capture/shape_env.h"
#include "xport/capture/export.h"

namespace xport::capture {

/// One tensor the user passes (a tensor-list input contributes one per element).
struct TensorInput {
  std::string name;    // "x", "xs[1]"
  size_t input_index;  // position in example_inputs
  Tensor example;
  DimSpec spec;
};

/// A root Dim and the symbol made for it.
struct DimSymbol {
  const void* root_id = nullptr;  // Dim::root_id() of the dims that use it
  Dim dim;                        // the root (not derived), for names and ranges
  sym::ExprPtr symbol = nullptr;
  int64_t example = 0;
};

/// Validates `inputs`' specs against their examples (ranges, 0/1 examples, consistent uses of
/// one Dim, derived dims) and makes one symbol per root Dim. Returns each input's sizes as
/// expressions (Integer for static dims). Throws InvalidSpec.
std::vector<std::vector<sym::ExprPtr>> make_symbolic_sizes(ShapeEnv& env,
                                                           const std::vector<TensorInput>& inputs,
                                                           std::vector<DimSymbol>& roots);

/// Throws ConstraintViolation when tracing recorded guards: each one listed in the user's terms
/// with its source line, then a corrected spec as C++ code.
void check_guards(const ShapeEnv& env, const std::vector<TensorInput>& inputs,
                  const std::vector<DimSymbol>& roots);

}  // namespace xport::capture
