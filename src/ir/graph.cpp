// Graph construction and the structural operations: users, dead-code elimination, clone.

#include <algorithm>

#include "ir/ir_util.h"
#include "xport/core/error.h"
#include "xport/ir/ir.h"

namespace xport::ir {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

bool uses(const Node& user, const Node* node) {
  bool found = false;
  for (const Argument& a : user.args()) {
    detail::for_each_ref(a, [&](const ValueRef& r) { found = found || r.node == node; });
  }
  return found;
}

// A call that returns nothing (an assertion), mutates an argument or binds unbacked symbols runs
// for its effect.
bool has_effect(const Node& node) {
  const Schema& schema = node.op()->parsed;
  return (schema.returns.empty() && !schema.returns_list) || schema.is_mutating() ||
         !node.unbacked_bindings().empty();
}

}  // namespace

const Argument& Node::arg(std::string_view name) const {
  const int i = op_ == nullptr ? -1 : op_->arg_position(name);
  XPORT_CHECK(i >= 0 && static_cast<size_t>(i) < args_.size(), Internal, "node ", name_,
              ": its op has no argument named '", name, "'");
  return args_[i];
}

std::vector<const SubgraphRef*> Node::subgraphs() const {
  std::vector<const SubgraphRef*> out;
  for (const Argument& a : args_) {
    if (const auto* g = std::get_if<SubgraphRef>(&a.value)) out.push_back(g);
  }
  return out;
}

TensorSpec TensorSpec::contiguous(DType dtype, std::vector<sym::ExprPtr> sizes) {
  TensorSpec spec;
  spec.dtype = dtype;
  spec.strides.resize(sizes.size());
  sym::ExprPtr running = sym::integer(1);
  for (size_t i = sizes.size(); i-- > 0;) {
    spec.strides[i] = running;
    // Like ATen (and contiguous_strides), a size-0 or size-1 dim does not scale the strides
    // before it.
    const auto constant = sym::as_int(sizes[i]);
    if (!(constant && *constant <= 1)) running = sym::mul(running, sizes[i]);
  }
  spec.sizes = std::move(sizes);
  return spec;
}

std::optional<TensorMeta> TensorSpec::concrete(const SymbolValues& symbols, Layout layout) const {
  if (none) return TensorMeta::none_result();
  TensorMeta meta;
  meta.dtype = dtype;
  for (sym::ExprPtr size : sizes) {
    const std::optional<int64_t> v = detail::evaluate_with(size, symbols);
    if (!v) return std::nullopt;
    meta.sizes.emplace_back(*v);
  }
  if (layout == Layout::Contiguous) {
    meta.strides = contiguous_strides(meta.sizes);
    return meta;
  }
  for (sym::ExprPtr stride : strides) {
    const std::optional<int64_t> v = detail::evaluate_with(stride, symbols);
    if (!v) return std::nullopt;
    meta.strides.emplace_back(*v);
  }
  if (storage_offset) {
    const std::optional<int64_t> v = detail::evaluate_with(storage_offset, symbols);
    if (!v) return std::nullopt;
    meta.storage_offset = *v;
  }
  return meta;
}

std::string Graph::unique_name(const std::string& base) {
  int& count = name_counts_[base];
  std::string name = count == 0 ? base : base + "_" + std::to_string(count);
  while (names_.count(name)) name = base + "_" + std::to_string(++count);
  ++count;
  return name;
}

Node* Graph::insert_node(size_t position, std::unique_ptr<Node> node) {
  names_.insert(node->name_);
  Node* raw = node.get();
  nodes_.insert(nodes_.begin() + static_cast<std::ptrdiff_t>(position), std::move(node));
  for (size_t i = position; i < nodes_.size(); ++i) nodes_[i]->position_ = i;
  return raw;
}

void Graph::check_new_name(const char* caller, const char* noun, const std::string& name) const {
  XPORT_CHECK(is_identifier(name), InvalidInput, "Graph::", caller, ": '", name,
              "' is not a valid ", noun,
              " name; use letters, digits and '_', not starting with a "
              "digit (e.g. replace dots by underscores)");
  XPORT_CHECK(!names_.count(name), InvalidInput, "Graph::", caller, ": the name '", name,
              "' is already used in this graph; give each node a unique name");
}

Node* Graph::add_placeholder(const std::string& name, TensorSpec spec, NodeMeta meta) {
  return insert_placeholder(placeholders().size(), name, std::move(spec), std::move(meta));
}

Node* Graph::insert_placeholder(size_t index, const std::string& name, TensorSpec spec,
                                NodeMeta meta) {
  check_new_name("add_placeholder", "input", name);
  size_t inputs = 0;
  while (inputs < nodes_.size() && nodes_[inputs]->kind_ == NodeKind::Placeholder) ++inputs;
  XPORT_CHECK(index <= inputs, InvalidInput, "Graph::insert_placeholder: index ", index,
              " is past the ", inputs, " inputs");
  auto node = std::make_unique<Node>();
  node->kind_ = NodeKind::Placeholder;
  node->name_ = name;
  node->outputs_.push_back(std::move(spec));
  node->meta_ = std::move(meta);
  // Later generated names (`add` for aten::add) skip this one through names_.
  return insert_node(index, std::move(node));
}

void Graph::erase_placeholder(const Node* node) {
  XPORT_CHECK(node != nullptr && node->position_ < nodes_.size() &&
                  nodes_[node->position_].get() == node &&
                  node->kind_ == NodeKind::Placeholder,
              InvalidInput, "Graph::erase_placeholder: the node is not an input of this graph");
  XPORT_CHECK(users(node).empty(), InvalidInput, "Graph::erase_placeholder: %", node->name_,
              " is still used");
  const size_t position = node->position_;
  names_.erase(node->name_);
  nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(position));
  for (size_t i = position; i < nodes_.size(); ++i) nodes_[i]->position_ = i;
}

Node* Graph::insert_call(size_t position, const OpDef& op, std::vector<Argument> args,
                         std::vector<TensorSpec> outputs, NodeMeta meta) {
  XPORT_CHECK(position <= nodes_.size(), InvalidInput, "Graph::insert_call: position ", position,
              " is past the end of a graph of ", nodes_.size(), " nodes");
  auto node = std::make_unique<Node>();
  node->kind_ = NodeKind::Call;
  node->name_ = unique_name(op.parsed.name);
  node->op_ = &op;
  node->args_ = std::move(args);
  node->outputs_ = std::move(outputs);
  node->meta_ = std::move(meta);
  return insert_node(position, std::move(node));
}

Node* Graph::add_named_call(const std::string& name, const OpDef& op, std::vector<Argument> args,
                            std::vector<TensorSpec> outputs, NodeMeta meta) {
  check_new_name("add_named_call", "node", name);
  Node* node = add_call(op, std::move(args), std::move(outputs), std::move(meta));
  names_.erase(node->name_);
  node->name_ = name;
  names_.insert(name);
  return node;
}

Node* Graph::add_call(const OpDef& op, std::vector<Argument> args, std::vector<TensorSpec> outputs,
                      NodeMeta meta) {
  return insert_call(nodes_.size(), op, std::move(args), std::move(outputs), std::move(meta));
}

Node* Graph::set_output(std::vector<Argument> results) {
  auto node = std::make_unique<Node>();
  node->kind_ = NodeKind::Output;
  node->name_ = unique_name("output");
  node->args_ = std::move(results);
  return insert_node(nodes_.size(), std::move(node));
}

void Graph::set_args(Node* node, std::vector<Argument> args) {
  XPORT_CHECK(node != nullptr && node->kind_ != NodeKind::Placeholder, InvalidInput,
              "Graph::set_args: takes a call or the output node");
  node->args_ = std::move(args);
}

void Graph::set_unbacked_bindings(Node* node, std::vector<UnbackedBinding> bindings) {
  node->bindings_ = std::move(bindings);
}

void Graph::replace_all_uses(ValueRef from, ValueRef to) {
  for (auto& node : nodes_) {
    // `to`'s own node may read `from` (y = f(x) replacing x): a node never uses its own value.
    if (node.get() == to.node) continue;
    for (Argument& a : node->args_) {
      detail::for_each_ref(a, [&](ValueRef& r) {
        if (r == from) r = to;
      });
    }
  }
}

namespace {

void substitute_in(Argument& arg, const std::unordered_map<sym::ExprPtr, sym::ExprPtr>& r) {
  if (auto* e = std::get_if<sym::ExprPtr>(&arg.value)) {
    *e = sym::substitute(*e, r);
  } else if (auto* list = std::get_if<std::vector<Argument>>(&arg.value)) {
    for (Argument& a : *list) substitute_in(a, r);
  } else if (auto* g = std::get_if<SubgraphRef>(&arg.value)) {
    g->graph->substitute(r);
  }
}

}  // namespace

void Graph::substitute(const std::unordered_map<sym::ExprPtr, sym::ExprPtr>& replacements) {
  const auto in = [&](sym::ExprPtr e) { return e ? sym::substitute(e, replacements) : e; };
  for (auto& node : nodes_) {
    for (TensorSpec& spec : node->outputs_) {
      for (sym::ExprPtr& s : spec.sizes) s = in(s);
      for (sym::ExprPtr& s : spec.strides) s = in(s);
      spec.storage_offset = in(spec.storage_offset);
    }
    for (Argument& a : node->args_) substitute_in(a, replacements);
  }
}

void Graph::erase(const Node* node) {
  XPORT_CHECK(node != nullptr && node->position_ < nodes_.size() &&
                  nodes_[node->position_].get() == node,
              InvalidInput, "Graph::erase: the node is not in this graph");
  XPORT_CHECK(node->kind_ == NodeKind::Call, InvalidInput, "Graph::erase: %", node->name_,
              " is not a call; inputs and the output stay");
  std::string used_by;
  for (const Node* user : users(node)) used_by += " %" + user->name_;
  XPORT_CHECK(used_by.empty(), InvalidInput, "Graph::erase: %", node->name_,
              " is still used by", used_by, "; replace_all_uses() of its values first");
  // Its symbols may size values and argue calls anywhere after it (dead-code elimination keeps
  // such nodes for the same reason).
  std::string binds;
  for (const UnbackedBinding& b : node->bindings_) binds += " " + sym::str(b.symbol);
  XPORT_CHECK(binds.empty(), InvalidInput, "Graph::erase: %", node->name_,
              " gives the data-dependent symbol(s)", binds,
              " their values when the program runs; later sizes and arguments may use them, so "
              "it stays");
  const size_t position = node->position_;
  names_.erase(node->name_);
  nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(position));
  for (size_t i = position; i < nodes_.size(); ++i) nodes_[i]->position_ = i;
}

std::vector<Node*> Graph::find_nodes(const OpDef& op) const {
  std::vector<Node*> out;
  for (const auto& node : nodes_) {
    if (node->op_ == &op) out.push_back(node.get());
  }
  return out;
}

std::vector<Node*> Graph::find_nodes(const std::string& qualified_name) const {
  return find_nodes(find_op(qualified_name));
}

std::vector<const Node*> Graph::placeholders() const {
  std::vector<const Node*> out;
  for (const auto& node : nodes_) {
    if (node->kind_ == NodeKind::Placeholder) out.push_back(node.get());
  }
  return out;
}

const Node* Graph::output() const {
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    if ((*it)->kind_ == NodeKind::Output) return it->get();
  }
  return nullptr;
}

std::vector<const Node*> Graph::users(const Node* node) const {
  std::vector<const Node*> out;
  for (const auto& user : nodes_) {
    if (uses(*user, node)) out.push_back(user.get());
  }
  return out;
}

void Graph::eliminate_dead_code() {
  std::unordered_map<const Node*, size_t> use_count;
  for (const auto& node : nodes_) {
    for (const Argument& a : node->args_) {
      detail::for_each_ref(a, [&](const ValueRef& r) { ++use_count[r.node]; });
    }
  }
  for (auto& node : nodes_) {
    for (Argument& a : node->args_) {
      if (auto* g = std::get_if<SubgraphRef>(&a.value)) g->graph->eliminate_dead_code();
    }
  }
  // Users come after what they use, so one backward sweep removes whole dead chains.
  std::vector<bool> dead(nodes_.size(), false);
  for (size_t i = nodes_.size(); i-- > 0;) {
    const Node& node = *nodes_[i];
    if (node.kind_ != NodeKind::Call || use_count[&node] != 0 || has_effect(node)) continue;
    dead[i] = true;
    for (const Argument& a : node.args_) {
      detail::for_each_ref(a, [&](const ValueRef& r) { --use_count[r.node]; });
    }
  }
  std::vector<std::unique_ptr<Node>> kept;
  kept.reserve(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (dead[i]) {
      names_.erase(nodes_[i]->name_);
    } else {
      nodes_[i]->position_ = kept.size();
      kept.push_back(std::move(nodes_[i]));
    }
  }
  nodes_ = std::move(kept);
}

Graph Graph::clone() const {
  Graph copy;
  copy.name_counts_ = name_counts_;
  copy.names_ = names_;
  std::unordered_map<const Node*, const Node*> remap;
  for (const auto& node : nodes_) {
    copy.nodes_.push_back(std::make_unique<Node>(*node));
    remap[node.get()] = copy.nodes_.back().get();
  }
  for (auto& node : copy.nodes_) {
    for (Argument& a : node->args_) {
      if (auto* g = std::get_if<SubgraphRef>(&a.value)) {
        g->graph = std::make_shared<Graph>(g->graph->clone());
      }
      detail::for_each_ref(a, [&](ValueRef& r) {
        // A reference to a node outside the graph (only in a graph verify() rejects) stays.
        if (auto it = remap.find(r.node); it != remap.end()) r.node = it->second;
      });
    }
  }
  return copy;
}

}  // namespace xport::ir
