#pragma once
/// \file The op registry: one OpDef per op holds its schema, meta function, CPU kernel and
/// decomposition. Eager execution, tracing and (later) the runtime all go through it.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "xport/ops/schema.h"

namespace xport {

struct OpDef;

/// An argument's name in an op's schema. Built from text only: an integer (a position, as in
/// `args.integer(8)`) does not compile, where a string_view would take a literal 0 as null.
class ArgName {
 public:
  ArgName(const char* name) : name_(name) {}       // NOLINT: `args.tensor("self")`
  ArgName(std::string_view name) : name_(name) {}  // NOLINT
  ArgName(const std::string& name) : name_(name) {}  // NOLINT
  template <class I>
    requires std::is_integral_v<I>
  ArgName(I) = delete;  // read an argument by its schema name, not its position
  ArgName(std::nullptr_t) = delete;
  std::string_view view() const { return name_; }

 private:
  std::string_view name_;
};

/// The bound arguments of one op call: every schema argument present, defaults filled in and
/// types checked, read by their schema names.
class OpArgs {
 public:
  OpArgs(const OpDef& op, std::vector<Value> values) : op_(&op), values_(std::move(values)) {}
  const OpDef& op() const { return *op_; }
  size_t size() const { return values_.size(); }
  /// By position, for generic code (binding, printing, typed kernels); an op's own code reads
  /// its arguments by name.
  const Value& operator[](size_t i) const { return values_[i]; }
  const std::vector<Value>& values() const { return values_; }
  /// Replaces argument `i`: the runtime keeps each step's arguments across runs and refills
  /// only those that change.
  void set(size_t i, Value v) { values_[i] = std::move(v); }
  /// The argument named `name` in the op's schema (its position found once, at registration).
  /// An unknown name is a bug in the op's definition: Internal, naming the op and the name.
  const Value& operator[](ArgName name) const { return values_[index(name)]; }

  // Typed reads by schema name: `args.tensor("self")`, `args.integer("groups")`; the optional
  // forms give nullopt for None.
  const Tensor& tensor(ArgName name) const { return (*this)[name].to_tensor(); }
  /// An undefined Tensor when the argument is None.
  Tensor optional_tensor(ArgName name) const {
    const Value& v = (*this)[name];
    return v.is_none() ? Tensor() : v.to_tensor();
  }
  const std::vector<Tensor>& tensors(ArgName name) const { return (*this)[name].to_tensor_list(); }
  int64_t integer(ArgName name) const { return (*this)[name].to_int(); }
  std::optional<int64_t> optional_int(ArgName name) const {
    return if_given(name, &Value::to_int);
  }
  const SymInt& sym_int(ArgName name) const { return (*this)[name].to_sym_int(); }
  std::optional<SymInt> optional_sym_int(ArgName name) const {
    return if_given(name, &Value::to_sym_int);
  }
  std::vector<int64_t> ints(ArgName name) const { return (*this)[name].to_int_list(); }
  /// None or an empty list both mean "not given" (e.g. `int[1]? dim=None`).
  std::optional<std::vector<int64_t>> optional_ints(ArgName name) const {
    return if_given(name, &Value::to_int_list);
  }
  const std::vector<SymInt>& sym_ints(ArgName name) const {
    return (*this)[name].to_sym_int_list();
  }
  double real(ArgName name) const { return (*this)[name].to_double(); }
  std::optional<double> optional_real(ArgName name) const {
    return if_given(name, &Value::to_double);
  }
  bool boolean(ArgName name) const { return (*this)[name].to_bool(); }
  std::optional<bool> optional_bool(ArgName name) const {
    return if_given(name, &Value::to_bool);
  }
  /// `bool[3] output_mask`.
  const std::vector<bool>& bools(ArgName name) const { return (*this)[name].to_bool_list(); }
  Scalar scalar(ArgName name) const { return (*this)[name].to_scalar(); }
  std::optional<Scalar> optional_scalar(ArgName name) const {
    return if_given(name, &Value::to_scalar);
  }
  DType dtype(ArgName name) const { return (*this)[name].to_dtype(); }
  std::optional<DType> optional_dtype(ArgName name) const {
    return if_given(name, &Value::to_dtype);
  }
  const std::string& str(ArgName name) const { return (*this)[name].to_string_value(); }
  std::optional<std::string> optional_str(ArgName name) const {
    return if_given(name, &Value::to_string_value);
  }
  /// "aten::add.Tensor": the op's name, for error messages.
  const std::string& name() const;
  /// The position of the argument `name` (Internal when the schema has none).
  size_t index(ArgName name) const;

 private:
  // The argument read with `read`, or nullopt when it is None.
  template <class R>
  std::optional<std::remove_cvref_t<R>> if_given(ArgName name, R (Value::*read)() const) const {
    const Value& v = (*this)[name];
    if (v.is_none()) return std::nullopt;
    return (v.*read)();
  }

  const OpDef* op_;
  std::vector<Value> values_;
};

/// Computes output metadata (sizes, strides, dtype) from the arguments; also validates them.
/// The only place an op's shape logic lives: eager sizes outputs with it, tracing runs it on
/// fake tensors.
using MetaFn = std::function<std::vector<TensorMeta>(const OpArgs&)>;
/// Writes the op's results into `outs`, preallocated from the meta function (out-variant).
using KernelFn = std::function<void(const OpArgs&, std::vector<Tensor>& outs)>;
/// For ops whose output sizes depend on data (nonzero): the kernel allocates its outputs.
using AllocKernelFn = std::function<std::vector<Tensor>(const OpArgs&)>;
/// Computes the op from other ops; required for every op outside the core set.
using DecompFn = std::function<std::vector<Tensor>(const OpArgs&)>;

class Backward;
/// An op's derivative rule: from the gradient of the loss with respect to each result of one
/// call, the gradients of its arguments, computed by calling ops (so a captured graph records
/// them as it records any call). See xport/ops/derivative.h.
using DerivativeFn = std::function<void(Backward&)>;

/// How a higher-order op calls one of its subgraphs; the verifier checks graphs against it and
/// capture builds them by it. The subgraph's inputs are the tensors of `inputs` (argument
/// indices, each a Tensor or Tensor[]), in order; with `sliced_first` the tensors of the first
/// of them lose their leading dim (map_impl runs its body per slice).
struct SubgraphUse {
  enum class Returns {
    Outputs,        ///< the op's outputs
    SlicedOutputs,  ///< the op's outputs without their leading dim (stacked by the op)
    Predicate,      ///< one bool tensor with one element
  };
  int graph_arg = 0;  ///< the GraphModule argument
  std::vector<int> inputs = {};
  bool sliced_first = false;
  Returns returns = Returns::Outputs;
};

/// What an op does with memory and how it runs, decided once from its schema and functions when
/// it is registered (and again when a Library adds functions to it).
enum class OpKind {
  Functional,   ///< fresh results from its kernel
  View,         ///< its first result shares memory with argument OpDef::aliased_arg
  InPlace,      ///< updates the arguments marked `!`; its first result, if it aliases one, is
                ///< argument OpDef::aliased_arg
  Composite,    ///< no meta function: runs, and is traced, as its decomposition
  HigherOrder,  ///< takes subgraphs (GraphModule arguments)
};

/// An out-variant kernel as a named C++ function, for code generators: its parameters are the
/// schema's arguments in order, then one `const Tensor&` per result.
struct KernelSymbol {
  std::string name = {};                   ///< "xport::kernels::cpu::relu_out"; empty: none
  std::vector<std::string> parameters = {};  ///< C++ types: "const xport::Tensor&", "int64_t"
  /// The schema type each parameter takes (base, optional, list): register_op checks them
  /// against the op's arguments and results.
  std::vector<ArgType> kinds = {};
};

/// An op's out-variant CPU kernel: what the registry calls, and the named function it calls
/// when that function's parameters follow the schema (XPORT_KERNEL / XPORT_OP_KERNEL make both
/// from the function; register_op checks its parameters against the schema).
struct OpKernel {
  KernelFn fn = {};
  KernelSymbol symbol = {};  ///< empty name: a kernel with no typed function (higher-order ops)
  explicit operator bool() const { return static_cast<bool>(fn); }
};

/// PyTorch's op tags that xport reads (torch.Tag).
enum class Tag : uint8_t {
  Pointwise,               ///< elementwise over same-shaped (broadcast) operands
  RuntimeAssert,           ///< a condition the program checks; re-tracing learns it as a fact
  NondeterministicSeeded,  ///< random: never folded into a constant
};
/// A set of tags: `.tags = {Tag::Pointwise}`.
class Tags {
 public:
  Tags() = default;
  Tags(std::initializer_list<Tag> tags) {
    for (Tag t : tags) bits_ |= bit(t);
  }
  bool has(Tag t) const { return (bits_ & bit(t)) != 0; }

 private:
  static uint32_t bit(Tag t) { return 1u << static_cast<uint32_t>(t); }
  uint32_t bits_ = 0;
};

struct OpDef {
  std::string schema;            ///< ATen schema text
  MetaFn meta = {};              ///< shape/dtype inference; absent for composite ops
  OpKernel kernel = {};          ///< out-variant CPU kernel; absent for views and composites
  AllocKernelFn cpu_alloc = {};  ///< CPU kernel that allocates (data-dependent output sizes)
  DecompFn decomp = {};          ///< decomposition into other ops
  /// Reverse-mode derivative (PyTorch's derivatives.yaml); absent: not differentiable here
  /// (train::grad decomposes such an op when it can, and refuses it otherwise).
  DerivativeFn derivative = {};
  /// How many leading results carry a gradient back (-1: all). native_layer_norm's mean and
  /// rstd do not, as in PyTorch (its output_differentiability).
  int differentiable_results = -1;
  bool core = false;             ///< in the core op set a backend must implement
  Tags tags = {};
  /// Higher-order ops: how each GraphModule argument is called (cond: both branches).
  std::vector<SubgraphUse> subgraph_uses = {};
  /// Defined outside xport, through a Library (its kernels are the user's code).
  bool user_defined = false;
  /// Takes complex tensors (the FFT ops, copies); views take them whatever this says. Any
  /// other op given one refuses it with UnsupportedOp when its arguments bind.
  bool takes_complex = false;

  // Filled in by register_op.
  Schema parsed = {};
  std::string qualified_name = {};
  bool higher_order = false;  ///< takes subgraphs (a GraphModule argument)
  OpKind kind = OpKind::Functional;
  int aliased_arg = -1;  ///< View / InPlace: the argument the first result is, or -1
  /// Each schema argument's position by name, sorted by name: OpArgs and ir::Node read
  /// arguments through it.
  std::vector<std::pair<std::string, int>> arg_positions = {};
  /// A mutating op's functional counterpart (`add_.Tensor` -> `add.Tensor`,
  /// `_native_batch_norm_legit` -> `_native_batch_norm_legit_functional`), linked when either
  /// registers; null when none is registered.
  const OpDef* functional = nullptr;
  /// A functional op's in-place form that updates its first argument (`add.Tensor` ->
  /// `add_.Tensor`), or null.
  const OpDef* inplace = nullptr;

  /// The position of argument `name`, or -1.
  int arg_position(std::string_view name) const;
};

/// Whether `op` carries PyTorch's tag `tag`.
inline bool has_tag(const OpDef& op, Tag tag) { return op.tags.has(tag); }

/// Adds an op; throws InvalidSpec if the schema does not parse or the name is taken.
const OpDef& register_op(OpDef def);
/// Finds an op by qualified name ("aten::add.Tensor"; "aten::relu" for the default overload).
/// Throws UnsupportedOp naming close matches when absent.
const OpDef& find_op(const std::string& qualified_name);
const OpDef* try_find_op(const std::string& qualified_name);
/// Every registered op, sorted by name.
std::vector<const OpDef*> all_ops();
/// The functional counterpart of an op that mutates arguments (OpDef::functional). It returns
/// the op's non-aliased results, then the new value of each mutated argument in order.
inline const OpDef* functional_variant(const OpDef& op) { return op.functional; }
/// The in-place form of a functional op that updates its first argument (OpDef::inplace).
inline const OpDef* inplace_variant(const OpDef& op) { return op.inplace; }

/// Binds positional arguments (schema order, keyword-only ones too; trailing defaults may be
/// left out) and checks their types.
OpArgs bind_args(const OpDef& op, std::vector<Value> args);
/// Runs an op: through the thread's dispatch interceptor when one is set (capture), else eagerly.
Value call(const OpDef& op, std::vector<Value> args);
/// Same as call(), returning the outputs as tensors.
std::vector<Tensor> call_tensors(const OpDef& op, std::vector<Value> args);
/// Runs the op eagerly on real tensors.
std::vector<Tensor> run_eager(const OpArgs& args);
/// Runs an op's decomposition (throws UnsupportedOp when it has none).
std::vector<Tensor> run_decomposition(const OpArgs& args);

/// Runs any registered op by its qualified name (API.md).
Value call_op(const std::string& qualified_name, std::vector<Value> args);

namespace detail {
/// Fills an OpDef's kind and aliased_arg from its schema and functions.
/// register_op does it; an op kept outside the registry (the runtime's fused ops) calls it.
void classify_op(OpDef& def);
/// Changes a registered op under the registry's lock (Library::impl adds a kernel to an op
/// defined before); throws UnsupportedOp when no op has that name.
void update_op(const std::string& qualified_name, const std::function<void(OpDef&)>& change);
}  // namespace detail

/// Receives every op call made on this thread while installed (the capture layer's tracer).
class DispatchInterceptor {
 public:
  virtual ~DispatchInterceptor() = default;
  virtual std::vector<Tensor> intercept(const OpArgs& args) = 0;
  /// A fresh size in [lo, hi] that only the data decides, for the meta function of an op such
  /// as nonzero; the default refuses with DataDependent.
  virtual SymInt new_data_dependent_size(const OpArgs& args, int64_t lo, int64_t hi);
  /// The value of a one-element integer or bool tensor (Tensor::item_int on a fake tensor); the
  /// default refuses with DataDependent.
  virtual SymInt item_int(const Tensor& t);
  /// The value of a one-element floating tensor (Tensor::item_float on a fake tensor); the
  /// default refuses with DataDependent.
  virtual SymFloat item_float(const Tensor& t);
};

/// For the meta function of an op whose output size depends on data: a fresh symbol in [lo, hi]
/// from the thread's interceptor (capture); without one, DataDependent (eager runs the op's
/// allocating kernel instead).
SymInt data_dependent_size(const OpArgs& args, int64_t lo, int64_t hi);
/// The current thread's interceptor, or null when ops run eagerly.
DispatchInterceptor* current_interceptor();
/// Installs `interceptor` for the current thread until the guard is destroyed.
class InterceptorGuard {
 public:
  explicit InterceptorGuard(DispatchInterceptor* interceptor);
  ~InterceptorGuard();
  InterceptorGuard(const InterceptorGuard&) = delete;
  InterceptorGuard& operator=(const InterceptorGuard&) = delete;

 private:
  DispatchInterceptor* previous_;
};

}  // namespace xport
