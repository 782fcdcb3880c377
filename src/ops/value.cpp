#include "xport/tensor/value.h"

#include <sstream>

namespace xport {

Value::Value(const Scalar& v) {
  switch (v.kind()) {
    case Scalar::Kind::Bool:
      v_ = v.to_bool();
      break;
    case Scalar::Kind::Int:
      v_ = SymInt(v.to_int());
      break;
    case Scalar::Kind::Float:
      v_ = v.to_sym_float();
      break;
  }
}

const char* Value::type_name() const {
  static constexpr const char* kNames[] = {"None", "Tensor",     "int",   "float",   "bool",
                                           "str",  "ScalarType", "int[]", "float[]", "Tensor[]",
                                           "GraphModule", "bool[]"};
  return kNames[v_.index()];
}

#define XPORT_VALUE_EXPECT(cond, expected) \
  XPORT_CHECK(cond, InvalidInput, "expected a value of type ", expected, ", got ", type_name())

const Tensor& Value::to_tensor() const {
  XPORT_VALUE_EXPECT(is_tensor(), "Tensor");
  return std::get<Tensor>(v_);
}
const std::vector<Tensor>& Value::to_tensor_list() const {
  XPORT_VALUE_EXPECT(is_list(), "Tensor[]");
  return std::get<std::vector<Tensor>>(v_);
}
const SymInt& Value::to_sym_int() const {
  XPORT_VALUE_EXPECT(is_int(), "int");
  return std::get<SymInt>(v_);
}
int64_t Value::to_int() const {
  if (is_bool()) return std::get<bool>(v_);
  return to_sym_int().guard_int();
}
double Value::to_double() const {
  if (is_int()) return static_cast<double>(to_int());
  if (is_bool()) return std::get<bool>(v_) ? 1.0 : 0.0;
  return to_sym_float().guard_float();
}
const SymFloat& Value::to_sym_float() const {
  XPORT_VALUE_EXPECT(is_double(), "float");
  return std::get<SymFloat>(v_);
}
bool Value::to_bool() const {
  XPORT_VALUE_EXPECT(is_bool(), "bool");
  return std::get<bool>(v_);
}
Scalar Value::to_scalar() const {
  if (is_bool()) return Scalar(std::get<bool>(v_));
  if (is_int()) return Scalar(to_int());
  XPORT_VALUE_EXPECT(is_double(), "Scalar (int, float or bool)");
  return Scalar(std::get<SymFloat>(v_));
}
const std::string& Value::to_string_value() const {
  XPORT_VALUE_EXPECT(is_string(), "str");
  return std::get<std::string>(v_);
}
DType Value::to_dtype() const {
  XPORT_VALUE_EXPECT(is_dtype(), "ScalarType");
  return std::get<DType>(v_);
}
const std::vector<SymInt>& Value::to_sym_int_list() const {
  XPORT_VALUE_EXPECT(is_int_list(), "int[]");
  return std::get<std::vector<SymInt>>(v_);
}
std::vector<int64_t> Value::to_int_list() const {
  const auto& list = to_sym_int_list();
  std::vector<int64_t> out;
  out.reserve(list.size());
  for (const SymInt& s : list) out.push_back(s.guard_int());
  return out;
}
const std::vector<double>& Value::to_double_list() const {
  XPORT_VALUE_EXPECT(is_double_list(), "float[]");
  return std::get<std::vector<double>>(v_);
}

const std::vector<bool>& Value::to_bool_list() const {
  XPORT_VALUE_EXPECT(is_bool_list(), "bool[]");
  return std::get<std::vector<bool>>(v_);
}

const GraphFn& Value::to_graph() const {
  XPORT_VALUE_EXPECT(is_graph(), "GraphModule");
  return std::get<GraphFn>(v_);
}

std::string Value::str() const {
  std::ostringstream out;
  if (is_none()) {
    out << "None";
  } else if (is_tensor()) {
    const Tensor& t = std::get<Tensor>(v_);
    if (!t.defined()) return "Tensor(undefined)";
    out << dtype_short_name(t.dtype()) << "[";
    for (int64_t i = 0; i < t.dim(); ++i) out << (i ? ", " : "") << t.sizes()[i];
    out << "]";
  } else if (is_int()) {
    out << std::get<SymInt>(v_);
  } else if (is_double()) {
    out << Scalar(std::get<SymFloat>(v_)).str();
  } else if (is_bool()) {
    out << (std::get<bool>(v_) ? "True" : "False");
  } else if (is_string()) {
    out << '"' << std::get<std::string>(v_) << '"';
  } else if (is_dtype()) {
    out << dtype_name(std::get<DType>(v_));
  } else if (is_int_list()) {
    const auto& l = std::get<std::vector<SymInt>>(v_);
    out << "[";
    for (size_t i = 0; i < l.size(); ++i) out << (i ? ", " : "") << l[i];
    out << "]";
  } else if (is_double_list()) {
    const auto& l = std::get<std::vector<double>>(v_);
    out << "[";
    for (size_t i = 0; i < l.size(); ++i) out << (i ? ", " : "") << Scalar(l[i]).str();
    out << "]";
  } else if (is_bool_list()) {
    const auto& l = std::get<std::vector<bool>>(v_);
    out << "[";
    for (size_t i = 0; i < l.size(); ++i) out << (i ? ", " : "") << (l[i] ? "True" : "False");
    out << "]";
  } else if (is_graph()) {
    out << "<subgraph>";
  } else {
    const auto& l = std::get<std::vector<Tensor>>(v_);
    out << "[";
    for (size_t i = 0; i < l.size(); ++i) out << (i ? ", " : "") << Value(l[i]).str();
    out << "]";
  }
  return out.str();
}

}  // namespace xport
