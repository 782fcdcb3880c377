#pragma once
// Random programs for the soundness fuzzer: a seed gives inputs with a dynamic-shape spec (Dims
// whose ranges start at 0, 1 or 2, shared between inputs and derived as k * d) and a list of
// steps over registered ops, control flow and data-dependent values. run_program() executes the
// steps as ordinary eager C++, so the tracer captures them as it captures user code;
// torch_program.h writes the same steps in PyTorch. The generator tracks each value's dims
// symbolically (static, k * Dim, or unknown) to pick operands that fit at every size the spec
// allows, not only at the example's.
#include <cstdint>
#include <string>
#include <vector>

#include "xport/xport.h"

namespace xport::soundness {

/// One dim of a value: a static size, `coefficient * dims[root]`, or opaque (a size no other
/// dim is known to equal: a product, a slice's min, a data-dependent count).
struct DimTerm {
  int root = -1;  // index into ProgramSpec::dims; -1: static or opaque
  int64_t coefficient = 1;
  int64_t size = 1;  // static size (root -1, not opaque)
  int64_t opaque = 0;  // nonzero: an opaque size, equal only to the same id
  bool operator==(const DimTerm&) const = default;
  bool is_static() const { return root < 0 && opaque == 0; }
};
using Shape = std::vector<DimTerm>;

struct DimRange {
  std::string name;
  int64_t min = 2, max = 16;
};

enum class StepKind {
  Unary,         // a pointwise function of a
  Binary,        // a (op) b, b broadcasting against a
  Scalar,        // a (op) a number
  Reduce,        // sum / mean / amax over one dim, keepdim or not
  Transpose,     // two dims swapped
  Unsqueeze,     // a new dim of size 1
  Flatten,       // reshape(-1)
  Slice,         // a[..., :k] along one dim
  MatmulSelf,    // a @ a^T over the last two dims
  CatSelf,       // cat(a, 2 * a) along one dim
  ShapeIf,       // a C++ if on a size (a guard)
  CondData,      // cond(a.sum() > 0, ...); variant 1 nests a cond in the true branch
  CondShape,     // cond(a.size(d) > t, ...): no guard
  Map,           // map over the leading dim
  WhileLoop,     // a counter and a value carried three times round
  ItemNarrow,    // u = count of positives (item_int, constrain_as_size), a.flatten()[:u]
  Nonzero,       // the positions of a's positive elements: a data-dependent row count
  InplaceInput,  // an input updated in place (mul_), read afterwards
  BufferUpdate,  // the module's buffer `state` ([3]) updated in place (add_ of a's mean), read
  IntBool,       // a through int64 and bool: truncation, remainder, floor division, where
};

struct Step {
  StepKind kind = StepKind::Unary;
  int variant = 0;  // which function / op / reduction
  int a = 0, b = 0;  // operand values
  int64_t p = 0, q = 0;  // dims, thresholds, sizes
  bool disabled = false;  // minimisation: the step is the identity on `a`
  /// ShapeIf: the condition differs inside the Dim's range (export must refuse: the program's
  /// own decision narrows the spec).
  bool splits_range = false;
};

/// The generator's version: a seed gives the same program under one version forever, so that the
/// regression cases (`v1 58`) keep theirs when the generator learns more. 1: Dims from 1 or 2,
/// 1-3 inputs; 2: Dims from 0 too, nested cond, IntBool steps; 3: 1-4 inputs; 4: IntBool reads
/// NaN as 0 and clamps to +-1e9 before its int64 conversion.
inline constexpr int kGeneratorVersion = 4;

struct ProgramSpec {
  uint64_t seed = 0;
  int version = kGeneratorVersion;
  std::vector<DimRange> dims;
  std::vector<Shape> inputs;  // float32 tensors
  std::vector<Step> steps;     // value i (i >= inputs.size()) is the result of step i - inputs
  std::vector<int> outputs;    // values returned
  /// The program as readable pseudo-C++ (one line a step), for reports and regression cases.
  std::string str() const;
};

ProgramSpec generate(uint64_t seed, int version = kGeneratorVersion);

/// The module the programs run in: one buffer, `state`, that BufferUpdate steps update.
class FuzzModule : public nn::Module {
 public:
  FuzzModule() : nn::Module("FuzzModule") { state = register_buffer("state", zeros({3})); }
  Tensor state;
  /// Eager runs only, when `watch_rounding`: `near_threshold` is set when a data-dependent
  /// condition's value came within float rounding of its threshold (a sum of x - x^T is 0 only
  /// up to rounding), where another engine summing in another order may rightly take the other
  /// branch; `sin_argument_scale` is the largest |x| sin was applied to, since sin turns x's
  /// rounding (relative to |x|) into an absolute error of that size in a result below 1.
  bool watch_rounding = false;
  bool near_threshold = false;
  double sin_argument_scale = 0;
};

/// The steps run eagerly on `inputs` (which InplaceInput steps update in place) in `module`
/// (whose buffer BufferUpdate steps update).
std::vector<Tensor> run_program(const ProgramSpec& spec, const std::vector<Tensor>& inputs,
                                FuzzModule& module);

/// The export options of the spec: its Dims on the inputs' dims, named x0, x1, ...
ExportOptions export_options(const ProgramSpec& spec);

/// Each input's sizes when each Dim takes `values[d]`.
std::vector<std::vector<int64_t>> input_sizes(const ProgramSpec& spec,
                                              const std::vector<int64_t>& values);

/// Which step kinds the spec uses (for the fuzzer's feature counts).
std::vector<StepKind> kinds_used(const ProgramSpec& spec);
const char* kind_name(StepKind kind);
inline constexpr int kStepKinds = static_cast<int>(StepKind::IntBool) + 1;

}  // namespace xport::soundness
