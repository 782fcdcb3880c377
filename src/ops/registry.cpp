#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "ops/register_all.h"
#include "xport/ops/op_registry.h"

namespace xport {
namespace {

struct Registry {
  std::shared_mutex mutex;
  std::map<std::string, std::unique_ptr<OpDef>> ops;  // sorted: `xport ops` lists in order
};

Registry& registry_storage() {
  static Registry r;
  return r;
}

// True on the thread running register_all_ops, so a registration that looks up an op
// registered before it (a decomposition target) does not wait on the call_once it is inside.
thread_local bool t_registering = false;

// Registration of the built-in ops is explicit and happens once, on first lookup.
Registry& registry() {
  if (t_registering) return registry_storage();
  static std::once_flag once;
  std::call_once(once, [] {
    t_registering = true;
    ops::register_all_ops();
    t_registering = false;
  });
  return registry_storage();
}

std::string canonical_name(const std::string& name) {
  const std::string suffix = ".default";
  if (name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    return name.substr(0, name.size() - suffix.size());
  return name;
}

// A typed kernel's parameters are the schema's arguments (Int for SymInt too), then a tensor per
// result.
void check_kernel_symbol(const OpDef& def) {
  const KernelSymbol& k = def.kernel.symbol;
  if (k.name.empty()) return;
  const Schema& s = def.parsed;
  // SymInt arguments reach a kernel as integers; layouts, devices and memory formats as names.
  const auto base_of = [](BaseType b) {
    switch (b) {
      case BaseType::SymInt:
        return BaseType::Int;
      case BaseType::Layout:
      case BaseType::Device:
      case BaseType::MemoryFormat:
        return BaseType::Str;
      default:
        return b;
    }
  };
  const auto takes = [&](const ArgType& param, const ArgType& t) {
    return base_of(param.base) == base_of(t.base) && param.optional == t.optional &&
           param.list == t.list && (t.base != BaseType::Tensor || !t.list ||
                                    param.element_optional == t.element_optional);
  };
  bool fits = !s.returns_list && k.kinds.size() == s.arguments.size() + s.returns.size() &&
              k.parameters.size() == k.kinds.size();
  for (size_t i = 0; fits && i < s.arguments.size(); ++i) {
    fits = takes(k.kinds[i], s.arguments[i].type);
  }
  // One tensor per result (a Scalar result, aten::item's, is a one-element tensor).
  for (size_t i = s.arguments.size(); fits && i < k.kinds.size(); ++i) {
    fits = k.kinds[i].base == BaseType::Tensor && !k.kinds[i].optional && !k.kinds[i].list;
  }
  XPORT_CHECK(fits, InvalidSpec, "op ", def.qualified_name, ": kernel ", k.name, " takes ",
              k.parameters.size(), " parameters that do not follow the schema's ",
              s.arguments.size(), " arguments and ", s.returns.size(), " results");
}

OpDef* find_locked(Registry& r, const std::string& name) {
  const auto it = r.ops.find(name);
  return it == r.ops.end() ? nullptr : it->second.get();
}

// Whether `inplace` is `functional`'s in-place form that updates its first argument (same
// arguments and results, the first result aliasing the first argument).
bool updates_first_argument(const OpDef& functional, const OpDef& inplace) {
  const Schema& f = functional.parsed;
  const Schema& s = inplace.parsed;
  return !f.is_mutating() && !s.arguments.empty() && s.arguments[0].is_write &&
         s.arguments.size() == f.arguments.size() && s.returns.size() == f.returns.size() &&
         s.aliased_argument(0) == 0;
}

// Links `op` with its functional and in-place counterparts by ATen's naming (`add_.Tensor` <->
// `add.Tensor`; `_native_batch_norm_legit` -> `_native_batch_norm_legit_functional`), whichever
// registered first. Called with the registry locked.
void link_variants(Registry& r, OpDef& op) {
  const Schema& s = op.parsed;
  const std::string overload = s.overload.empty() ? "" : "." + s.overload;
  const bool underscored = !s.name.empty() && s.name.back() == '_';
  const std::string prefix = s.ns + "::";
  if (s.is_mutating()) {
    if (!underscored) {
      if (OpDef* f = find_locked(r, prefix + s.name + "_functional" + overload)) op.functional = f;
    } else if (OpDef* f = find_locked(r, prefix + s.name.substr(0, s.name.size() - 1) + overload)) {
      op.functional = f;
      if (updates_first_argument(*f, op)) f->inplace = &op;
    }
    return;
  }
  if (underscored) return;
  if (OpDef* inplace = find_locked(r, prefix + s.name + "_" + overload)) {
    if (inplace->parsed.is_mutating()) {
      inplace->functional = &op;
      if (updates_first_argument(op, *inplace)) op.inplace = inplace;
    }
  }
  const std::string suffix = "_functional";
  if (s.name.size() > suffix.size() &&
      s.name.compare(s.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string mutating = s.name.substr(0, s.name.size() - suffix.size());
    OpDef* m = find_locked(r, prefix + mutating + overload);
    if (m != nullptr && m->parsed.is_mutating()) m->functional = &op;
  }
}

}  // namespace

// The facts every consumer reads from the OpDef instead of working them out again.
void detail::classify_op(OpDef& def) {
  const Schema& s = def.parsed;
  const int aliased = s.aliased_argument(0);
  def.aliased_arg = -1;
  if (def.higher_order) {
    def.kind = OpKind::HigherOrder;
  } else if (!def.meta) {
    def.kind = OpKind::Composite;
  } else if (aliased >= 0 && !s.returns[0].is_write) {
    def.kind = OpKind::View;
    def.aliased_arg = aliased;
  } else if (s.is_mutating()) {
    def.kind = OpKind::InPlace;
    def.aliased_arg = aliased;
  } else {
    def.kind = OpKind::Functional;
  }
}

int OpDef::arg_position(std::string_view name) const {
  const auto it = std::lower_bound(
      arg_positions.begin(), arg_positions.end(), name,
      [](const std::pair<std::string, int>& entry, std::string_view n) { return entry.first < n; });
  return it != arg_positions.end() && it->first == name ? it->second : -1;
}

const std::string& OpArgs::name() const { return op_->qualified_name; }

size_t OpArgs::index(ArgName name) const {
  const int i = op_->arg_position(name.view());
  XPORT_CHECK(i >= 0, Internal, op_->qualified_name, ": the schema has no argument named '",
              name.view(), "'");
  return static_cast<size_t>(i);
}

const OpDef& register_op(OpDef def) {
  def.parsed = parse_schema(def.schema);
  def.qualified_name = def.parsed.qualified_name();
  for (size_t i = 0; i < def.parsed.arguments.size(); ++i) {
    if (def.parsed.arguments[i].type.base != BaseType::Graph) continue;
    def.higher_order = true;
    const bool described = std::any_of(def.subgraph_uses.begin(), def.subgraph_uses.end(),
                                       [&](const SubgraphUse& u) {
                                         return u.graph_arg == static_cast<int>(i);
                                       });
    XPORT_CHECK(described, InvalidSpec, "op ", def.qualified_name, ": argument '",
                def.parsed.arguments[i].name,
                "' is a GraphModule; say how the op calls it in OpDef::subgraph_uses");
  }
  check_kernel_symbol(def);
  detail::classify_op(def);
  for (size_t i = 0; i < def.parsed.arguments.size(); ++i)
    def.arg_positions.emplace_back(def.parsed.arguments[i].name, static_cast<int>(i));
  std::sort(def.arg_positions.begin(), def.arg_positions.end());
  // Built-in ops come first, so a custom op can never take a built-in's name.
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  auto [it, inserted] = r.ops.try_emplace(def.qualified_name, nullptr);
  XPORT_CHECK(inserted, InvalidSpec, "op ", def.qualified_name, " is already registered");
  it->second = std::make_unique<OpDef>(std::move(def));
  link_variants(r, *it->second);
  return *it->second;
}

const OpDef* try_find_op(const std::string& qualified_name) {
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  auto it = r.ops.find(canonical_name(qualified_name));
  return it == r.ops.end() ? nullptr : it->second.get();
}

const OpDef& find_op(const std::string& qualified_name) {
  if (const OpDef* op = try_find_op(qualified_name)) return *op;
  // Suggest the overloads of the same base name, which is the usual mistake.
  const std::string base = canonical_name(qualified_name).substr(0, qualified_name.find('.'));
  std::string suggestions;
  for (const OpDef* op : all_ops()) {
    if (op->qualified_name.rfind(base, 0) == 0 &&
        (op->qualified_name.size() == base.size() || op->qualified_name[base.size()] == '.')) {
      suggestions += "\n  " + op->schema;
    }
  }
  XPORT_FAIL(UnsupportedOp, "no op named '", qualified_name, "' is registered",
             suggestions.empty() ? std::string("; `xport ops` lists every op")
                                 : "; did you mean one of:" + suggestions);
}

void detail::update_op(const std::string& qualified_name,
                       const std::function<void(OpDef&)>& change) {
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  auto it = r.ops.find(canonical_name(qualified_name));
  XPORT_CHECK(it != r.ops.end(), UnsupportedOp, "no op named '", qualified_name,
              "' is registered");
  change(*it->second);
  detail::classify_op(*it->second);
}

std::vector<const OpDef*> all_ops() {
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  std::vector<const OpDef*> out;
  out.reserve(r.ops.size());
  for (const auto& [name, op] : r.ops) out.push_back(op.get());
  return out;
}

}  // namespace xport
