#pragma once
/// \file Value: one argument or result of an op (ATen's IValue, for the types our schemas use).

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport {

/// A subgraph as a higher-order op's kernel calls it: tensors in, tensors out. Eager execution
/// passes the user's function; the interpreter and the runtime pass a graph they run.
using GraphFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// Holds a Tensor, an integer (possibly symbolic), a float (possibly symbolic), a bool, a
/// string, a DType, a list of integers, of doubles or of tensors, a subgraph function
/// (higher-order ops), or none. Integers are kept as SymInt, floats as SymFloat.
class Value {
 public:
  Value() = default;                                  // none
  Value(Tensor v) : v_(std::move(v)) {}               // NOLINT
  Value(SymInt v) : v_(std::move(v)) {}               // NOLINT
  Value(int64_t v) : v_(SymInt(v)) {}                 // NOLINT
  Value(int v) : v_(SymInt(v)) {}                     // NOLINT
  Value(double v) : v_(SymFloat(v)) {}                // NOLINT
  Value(SymFloat v) : v_(std::move(v)) {}             // NOLINT
  Value(bool v) : v_(v) {}                            // NOLINT
  Value(std::string v) : v_(std::move(v)) {}          // NOLINT
  Value(const char* v) : v_(std::string(v)) {}        // NOLINT
  Value(DType v) : v_(v) {}                           // NOLINT
  Value(const Scalar& v);                             // NOLINT
  Value(std::vector<SymInt> v) : v_(std::move(v)) {}  // NOLINT
  Value(const std::vector<int64_t>& v)                // NOLINT
      : v_(std::vector<SymInt>(v.begin(), v.end())) {}
  Value(std::vector<double> v) : v_(std::move(v)) {}  // NOLINT
  Value(std::vector<bool> v) : v_(std::move(v)) {}    // NOLINT: `bool[3] output_mask`
  Value(std::vector<Tensor> v) : v_(std::move(v)) {}  // NOLINT
  explicit Value(GraphFn v) : v_(std::move(v)) {}

  bool is_none() const { return v_.index() == 0; }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_int() const { return std::holds_alternative<SymInt>(v_); }
  bool is_double() const { return std::holds_alternative<SymFloat>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_dtype() const { return std::holds_alternative<DType>(v_); }
  bool is_int_list() const { return std::holds_alternative<std::vector<SymInt>>(v_); }
  bool is_double_list() const { return std::holds_alternative<std::vector<double>>(v_); }
  bool is_bool_list() const { return std::holds_alternative<std::vector<bool>>(v_); }
  bool is_list() const { return std::holds_alternative<std::vector<Tensor>>(v_); }
  bool is_graph() const { return std::holds_alternative<GraphFn>(v_); }
  /// A number usable as an ATen Scalar: int, double or bool.
  bool is_number() const { return is_int() || is_double() || is_bool(); }

  const Tensor& to_tensor() const;
  const std::vector<Tensor>& to_tensor_list() const;
  /// Specialises a symbolic integer (recording a guard).
  int64_t to_int() const;
  const SymInt& to_sym_int() const;
  /// Int and bool convert; a symbolic float throws DataDependent (its value is not known).
  double to_double() const;
  const SymFloat& to_sym_float() const;
  bool to_bool() const;
  Scalar to_scalar() const;
  const std::string& to_string_value() const;
  DType to_dtype() const;
  std::vector<int64_t> to_int_list() const;
  const std::vector<SymInt>& to_sym_int_list() const;
  const std::vector<double>& to_double_list() const;
  const std::vector<bool>& to_bool_list() const;
  const GraphFn& to_graph() const;

  /// The name of the held type, for error messages: "Tensor", "int", "float", "int[]", ...
  const char* type_name() const;
  /// A short rendering: tensors as their shape and dtype, numbers as literals.
  std::string str() const;

 private:
  std::variant<std::monostate, Tensor, SymInt, SymFloat, bool, std::string, DType,
               std::vector<SymInt>, std::vector<double>, std::vector<Tensor>, GraphFn,
               std::vector<bool>>
      v_;
};

}  // namespace xport
