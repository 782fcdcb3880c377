#include "onnx/graph_builder.h"

#include <cstring>
#include <sstream>

#include "xport/core/dtype.h"
#include "xport/core/error.h"

namespace xport::onnx {

::onnx::TensorProto_DataType onnx_type(DType dtype) {
  using T = ::onnx::TensorProto_DataType;
  switch (dtype) {
    case DType::Bool: return T::TensorProto_DataType_BOOL;
    case DType::UInt8: return T::TensorProto_DataType_UINT8;
    case DType::Int8: return T::TensorProto_DataType_INT8;
    case DType::Int16: return T::TensorProto_DataType_INT16;
    case DType::Int32: return T::TensorProto_DataType_INT32;
    case DType::Int64: return T::TensorProto_DataType_INT64;
    case DType::Float16: return T::TensorProto_DataType_FLOAT16;
    case DType::BFloat16: return T::TensorProto_DataType_BFLOAT16;
    case DType::Float32: return T::TensorProto_DataType_FLOAT;
    case DType::Float64: return T::TensorProto_DataType_DOUBLE;
    case DType::Complex64: return T::TensorProto_DataType_COMPLEX64;
    case DType::Complex128: return T::TensorProto_DataType_COMPLEX128;
  }
  XPORT_FAIL(Internal, "onnx_type: unknown dtype");
}

::onnx::AttributeProto attr(const std::string& name, int64_t value) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::INT);
  a.set_i(value);
  return a;
}
::onnx::AttributeProto attr(const std::string& name, double value) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::FLOAT);
  a.set_f(static_cast<float>(value));
  return a;
}
::onnx::AttributeProto attr(const std::string& name, const std::string& value) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::STRING);
  a.set_s(value);
  return a;
}
::onnx::AttributeProto attr(const std::string& name, const std::vector<int64_t>& values) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::INTS);
  for (int64_t v : values) a.add_ints(v);
  return a;
}
::onnx::AttributeProto attr(const std::string& name, ::onnx::GraphProto graph) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::GRAPH);
  *a.mutable_g() = std::move(graph);
  return a;
}
::onnx::AttributeProto attr(const std::string& name, ::onnx::TensorProto tensor) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::TENSOR);
  *a.mutable_t() = std::move(tensor);
  return a;
}

std::string ModelState::fresh(const std::string& hint) {
  const std::string base = hint.empty() ? std::string("v") : hint;
  if (names.insert(base).second) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (names.insert(name).second) return name;
  }
}

GraphBuilder::GraphBuilder(::onnx::GraphProto* graph, ModelState& model,
                           const GraphBuilder* parent)
    : graph_(graph), model_(model), parent_(parent) {}

const std::string* GraphBuilder::find_value(const ir::ValueRef& ref) const {
  if (auto it = values_.find(ref); it != values_.end()) return &it->second;
  return parent_ ? parent_->find_value(ref) : nullptr;
}
const std::string* GraphBuilder::find_symbol(sym::ExprPtr e) const {
  if (auto it = symbols_.find(e); it != symbols_.end()) return &it->second;
  return parent_ ? parent_->find_symbol(e) : nullptr;
}
const std::string* GraphBuilder::find_constant(const std::string& key) const {
  if (auto it = constants_.find(key); it != constants_.end()) return &it->second;
  return parent_ ? parent_->find_constant(key) : nullptr;
}

const std::string& GraphBuilder::value(const ir::ValueRef& ref) const {
  const std::string* name = find_value(ref);
  XPORT_CHECK(name != nullptr, Internal, "onnx: value ", ref.node->name(), "[", ref.index,
              "] is used before it is lowered");
  return *name;
}

void GraphBuilder::bind(const ir::ValueRef& ref, std::string name) {
  values_[ref] = std::move(name);
}
void GraphBuilder::bind_symbol(sym::ExprPtr symbol, std::string name) {
  symbols_[symbol] = std::move(name);
}

void GraphBuilder::add_to(const std::string& op_type, std::vector<std::string> inputs,
                          std::vector<std::string> outputs,
                          std::vector<::onnx::AttributeProto> attrs, const std::string& domain) {
  ::onnx::NodeProto* node = graph_->add_node();
  node->set_op_type(op_type);
  if (!domain.empty()) node->set_domain(domain);
  node->set_name(model_.fresh("n_" + (outputs.empty() ? op_type : outputs[0])));
  for (std::string& in : inputs) node->add_input(std::move(in));
  for (std::string& out : outputs) node->add_output(std::move(out));
  for (::onnx::AttributeProto& a : attrs) *node->add_attribute() = std::move(a);
}

std::string GraphBuilder::add(const std::string& op_type, std::vector<std::string> inputs,
                              std::vector<::onnx::AttributeProto> attrs,
                              const std::string& hint) {
  std::string out = model_.fresh(hint.empty() ? op_type : hint);
  add_to(op_type, std::move(inputs), {out}, std::move(attrs));
  return out;
}

namespace {

// `values` stored as `dtype`'s raw little-endian bytes.
void fill_raw(::onnx::TensorProto& t, DType dtype, const std::vector<double>& values) {
  std::string raw(values.size() * static_cast<size_t>(element_size(dtype)), '\0');
  char* out = raw.data();
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    auto put = [&](auto x) { std::memcpy(out + i * sizeof(x), &x, sizeof(x)); };
    switch (dtype) {
      case DType::Bool: put(static_cast<uint8_t>(v != 0)); break;
      case DType::UInt8: put(static_cast<uint8_t>(v)); break;
      case DType::Int8: put(static_cast<int8_t>(v)); break;
      case DType::Int16: put(static_cast<int16_t>(v)); break;
      case DType::Int32: put(static_cast<int32_t>(v)); break;
      case DType::Int64: put(static_cast<int64_t>(v)); break;
      case DType::Float16: put(Half::from_float(static_cast<float>(v))); break;
      case DType::BFloat16: put(BFloat16::from_float(static_cast<float>(v))); break;
      case DType::Float32: put(static_cast<float>(v)); break;
      case DType::Float64: put(v); break;
      case DType::Complex64:
      case DType::Complex128:
        XPORT_FAIL(UnsupportedOp, "onnx: complex constants are not supported");
    }
  }
  t.set_raw_data(std::move(raw));
}

}  // namespace

std::string GraphBuilder::constant(DType dtype, const std::vector<double>& values,
                                   const std::vector<int64_t>& dims) {
  std::ostringstream key;
  key.precision(17);
  key << static_cast<int>(dtype) << "|";
  for (int64_t d : dims) key << d << ",";
  key << "|";
  for (double v : values) key << v << ",";
  if (const std::string* hit = find_constant(key.str())) return *hit;
  ::onnx::TensorProto t;
  t.set_data_type(onnx_type(dtype));
  for (int64_t d : dims) t.add_dims(d);
  fill_raw(t, dtype, values);
  std::string name = add("Constant", {}, {attr("value", std::move(t))}, "c");
  constants_[key.str()] = name;
  return name;
}

namespace {

// Whether a double holds `v` exactly (|v| <= 2^53).
bool fits_double(int64_t v) {
  constexpr int64_t kLimit = int64_t{1} << 53;
  return v >= -kLimit && v <= kLimit;
}

}  // namespace

std::string GraphBuilder::integer(DType dtype, int64_t value) {
  if (is_floating(dtype) || dtype == DType::Bool || fits_double(value)) {
    return scalar(dtype, static_cast<double>(value));
  }
  if (dtype != DType::Int64) return scalar(dtype, static_cast<double>(value));  // wraps anyway
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto_DataType_INT64);
  t.add_int64_data(value);
  return add("Constant", {}, {attr("value", std::move(t))}, "c");
}

std::string GraphBuilder::ints(const std::vector<int64_t>& values) {
  std::vector<double> as_double(values.begin(), values.end());
  // int64 values past 2^53 do not survive a double: store them exactly.
  bool exact = true;
  for (int64_t v : values) exact = exact && fits_double(v);
  if (exact) return constant(DType::Int64, as_double, {static_cast<int64_t>(values.size())});
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto_DataType_INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return add("Constant", {}, {attr("value", std::move(t))}, "c");
}

std::string GraphBuilder::cast(const std::string& value, DType from, DType to) {
  if (from == to) return value;
  return add("Cast", {value}, {attr("to", static_cast<int64_t>(onnx_type(to)))}, "cast");
}

std::string GraphBuilder::sym_scalar(sym::ExprPtr e) {
  if (auto v = sym::as_int(e)) return integer(DType::Int64, *v);
  return add("Reshape", {sym_int(e), ints({})}, {}, "scalar");
}

std::string GraphBuilder::sym_int(sym::ExprPtr e) {
  using sym::ExprKind;
  if (auto v = sym::as_int(e)) return ints({*v});
  if (const std::string* hit = find_symbol(e)) return *hit;
  XPORT_CHECK(e->kind() != ExprKind::Symbol, Internal, "onnx: symbol ", e->name(),
              " has no value in the graph");
  XPORT_CHECK(!e->is_bool(), Internal, "onnx: ", sym::str(e), " is not an integer");
  std::string out;
  switch (e->kind()) {
    case ExprKind::Add: {
      out = ints({e->value()});
      for (size_t i = 0; i < e->args().size(); ++i) {
        std::string term = sym_int(e->args()[i]);
        const int64_t c = e->coefficients()[i];
        if (c != 1) term = add("Mul", {term, ints({c})});
        out = add("Add", {out, term}, {}, "size");
      }
      break;
    }
    case ExprKind::Mul: {
      for (size_t i = 0; i < e->args().size(); ++i) {
        const std::string base = sym_int(e->args()[i]);
        for (int64_t k = 0; k < e->exponents()[i]; ++k) {
          out = out.empty() ? base : add("Mul", {out, base}, {}, "size");
        }
      }
      break;
    }
    case ExprKind::FloorDiv: {
      // Python's a // b is (a - a mod b) / b: the division is exact, so its rounding is moot.
      const std::string a = sym_int(e->args()[0]), b = sym_int(e->args()[1]);
      const std::string m = add("Mod", {a, b}, {attr("fmod", int64_t{0})});
      out = add("Div", {add("Sub", {a, m}), b}, {}, "size");
      break;
    }
    case ExprKind::Mod:
      out = add("Mod", {sym_int(e->args()[0]), sym_int(e->args()[1])},
                {attr("fmod", int64_t{0})}, "size");
      break;
    case ExprKind::Min:
    case ExprKind::Max: {
      std::vector<std::string> args;
      for (sym::ExprPtr a : e->args()) args.push_back(sym_int(a));
      out = add(e->kind() == ExprKind::Min ? "Min" : "Max", std::move(args), {}, "size");
      break;
    }
    default:
      XPORT_FAIL(Internal, "onnx: cannot compute ", sym::str(e));
  }
  symbols_[e] = out;
  return out;
}

std::string GraphBuilder::sym_bool(sym::ExprPtr e) {
  using sym::ExprKind;
  if (auto v = sym::as_bool(e)) return constant(DType::Bool, {*v ? 1.0 : 0.0}, {1});
  if (const std::string* hit = find_symbol(e)) return *hit;
  std::string out;
  switch (e->kind()) {
    case ExprKind::Eq:
    case ExprKind::Ne:
    case ExprKind::Le: {
      const std::string lhs = sym_int(e->args()[0]), zero = ints({0});
      out = e->kind() == ExprKind::Le ? add("LessOrEqual", {lhs, zero}, {}, "pred")
                                       : add("Equal", {lhs, zero}, {}, "pred");
      if (e->kind() == ExprKind::Ne) out = add("Not", {out}, {}, "pred");
      break;
    }
    case ExprKind::And:
    case ExprKind::Or: {
      out = sym_bool(e->args()[0]);
      for (size_t i = 1; i < e->args().size(); ++i) {
        out = add(e->kind() == ExprKind::And ? "And" : "Or", {out, sym_bool(e->args()[i])}, {},
                  "pred");
      }
      break;
    }
    case ExprKind::Not:
      out = add("Not", {sym_bool(e->args()[0])}, {}, "pred");
      break;
    default:
      XPORT_FAIL(Internal, "onnx: ", sym::str(e), " is not a condition");
  }
  symbols_[e] = out;
  return out;
}

std::string GraphBuilder::shape(const std::vector<sym::ExprPtr>& sizes) {
  std::vector<int64_t> constants;
  for (sym::ExprPtr s : sizes) {
    if (auto v = sym::as_int(s)) constants.push_back(*v);
  }
  if (constants.size() == sizes.size()) return ints(constants);
  std::vector<std::string> parts;
  for (sym::ExprPtr s : sizes) parts.push_back(sym_int(s));
  return add("Concat", std::move(parts), {attr("axis", int64_t{0})}, "shape");
}

}  // namespace xport::onnx
