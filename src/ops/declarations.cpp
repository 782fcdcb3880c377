#include "ops/declarations.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "xport/ops/op_registry.h"

namespace xport::ops {
namespace {

// ---- xport/aten.h -------------------------------------------------------------------------------

// How one schema argument is taken in C++: by what type, and its default if C++ can spell it.
struct Param {
  std::string type;
  std::string name;
  std::optional<std::string> default_text;
  bool omitted = false;  // `Generator? generator=None`: always None, not a C++ parameter
};

// The C++ type a user passes for a schema type; nullopt when there is none (subgraphs, Any).
// Sizes are SymInt so that a symbolic size under capture stays symbolic.
std::optional<std::string> value_type(const ArgType& t) {
  switch (t.base) {
    case BaseType::Tensor:
      if (t.list) return t.element_optional ? "std::vector<std::optional<Tensor>>"
                                            : "std::vector<Tensor>";
      return "Tensor";
    case BaseType::Int:
      return t.list ? "std::vector<int64_t>" : "int64_t";
    case BaseType::SymInt:
      return t.list ? "std::vector<SymInt>" : "SymInt";
    case BaseType::Float:
      return t.list ? "std::vector<double>" : "double";
    case BaseType::Bool:
      return t.list ? "std::vector<bool>" : "bool";
    case BaseType::Scalar:
      return t.list ? std::nullopt : std::optional<std::string>("Scalar");
    case BaseType::ScalarType:
      return t.list ? std::nullopt : std::optional<std::string>("DType");
    case BaseType::Str:
    case BaseType::Layout:
    case BaseType::Device:
    case BaseType::MemoryFormat:
      return t.list ? std::nullopt : std::optional<std::string>("std::string");
    case BaseType::Generator:
    case BaseType::Graph:
    case BaseType::Any:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string cpp_dtype(DType d) {
  static const char* const names[] = {"Bool",    "UInt8",    "Int8",    "Int16",   "Int32",
                                      "Int64",   "Float16",  "BFloat16", "Float32", "Float64"};
  return std::string("DType::") + names[static_cast<int>(d)];
}

std::string cpp_double(double v) {
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "-INFINITY";
  if (std::isnan(v)) return "NAN";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string cpp_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

template <class T, class F>
std::string cpp_list(const std::vector<T>& items, F&& item) {
  std::string s = "{";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + item(items[i]);
  return s + "}";
}

// A schema default spelled as a C++ default argument of `type`, or nullopt.
std::optional<std::string> cpp_default(const Argument& a, const std::string& type) {
  if (!a.default_value) return std::nullopt;
  const Value& v = *a.default_value;
  if (v.is_none()) {
    if (a.type.optional) return "std::nullopt";
    return std::nullopt;
  }
  const BaseType b = a.type.base;
  if (v.is_bool()) return v.to_bool() ? "true" : "false";
  if (v.is_int() && (b == BaseType::Int || b == BaseType::SymInt || b == BaseType::Scalar)) {
    return std::to_string(v.to_int());
  }
  if (v.is_int() && b == BaseType::Float) return cpp_double(static_cast<double>(v.to_int()));
  if (v.is_double()) return cpp_double(v.to_double());
  if (v.is_string() && type.find("std::string") != std::string::npos) {
    return cpp_string(v.to_string_value());
  }
  if (v.is_dtype()) return cpp_dtype(v.to_dtype());
  if (v.is_int_list()) {
    return cpp_list(v.to_int_list(), [](int64_t i) { return std::to_string(i); });
  }
  if (v.is_double_list()) return cpp_list(v.to_double_list(), cpp_double);
  if (v.is_bool_list()) {
    std::vector<int> bits(v.to_bool_list().begin(), v.to_bool_list().end());
    return cpp_list(bits, [](int bit) { return std::string(bit ? "true" : "false"); });
  }
  return std::nullopt;
}

bool is_cpp_keyword(const std::string& name) {
  static const std::set<std::string> keywords = {
      "and",   "and_eq", "bitand", "bitor",  "compl",    "delete", "new",  "not",
      "not_eq", "or",    "or_eq",  "xor",    "xor_eq",   "default", "int", "float",
      "bool",  "double", "char",   "return", "operator", "this",    "true", "false"};
  return keywords.count(name) > 0;
}

struct Function {
  std::string op;           // "aten::add.Tensor"
  std::string name;         // the C++ name
  std::string overload;     // "Tensor"
  std::string result;       // "Tensor", "std::tuple<Tensor, Tensor>", "std::vector<Tensor>", "void"
  size_t results = 0;
  std::vector<Param> params;
};

// The C++ result type of `s`, or nullopt when a result is not a tensor (item's Scalar).
std::optional<std::string> result_type(const Schema& s, size_t& count) {
  count = s.returns.size();
  for (const Argument& r : s.returns) {
    if (r.type.base != BaseType::Tensor || r.type.optional) return std::nullopt;
  }
  if (s.returns_list) return "std::vector<Tensor>";
  if (count == 0) return "void";
  if (count == 1) return "Tensor";
  std::string t = "std::tuple<";
  for (size_t i = 0; i < count; ++i) t += i ? ", Tensor" : "Tensor";
  return t + ">";
}

// The function for `op`, or the reason there is none.
std::optional<Function> function_for(const OpDef& op, std::string& why) {
  const Schema& s = op.parsed;
  if (op.higher_order) {
    why = "takes subgraphs: call it through xport::cond / map / while_loop";
    return std::nullopt;
  }
  if (s.name.find("__") != std::string::npos || is_cpp_keyword(s.name)) {
    why = "its name is not a C++ identifier a namespace may declare";
    return std::nullopt;
  }
  Function f{.op = op.qualified_name,
             .name = s.name,
             .overload = s.overload.empty() ? "default" : s.overload,
             .result = {},
             .results = 0,
             .params = {}};
  const std::optional<std::string> result = result_type(s, f.results);
  if (!result) {
    why = "a result is not a tensor: read it with Tensor::item_int / item_float or call_op";
    return std::nullopt;
  }
  f.result = *result;
  for (const Argument& a : s.arguments) {
    if (a.type.base == BaseType::Generator && a.default_value && a.default_value->is_none()) {
      f.params.push_back({.type = "", .name = a.name, .default_text = {}, .omitted = true});
      continue;
    }
    std::optional<std::string> type = value_type(a.type);
    if (!type) {
      why = "argument '" + a.name + "' of type " + a.type.str() + " has no C++ type here";
      return std::nullopt;
    }
    if (a.type.optional) type = "std::optional<" + *type + ">";
    const bool by_value = *type == "int64_t" || *type == "double" || *type == "bool" ||
                          *type == "DType";
    const std::string spelled = by_value ? *type : "const " + *type + "&";
    f.params.push_back({.type = spelled,
                        .name = a.name,
                        .default_text = cpp_default(a, *type),
                        .omitted = false});
  }
  // C++ defaults only trail: drop those before the last parameter that has none.
  for (size_t i = f.params.size(); i-- > 0;) {
    if (f.params[i].omitted || f.params[i].default_text) continue;
    for (size_t j = 0; j < i; ++j) f.params[j].default_text.reset();
    break;
  }
  return f;
}

// The parameter types of `f`: all of them, or only those a call must give.
std::string param_types(const Function& f, bool required_only) {
  std::string key;
  for (const Param& p : f.params) {
    if (!p.omitted && !(required_only && p.default_text)) key += p.type + ",";
  }
  return key;
}

// Overloads of one name that C++ could not tell apart: one with the same parameter types is
// renamed `name_overload`; one that a call with the same required arguments would also fit
// (arange.start and arange.start_step on `arange(0, 10)`) loses defaults from the front until
// it needs more arguments than the earlier one.
void disambiguate(std::vector<Function>& functions) {
  std::map<std::string, std::set<std::string>> all_types, required_types;
  for (Function& f : functions) {
    if (!all_types[f.name].insert(param_types(f, false)).second) {
      f.name += "_" + f.overload;
      all_types[f.name].insert(param_types(f, false));
    }
    std::set<std::string>& required = required_types[f.name];
    while (required.count(param_types(f, true))) {
      const auto first_default = std::find_if(f.params.begin(), f.params.end(),
                                              [](const Param& p) { return p.default_text; });
      if (first_default == f.params.end()) break;
      first_default->default_text.reset();
    }
    required.insert(param_types(f, true));
  }
}

std::string render(const Function& f) {
  std::ostringstream o;
  o << "/// " << f.op << "\n";
  o << "inline " << f.result << " " << f.name << "(";
  bool first = true;
  for (const Param& p : f.params) {
    if (p.omitted) continue;
    o << (first ? "" : ", ") << p.type << " " << p.name;
    if (p.default_text) o << " = " << *p.default_text;
    first = false;
  }
  o << ") {\n  static const OpDef& op = find_op(\"" << f.op << "\");\n  ";
  std::string args = "{";
  for (size_t i = 0; i < f.params.size(); ++i) {
    args += i ? ", " : "";
    args += f.params[i].omitted ? "Value()" : "detail::value(" + f.params[i].name + ")";
  }
  args += "}";
  if (f.result == "void") {
    o << "call(op, " << args << ");\n";
  } else if (f.result == "Tensor") {
    o << "return call(op, " << args << ").to_tensor();\n";
  } else if (f.result == "std::vector<Tensor>") {
    o << "return call_tensors(op, " << args << ");\n";
  } else {
    o << "const std::vector<Tensor> r = call_tensors(op, " << args << ");\n  return {";
    for (size_t i = 0; i < f.results; ++i) o << (i ? ", " : "") << "r[" << i << "]";
    o << "};\n";
  }
  o << "}\n";
  return o.str();
}

const char* const kAtenPrologue = R"(#pragma once
/// \file Every registered `aten::` op as a typed C++ function, like libtorch's `at::`:
/// `xport::aten::elu(x, 0.5)`, `auto [y, mean, rstd] = xport::aten::native_layer_norm(...)`.
/// Generated at build time from the op registry's schemas (tools/apigen); do not edit. Each
/// function calls its op through the dispatcher: eagerly, or recorded into the graph under
/// capture. Parameters keep the schema's names, order and defaults (a default C++ cannot spell
/// is dropped, with those before it); sizes are SymInt, so symbolic sizes stay symbolic.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "xport/core/scalar.h"
#include "xport/core/sym.h"
#include "xport/ops/op_registry.h"
#include "xport/tensor/tensor.h"
#include "xport/tensor/value.h"

namespace xport::aten {
namespace detail {
template <class T>
Value value(const T& v) {
  return Value(v);
}
template <class T>
Value value(const std::optional<T>& v) {
  return v ? Value(*v) : Value();
}
inline Value value(const std::vector<std::optional<Tensor>>& v) {
  std::vector<Tensor> tensors;
  for (const std::optional<Tensor>& t : v) tensors.push_back(t ? *t : Tensor());
  return Value(std::move(tensors));
}
}  // namespace detail

)";

}  // namespace

std::string aten_api_header() {
  std::ostringstream o;
  o << kAtenPrologue;
  std::vector<Function> functions;
  std::vector<std::pair<std::string, std::string>> not_generated;
  for (const OpDef* op : all_ops()) {
    if (op->parsed.ns != "aten") continue;
    std::string why;
    if (std::optional<Function> f = function_for(*op, why)) {
      functions.push_back(std::move(*f));
    } else {
      not_generated.emplace_back(op->qualified_name, why);
    }
  }
  disambiguate(functions);
  for (const Function& f : functions) o << render(f) << "\n";
  o << "/// The registered aten ops with no function here, and why (call them with call_op).\n";
  o << "inline const std::pair<const char*, const char*> kNotGenerated[] = {\n";
  for (const auto& [name, why] : not_generated) {
    o << "    {" << cpp_string(name) << ", " << cpp_string(why) << "},\n";
  }
  o << "};\n\n}  // namespace xport::aten\n";
  return o.str();
}

// ---- xport/kernels.h ----------------------------------------------------------------------------

namespace {

struct KernelDecl {
  std::string ns;    // "xport::kernels::cpu"
  std::string name;  // "relu_out"
  std::string params;
};

// Every typed kernel once, in name order (several ops may share one: item, _local_scalar_dense).
std::vector<KernelDecl> kernel_decls() {
  std::map<std::string, KernelDecl> decls;
  for (const OpDef* op : all_ops()) {
    const KernelSymbol& k = op->kernel.symbol;
    if (k.name.empty() || op->user_defined) continue;
    const size_t split = k.name.rfind("::");
    KernelDecl d{.ns = k.name.substr(0, split), .name = k.name.substr(split + 2), .params = {}};
    for (size_t i = 0; i < k.parameters.size(); ++i) d.params += (i ? ", " : "") + k.parameters[i];
    decls.emplace(k.name + "(" + d.params + ")", std::move(d));
  }
  std::vector<KernelDecl> out;
  for (auto& [key, d] : decls) out.push_back(std::move(d));
  return out;
}

}  // namespace

std::string kernel_declarations_header() {
  std::ostringstream o;
  o << R"(#pragma once
/// \file The typed kernel of every built-in op: parameters are the schema's arguments in order,
/// then one tensor per result, written into. Generated at build time from the op registry
/// (tools/apigen); do not edit. Generated code calls these by name; arguments must already be
/// valid (the op's meta function checks them).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xport/core/dtype.h"
#include "xport/core/scalar.h"
#include "xport/tensor/tensor.h"

)";
  for (const KernelDecl& d : kernel_decls()) {
    o << "namespace " << d.ns << " { void " << d.name << "(" << d.params << "); }\n";
  }
  return o.str();
}

std::string kernel_references_source() {
  std::ostringstream o;
  o << "// Generated by tools/apigen: the address of every kernel xport/kernels.h declares, as\n"
       "// the declared type, so that a declaration no definition matches fails to link.\n"
       "#include <utility>\n\n#include \"xport/kernels.h\"\n\n"
       "namespace xport::generated {\n\n"
       "extern const std::pair<const char*, void (*)()> kKernelAddresses[];\n"
       "extern const int kKernelCount;\n\n"
       "const std::pair<const char*, void (*)()> kKernelAddresses[] = {\n";
  int count = 0;
  for (const KernelDecl& d : kernel_decls()) {
    const std::string full = d.ns + "::" + d.name;
    o << "    {\"" << full << "\", reinterpret_cast<void (*)()>(static_cast<void (*)(" << d.params
      << ")>(&::" << full << "))},\n";
    ++count;
  }
  o << "};\nconst int kKernelCount = " << count << ";\n\n}  // namespace xport::generated\n";
  return o.str();
}

}  // namespace xport::ops
