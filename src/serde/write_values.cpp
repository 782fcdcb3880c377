// The serialized schema's encodings of values: SymInts, floats and tensor metadata.

#include "serde/write_values.h"

#include <cmath>

#include "serde/pt2_format.h"

namespace xport::serde {

using Json = nlohmann::ordered_json;

// sympy's srepr, as torch.export writes expressions (`Mul(Integer(2), Symbol('s0', ...))`).
// PyTorch's loader sympifies the text: from `2*s0` it would make a symbol of unknown sign, and
// `(s0//2)` would become sympy's floor, not its FloorDiv. Symbols are sizes: positive integers.
bool is_unbacked_name(const std::string& name) {
  return name.size() > 1 && name[0] == 'u' &&
         name.find_first_not_of("0123456789", 1) == std::string::npos;
}

std::string srepr(sym::ExprPtr e) {
  auto call = [](const char* f, const std::vector<std::string>& args) {
    std::string out = std::string(f) + "(";
    for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    return out + ")";
  };
  auto integer = [](int64_t v) { return "Integer(" + std::to_string(v) + ")"; };
  std::vector<std::string> args;
  switch (e->kind()) {
    case sym::ExprKind::Integer:
      return integer(e->value());
    case sym::ExprKind::Symbol:
      // PyTorch tells unbacked symbols (u0, from data) by their prefix; they may be negative.
      if (is_unbacked_name(e->name())) return "Symbol('" + e->name() + "', integer=True)";
      return "Symbol('" + e->name() + "', positive=True, integer=True)";
    case sym::ExprKind::Add:
      for (size_t i = 0; i < e->args().size(); ++i) {
        const int64_t c = e->coefficients()[i];
        args.push_back(c == 1 ? srepr(e->args()[i])
                              : call("Mul", {integer(c), srepr(e->args()[i])}));
      }
      if (e->value() != 0) args.push_back(integer(e->value()));
      return args.size() == 1 ? args[0] : call("Add", args);  // 2*s0 is an Add of one term
    case sym::ExprKind::Mul:
      for (size_t i = 0; i < e->args().size(); ++i) {
        const int64_t k = e->exponents()[i];
        args.push_back(k == 1 ? srepr(e->args()[i])
                              : call("Pow", {srepr(e->args()[i]), integer(k)}));
      }
      return args.size() == 1 ? args[0] : call("Mul", args);
    case sym::ExprKind::FloorDiv:
      return call("FloorDiv", {srepr(e->args()[0]), srepr(e->args()[1])});
    case sym::ExprKind::Mod:
      return call("PythonMod", {srepr(e->args()[0]), srepr(e->args()[1])});
    case sym::ExprKind::Min:
    case sym::ExprKind::Max:
      for (sym::ExprPtr a : e->args()) args.push_back(srepr(a));
      return call(e->kind() == sym::ExprKind::Min ? "Min" : "Max", args);
    default:
      XPORT_FAIL(Internal, "save: ", sym::str(e), " is not an integer expression");
  }
}

Json sym_int(sym::ExprPtr e) {
  if (e == nullptr) return Json{{"as_int", 0}};
  if (auto v = sym::as_int(e)) return Json{{"as_int", *v}};
  return Json{{"as_expr", Json{{"expr_str", srepr(e)}, {"hint", nullptr}}}};
}

// Non-finite floats are strings: JSON has no literal for them (Python's json writes the
// non-standard Infinity/NaN, which strict parsers refuse).
Json float_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

Json tensor_meta(DType dtype, const std::vector<sym::ExprPtr>& sizes,
                 const std::vector<sym::ExprPtr>& strides, sym::ExprPtr offset) {
  Json meta;
  meta["dtype"] = scalar_type_id(dtype);
  Json s = Json::array();
  for (sym::ExprPtr e : sizes) s.push_back(sym_int(e));
  meta["sizes"] = std::move(s);
  meta["requires_grad"] = false;
  meta["device"] = Json{{"type", "cpu"}, {"index", nullptr}};
  Json st = Json::array();
  const std::vector<sym::ExprPtr> contiguous =
      strides.size() == sizes.size() ? strides : ir::TensorSpec::contiguous(dtype, sizes).strides;
  for (sym::ExprPtr e : contiguous) st.push_back(sym_int(e));
  meta["strides"] = std::move(st);
  meta["storage_offset"] = sym_int(offset);
  meta["layout"] = kLayoutStrided;
  return meta;
}

Json tensor_meta(const ir::TensorSpec& spec) {
  return tensor_meta(spec.dtype, spec.sizes, spec.strides, spec.storage_offset);
}

Json tensor_meta(const Tensor& t) {
  std::vector<sym::ExprPtr> sizes, strides;
  for (int64_t s : t.int_sizes()) sizes.push_back(sym::integer(s));
  for (int64_t s : t.int_strides()) strides.push_back(sym::integer(s));
  return tensor_meta(t.dtype(), sizes, strides,
                     sym::integer(static_cast<int64_t>(t.storage_offset())));
}

}  // namespace xport::serde
