// A PT2 archive's JSON and payloads -> ExportedProgram. Nothing from the file is used before it
// is checked: every failure is InvalidArchive naming the entry and field (or UnsupportedOp naming
// an op xport does not have).

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "serde/json_field.h"
#include "serde/pt2_format.h"
#include "serde/serialize.h"
#include "xport/error.h"
#include "xport/result_type.h"

namespace xport::serde {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxRank = 64;
constexpr size_t kMaxExprChars = 512;

Json parse_json(const ZipEntry& entry, const std::string& file) {
  try {
    return Json::parse(entry.data, entry.data + entry.size);
  } catch (const Json::parse_error& e) {
    XPORT_FAIL(InvalidArchive, file, ": invalid JSON at byte ", e.byte, ": ", e.what());
  } catch (const Json::exception& e) {  // out_of_range: a number too large for a double
    XPORT_FAIL(InvalidArchive, file, ": invalid JSON: ", e.what());
  }
}

bool multiply_overflows(int64_t a, int64_t b, int64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}
bool add_overflows(int64_t a, int64_t b, int64_t& out) {
  return __builtin_add_overflow(a, b, &out);
}

class ProgramReader {
 public:
  ProgramReader(const ZipView& zip, std::string root, std::shared_ptr<const void> owner,
                std::string what, ArchiveInfo& info)
      : zip_(zip),
        root_(std::move(root)),
        owner_(std::move(owner)),
        what_(std::move(what)),
        info_(info) {}

  ExportedProgram read() {
    const std::string model_file = what_ + ": " + kModelPath;
    const ZipEntry* model_entry = entry(kModelPath);
    XPORT_CHECK(model_entry != nullptr, InvalidArchive, what_, ": no ", kModelPath,
                " entry (the serialized program)");
    const Json doc = parse_json(*model_entry, model_file);
    const Field ep(doc, "", model_file);
    read_version(ep["schema_version"]);
    read_ranges(ep["range_constraints"]);
    const Field module = ep["graph_module"];
    const Field graph = module["graph"];
    read_sym_values(graph["sym_int_values"]);
    read_tensor_values(graph["tensor_values"]);
    read_graph(graph);
    GraphSignature signature = read_signature(module["signature"]);
    std::map<std::string, Tensor> state = read_state(signature);
    std::vector<InputContract> contract;
    std::vector<SymbolSpec> symbols;
    read_contract(module, signature, contract, symbols);
    read_call_signature(module);
    try {
      return ExportedProgram(std::move(graph_), std::move(signature), std::move(contract),
                             std::move(symbols), std::move(state));
    } catch (const Error& e) {
      XPORT_FAIL(InvalidArchive, model_file, ": the graph is not valid: ", e.what());
    }
  }

 private:
  const ZipView& zip_;
  std::string root_;
  std::shared_ptr<const void> owner_;
  std::string what_;
  ArchiveInfo& info_;

  std::map<std::string, sym::Range> ranges_;        // range_constraints
  std::map<std::string, sym::ExprPtr> sym_values_;  // sym_int_values
  std::map<std::string, sym::ExprPtr> sym_bools_;   // outputs of comparison nodes
  std::set<sym::ExprPtr> input_symbols_;            // in the sizes of graph inputs
  std::set<sym::ExprPtr> bound_symbols_;            // unbacked ones, defined by a node
  std::map<std::string, ir::TensorSpec> specs_;     // tensor_values
  std::map<std::string, ir::ValueRef> values_;      // defined so far
  // Prefixes the names of nodes read from an inlined subgraph, which may repeat the enclosing
  // graph's (read_grad_mode_wrapper).
  std::string scope_;
  // Plain values the program was specialised to, by graph input index (PyTorch's constant
  // inputs: the graph has no placeholder for them).
  std::map<size_t, InputContract> constant_inputs_;
  // The user inputs in call order: a constant input, or nullopt for the next user placeholder.
  std::vector<std::optional<InputContract>> user_order_;
  ir::Graph graph_;
  int subgraph_depth_ = 0;
  static constexpr int kMaxSubgraphDepth = 32;  // a hostile file cannot recurse without bound

  const ZipEntry* entry(const std::string& name) const { return zip_.find(root_ + name); }

  void read_version(const Field& v) {
    info_.schema_major = v["major"].to_int();
    info_.schema_minor = v["minor"].to_int();
    if (info_.schema_major != kSchemaMajor) {
      v.fail("schema version " + std::to_string(info_.schema_major) + "." +
             std::to_string(info_.schema_minor) + " has major " +
             std::to_string(info_.schema_major) + "; xport reads major " +
             std::to_string(kSchemaMajor) +
             " (any minor). Re-export the program with a "
             "PyTorch/xport that writes schema " +
             std::to_string(kSchemaMajor) + ".x");
    }
  }

  sym::ExprPtr parse_expr(const Field& f) {
    const std::string& text = f.to_string();
    if (text.size() > kMaxExprChars) {
      f.fail("expression of " + std::to_string(text.size()) + " characters (at most " +
             std::to_string(kMaxExprChars) + ")");
    }
    // Powers of sums would be expanded term by term; no writer prints them.
    if (text.find(")**") != std::string::npos) f.fail("a power of a parenthesized expression");
    sym::ExprPtr e = nullptr;
    try {
      e = sym::parse(text);
    } catch (const Error& err) {
      f.fail(std::string("cannot parse the expression: ") + err.what());
    }
    if (e->is_bool()) f.fail("'" + text + "' is a boolean, expected an integer expression");
    for (sym::ExprPtr s : sym::free_symbols(e)) {
      if (!ranges_.count(s->name())) {
        f.fail("symbol " + s->name() + " in '" + text + "' has no entry in range_constraints");
      }
    }
    return e;
  }

  void read_ranges(const Field& ranges) {
    ranges.for_each_member([&](const std::string& name, const Field& r) {
      sym::ExprPtr s = nullptr;
      try {
        s = sym::parse(name);
      } catch (const Error&) {
      }
      if (s == nullptr || s->kind() != sym::ExprKind::Symbol)
        r.fail("'" + name + "' is not a symbol name");
      sym::Range range;
      if (auto lo = r.optional("min_val")) range.lo = lo->to_int();
      if (auto hi = r.optional("max_val")) range.hi = hi->to_int();
      if (range.lo > range.hi)
        r.fail("min_val " + std::to_string(range.lo) + " > max_val " + std::to_string(range.hi));
      ranges_[name] = range;
    });
  }

  sym::ExprPtr sym_int(const Field& f) {
    auto [kind, value] = f.to_union();
    if (kind == "as_int") return sym::integer(value.to_int());
    if (kind == "as_expr") return parse_expr(value["expr_str"]);
    value.fail("unknown SymInt kind '" + kind + "' (expected as_int or as_expr)");
  }

  void read_sym_values(const Field& values) {
    values.for_each_member(
        [&](const std::string& name, const Field& v) { sym_values_[name] = sym_int(v); });
  }

  std::vector<sym::ExprPtr> sym_int_list(const Field& f) {
    if (f.size() > kMaxRank)
      f.fail("rank " + std::to_string(f.size()) + " (at most " + std::to_string(kMaxRank) + ")");
    std::vector<sym::ExprPtr> out;
    for (size_t i = 0; i < f.size(); ++i) out.push_back(sym_int(f.at(i)));
    return out;
  }

  static DType dtype(const Field& f) {
    const int64_t id = f.to_int();
    const auto d = dtype_of_scalar_type(id);
    if (!d)
      f.fail("ScalarType " + std::to_string(id) +
             " is not a dtype xport has (it reads 1-8, 12, 13: uint8 through float64, bool, "
             "bfloat16)");
    return *d;
  }

  ir::TensorSpec tensor_spec(const Field& meta) {
    ir::TensorSpec spec;
    spec.dtype = dtype(meta["dtype"]);
    spec.sizes = sym_int_list(meta["sizes"]);
    spec.strides = sym_int_list(meta["strides"]);
    if (spec.strides.size() != spec.sizes.size()) {
      meta["strides"].fail(std::to_string(spec.strides.size()) + " strides for " +
                           std::to_string(spec.sizes.size()) + " sizes");
    }
    for (size_t d = 0; d < spec.sizes.size(); ++d) {
      auto v = sym::as_int(spec.sizes[d]);
      if (v && *v < 0) meta["sizes"].at(d).fail("negative size " + std::to_string(*v));
      auto st = sym::as_int(spec.strides[d]);
      if (st && *st < 0) meta["strides"].at(d).fail("negative stride " + std::to_string(*st));
    }
    spec.storage_offset = sym_int(meta["storage_offset"]);
    if (auto off = sym::as_int(spec.storage_offset); off && *off < 0) {
      meta["storage_offset"].fail("negative storage offset");
    }
    if (auto layout = meta.optional("layout"); layout && layout->to_int() != kLayoutStrided) {
      layout->fail("layout " + std::to_string(layout->to_int()) +
                   "; xport reads strided tensors (7) only");
    }
    if (auto device = meta.optional("device"); device && (*device)["type"].to_string() != "cpu") {
      (*device)["type"].fail("device '" + (*device)["type"].to_string() +
                             "'; xport runs on the CPU");
    }
    if (sym::as_int(spec.storage_offset) == 0) spec.storage_offset = nullptr;
    return spec;
  }

  void read_tensor_values(const Field& values) {
    values.for_each_member(
        [&](const std::string& name, const Field& meta) { specs_[name] = tensor_spec(meta); });
  }

  const ir::TensorSpec& spec_of(const Field& name_field) {
    const std::string& name = name_field.to_string();
    auto it = specs_.find(name);
    if (it == specs_.end()) name_field.fail("value '" + name + "' has no entry in tensor_values");
    return it->second;
  }

  ir::ValueRef value_ref(const Field& tensor_arg) {
    const Field name = tensor_arg["name"];
    auto it = values_.find(name.to_string());
    if (it == values_.end()) {
      name.fail("refers to value '" + name.to_string() +
                "', which no earlier node or input defines");
    }
    return it->second;
  }

  void define(const Field& name_field, ir::ValueRef ref) {
    if (!values_.emplace(name_field.to_string(), ref).second) {
      name_field.fail("value '" + name_field.to_string() + "' is defined twice");
    }
  }

  // A SymFloat argument: a float, or the name of a float the graph computes (item_float()'s
  // value, `_operator.mul`'s result).
  ir::Argument sym_float_argument(const Field& f) {
    auto [kind, v] = f.to_union();
    if (kind == "as_float") return v.to_double();
    if (kind != "as_name") v.fail("unknown SymFloatArgument kind '" + kind + "'");
    auto it = values_.find(v.to_string());
    if (it == values_.end())
      v.fail("refers to float '" + v.to_string() + "', which no earlier node defines");
    return it->second;
  }

  sym::ExprPtr sym_int_argument(const Field& f) {
    auto [kind, v] = f.to_union();
    if (kind == "as_int") return sym::integer(v.to_int());
    if (kind != "as_name") v.fail("unknown SymIntArgument kind '" + kind + "'");
    auto it = sym_values_.find(v.to_string());
    if (it == sym_values_.end()) v.fail("'" + v.to_string() + "' has no entry in sym_int_values");
    return it->second;
  }

  ir::Argument argument(const Field& f) {
    auto [kind, v] = f.to_union();
    // `v` is captured by name: clang < 16 cannot capture a structured binding implicitly.
    auto list = [&, &v = v](auto element) {
      std::vector<ir::Argument> out;
      const size_t n = v.size();
      for (size_t i = 0; i < n; ++i) out.push_back(element(v.at(i)));
      return ir::Argument(std::move(out));
    };
    if (kind == "as_none") return {};
    if (kind == "as_tensor") return value_ref(v);
    if (kind == "as_tensors")
      return list([&](const Field& e) { return ir::Argument(value_ref(e)); });
    if (kind == "as_optional_tensors" || kind == "as_optional_tensor") {
      auto one = [&](const Field& e) -> ir::Argument {
        auto [k, x] = e.to_union();
        if (k == "as_none") return {};
        if (k == "as_tensor") return value_ref(x);
        x.fail("unknown OptionalTensorArgument kind '" + k + "'");
      };
      return kind == "as_optional_tensor" ? one(v) : list(one);
    }
    if (kind == "as_int") return sym::integer(v.to_int());
    if (kind == "as_ints")
      return list([](const Field& e) { return ir::Argument(sym::integer(e.to_int())); });
    if (kind == "as_sym_int") return sym_int_argument(v);
    if (kind == "as_sym_ints")
      return list([&](const Field& e) { return ir::Argument(sym_int_argument(e)); });
    if (kind == "as_float") return v.to_double();
    if (kind == "as_sym_float") return sym_float_argument(v);
    if (kind == "as_floats")
      return list([](const Field& e) { return ir::Argument(e.to_double()); });
    if (kind == "as_bool") return v.to_bool();
    if (kind == "as_bools") return list([](const Field& e) { return ir::Argument(e.to_bool()); });
    if (kind == "as_string") return v.to_string();
    if (kind == "as_strings")
      return list([](const Field& e) { return ir::Argument(e.to_string()); });
    if (kind == "as_scalar_type") return dtype(v);
    if (kind == "as_sym_bool") {
      auto [k, name] = v.to_union();
      if (k == "as_bool") return sym::boolean(name.to_bool());
      if (k != "as_name") name.fail("unknown SymBoolArgument kind '" + k + "'");
      auto it = sym_bools_.find(name.to_string());
      if (it == sym_bools_.end())
        name.fail("refers to '" + name.to_string() + "', which no earlier node defines");
      return it->second;
    }
    if (kind == "as_graph") return subgraph(v);
    // CPU-only, strided, contiguous: the defaults, which xport's graphs spell as None.
    if (kind == "as_device") {
      if (v["type"].to_string() != "cpu")
        v.fail("device '" + v["type"].to_string() + "'; xport runs on the CPU");
      return {};
    }
    if (kind == "as_layout") {
      if (v.to_int() != kLayoutStrided)
        v.fail("layout " + std::to_string(v.to_int()) + "; xport has strided tensors only");
      return {};
    }
    if (kind == "as_memory_format") {
      const int64_t m = v.to_int();
      if (m != 1 && m != 4)
        v.fail("memory format " + std::to_string(m) +
               "; xport supports contiguous_format (1) and preserve_format (4)");
      return std::string(m == 1 ? "contiguous_format" : "preserve_format");
    }
    v.fail("argument kind '" + kind + "' is not supported by xport");
  }

  // A higher-order op's subgraph: its own values, names and SymInts, read with the reader's
  // graph state set aside (symbols and ranges stay shared).
  ir::SubgraphRef subgraph(const Field& f) {
    ir::SubgraphRef ref{f["name"].to_string(), std::make_shared<ir::Graph>()};
    if (++subgraph_depth_ > kMaxSubgraphDepth) {
      f.fail("subgraphs nest deeper than " + std::to_string(kMaxSubgraphDepth));
    }
    auto specs = std::move(specs_);
    auto values = std::move(values_);
    auto sym_values = sym_values_;  // the subgraph sees the enclosing graph's too
    auto sym_bools = sym_bools_;
    ir::Graph graph = std::move(graph_);
    specs_ = {};
    values_ = {};
    graph_ = ir::Graph();
    const Field g = f["graph"];
    read_sym_values(g["sym_int_values"]);
    read_tensor_values(g["tensor_values"]);
    read_graph(g);
    *ref.graph = std::move(graph_);
    specs_ = std::move(specs);
    values_ = std::move(values);
    sym_values_ = std::move(sym_values);
    sym_bools_ = std::move(sym_bools);
    graph_ = std::move(graph);
    --subgraph_depth_;
    return ref;
  }

  // "torch.ops.aten.add.Tensor" -> the registered op, or UnsupportedOp.
  static const OpDef& op_of(const Field& target_field) {
    const std::string& target = target_field.to_string();
    // Higher-order ops have no overload: torch.ops.higher_order.cond.
    const std::string hop_prefix = "torch.ops.higher_order.";
    if (target.rfind(hop_prefix, 0) == 0) {
      const std::string qualified = "higher_order::" + target.substr(hop_prefix.size());
      const OpDef* op = try_find_op(qualified);
      XPORT_CHECK(op != nullptr && op->higher_order, UnsupportedOp, target_field.path(),
                  ": higher-order op ", target,
                  " is not one xport runs (it has cond, map_impl and while_loop)");
      return *op;
    }
    // Python's operators on SymFloats (`_operator.mul`); those on SymInts never get here (their
    // results are expressions in sym_int_values).
    const std::string operator_prefix = "_operator.";
    if (target.rfind(operator_prefix, 0) == 0) {
      const OpDef* op = try_find_op("_operator::" + target.substr(operator_prefix.size()));
      XPORT_CHECK(op != nullptr, UnsupportedOp, target_field.path(), ": ", target,
                  " on floats is not one xport runs (it has add, sub, mul, truediv and neg)");
      return *op;
    }
    const std::string prefix = "torch.ops.";
    const size_t last = target.rfind('.');
    const size_t ns_end = target.find('.', prefix.size());
    if (target.rfind(prefix, 0) != 0 || last == std::string::npos || ns_end == std::string::npos ||
        ns_end >= last) {
      target_field.fail("target '" + target +
                        "' is not of the form torch.ops.<namespace>.<op>.<overload>");
    }
    const std::string ns = target.substr(prefix.size(), ns_end - prefix.size());
    const std::string name = target.substr(ns_end + 1, last - ns_end - 1);
    const std::string overload = target.substr(last + 1);
    const std::string qualified = ns + "::" + name + (overload == "default" ? "" : "." + overload);
    const OpDef* op = try_find_op(qualified);
    XPORT_CHECK(op != nullptr, UnsupportedOp, target_field.path(), ": op ", qualified, " (", target,
                ") is not registered in xport. ",
                ns == "aten" ? std::string("xport has no such ATen op; `xport ops` lists those it "
                                           "has")
                             : "Its library defines it: link the code that registers it (an "
                               "xport::Library for namespace '" + ns +
                                   "') into your program before loading, or with the xport tool "
                                   "pass --ops lib" + ns + ".so (a shared library that registers "
                                   "it when loaded)");
    return *op;
  }

  // aten._assert_tensor_metadata(Tensor a, SymInt[]? size, SymInt[]? stride, ScalarType? dtype,
  // *, Device? device, Layout? layout): a's dtype and sizes must be the recorded ones (device and
  // layout are checked as for any argument: CPU and strided).
  void check_metadata_assertion(const Field& inputs) {
    const ir::TensorSpec* spec = nullptr;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs.at(i)["name"].to_string() != "a") continue;
      auto [kind, v] = inputs.at(i)["arg"].to_union();
      if (kind != "as_tensor") v.fail("expected the asserted tensor (as_tensor), found " + kind);
      value_ref(v);  // defined before this node
      const auto found = specs_.find(v["name"].to_string());
      if (found == specs_.end()) v.fail("no tensor_values entry for the asserted tensor");
      spec = &found->second;
    }
    if (!spec) inputs.fail("_assert_tensor_metadata without its tensor argument 'a'");
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string& name = inputs.at(i)["name"].to_string();
      const Field arg = inputs.at(i)["arg"];
      const ir::Argument value = argument(arg);
      if (value.is_none() || name == "a" || name == "stride") continue;
      if (name == "dtype") {
        const DType* dtype = std::get_if<DType>(&value.value);
        if (!dtype) arg.fail("expected a dtype (as_scalar_type)");
        if (*dtype != spec->dtype) {
          arg.fail(std::string("asserts dtype ") + dtype_name(*dtype) +
                   " for a tensor the archive records as " + spec->str());
        }
      }
      if (name == "size") {
        const auto* sizes = std::get_if<std::vector<ir::Argument>>(&value.value);
        if (!sizes) arg.fail("expected a list of sizes");
        bool same = sizes->size() == spec->sizes.size();
        for (size_t d = 0; same && d < sizes->size(); ++d) {
          const auto* size = std::get_if<sym::ExprPtr>(&(*sizes)[d].value);
          same = size && *size == spec->sizes[d];
        }
        if (!same) arg.fail("asserts sizes the archive does not record for " + spec->str());
      }
    }
  }

  // PyTorch's graphs may pass a number where the schema says Tensor (`aten.add.Tensor(x, 1)`:
  // the dispatcher wraps it as a scalar). xport calls the op's Scalar overload instead (add.Scalar,
  // mul_.Scalar, pow.Scalar, ...), whose type promotion is that of a wrapped number; where none
  // fits (`aten.sub.Tensor(5, x)`), materialise_numbers makes the number a tensor.
  static const OpDef& scalar_overload_for_numbers(const OpDef& op, const Field& inputs) {
    std::vector<std::string> number_args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto [kind, value] = inputs.at(i)["arg"].to_union();
      if (kind != "as_int" && kind != "as_float" && kind != "as_bool" && kind != "as_sym_float")
        continue;
      const std::string& name = inputs.at(i)["name"].to_string();
      for (const Argument& a : op.parsed.arguments) {
        if (a.name == name && a.type.base == BaseType::Tensor && !a.type.list)
          number_args.push_back(name);
      }
    }
    if (number_args.empty()) return op;
    const Schema& s = op.parsed;
    const OpDef* scalar = try_find_op(s.ns + "::" + s.name + ".Scalar");
    bool fits = scalar && scalar->parsed.arguments.size() == s.arguments.size();
    for (size_t i = 0; fits && i < s.arguments.size(); ++i) {
      const Argument& a = s.arguments[i];
      const Argument& b = scalar->parsed.arguments[i];
      const bool number = std::find(number_args.begin(), number_args.end(), a.name) !=
                          number_args.end();
      fits = a.name == b.name &&
             (number ? b.type.base == BaseType::Scalar : a.type.str() == b.type.str());
    }
    return fits ? *scalar : op;
  }

  // A number left in a Tensor argument becomes a 0-dim tensor of the dtype the op computes in
  // (aten::scalar_tensor), which promotes with the op's other operands exactly as the wrapped
  // number would: the result type of the tensors and numbers together.
  // The new nodes are named after the op's node (`sub_45_number_0`): PyTorch's later node names
  // (`scalar_tensor_3`) stay free.
  void materialise_numbers(const OpDef& op, const std::string& node_name,
                           std::vector<ir::Argument>& args, const ir::NodeMeta& meta) {
    const auto is_number = [](const ir::Argument& a) {
      return std::holds_alternative<sym::ExprPtr>(a.value) ||
             std::holds_alternative<double>(a.value) || std::holds_alternative<bool>(a.value);
    };
    const auto& params = op.parsed.arguments;
    ResultType promotion;
    bool any = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (params[i].type.base != BaseType::Tensor || params[i].type.list) continue;
      if (const auto* ref = std::get_if<ir::ValueRef>(&args[i].value)) {
        const ir::TensorSpec& spec = ref->node->outputs()[ref->index];
        promotion.tensor(spec.dtype, !spec.sizes.empty());
      } else if (is_number(args[i])) {
        any = true;
        if (const auto* d = std::get_if<double>(&args[i].value))
          promotion.scalar(Scalar(*d));
        else if (const auto* b = std::get_if<bool>(&args[i].value))
          promotion.scalar(Scalar(*b));
        else
          promotion.scalar(Scalar(int64_t{0}));  // an integer, constant or symbolic
      }
    }
    if (!any) return;
    const DType dtype = promotion.get();
    const OpDef& scalar_tensor = find_op("aten::scalar_tensor");
    for (size_t i = 0; i < args.size(); ++i) {
      if (params[i].type.base != BaseType::Tensor || params[i].type.list || !is_number(args[i]))
        continue;
      std::vector<ir::Argument> st_args = {args[i], dtype};
      for (size_t k = 2; k < scalar_tensor.parsed.arguments.size(); ++k)
        st_args.emplace_back();  // layout, device, pin_memory: None
      ir::Node* node = graph_.add_named_call(
          node_name + "_number_" + std::to_string(i), scalar_tensor, std::move(st_args),
          {ir::TensorSpec::contiguous(dtype, {})}, meta);
      args[i] = node->out();
    }
  }

  static std::string source_of_stack_trace(const std::string& trace) {
    // The innermost frame: the last `File "<file>", line <n>`.
    const size_t at = trace.rfind("File \"");
    if (at == std::string::npos) return "";
    const size_t file_begin = at + 6;
    const size_t file_end = trace.find('"', file_begin);
    if (file_end == std::string::npos) return "";
    std::string source = trace.substr(file_begin, file_end - file_begin);
    const std::string line_marker = ", line ";
    if (trace.compare(file_end + 1, line_marker.size(), line_marker) == 0) {
      const size_t digits = file_end + 1 + line_marker.size();
      size_t end = digits;
      while (end < trace.size() && std::isdigit(static_cast<unsigned char>(trace[end]))) ++end;
      if (end > digits) source += ":" + trace.substr(digits, end - digits);
    }
    return source;
  }

  static ir::NodeMeta node_meta(const Field& metadata) {
    ir::NodeMeta meta;
    if (auto trace = metadata.optional("stack_trace"))
      meta.source = source_of_stack_trace(trace->to_string());
    if (auto stack = metadata.optional("nn_module_stack")) {
      const std::string& text = stack->to_string();
      size_t begin = 0;
      while (begin < text.size()) {
        size_t end = text.find(';', begin);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(begin, end - begin);
        const size_t c1 = item.find(',');
        const size_t c2 = c1 == std::string::npos ? c1 : item.find(',', c1 + 1);
        if (c2 == std::string::npos) stack->fail("entry '" + item + "' is not 'key,path,type'");
        meta.module_stack.emplace_back(item.substr(c1 + 1, c2 - c1 - 1), item.substr(c2 + 1));
        begin = end + 1;
      }
      if (!meta.module_stack.empty()) meta.module_path = meta.module_stack.back().first;
    }
    return meta;
  }

  void read_node(const Field& n) {
    if (read_sym_relation(n) || read_assert(n) || read_item(n) || read_grad_mode_wrapper(n))
      return;
    const Field outputs = n["outputs"];
    // PyTorch's sym_size/arithmetic nodes produce SymInts whose expressions sym_int_values
    // already holds: their uses read the expression, so the node itself is not needed.
    bool only_known_sym_ints = outputs.size() > 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto [k, v] = outputs.at(i).to_union();
      only_known_sym_ints = only_known_sym_ints && k == "as_sym_int" && v.json().is_object() &&
                            v.json().contains("as_name") && v.json()["as_name"].is_string() &&
                            sym_values_.count(v.json()["as_name"].get<std::string>());
    }
    if (only_known_sym_ints) return;

    // PyTorch's training IR asserts metadata that the archive also records
    // (aten._assert_tensor_metadata, an op without outputs). The assertion is decided here, at
    // load, against the recorded metadata, rather than kept as an op that does nothing at run time.
    if (n["target"].to_string() == "torch.ops.aten._assert_tensor_metadata.default") {
      check_metadata_assertion(n["inputs"]);
      return;
    }
    const OpDef& op = scalar_overload_for_numbers(op_of(n["target"]), n["inputs"]);
    const Schema& schema = op.parsed;
    std::vector<std::optional<ir::Argument>> args(schema.arguments.size());
    const Field inputs = n["inputs"];
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Field input = inputs.at(i);
      const std::string& name = input["name"].to_string();
      size_t index = 0;
      if (op.higher_order) {
        // Positional, without names.
        index = i;
        if (index >= schema.arguments.size())
          input.fail(schema.qualified_name() + " takes " +
                     std::to_string(schema.arguments.size()) + " arguments");
      }
      while (!op.higher_order && index < schema.arguments.size() &&
             schema.arguments[index].name != name)
        ++index;
      if (index == schema.arguments.size())
        input["name"].fail("op " + schema.qualified_name() + " has no argument '" + name + "'");
      if (args[index]) input["name"].fail("argument '" + name + "' is given twice");
      args[index] = argument(input["arg"]);
      // A device the schema requires (to.device) stays the CPU it was read as, by name.
      const ArgType& type = schema.arguments[index].type;
      if (type.base == BaseType::Device && !type.optional && args[index]->is_none())
        args[index] = ir::Argument("cpu");
    }
    std::vector<ir::Argument> full;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i]) {
        full.push_back(std::move(*args[i]));
      } else if (schema.arguments[i].default_value) {
        full.push_back(default_argument(*schema.arguments[i].default_value, inputs));
      } else {
        inputs.fail("argument '" + schema.arguments[i].name + "' of " + schema.qualified_name() +
                    " is missing and has no default");
      }
    }

    // Outputs: a list for `-> Tensor[]`, else one tensor (or SymFloat) per return.
    std::vector<std::optional<Field>> names;  // nullopt: a None result (as_none)
    std::vector<size_t> numbers;  // the outputs that are SymFloats
    if (schema.returns_list && !op.higher_order) {
      if (outputs.size() != 1)
        outputs.fail(schema.qualified_name() + " returns a list: expected one as_tensors output");
      auto [k, list] = outputs.at(0).to_union();
      if (k != "as_tensors") list.fail("expected as_tensors for a list return, found " + k);
      for (size_t i = 0; i < list.size(); ++i) names.push_back(list.at(i)["name"]);
    } else if (!op.higher_order) {
      if (outputs.size() != schema.returns.size()) {
        outputs.fail(std::to_string(outputs.size()) + " outputs, but " + schema.qualified_name() +
                     " returns " + std::to_string(schema.returns.size()));
      }
      for (size_t i = 0; i < outputs.size(); ++i) {
        auto [k, t] = outputs.at(i).to_union();
        if (k == "as_sym_float") {  // a float the graph computes, held as a float64 value
          names.push_back(t["as_name"]);
          numbers.push_back(names.size() - 1);
          continue;
        }
        if (k == "as_none") {  // an unrequested gradient of a backward op
          names.emplace_back(std::nullopt);
          continue;
        }
        if (k != "as_tensor") t.fail("expected an as_tensor output, found " + k);
        names.push_back(t["name"]);
      }
    } else {
      // A higher-order op's results: one as_tensor each.
      for (size_t i = 0; i < outputs.size(); ++i) {
        auto [k, t] = outputs.at(i).to_union();
        if (k != "as_tensor") t.fail("expected an as_tensor output, found " + k);
        names.push_back(t["name"]);
      }
    }
    std::vector<ir::TensorSpec> specs;
    for (size_t i = 0; i < names.size(); ++i) {
      const bool number = std::find(numbers.begin(), numbers.end(), i) != numbers.end();
      if (!names[i]) {
        specs.push_back(ir::TensorSpec::none_result());
      } else {
        specs.push_back(number ? ir::TensorSpec::contiguous(DType::Float64, {})
                               : spec_of(*names[i]));
      }
    }
    std::string node_name;
    if (auto given = n.optional("name")) {
      node_name = scope_ + given->to_string();
    } else if (!schema.returns_list && names.size() == 1 && names[0]) {
      node_name = scope_ + names[0]->to_string();
    } else {
      node_name = schema.name;
    }
    ir::NodeMeta meta = n.optional("metadata") ? node_meta(n["metadata"]) : ir::NodeMeta{};
    ir::Node* node;
    try {
      materialise_numbers(op, node_name, full, meta);
      node = n.optional("name") || names.size() == 1
                 ? graph_.add_named_call(node_name, op, std::move(full), std::move(specs),
                                         std::move(meta))
                 : graph_.add_call(op, std::move(full), std::move(specs), std::move(meta));
    } catch (const Error& e) {
      n.fail(e.what());
    }
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i]) define(*names[i], node->out(static_cast<int>(i)));
    }
    bind_new_symbols(node);
  }

  // An output dim that is a symbol no input and no earlier node defines is given its value by
  // this node (nonzero's row count, an unbacked symbol).
  void bind_new_symbols(ir::Node* node) {
    std::vector<ir::UnbackedBinding> bindings;
    for (size_t o = 0; o < node->outputs().size(); ++o) {
      const auto& sizes = node->outputs()[o].sizes;
      for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d]->kind() != sym::ExprKind::Symbol || input_symbols_.count(sizes[d]) ||
            !bound_symbols_.insert(sizes[d]).second)
          continue;
        bindings.push_back({sizes[d], static_cast<int>(o), static_cast<int>(d)});
      }
    }
    if (!bindings.empty()) graph_.set_unbacked_bindings(node, std::move(bindings));
  }

  // aten.item (or _local_scalar_dense) with an as_sym_int output: a tensor's value as an
  // unbacked symbol, whose expression sym_int_values gives.
  bool read_item(const Field& n) {
    const std::string& target = n["target"].to_string();
    if (target != "torch.ops.aten.item.default" &&
        target != "torch.ops.aten._local_scalar_dense.default")
      return false;
    const Field outputs = n["outputs"];
    if (outputs.size() != 1) return false;
    auto [kind, v] = outputs.at(0).to_union();
    if (kind == "as_sym_float") return read_float_item(n, v["as_name"]);
    if (kind != "as_sym_int") return false;
    const Field name = v["as_name"];
    const sym::ExprPtr u = sym_int_argument(v);
    if (u->kind() != sym::ExprKind::Symbol || input_symbols_.count(u) ||
        !bound_symbols_.insert(u).second)
      name.fail("'" + name.to_string() + "' must be a new unbacked symbol, found " + sym::str(u));
    graph_.set_unbacked_bindings(add_item(n, name, /*floating=*/false), {{u, 0, -1}});
    return true;
  }

  // aten.item with an as_sym_float output: a float tensor's value, which later nodes take as a
  // Scalar (as_sym_float). It keeps the tensor's dtype, as item_float() records it.
  bool read_float_item(const Field& n, const Field& name) {
    define(name, add_item(n, name, /*floating=*/true)->out());
    return true;
  }

  // The aten::item node `name` of the one tensor the node `n` reads (a floating one for a
  // SymFloat output), a one-element value of its dtype.
  ir::Node* add_item(const Field& n, const Field& name, bool floating) {
    const Field inputs = n["inputs"];
    if (inputs.size() != 1) inputs.fail("aten.item takes one tensor");
    auto [k, t] = inputs.at(0)["arg"].to_union();
    if (k != "as_tensor") t.fail("aten.item takes a tensor, found " + k);
    const ir::ValueRef self = value_ref(t);
    const DType dtype = self.node->outputs()[static_cast<size_t>(self.index)].dtype;
    if (floating && !is_floating(dtype))
      t.fail(std::string("an as_sym_float item of a ") + dtype_name(dtype) + " tensor");
    try {
      return graph_.add_named_call(scope_ + name.to_string(), find_op("aten::item"), {self},
                                   {ir::TensorSpec::contiguous(dtype, {})},
                                   n.optional("metadata") ? node_meta(n["metadata"])
                                                          : ir::NodeMeta{});
    } catch (const Error& e) {
      n.fail(e.what());
    }
  }

  sym::ExprPtr int_operand(const Field& arg) {
    auto [kind, v] = arg.to_union();
    if (kind == "as_int") return sym::integer(v.to_int());
    if (kind != "as_sym_int") v.fail("expected an as_int or as_sym_int operand, found " + kind);
    return sym_int_argument(v);
  }

  // _operator.ge(a, b) and the other comparisons of SymInts, with which PyTorch's graphs compute
  // the conditions of runtime assertions: kept as expressions for _assert_scalar below.
  bool read_sym_relation(const Field& n) {
    using Relation = sym::ExprPtr (*)(sym::ExprPtr, sym::ExprPtr);
    static const std::map<std::string, Relation> kRelations = {
        {"_operator.eq", sym::eq}, {"_operator.ne", sym::ne}, {"_operator.lt", sym::lt},
        {"_operator.le", sym::le}, {"_operator.gt", sym::gt}, {"_operator.ge", sym::ge}};
    const auto it = kRelations.find(n["target"].to_string());
    if (it == kRelations.end()) return false;
    const Field inputs = n["inputs"];
    const Field outputs = n["outputs"];
    if (inputs.size() != 2 || outputs.size() != 1)
      n.fail(it->first + " takes two SymInts and returns one SymBool");
    const sym::ExprPtr cond =
        it->second(int_operand(inputs.at(0)["arg"]), int_operand(inputs.at(1)["arg"]));
    auto [kind, v] = outputs.at(0).to_union();
    if (kind != "as_sym_bool") v.fail("expected an as_sym_bool output, found " + kind);
    const Field name = v["as_name"];
    if (!sym_bools_.emplace(name.to_string(), cond).second)
      name.fail("value '" + name.to_string() + "' is defined twice");
    return true;
  }

  // aten._assert_scalar(cond, msg) is dropped when `cond` is over input dims' symbols and their
  // range constraints imply it: run() checks those before any kernel. Other runtime assertions
  // are refused (a data-dependent symbol's range is only what the assertions say).
  bool read_assert(const Field& n) {
    if (n["target"].to_string() != "torch.ops.aten._assert_scalar.default") return false;
    const Field inputs = n["inputs"];
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs.at(i)["name"].to_string() != "self") continue;
      auto [kind, v] = inputs.at(i)["arg"].to_union();
      sym::ExprPtr cond = nullptr;
      if (kind == "as_bool") {
        cond = sym::boolean(v.to_bool());
      } else if (kind == "as_int") {  // `self` is a Scalar: a constant 1 or 0 is one too
        cond = sym::boolean(v.to_int() != 0);
      } else if (kind == "as_sym_bool") {
        const Field name = v["as_name"];
        auto it = sym_bools_.find(name.to_string());
        if (it == sym_bools_.end())
          name.fail("refers to '" + name.to_string() + "', which no earlier node defines");
        cond = it->second;
      } else {
        v.fail("expected an as_sym_bool condition, found " + kind);
      }
      bool on_inputs = true;
      for (sym::ExprPtr s : sym::free_symbols(cond)) on_inputs = on_inputs && input_symbols_.count(s);
      if (!on_inputs) {
        // On a data-dependent (unbacked) symbol: the program checks it when it runs.
        std::string message = "Runtime assertion failed for expression " + sym::str(cond);
        for (size_t j = 0; j < inputs.size(); ++j) {
          if (inputs.at(j)["name"].to_string() == "assert_msg") {
            message = inputs.at(j)["arg"]["as_string"].to_string();
          }
        }
        for (sym::ExprPtr s : sym::free_symbols(cond)) {
          if (!input_symbols_.count(s) && !bound_symbols_.count(s))
            v.fail("the runtime assertion " + sym::str(cond) + " is on " + s->name() +
                   ", which no input dim and no earlier node defines");
        }
        try {
          graph_.add_call(find_op("aten::_assert_scalar"), {cond, message}, {},
                          n.optional("metadata") ? node_meta(n["metadata"]) : ir::NodeMeta{});
        } catch (const Error& e) {
          n.fail(e.what());
        }
        return true;
      }
      const auto range_of = [&](sym::ExprPtr s) {
        auto r = ranges_.find(s->name());
        return r == ranges_.end() ? sym::Range{} : r->second;
      };
      if (sym::decide(cond, range_of) != true) {
        v.fail("the runtime assertion " + sym::str(cond) +
               " does not follow from range_constraints; xport checks the range constraints "
               "only; other runtime assertions are not read yet");
      }
      return true;
    }
    inputs.fail("aten::_assert_scalar without its 'self' argument");
  }

  // torch.export wraps code that runs under torch.no_grad() (Llama's rotary embedding, Marian's
  // positions) in higher_order.wrap_with_set_grad_enabled(enable_grad, subgraph, *args). Without
  // autograd the wrapper changes nothing, so its subgraph is read in place: the subgraph's inputs
  // name the node's arguments (tensors, and sizes as SymInts), its outputs are the node's.
  bool read_grad_mode_wrapper(const Field& n) {
    if (n["target"].to_string() != "torch.ops.higher_order.wrap_with_set_grad_enabled")
      return false;
    const Field inputs = n["inputs"];
    if (inputs.size() < 2) inputs.fail("wrap_with_set_grad_enabled takes a bool and a subgraph");
    auto [kind, sub] = inputs.at(1)["arg"].to_union();
    if (kind != "as_graph") sub.fail("expected the wrapped subgraph (as_graph), found " + kind);
    if (++subgraph_depth_ > kMaxSubgraphDepth)
      sub.fail("subgraphs nest deeper than " + std::to_string(kMaxSubgraphDepth));
    const Field g = sub["graph"];
    const Field params = g["inputs"];
    if (params.size() + 2 != inputs.size()) {
      params.fail(std::to_string(params.size()) + " subgraph inputs for " +
                  std::to_string(inputs.size() - 2) + " arguments");
    }
    // The subgraph's names live in a scope of their own, bound to the arguments' values.
    std::map<std::string, ir::ValueRef> scope_values;
    std::map<std::string, sym::ExprPtr> scope_sizes = sym_values_;
    for (size_t i = 0; i < params.size(); ++i) {
      auto [pk, param] = params.at(i).to_union();
      auto [ak, arg] = inputs.at(i + 2)["arg"].to_union();
      if (pk != ak) param.fail("a subgraph input of kind " + pk + " for an argument of kind " + ak);
      if (pk == "as_tensor") {
        scope_values[param["name"].to_string()] = value_ref(arg);
      } else if (pk == "as_sym_int") {
        auto [nk, name] = param.to_union();
        if (nk != "as_name") name.fail("a subgraph input names its SymInt");
        scope_sizes[name.to_string()] = sym_int_argument(arg);
      } else {
        param.fail("a subgraph input of kind " + pk + "; the wrapped code takes tensors and sizes");
      }
    }
    auto values = std::exchange(values_, std::move(scope_values));
    auto sizes = std::exchange(sym_values_, std::move(scope_sizes));
    auto specs = std::exchange(specs_, {});
    const std::string scope = std::exchange(scope_, scope_ + sub["name"].to_string() + "_");
    read_sym_values(g["sym_int_values"]);
    read_tensor_values(g["tensor_values"]);
    const Field nodes = g["nodes"];
    for (size_t i = 0; i < nodes.size(); ++i) read_node(nodes.at(i));
    std::vector<ir::ValueRef> results;
    const Field returns = g["outputs"];
    for (size_t i = 0; i < returns.size(); ++i) {
      auto [rk, r] = returns.at(i).to_union();
      if (rk != "as_tensor") r.fail("the wrapped subgraph returns tensors, found " + rk);
      results.push_back(value_ref(r));
    }
    values_ = std::move(values);
    sym_values_ = std::move(sizes);
    specs_ = std::move(specs);
    scope_ = scope;
    --subgraph_depth_;
    const Field outputs = n["outputs"];
    if (outputs.size() != results.size()) {
      outputs.fail(std::to_string(outputs.size()) + " outputs for a subgraph that returns " +
                   std::to_string(results.size()));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto [ok, out] = outputs.at(i).to_union();
      if (ok != "as_tensor") out.fail("expected an as_tensor output, found " + ok);
      define(out["name"], results[i]);
    }
    return true;
  }

  static ir::Argument default_argument(const Value& d, const Field& where) {
    if (d.is_none()) return {};
    if (d.is_bool()) return d.to_bool();
    if (d.is_int()) return sym::integer(d.to_int());
    if (d.is_double()) return d.to_double();
    if (d.is_string()) return d.to_string_value();
    if (d.is_dtype()) return d.to_dtype();
    if (d.is_int_list()) {
      std::vector<ir::Argument> out;
      for (const SymInt& s : d.to_sym_int_list())
        out.emplace_back(sym::integer(s.maybe_int().value_or(0)));
      return out;
    }
    if (d.is_double_list()) {
      std::vector<ir::Argument> out;
      for (double v : d.to_double_list()) out.emplace_back(v);
      return out;
    }
    if (d.is_bool_list()) {
      std::vector<ir::Argument> out;
      for (bool v : d.to_bool_list()) out.emplace_back(v);
      return out;
    }
    where.fail("a default of kind " + std::string(d.type_name()) + " cannot be filled in");
  }

  void read_graph(const Field& g) {
    const Field inputs = g["inputs"];
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto [k, t] = inputs.at(i).to_union();
      if (k == "as_int" || k == "as_bool" || k == "as_float") {
        InputContract c;
        c.kind = k == "as_int"    ? InputContract::Kind::Int
                 : k == "as_bool" ? InputContract::Kind::Bool
                                  : InputContract::Kind::Float;
        if (k == "as_float") {
          c.float_value = t.to_double();
        } else {
          c.int_value = k == "as_int" ? t.to_int() : t.to_bool();
        }
        constant_inputs_[i] = std::move(c);
        continue;
      }
      if (k != "as_tensor") {
        t.fail("graph input of kind " + k +
               "; xport graphs take tensors and int, bool and float constants");
      }
      const Field name = t["name"];
      const ir::TensorSpec& spec = spec_of(name);
      ir::Node* p;
      try {
        p = graph_.add_placeholder(name.to_string(), spec);
      } catch (const Error& e) {
        name.fail(e.what());
      }
      define(name, p->out());
      for (sym::ExprPtr size : spec.sizes) {
        for (sym::ExprPtr s : sym::free_symbols(size)) input_symbols_.insert(s);
      }
    }
    const Field nodes = g["nodes"];
    for (size_t i = 0; i < nodes.size(); ++i) read_node(nodes.at(i));
    const Field outputs = g["outputs"];
    std::vector<ir::Argument> results;
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto [k, t] = outputs.at(i).to_union();
      if (k == "as_sym_int" || k == "as_int") {
        // A size the program returns (PyTorch's scalar_output): an int64 0-dim tensor here.
        const sym::ExprPtr value = k == "as_int" ? sym::integer(t.to_int()) : sym_int_argument(t);
        const ir::Node* node = graph_.add_call(
            find_op("aten::scalar_tensor"), {value, DType::Int64, {}, {}, {}},
            {ir::TensorSpec::contiguous(DType::Int64, {})});
        results.emplace_back(node->out());
        continue;
      }
      if (k != "as_tensor")
        t.fail("graph output of kind " + k + "; xport graphs return tensors and sizes only");
      results.emplace_back(value_ref(t));
    }
    graph_.set_output(std::move(results));
  }

  GraphSignature read_signature(const Field& sig) {
    GraphSignature out;
    const std::vector<const ir::Node*> placeholders = graph_.placeholders();
    const Field inputs = sig["input_specs"];
    if (inputs.size() != placeholders.size() + constant_inputs_.size()) {
      inputs.fail(std::to_string(inputs.size()) + " input specs for " +
                  std::to_string(placeholders.size() + constant_inputs_.size()) +
                  " graph inputs");
    }
    for (size_t i = 0, p = 0; i < inputs.size(); ++i) {
      auto [k, s] = inputs.at(i).to_union();
      if (auto it = constant_inputs_.find(i); it != constant_inputs_.end()) {
        if (k != "constant_input")
          s.fail("graph input " + std::to_string(i) + " is a constant, but its spec is " + k);
        it->second.name = s["name"].to_string();
        user_order_.push_back(it->second);
        continue;
      }
      InputSpec spec;
      Field arg = s["arg"];
      if (k == "user_input") {
        spec.kind = InputSpec::Kind::UserInput;
        user_order_.push_back(std::nullopt);
        auto [ak, t] = arg.to_union();
        if (ak != "as_tensor") t.fail("user input of kind " + ak + "; xport programs take tensors");
        arg = t;
      } else if (k == "parameter") {
        spec.kind = InputSpec::Kind::Parameter;
        spec.target = s["parameter_name"].to_string();
      } else if (k == "buffer") {
        spec.kind = InputSpec::Kind::Buffer;
        spec.target = s["buffer_name"].to_string();
        spec.persistent = s["persistent"].to_bool();
      } else if (k == "tensor_constant") {
        spec.kind = InputSpec::Kind::Constant;
        spec.target = s["tensor_constant_name"].to_string();
      } else {
        s.fail("input spec kind '" + k +
               "' is not supported by xport (it reads user_input, parameter, buffer, "
               "tensor_constant, constant_input)");
      }
      spec.name = arg["name"].to_string();
      if (spec.name != placeholders[p]->name()) {
        arg["name"].fail("names '" + spec.name + "', but graph input " + std::to_string(i) +
                         " is '" + placeholders[p]->name() + "'");
      }
      ++p;
      out.inputs.push_back(std::move(spec));
    }
    const Field outputs = sig["output_specs"];
    const std::vector<ir::Argument>& results = graph_.output()->args();
    if (outputs.size() != results.size()) {
      outputs.fail(std::to_string(outputs.size()) + " output specs for " +
                   std::to_string(results.size()) + " graph outputs");
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto [k, s] = outputs.at(i).to_union();
      OutputSpec spec;
      spec.name = std::get<ir::ValueRef>(results[i].value).node->name();
      if (k == "user_output") {
        spec.kind = OutputSpec::Kind::UserOutput;
      } else if (k == "buffer_mutation") {
        spec.kind = OutputSpec::Kind::BufferMutation;
        spec.target = s["buffer_name"].to_string();
        if (std::none_of(out.inputs.begin(), out.inputs.end(), [&](const InputSpec& in) {
              return in.kind == InputSpec::Kind::Buffer && in.target == spec.target;
            })) {
          s["buffer_name"].fail("names buffer '" + spec.target + "', which no input spec lists");
        }
      } else if (k == "user_input_mutation") {
        spec.kind = OutputSpec::Kind::UserInputMutation;
        spec.target = s["user_input_name"].to_string();
        if (std::none_of(out.inputs.begin(), out.inputs.end(), [&](const InputSpec& in) {
              return in.kind == InputSpec::Kind::UserInput && in.name == spec.target;
            })) {
          s["user_input_name"].fail("names user input '" + spec.target +
                                    "', which no input spec lists");
        }
      } else {
        s.fail("output spec kind '" + k +
               "' is not supported by xport (it reads user_output, buffer_mutation and "
               "user_input_mutation)");
      }
      out.outputs.push_back(std::move(spec));
    }
    return out;
  }

  // ---- payloads ----------------------------------------------------------------------------

  struct PayloadConfig {
    Json doc;
    std::string file;
  };
  std::map<std::string, std::shared_ptr<Storage>> storages_;  // by entry name

  std::optional<PayloadConfig> config(const char* path) {
    const ZipEntry* e = entry(path);
    if (e == nullptr) return std::nullopt;
    PayloadConfig c{Json(), what_ + ": " + path};
    c.doc = parse_json(*e, c.file);
    return c;
  }

  std::shared_ptr<Storage> storage(const std::string& name, const Field& where, int64_t element) {
    if (auto it = storages_.find(name); it != storages_.end()) return it->second;
    const ZipEntry* e = entry(name);
    if (e == nullptr) where.fail("payload " + name + " is not in the archive");
    if (e->size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      where.fail("payload too large");
    std::shared_ptr<Storage> s;
    if (reinterpret_cast<uintptr_t>(e->data) % static_cast<uintptr_t>(element) == 0) {
      s = Storage::wrap(const_cast<uint8_t*>(e->data), static_cast<int64_t>(e->size),
                        std::const_pointer_cast<void>(owner_));
    } else {
      // Not aligned for its elements (another writer): copied once.
      s = Storage::allocate(static_cast<int64_t>(e->size));
      std::memcpy(s->data(), e->data, e->size);
    }
    storages_[name] = s;
    return s;
  }

  Tensor payload(const Field& meta, const char* dir, const ir::TensorSpec& expected,
                 const std::string& fqn, int64_t& count, int64_t& bytes) {
    if (meta["use_pickle"].to_bool()) {
      meta["use_pickle"].fail(
          "pickled payloads (custom objects, tensor subclasses) are not supported by xport");
    }
    const Field tm = meta["tensor_meta"];
    const ir::TensorSpec spec = tensor_spec(tm);
    TensorMeta t;
    t.dtype = spec.dtype;
    int64_t last = 0;  // largest element index touched
    bool empty = false;
    for (size_t d = 0; d < spec.sizes.size(); ++d) {
      const auto size = sym::as_int(spec.sizes[d]);
      const auto stride = sym::as_int(spec.strides[d]);
      if (!size || !stride) tm.fail("a stored tensor must have constant sizes and strides");
      int64_t extent;
      if (multiply_overflows(*size > 0 ? *size - 1 : 0, *stride, extent) ||
          add_overflows(last, extent, last)) {
        tm["strides"].fail("sizes and strides overflow 64 bits");
      }
      empty = empty || *size == 0;
      t.sizes.emplace_back(*size);
      t.strides.emplace_back(*stride);
    }
    const int64_t offset = spec.storage_offset ? *sym::as_int(spec.storage_offset) : 0;
    t.storage_offset = offset;
    const std::string name = std::string(dir) + meta["path_name"].to_string();
    const int64_t element = element_size(spec.dtype);
    const bool first_use = !storages_.count(name);  // a shared payload's bytes count once
    std::shared_ptr<Storage> s = storage(name, meta["path_name"], element);
    int64_t end = 0;
    if (add_overflows(last, offset, end) || add_overflows(end, 1, end) ||
        multiply_overflows(end, element, end) || (!empty && end > s->nbytes())) {
      tm.fail("tensor '" + fqn + "' needs " + std::to_string(end) + " bytes (offset " +
              std::to_string(offset) + "), but its payload " + name + " has " +
              std::to_string(s->nbytes()));
    }
    if (spec.dtype != expected.dtype || spec.sizes != expected.sizes) {
      tm.fail("tensor '" + fqn + "' is " + spec.str() + ", but its graph input is " +
              expected.str());
    }
    if (first_use) bytes += s->nbytes();
    ++count;
    return Tensor::make(s, std::move(t));
  }

  std::map<std::string, Tensor> read_state(const GraphSignature& sig) {
    std::optional<PayloadConfig> weights = config(kWeightsConfigPath);
    std::optional<PayloadConfig> constants = config(kConstantsConfigPath);
    std::map<std::string, Tensor> state;
    const auto placeholders = graph_.placeholders();
    for (size_t i = 0; i < sig.inputs.size(); ++i) {
      const InputSpec& in = sig.inputs[i];
      if (in.kind == InputSpec::Kind::UserInput) continue;
      const bool is_weight = in.kind == InputSpec::Kind::Parameter ||
                             (in.kind == InputSpec::Kind::Buffer && in.persistent);
      std::optional<PayloadConfig>& c = is_weight ? weights : constants;
      const char* config_path = is_weight ? kWeightsConfigPath : kConstantsConfigPath;
      XPORT_CHECK(c.has_value(), InvalidArchive, what_, ": ", in.target, " needs ", config_path,
                  ", which the archive does not have");
      const Field entries = Field(c->doc, "", c->file)["config"];
      const auto it = entries.json().find(in.target);
      if (it == entries.json().end()) entries.fail("no entry for '" + in.target + "'");
      const Field meta(*it, "config." + in.target, c->file);
      if (state.count(in.target)) continue;  // two inputs of one tensor
      state[in.target] =
          payload(meta, is_weight ? kWeightsDir : kConstantsDir, placeholders[i]->outputs()[0],
                  in.target, is_weight ? info_.weight_count : info_.constant_count,
                  is_weight ? info_.weight_bytes : info_.constant_bytes);
    }
    return state;
  }

  // ---- the contract ------------------------------------------------------------------------

  InputContract contract_entry(const Field& c) {
    InputContract out;
    const std::string& kind = c["kind"].to_string();
    out.name = c["name"].to_string();
    if (kind == "tensor") {
      out.kind = InputContract::Kind::Tensor;
      out.dtype = dtype(c["dtype"]);
      out.sizes = sym_int_list(c["sizes"]);
    } else if (kind == "tensor_list") {
      out.kind = InputContract::Kind::TensorList;
      const Field elements = c["elements"];
      for (size_t i = 0; i < elements.size(); ++i) {
        out.elements.push_back(contract_entry(elements.at(i)));
        if (out.elements.back().kind != InputContract::Kind::Tensor)
          elements.at(i).fail("list elements must be tensors");
      }
    } else if (kind == "int" || kind == "bool") {
      out.kind = kind == "int" ? InputContract::Kind::Int : InputContract::Kind::Bool;
      out.int_value = c["value"].to_int();
    } else if (kind == "float") {
      out.kind = InputContract::Kind::Float;
      out.float_value = c["value"].to_double();
    } else {
      c["kind"].fail("unknown input kind '" + kind + "'");
    }
    return out;
  }

  // The root module's entry of module_call_graph (fqn ""): its pytree specs and argument names.
  void read_call_signature(const Field& module) {
    const auto calls = module.optional("module_call_graph");
    if (!calls) return;
    for (size_t i = 0; i < calls->size(); ++i) {
      const Field call = calls->at(i);
      if (!call["fqn"].to_string().empty()) continue;
      const auto sig = call.optional("signature");
      if (!sig) return;
      info_.in_spec = (*sig)["in_spec"].to_string();
      info_.out_spec = (*sig)["out_spec"].to_string();
      if (const auto names = sig->optional("forward_arg_names")) {
        for (size_t k = 0; k < names->size(); ++k) {
          info_.forward_arg_names.push_back(names->at(k).to_string());
        }
      }
      return;
    }
  }

  void read_contract(const Field& module, const GraphSignature& sig,
                     std::vector<InputContract>& contract, std::vector<SymbolSpec>& symbols) {
    std::vector<const ir::Node*> user;
    for (size_t i = 0; i < sig.inputs.size(); ++i) {
      if (sig.inputs[i].kind == InputSpec::Kind::UserInput)
        user.push_back(graph_.placeholders()[i]);
    }
    const auto metadata = module.optional("metadata");
    const auto contract_text = metadata ? metadata->optional(kContractKey) : std::nullopt;
    const auto symbols_text = metadata ? metadata->optional(kSymbolsKey) : std::nullopt;
    info_.written_by_xport = contract_text && symbols_text;
    if (info_.written_by_xport) {
      const Json c = nested_json(*contract_text);
      const Field cf(c, contract_text->path(), what_ + ": " + kModelPath);
      for (size_t i = 0; i < cf.size(); ++i) contract.push_back(contract_entry(cf.at(i)));
      const Json s = nested_json(*symbols_text);
      const Field sf(s, symbols_text->path(), what_ + ": " + kModelPath);
      for (size_t i = 0; i < sf.size(); ++i) {
        const Field e = sf.at(i);
        const auto unbacked = e.optional("unbacked");
        SymbolSpec spec{e["name"].to_string(), e["source"].to_string(),
                        e["dim_name"].to_string(), {}, unbacked && unbacked->to_bool()};
        auto it = ranges_.find(spec.name);
        if (it == ranges_.end())
          e["name"].fail("symbol '" + spec.name + "' has no entry in range_constraints");
        spec.range = it->second;
        for (const SymbolSpec& other : symbols) {
          if (other.name == spec.name)
            e["name"].fail("symbol '" + spec.name + "' is described twice");
        }
        symbols.push_back(std::move(spec));
      }
      if (symbols.size() != ranges_.size()) {
        sf.fail(std::to_string(symbols.size()) + " symbols described for " +
                std::to_string(ranges_.size()) + " range constraints");
      }
    } else {
      // Written by PyTorch: each user input is a tensor input as its graph input says, or a
      // constant input, and each symbol is named after the first input dim that is exactly
      // that symbol.
      size_t next = 0;
      for (const std::optional<InputContract>& constant : user_order_) {
        if (constant) {
          contract.push_back(*constant);
          continue;
        }
        const ir::Node* p = user[next++];
        InputContract c;
        c.name = p->name();
        c.dtype = p->outputs()[0].dtype;
        c.sizes = p->outputs()[0].sizes;
        contract.push_back(std::move(c));
      }
      for (const auto& [name, range] : ranges_) {
        SymbolSpec spec{name, "", name, range, false};
        for (const InputContract& c : contract) {
          for (size_t d = 0; d < c.sizes.size() && spec.source.empty(); ++d) {
            if (c.sizes[d]->kind() == sym::ExprKind::Symbol && c.sizes[d]->name() == name) {
              spec.source = c.name + ".size(" + std::to_string(d) + ")";
            }
          }
        }
        // A symbol in no input's sizes is defined by a node when the program runs (u0 of item()).
        spec.unbacked = !input_symbols_.count(sym::symbol(name));
        if (spec.unbacked) spec.dim_name.clear();
        if (spec.source.empty()) spec.source = spec.unbacked ? "a value of the data" : name;
        symbols.push_back(std::move(spec));
      }
    }
    check_contract(contract, user, symbols);
  }

  Json nested_json(const Field& text) {
    try {
      return Json::parse(text.to_string());
    } catch (const Json::exception& e) {
      text.fail(std::string("invalid JSON: ") + e.what());
    }
  }

  // The contract's tensors are the graph's user inputs, in order, with the same dtypes and
  // ranks; every symbol is a dim of some input, so run() can bind it.
  void check_contract(const std::vector<InputContract>& contract,
                      const std::vector<const ir::Node*>& user,
                      const std::vector<SymbolSpec>& symbols) {
    std::vector<const InputContract*> tensors;
    for (const InputContract& c : contract) {
      if (c.kind == InputContract::Kind::Tensor) tensors.push_back(&c);
      for (const InputContract& e : c.elements) tensors.push_back(&e);
    }
    XPORT_CHECK(tensors.size() == user.size(), InvalidArchive, what_, ": ", kContractKey,
                " describes ", tensors.size(), " tensor inputs, but the graph has ", user.size());
    std::set<std::string> bindable;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const ir::TensorSpec& spec = user[i]->outputs()[0];
      XPORT_CHECK(tensors[i]->dtype == spec.dtype && tensors[i]->sizes.size() == spec.sizes.size(),
                  InvalidArchive, what_, ": ", kContractKey, ": input ", tensors[i]->name,
                  " does not match graph input ", user[i]->name(), " (", spec.str(), ")");
      for (sym::ExprPtr s : tensors[i]->sizes) {
        for (sym::ExprPtr f : sym::free_symbols(s)) bindable.insert(f->name());
      }
    }
    for (const SymbolSpec& s : symbols) {
      XPORT_CHECK(s.unbacked || bindable.count(s.name), InvalidArchive, what_, ": symbol ", s.name,
                  " is not a dim of any input, so no input can give its value");
    }
  }
};

}  // namespace

ExportedProgram deserialize(const ZipView& zip, const std::string& root,
                            const std::shared_ptr<const void>& owner, const std::string& what,
                            ArchiveInfo& info) {
  return ProgramReader(zip, root, owner, what, info).read();
}

}  // namespace xport::serde
