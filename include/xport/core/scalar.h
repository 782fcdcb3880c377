#pragma once
/// \file Scalar: a number argument of an op (ATen's `Scalar`): bool, integer or floating.

#include <cstdint>
#include <string>
#include <type_traits>

#include "xport/core/dtype.h"
#include "xport/core/sym.h"

namespace xport {

/// A plain number, typed by its category like a Python number: it takes part in type promotion
/// weakly (a float scalar makes an integer tensor float32, never float64).
class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}     // NOLINT
  Scalar(int v) : kind_(Kind::Int), i_(v) {}       // NOLINT
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}   // NOLINT
  Scalar(double v) : kind_(Kind::Float), d_(v) {}  // NOLINT
  Scalar(float v) : kind_(Kind::Float), d_(v) {}   // NOLINT
  /// A float that may be symbolic (item_float() under capture): its value is known only when
  /// the program runs, so reading it here records nothing and throws DataDependent.
  Scalar(const SymFloat& v);  // NOLINT

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_symbolic() const { return node_ != nullptr; }
  /// The float as a SymFloat (symbolic or plain); ints and bools convert.
  SymFloat to_sym_float() const { return node_ ? SymFloat(node_) : SymFloat(to_double()); }
  double to_double() const {
    if (node_) [[unlikely]]
      return SymFloat(node_).guard_float();
    return kind_ == Kind::Float ? d_ : static_cast<double>(i_);
  }
  int64_t to_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(to_double()) : i_; }
  bool to_bool() const { return kind_ == Kind::Float ? to_double() != 0.0 : i_ != 0; }
  /// The dtype a Python number of this kind has as a wrapped tensor: bool, int64 or float64.
  DType dtype() const {
    return kind_ == Kind::Bool ? DType::Bool : kind_ == Kind::Int ? DType::Int64 : DType::Float64;
  }
  /// Converts to element type T (the C++ cast, like ATen's Scalar::to<T>).
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>)
      return to_bool();
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(to_int());
    else
      return static_cast<T>(static_cast<float>(to_double()));
  }
  std::string str() const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
  SymNodePtr node_;  ///< a symbolic float's expression (kind_ is Float)
};

template <>
inline double Scalar::to<double>() const {
  return to_double();
}

}  // namespace xport
