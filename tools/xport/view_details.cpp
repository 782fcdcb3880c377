#include "tools/xport/view_details.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace xport::tools {

using nlohmann::json;

void each_ref(const ir::Argument& arg, const std::function<void(const ir::ValueRef&)>& fn) {
  if (const auto* v = std::get_if<ir::ValueRef>(&arg.value)) fn(*v);
  if (const auto* list = std::get_if<std::vector<ir::Argument>>(&arg.value)) {
    for (const ir::Argument& a : *list) each_ref(a, fn);
  }
}

namespace {

std::string value_name(const ir::ValueRef& v) {
  const bool several = v.node->outputs().size() > 1;
  return "%" + v.node->name() + (several ? "[" + std::to_string(v.index) + "]" : "");
}

// The argument as text and references, in the printer's spelling (`[%a, %b]`, `2*s0`).
void append_parts(const ir::Argument& a, const std::string& prefix, const json& weights,
                  json& parts) {
  if (const auto* v = std::get_if<ir::ValueRef>(&a.value)) {
    json ref = {{"t", value_name(*v)}, {"ref", "node_" + prefix + v->node->name()}};
    if (weights.contains(v->node->name())) ref["weight"] = v->node->name();
    parts.push_back(std::move(ref));
  } else if (const auto* list = std::get_if<std::vector<ir::Argument>>(&a.value)) {
    parts.push_back({{"t", "["}});
    for (size_t i = 0; i < list->size(); ++i) {
      if (i > 0) parts.push_back({{"t", ", "}});
      append_parts((*list)[i], prefix, weights, parts);
    }
    parts.push_back({{"t", "]"}});
  } else {
    parts.push_back({{"t", a.str()}});
  }
}

const char* kind_name(ir::NodeKind kind) {
  switch (kind) {
    case ir::NodeKind::Placeholder: return "placeholder";
    case ir::NodeKind::Call: return "call";
    case ir::NodeKind::Output: return "output";
  }
  return "";
}

}  // namespace

void add_node_details(const ir::Graph& graph, const std::string& prefix, const json& weights,
                      json& nodes) {
  std::map<const ir::Node*, std::vector<std::string>> users;
  for (const auto& n : graph.nodes()) {
    for (const ir::Argument& a : n->args()) {
      each_ref(a, [&](const ir::ValueRef& v) {
        std::vector<std::string>& u = users[v.node];
        if (u.empty() || u.back() != n->name()) u.push_back(n->name());
      });
    }
  }
  for (const auto& n : graph.nodes()) {
    json d = {{"name", n->name()}, {"kind", kind_name(n->kind())}};
    if (n->op() != nullptr) {
      d["op"] = n->op()->qualified_name;
      d["schema"] = n->op()->schema;
    }
    json args = json::array();
    for (size_t i = 0; i < n->args().size(); ++i) {
      std::string name = n->kind() == ir::NodeKind::Output ? "results" : "arg" + std::to_string(i);
      if (n->op() != nullptr && i < n->op()->parsed.arguments.size()) {
        name = n->op()->parsed.arguments[i].name;
      }
      json parts = json::array();
      append_parts(n->args()[i], prefix, weights, parts);
      args.push_back({{"name", name}, {"parts", std::move(parts)}});
    }
    d["args"] = std::move(args);
    json outputs = json::array();
    for (const ir::TensorSpec& s : n->outputs()) outputs.push_back(s.none ? "None" : s.str());
    d["outputs"] = std::move(outputs);
    d["source"] = n->meta().source;
    d["module"] = n->meta().module_path;
    json modules = json::array();
    for (const auto& [path, type] : n->meta().module_stack) {
      modules.push_back((path.empty() ? "(root)" : path) + ": " + type);
    }
    d["modules"] = std::move(modules);
    json used_by = json::array();
    for (const std::string& u : users[n.get()]) {
      used_by.push_back({{"t", "%" + u}, {"ref", "node_" + prefix + u}});
    }
    d["users"] = std::move(used_by);
    if (weights.contains(n->name())) d["weight"] = n->name();
    nodes["node_" + prefix + n->name()] = std::move(d);
  }
}

namespace {

const char* input_kind_name(InputSpec::Kind kind) {
  switch (kind) {
    case InputSpec::Kind::Parameter: return "parameter";
    case InputSpec::Kind::Buffer: return "buffer";
    case InputSpec::Kind::Constant: return "constant";
    case InputSpec::Kind::UserInput: return "input";
  }
  return "";
}

constexpr int64_t kShownValues = 8;

template <class T>
void add_statistics(const T* p, int64_t n, json& d) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto v = static_cast<double>(p[i]);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  d["min"] = lo;
  d["max"] = hi;
  d["mean"] = sum / static_cast<double>(n);
  json values = json::array();
  for (int64_t i = 0; i < std::min(n, kShownValues); ++i) values.push_back(p[i]);
  d["values"] = std::move(values);
}

// min, max, mean and the first values of `t` (float32 read in place, other dtypes as float64).
void add_statistics(const Tensor& t, json& d) {
  const auto n = static_cast<int64_t>(t.numel());
  if (n == 0) return;
  if (t.dtype() == DType::Float32 && t.is_contiguous()) {
    add_statistics(t.data<float>(), n, d);
  } else {
    add_statistics(t.to(DType::Float64).contiguous().data<double>(), n, d);
  }
}

}  // namespace

json weight_details(const ExportedProgram& program) {
  json out = json::object();
  for (const InputSpec& in : program.signature().inputs) {
    if (in.kind == InputSpec::Kind::UserInput) continue;
    const size_t dot = in.target.rfind('.');
    json d = {{"kind", input_kind_name(in.kind)},
              {"target", in.target},
              {"module", dot == std::string::npos ? "" : in.target.substr(0, dot)}};
    const auto value = program.state().find(in.target);
    if (value != program.state().end() && value->second.defined()) {
      const Tensor& t = value->second;
      d["dtype"] = dtype_name(t.dtype());
      d["shape"] = t.int_sizes();
      d["bytes"] = static_cast<int64_t>(t.numel()) * t.element_size();
      add_statistics(t, d);
    }
    out[in.name] = std::move(d);
  }
  return out;
}

}  // namespace xport::tools
