#pragma once
// A float only the data decides (item_float() under capture, or arithmetic on one): the
// one-element graph value that holds it. Arithmetic records `_operator` calls, as PyTorch's
// graphs do; reading its value into C++ is a DataDependent error at the user's line.

#include <memory>
#include <optional>

#include "xport/core/sym.h"
#include "xport/tensor/tensor.h"

namespace xport::capture {

class FloatNode : public SymNode, public std::enable_shared_from_this<FloatNode> {
 public:
  /// A value of the graph (a fake tensor), or, with `value` undefined, the constant `constant`.
  explicit FloatNode(Tensor value, double constant = 0.0)
      : value_(std::move(value)), constant_(constant) {}
  /// The fake tensor the graph computes the float into (undefined for a constant).
  const Tensor& value() const { return value_; }

  SymNodePtr binary(SymOp op, const SymNodePtr& other) const override;
  SymNodePtr negate() const override;
  SymNodePtr logical_not() const override;
  SymNodePtr wrap_int(int64_t value) const override;
  SymNodePtr wrap_bool(bool value) const override;
  SymNodePtr wrap_float(double value) const override;
  int64_t guard_int(const std::source_location& where) const override;
  bool guard_bool(const std::source_location& where) const override;
  double guard_float(const std::source_location& where) const override;
  std::optional<int64_t> maybe_int() const override { return std::nullopt; }
  std::string str() const override;

 private:
  Scalar operand() const;
  Tensor value_;
  double constant_ = 0.0;
};

/// The fake tensor holding a symbolic float of this capture (Internal for another kind).
const Tensor& float_value(const SymFloat& v);

}  // namespace xport::capture
