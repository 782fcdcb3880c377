#include "capture/tracer.h"

#include "capture/call_site.h"
#include "capture/expr_node.h"
#include "capture/float_node.h"
#include "ir/argument_value.h"
#include "xport/nn/module.h"

namespace xport::capture {

TracedValue* traced(const Tensor& t) {
  if (!t.defined() || !t.is_fake() || !t.impl()->capture_info) return nullptr;
  return static_cast<TracedValue*>(t.impl()->capture_info.get());
}

Tracer* active_tracer() { return dynamic_cast<Tracer*>(current_interceptor()); }

Tracer::Tracer(ir::Graph& graph, std::shared_ptr<ShapeEnv> env, Tracer* outer)
    : graph_(graph), env_(std::move(env)), outer_(outer) {}

bool Tracer::owns(const ir::ValueRef& ref) const {
  const auto& nodes = graph_.nodes();
  const size_t p = ref.node->position();
  return p < nodes.size() && nodes[p].get() == ref.node;
}

// Whether `ref` is a value of this graph or of a graph enclosing it.
bool Tracer::in_scope(const ir::ValueRef& ref) const {
  for (const Tracer* t = this; t != nullptr; t = t->outer_) {
    if (t->owns(ref)) return true;
  }
  return false;
}

ir::ValueRef Tracer::add_subgraph_input(const Tensor& outer, const TensorMeta& meta) {
  // Named after the value in the enclosing graph (lifting it there too, when it is a
  // parameter, a constant or a value of a graph further out).
  const std::string base = outer_->value_of(outer).node->name();
  std::string name = base;
  for (int i = 1; graph_.uses_name(name); ++i) name = base + "_" + std::to_string(i);
  return graph_.add_placeholder(name, spec_of(meta), {})->out();
}

std::string Tracer::subgraph_name(const std::string& base) {
  int& count = subgraph_counts_[base];
  return base + "_" + std::to_string(count++);
}

TensorMeta Tracer::meta_of(const ir::TensorSpec& spec) const {
  TensorMeta meta;
  meta.dtype = spec.dtype;
  for (sym::ExprPtr s : spec.sizes) meta.sizes.push_back(env_->make_int(s));
  for (sym::ExprPtr s : spec.strides) meta.strides.push_back(env_->make_int(s));
  meta.storage_offset = spec.storage_offset ? env_->make_int(spec.storage_offset) : SymInt(0);
  meta.none = spec.none;
  return meta;
}

std::vector<Tensor> Tracer::add_node(const OpDef& op, std::vector<ir::Argument> args,
                                     std::vector<ir::TensorSpec> specs,
                                     std::vector<ir::UnbackedBinding> bindings) {
  ir::Node* node = graph_.add_call(op, std::move(args), std::move(specs), node_meta());
  if (!bindings.empty()) graph_.set_unbacked_bindings(node, std::move(bindings));
  std::vector<Tensor> outs;
  for (size_t i = 0; i < node->outputs().size(); ++i) {
    outs.push_back(make_fake(meta_of(node->outputs()[i]), node->out(static_cast<int>(i))));
  }
  return outs;
}

Tensor Tracer::make_fake(const TensorMeta& meta, ir::ValueRef ref) {
  if (meta.none) return Tensor();  // a None result: nothing to trace
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = meta;
  auto info = std::make_shared<TracedValue>();
  info->ref = ref;
  impl->capture_info = std::move(info);
  return Tensor(std::move(impl));
}

void Tracer::lift(const Tensor& t, ir::ValueRef ref) { lifted_[t.impl()] = ref; }

ir::TensorSpec Tracer::spec_of(const TensorMeta& meta) const {
  ir::TensorSpec spec;
  spec.dtype = meta.dtype;
  for (const SymInt& s : meta.sizes) spec.sizes.push_back(env_->simplify(expr_of(s)));
  for (const SymInt& s : meta.strides) spec.strides.push_back(env_->simplify(expr_of(s)));
  spec.storage_offset = env_->simplify(expr_of(meta.storage_offset));
  spec.none = meta.none;
  return spec;
}

ir::ValueRef Tracer::value_of(const Tensor& t) {
  TracedValue* v = traced(t);
  if (v != nullptr && owns(v->ref)) return v->ref;
  if (auto it = lifted_.find(t.impl()); it != lifted_.end()) return it->second;
  const bool from_enclosing_graph = v != nullptr && outer_ != nullptr && outer_->in_scope(v->ref);
  if ((v != nullptr || t.is_fake()) && !from_enclosing_graph) {
    // A value of a subgraph traced before (or of another export): not in this graph's scope.
    const std::string line = user_source(capture_call_site());
    xport::detail::throw_error_with_case(
        ErrorKind::InvalidSpec,
        xport::detail::concat(
            "a tensor made inside a cond / map / while_loop function (or by another export) is "
            "used outside it",
            line.empty() ? "" : " (" + line + ")",
            "; return it from the function instead of keeping it"),
        "cond_leaked_tensor");
  }
  if (outer_ != nullptr) {
    // A tensor of an enclosing graph, or a real one: the subgraph takes it as an input.
    const ir::ValueRef ref = add_subgraph_input(t, t.meta());
    closures_.push_back(t);
    lifted_[t.impl()] = ref;
    return ref;
  }
  // A real tensor from the enclosing scope: its value becomes part of the program.
  const std::string name = "c_lifted_tensor_" + std::to_string(constants_.size());
  ir::Node* node = graph_.add_placeholder(name, spec_of(t.meta()), node_meta());
  constants_.emplace_back(name, t);
  lifted_[t.impl()] = node->out();
  return node->out();
}

ir::NodeMeta Tracer::node_meta() const {
  if (inherited_meta_ != nullptr) return *inherited_meta_;
  ir::NodeMeta meta;
  meta.source = user_source(capture_call_site());
  for (const nn::Module* m : nn::module_call_stack()) {
    meta.module_stack.emplace_back(m->path(), m->type_name());
  }
  if (!meta.module_stack.empty()) meta.module_path = meta.module_stack.back().first;
  return meta;
}

ir::Argument Tracer::to_argument(const Value& v, const xport::Argument& schema_arg) {
  return ir::argument_of(
      v, schema_arg, [this](const Tensor& t) { return value_of(t); },
      [this](const SymInt& s) { return env_->simplify(expr_of(s)); },
      [this](const SymFloat& f) -> ir::Argument {
        if (f.is_symbolic()) return float_argument(float_value(f));
        return f.guard_float();
      });
}

std::vector<Tensor> Tracer::intercept(const OpArgs& args) {
  const OpDef& op = args.op();
  XPORT_CHECK(!op.higher_order, UnsupportedOp, op.qualified_name,
              ": call xport::cond, xport::map or xport::while_loop, which trace their functions "
              "into subgraphs, instead of the op itself");
  XPORT_CHECK_CASE(!op.user_defined || op.meta || op.decomp, UnsupportedOp, "custom_op_no_meta",
                   op.qualified_name,
                   ": export runs ops on fake tensors (sizes, no data), and this op has no meta "
                   "function; add Library::impl_meta(\"", op.parsed.name,
                   "\", ...) returning empty_like / empty tensors of its results' sizes");
  if (op.kind == OpKind::Composite && op.decomp) return run_decomposition(args);
  XPORT_CHECK_CASE(!op.cpu_alloc || op.meta, DataDependent, "data_dependent_nonzero",
                   op.qualified_name,
                   ": the size of its output depends on the input's values, and the op has no "
                   "meta function to give capture a symbol for it");
  if (op.kind == OpKind::Composite) return run_decomposition(args);
  if (decompositions_ != nullptr) {
    if (auto it = decompositions_->find(op.qualified_name); it != decompositions_->end()) {
      return it->second(args);
    }
  }
  if (op.kind == OpKind::InPlace) return functionalize(args);
  return record(args);
}

SymInt Tracer::new_data_dependent_size(const OpArgs& args, int64_t lo, int64_t hi) {
  const std::string line = user_source(capture_call_site());
  const sym::ExprPtr u = env_->create_unbacked(
      {lo, hi}, "an output size of " + args.name() + (line.empty() ? "" : " at " + line));
  pending_sizes_.push_back(u);
  return env_->make_int(u);
}

SymInt Tracer::item_int(const Tensor& t) {
  XPORT_CHECK(is_integral(t.dtype(), /*include_bool=*/true), InvalidInput,
              "item_int(): the tensor holds ", dtype_name(t.dtype()),
              "; convert it to an integer dtype first (.to(DType::Int64))");
  const std::string name = value_of(t).node->name();
  record_item(t);
  ir::Node* node = graph_.nodes()[graph_.nodes().size() - 1].get();
  const std::string line = user_source(capture_call_site());
  const sym::Range range = t.dtype() == DType::Bool
                               ? sym::Range{0, 1}
                               : sym::Range{sym::Range::kNegInf, sym::Range::kPosInf};
  const sym::ExprPtr u = env_->create_unbacked(
      range, "%" + name + ".item()" + (line.empty() ? "" : " at " + line));
  graph_.set_unbacked_bindings(node, {{u, 0, -1}});
  return env_->make_int(u);
}

SymFloat Tracer::item_float(const Tensor& t) {
  XPORT_CHECK(is_floating(t.dtype()), InvalidInput, "item_float(): the tensor holds ",
              dtype_name(t.dtype()), "; read an integer or bool tensor with item_int()",
              " or item_bool(), or convert it first (.to(DType::Float32))");
  return SymFloat(std::make_shared<FloatNode>(record_item(t)));
}

Tensor Tracer::record_item(const Tensor& t) {
  return call_tensors(find_op("aten::item"), {t}).at(0);
}

ir::ValueRef Tracer::float_argument(const Tensor& value) {
  const auto* traced = static_cast<const TracedValue*>(value.impl()->capture_info.get());
  const ir::Node* node = traced != nullptr ? traced->ref.node : nullptr;
  const bool here = node != nullptr && node->position() < graph_.nodes().size() &&
                    graph_.nodes()[node->position()].get() == node;
  // PyTorch's control-flow operators take tensors only, so a branch cannot close over a float.
  const std::string line = here ? "" : user_source(capture_call_site());
  XPORT_CHECK(here, UnsupportedOp, "a float from item_float() is used inside a cond, map or ",
              "while_loop function", line.empty() ? "" : " at " + line,
              " but was read outside it; pass its one-element tensor as an operand and call ",
              "item_float() inside the function, or use the tensor itself (x * scale)");
  return traced->ref;
}

std::vector<Tensor> Tracer::record(const OpArgs& args) {
  const OpDef& op = args.op();
  pending_sizes_.clear();
  const std::vector<TensorMeta> metas = op.meta(args);
  std::vector<ir::Argument> arguments;
  arguments.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    arguments.push_back(to_argument(args[i], op.parsed.arguments[i]));
  }
  std::vector<ir::TensorSpec> specs;
  specs.reserve(metas.size());
  for (const TensorMeta& m : metas) specs.push_back(spec_of(m));
  ir::Node* node = graph_.add_call(op, std::move(arguments), std::move(specs), node_meta());
  if (!pending_sizes_.empty()) {
    // The meta function made unbacked sizes: this node's output dims give them their values.
    std::vector<ir::UnbackedBinding> bindings;
    for (sym::ExprPtr u : pending_sizes_) {
      for (size_t o = 0; o < node->outputs().size(); ++o) {
        const auto& sizes = node->outputs()[o].sizes;
        for (size_t d = 0; d < sizes.size(); ++d) {
          if (sizes[d] == u && (bindings.empty() || bindings.back().symbol != u)) {
            bindings.push_back({u, static_cast<int>(o), static_cast<int>(d)});
          }
        }
      }
    }
    graph_.set_unbacked_bindings(node, std::move(bindings));
    pending_sizes_.clear();
  }
  std::vector<Tensor> outs;
  outs.reserve(metas.size());
  for (size_t i = 0; i < metas.size(); ++i) {
    outs.push_back(make_fake(metas[i], node->out(static_cast<int>(i))));
    // A view shares memory with its base: an in-place update of the view is refused, and
    // one of the base makes the view stale (refused if used later).
    const int base = op.parsed.aliased_argument(op.parsed.returns_list ? 0 : i);
    if (base >= 0 && args[static_cast<size_t>(base)].is_tensor()) {
      const std::shared_ptr<void>& info = outs.back().impl()->capture_info;
      auto view = std::static_pointer_cast<TracedValue>(info);
      view->is_view = true;
      view->view_op = &op;
      view->view_args = args.values();
      view->view_output = i;
      const Tensor& of = args[static_cast<size_t>(base)].to_tensor();
      views_of(of).push_back(view);
      if (const TracedValue* parent = traced(of); parent != nullptr && parent->is_view) {
        view->base_view = std::static_pointer_cast<TracedValue>(of.impl()->capture_info);
      }
    }
  }
  return outs;
}

// self.op_(...) becomes self' = op(self, ...) in the graph, and the fake `self` is rebound to
// the new value; an op that updates several arguments (_native_batch_norm_legit) becomes its
// _functional form, which returns their new values after its own results.
std::vector<Tensor> Tracer::functionalize(const OpArgs& args) {
  const Schema& schema = args.op().parsed;
  const std::string& name = args.name();
  std::vector<size_t> written;
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    if (!schema.arguments[i].is_write) continue;
    XPORT_CHECK(args[i].is_tensor() && args[i].to_tensor().defined(), UnsupportedOp, name,
                ": capture supports in-place ops that update tensors, not '",
                schema.arguments[i].name, "' of type ", schema.arguments[i].type.str());
    check_mutable(args[i].to_tensor(), name);
    written.push_back(i);
  }
  const OpDef* functional = functional_variant(args.op());
  std::vector<Value> values = args.values();
  if (functional == nullptr && schema.name == "zero_") {
    functional = &find_op("aten::fill.Scalar");
    values = {args["self"], Value(int64_t{0})};
  }
  XPORT_CHECK(functional != nullptr, UnsupportedOp, name,
              ": has no functional form to record; compute a new tensor instead");
  if (functional->parsed.arguments.size() != values.size()) {
    // An out= overload's functional op takes its arguments but `out`: pass them by name.
    values.clear();
    for (const Argument& a : functional->parsed.arguments) values.push_back(args[a.name]);
  }
  std::vector<Tensor> results = call_tensors(*functional, std::move(values));
  size_t fresh = 0;  // results that alias no argument come first
  for (size_t r = 0; r < schema.returns.size(); ++r) fresh += schema.aliased_argument(r) < 0;
  XPORT_CHECK(results.size() == fresh + written.size(), Internal, functional->qualified_name,
              " returns ", results.size(), " tensors; as the functional form of ", name,
              " it must return ", fresh, " results and the new value of each of its ",
              written.size(), " updated arguments");
  for (size_t k = 0; k < written.size(); ++k) {
    const Tensor& self = args[written[k]].to_tensor();
    Tensor next = results[fresh + k];
    if (next.dtype() != self.dtype()) next = next.to(self.dtype());
    rebind(self, next);
  }
  std::vector<Tensor> outs;
  size_t next_fresh = 0;
  for (size_t r = 0; r < schema.returns.size(); ++r) {
    const int a = schema.aliased_argument(r);
    outs.push_back(a >= 0 ? args[static_cast<size_t>(a)].to_tensor() : results[next_fresh++]);
  }
  return outs;
}

void Tracer::check_mutable(const Tensor& t, const std::string& op_name) {
  const TracedValue* tv = traced(t);
  const std::string line = node_meta().source;
  const std::string at = line.empty() ? "" : " (" + line + ")";
  if (outer_ != nullptr) {
    const bool own_result = tv != nullptr && owns(tv->ref) &&
                            tv->ref.node->kind() == ir::NodeKind::Call;
    XPORT_CHECK_CASE(own_result, InvalidSpec, "cond_mutates_input", op_name,
                     ": a cond / map / while_loop function updates one of its inputs or a tensor "
                     "from outside it in place",
                     at, "; these functions must not mutate: compute a new tensor and return it");
  }
  XPORT_CHECK_CASE(tv == nullptr || !tv->is_view || sole_view_of_a_hidden_base(*tv),
                   UnsupportedOp, "inplace_view_update", op_name,
                   ": updating a view in place", at,
                   " would update the tensor it views as well, which export does not track yet; "
                   "update the whole tensor with index_copy_ / index_put_, or build a new one "
                   "with slice_scatter / select_scatter");
  const ir::ValueRef ref = value_of(t);
  if (ref.node->kind() != ir::NodeKind::Placeholder) return;
  // A graph input updated in place: its last value becomes an output of the graph.
  for (const InputMutation& m : mutations_) {
    if (m.placeholder == ref.node) return;
  }
  mutations_.push_back({ref.node, t, line});
}

// A view whose base only the view itself holds (the base is an op's result, no view or input,
// and no tensor handle or other view reaches it): updating the view in place changes nothing
// any other tensor reads, so it is recorded as an update of the view alone. A decomposition's
// result is often such a view: matmul returns mm(...).view(...).
bool Tracer::sole_view_of_a_hidden_base(const TracedValue& view) const {
  if (view.view_op == nullptr) return false;
  const Schema& schema = view.view_op->parsed;
  const int b = schema.aliased_argument(schema.returns_list ? 0 : view.view_output);
  if (b < 0) return false;
  const Tensor& base = view.view_args.at(static_cast<size_t>(b)).to_tensor();
  const TracedValue* of = traced(base);
  // Every view's record holds its base: one holder is this view's, and no other is alive.
  return of != nullptr && !of->is_view && owns(of->ref) &&
         of->ref.node->kind() == ir::NodeKind::Call && base.impl_ptr().use_count() == 1;
}

std::vector<std::weak_ptr<TracedValue>>& Tracer::views_of(const Tensor& t) {
  if (TracedValue* tv = traced(t)) return tv->views;
  return lifted_views_[t.impl()];
}

void Tracer::rebind(const Tensor& t, const Tensor& next) {
  // Views taken before the update would still read the old value: each is taken again from the
  // new one, bases before their views. The new value itself may be such a view (detach_, whose
  // functional form is an alias): it holds the value.
  TracedValue* replacement = traced(next);
  std::vector<std::weak_ptr<TracedValue>> pending = std::move(views_of(t));
  views_of(t).clear();
  if (replacement != nullptr) {
    // The new value of `t` (transpose_'s transpose of it) is taken from nothing else now; its
    // arguments name `t` itself, which would keep both alive in a cycle.
    replacement->view_op = nullptr;
    replacement->view_args.clear();
  }
  if (traced(t) != nullptr) {
    t.impl()->capture_info = next.impl()->capture_info;
  } else {
    lifted_[t.impl()] = value_of(next);
  }
  for (size_t k = 0; k < pending.size(); ++k) {
    const std::shared_ptr<TracedValue> view = pending[k].lock();
    if (view == nullptr || view.get() == replacement) continue;
    std::vector<std::weak_ptr<TracedValue>> views_of_view = std::move(view->views);
    view->views.clear();
    retake(view);
    for (auto& w : views_of_view) pending.push_back(std::move(w));
  }
}

void Tracer::retake(const std::shared_ptr<TracedValue>& view) {
  XPORT_CHECK(view->view_op != nullptr, Internal, "a view of an updated tensor has no view op");
  // The base argument is the tensor the view was taken of, which now stands for its new value.
  const std::vector<Tensor> again = call_tensors(*view->view_op, view->view_args);
  const TracedValue* fresh = traced(again.at(view->view_output));
  XPORT_CHECK(fresh != nullptr, Internal, view->view_op->qualified_name,
              ": a view taken again after an in-place update has no graph value");
  view->ref = fresh->ref;
  // The user's handle, not the fresh copy, is what a later update of the base must reach.
  const int base = view->view_op->parsed.aliased_argument(
      view->view_op->parsed.returns_list ? 0 : view->view_output);
  views_of(view->view_args.at(static_cast<size_t>(base)).to_tensor()).push_back(view);
}

std::string lifted_input_name(const std::string& prefix, const std::string& path) {
  std::string out = prefix;
  for (char c : path) out += (c == '.') ? '_' : c;
  return out;
}

}  // namespace xport::capture
