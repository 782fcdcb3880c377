#include "ir/passes/composite_expansion.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/sym_expr.h"
#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "xport/core/error.h"
#include "xport/ops/op_registry.h"

namespace xport::ir::passes {
namespace {

using RangeOf = std::function<sym::Range(sym::ExprPtr)>;

// Why a call's expansion stopped; the call stays as it was.
struct Undecided {
  std::string why;
};

// A size of the traced call: an expression over the program's symbols. A decision on it is
// taken only when the symbols' ranges settle it for every value, so the expansion holds
// wherever the program does; any other decision stops the expansion (no guard is ever taken).
class RangedExpr final : public SymNode {
 public:
  RangedExpr(sym::ExprPtr e, const RangeOf& ranges) : e_(e), ranges_(ranges) {}
  sym::ExprPtr expr() const { return e_; }

  SymNodePtr binary(SymOp op, const SymNodePtr& other) const override {
    return make(sym::apply(op, e_, expr_of(*other)));
  }
  SymNodePtr negate() const override { return make(sym::neg(e_)); }
  SymNodePtr logical_not() const override { return make(sym::logical_not(e_)); }
  SymNodePtr wrap_int(int64_t value) const override { return make(sym::integer(value)); }
  SymNodePtr wrap_bool(bool value) const override { return make(sym::boolean(value)); }
  int64_t guard_int(const std::source_location&) const override {
    if (const auto v = maybe_int()) return *v;
    throw Undecided{"it needs the value of " + sym::str(e_)};
  }
  bool guard_bool(const std::source_location&) const override {
    if (const auto b = decide()) return *b;
    throw Undecided{"it decides on " + sym::str(e_) + ", which the ranges do not settle"};
  }
  double guard_float(const std::source_location& where) const override {
    return static_cast<double>(guard_int(where));
  }
  std::optional<int64_t> maybe_int() const override {
    if (const auto v = sym::as_int(e_)) return v;
    if (const auto b = sym::as_bool(e_)) return *b ? 1 : 0;
    return std::nullopt;
  }
  std::string str() const override { return sym::str(e_); }
  bool is_same_as(const SymNode& other) const override {
    const auto* o = dynamic_cast<const RangedExpr*>(&other);
    return o != nullptr && o->e_ == e_;  // expressions are hash-consed
  }
  std::optional<bool> decide_size_oblivious() const override { return decide(); }
  std::optional<bool> decide_without_guard() const override { return decide(); }

  static sym::ExprPtr expr_of(const SymNode& node) {
    const auto* e = dynamic_cast<const RangedExpr*>(&node);
    if (e == nullptr) throw Undecided{"a size came from another shape environment"};
    return e->e_;
  }

 private:
  SymNodePtr make(sym::ExprPtr e) const { return std::make_shared<RangedExpr>(e, ranges_); }
  std::optional<bool> decide() const {
    if (const auto v = maybe_int()) return *v != 0;
    return sym::decide(e_->is_bool() ? e_ : sym::ne(e_, sym::integer(0)), ranges_);
  }
  sym::ExprPtr e_;
  const RangeOf& ranges_;
};

// Whether `op`, called by a graph, runs as its decomposition (the runtime's Composite step).
bool runs_as_decomposition(const OpDef& op) {
  return !op.higher_order && op.decomp && !op.cpu_alloc &&
         (op.kind == OpKind::Composite || !op.kernel);
}

// Walks the graph as the runtime's planner will: each call's results get the layouts its meta
// function gives for its arguments' (not the layouts the archive records, which may be another
// engine's: PyTorch's attention returns a transposed layout), over the call's symbolic sizes.
// A call that runs as its decomposition is traced there into the calls it makes, inserted before
// it. A value whose layout cannot be worked out (a decision the ranges do not settle, a
// subgraph's result) is unknown, and no decomposition that reads it is traced.
class Expander final : public DispatchInterceptor {
 public:
  Expander(Graph& graph, const RangeOf& ranges) : graph_(graph), ranges_(ranges) {}

  ExpansionStats run() {
    std::vector<Node*> nodes;
    for (const auto& node : graph_.nodes()) nodes.push_back(node.get());
    for (Node* node : nodes) {
      switch (node->kind()) {
        case NodeKind::Placeholder:
          values_[node] = {fake(meta_of(node->outputs()[0]), node->out())};
          break;
        case NodeKind::Call:
          if (runs_as_decomposition(*node->op()) && node->unbacked_bindings().empty()) {
            expand_or_keep(*node);
          } else {
            follow(*node);
          }
          break;
        case NodeKind::Output:
          break;
      }
    }
    if (stats_.expanded > 0) graph_.eliminate_dead_code();
    return stats_;
  }

  std::vector<Tensor> intercept(const OpArgs& args) override {
    const OpDef& op = args.op();
    if (runs_as_decomposition(op)) return run_decomposition(args);
    if (op.higher_order || op.kind == OpKind::InPlace || !op.meta) {
      throw Undecided{"its decomposition calls " + op.qualified_name};
    }
    const std::vector<TensorMeta> metas = op.meta(args);
    std::vector<Argument> arguments;
    for (size_t i = 0; i < args.size(); ++i) {
      arguments.push_back(argument_of(
          args[i], op.parsed.arguments[i], [this](const Tensor& t) { return ref_of(t); },
          [](const SymInt& s) { return expr_of(s); },
          [](const SymFloat& f) -> Argument {
            if (f.is_symbolic()) throw Undecided{"its decomposition computes a float"};
            return f.guard_float();
          }));
    }
    std::vector<TensorSpec> specs;
    for (const TensorMeta& m : metas) specs.push_back(spec_of(m));
    Node* node = graph_.insert_call(position_++, op, std::move(arguments), std::move(specs), meta_);
    inserted_.push_back(node);
    std::vector<Tensor> outs;
    for (size_t i = 0; i < metas.size(); ++i) {
      outs.push_back(fake(metas[i], node->out(static_cast<int>(i))));
    }
    values_[node] = outs;
    return outs;
  }

  SymInt new_data_dependent_size(const OpArgs& args, int64_t, int64_t) override {
    throw Undecided{"the size of " + args.name() + "'s result depends on data"};
  }
  SymInt item_int(const Tensor&) override { throw Undecided{"it reads a tensor's value"}; }
  SymFloat item_float(const Tensor&) override { throw Undecided{"it reads a tensor's value"}; }

 private:
  // The call's arguments as its op takes them, its tensors as fakes of the layouts they will
  // have; throws Undecided when one is unknown or the call takes a number the graph computes
  // (item_float()'s value would reach a decomposition as a stand-in).
  std::vector<Value> arguments(const Node& call, bool for_decomposition) {
    const auto& params = call.op()->parsed.arguments;
    std::vector<Value> args;
    for (size_t i = 0; i < call.args().size(); ++i) {
      const BaseType base = params[i].type.base;
      if (for_decomposition && (base == BaseType::Scalar || base == BaseType::Float) &&
          std::holds_alternative<ValueRef>(call.args()[i].value)) {
        throw Undecided{"it takes a number the graph computes"};
      }
      args.push_back(argument_value(
          call.args()[i], params[i].type,
          [this](const ValueRef& ref) {
            const auto it = values_.find(ref.node);
            if (it == values_.end()) throw Undecided{"the layout of an argument is unknown"};
            return it->second.at(static_cast<size_t>(ref.index));
          },
          [this](sym::ExprPtr e) { return sym_int(e); }));
    }
    return args;
  }

  // A call planned as it is: its results as its meta function makes them.
  void follow(const Node& call) {
    const OpDef& op = *call.op();
    if (op.higher_order || !op.meta) return;
    try {
      const std::vector<TensorMeta> metas = op.meta(OpArgs(op, arguments(call, false)));
      if (metas.size() != call.outputs().size()) return;
      std::vector<Tensor> outs;
      for (size_t o = 0; o < metas.size(); ++o) {
        outs.push_back(fake(metas[o], call.out(static_cast<int>(o))));
      }
      values_[&call] = std::move(outs);
    } catch (const Undecided&) {  // its results' layouts stay unknown
    } catch (const Error&) {
    }
  }

  // A call of a composite op: the calls its decomposition makes, or (when that cannot be
  // traced) the call as it is, whose results the runtime lays out as the call records.
  void expand_or_keep(Node& call) {
    position_ = call.position();
    meta_ = call.meta();
    inserted_.clear();
    std::string why;
    try {
      std::vector<Tensor> outs;
      {
        std::vector<Value> args = arguments(call, true);
        InterceptorGuard guard(this);
        outs = run_decomposition(OpArgs(*call.op(), std::move(args)));
      }
      check_results(call, outs);
      for (size_t o = 0; o < outs.size(); ++o) {
        graph_.replace_all_uses(call.out(static_cast<int>(o)), ref_of(outs[o]));
      }
      graph_.erase(&call);
      ++stats_.expanded;
      return;
    } catch (const Undecided& u) {
      why = u.why;
    } catch (const Error& e) {
      why = e.what();
    }
    for (auto it = inserted_.rbegin(); it != inserted_.rend(); ++it) {
      values_.erase(*it);
      graph_.erase(*it);
    }
    if (stats_.kept++ == 0) stats_.first_kept = detail::node_label(call) + ": " + why;
    std::vector<Tensor> outs;
    for (size_t o = 0; o < call.outputs().size(); ++o) {
      outs.push_back(fake(meta_of(call.outputs()[o]), call.out(static_cast<int>(o))));
    }
    values_[&call] = std::move(outs);
  }

  // The decomposition's results are the call's: as many, of the dtypes and sizes it records.
  static void check_results(const Node& call, const std::vector<Tensor>& outs) {
    if (outs.size() != call.outputs().size()) {
      throw Undecided{"its decomposition makes " + std::to_string(outs.size()) + " results"};
    }
    for (size_t o = 0; o < outs.size(); ++o) {
      const TensorSpec& recorded = call.outputs()[o];
      if (recorded.none || !outs[o].defined() || outs[o].dtype() != recorded.dtype ||
          spec_of(outs[o].meta()).sizes != recorded.sizes) {
        throw Undecided{"result " + std::to_string(o) + " is not the one the call records"};
      }
    }
  }

  SymInt sym_int(sym::ExprPtr e) const {
    if (const auto v = sym::as_int(e)) return SymInt(*v);
    return SymInt(std::make_shared<RangedExpr>(e, ranges_));
  }
  static sym::ExprPtr expr_of(const SymInt& s) {
    return s.is_symbolic() ? RangedExpr::expr_of(*s.node()) : sym::integer(s.as_int_unchecked());
  }

  TensorMeta meta_of(const TensorSpec& spec) const {
    TensorMeta meta;
    meta.dtype = spec.dtype;
    for (sym::ExprPtr s : spec.sizes) meta.sizes.push_back(sym_int(s));
    for (sym::ExprPtr s : spec.strides) meta.strides.push_back(sym_int(s));
    meta.storage_offset = spec.storage_offset ? sym_int(spec.storage_offset) : SymInt(0);
    meta.none = spec.none;
    return meta;
  }
  static TensorSpec spec_of(const TensorMeta& meta) {
    TensorSpec spec;
    spec.dtype = meta.dtype;
    for (const SymInt& s : meta.sizes) spec.sizes.push_back(expr_of(s));
    for (const SymInt& s : meta.strides) spec.strides.push_back(expr_of(s));
    spec.storage_offset = expr_of(meta.storage_offset);
    spec.none = meta.none;
    return spec;
  }

  Tensor fake(const TensorMeta& meta, ValueRef ref) {
    if (meta.none) return Tensor();
    auto impl = std::make_shared<TensorImpl>();
    impl->meta = meta;
    Tensor t(std::move(impl));
    refs_[t.impl()] = ref;
    made_.push_back(t);
    return t;
  }
  ValueRef ref_of(const Tensor& t) const {
    const auto it = refs_.find(t.impl());
    if (it == refs_.end()) throw Undecided{"its decomposition makes a tensor outside any op"};
    return it->second;
  }

  Graph& graph_;
  const RangeOf& ranges_;
  ExpansionStats stats_;
  // Each value's fake (a None result: an undefined tensor); a call missing here has results
  // of unknown layout.
  std::unordered_map<const Node*, std::vector<Tensor>> values_;
  // Each fake's value in the graph; `made_` keeps every fake's TensorImpl (the key) alive, those
  // of an undone decomposition too.
  std::unordered_map<const TensorImpl*, ValueRef> refs_;
  std::vector<Tensor> made_;
  size_t position_ = 0;  // where the traced decomposition's next call goes
  NodeMeta meta_;        // the composite call's, given to the calls it becomes
  std::vector<Node*> inserted_;
};

}  // namespace

ExpansionStats expand_composites(Graph& graph, const RangeOf& range_of) {
  return Expander(graph, range_of).run();
}

}  // namespace xport::ir::passes
