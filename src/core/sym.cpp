#include "xport/core/sym.h"

#include <algorithm>

#include "xport/core/error.h"

namespace xport {
namespace {

// Lifts a plain operand into the other operand's shape environment.
SymNodePtr as_node(const SymInt& v, const SymNodePtr& like) {
  return v.is_symbolic() ? v.node() : like->wrap_int(v.as_int_unchecked());
}

SymNodePtr symbolic_binary(SymOp op, const SymInt& a, const SymInt& b) {
  const SymNodePtr& like = a.is_symbolic() ? a.node() : b.node();
  return as_node(a, like)->binary(op, as_node(b, like));
}

// A node that folds to a constant becomes a plain value, so static sizes stay plain (and can
// never take part in a guard).
SymInt fold_int(SymNodePtr node) {
  if (auto v = node->maybe_int()) return SymInt(*v);
  return SymInt(std::move(node));
}
SymBool fold_bool(SymNodePtr node) {
  if (auto v = node->maybe_int()) return SymBool(*v != 0);
  return SymBool(std::move(node));
}

SymInt int_op(SymOp op, const SymInt& a, const SymInt& b) {
  return fold_int(symbolic_binary(op, a, b));
}
SymBool bool_op(SymOp op, const SymInt& a, const SymInt& b) {
  return fold_bool(symbolic_binary(op, a, b));
}

}  // namespace

std::string SymInt::str() const { return node_ ? node_->str() : std::to_string(value_); }

bool SymInt::is_same(const SymInt& other) const {
  if (!node_ && !other.node_) return value_ == other.value_;
  if (!node_ || !other.node_) return false;
  return node_ == other.node_ || node_->is_same_as(*other.node_);
}

SymInt SymInt::operator-() const {
  if (!node_) return SymInt(-value_);
  return fold_int(node_->negate());
}

#define XPORT_SYMINT_BINARY(OP, SYMOP, PLAIN)            \
  SymInt operator OP(const SymInt& a, const SymInt& b) { \
    if (!a.node_ && !b.node_) [[likely]] {               \
      const int64_t x = a.value_, y = b.value_;          \
      return SymInt(PLAIN);                              \
    }                                                    \
    return int_op(SymOp::SYMOP, a, b);                   \
  }
XPORT_SYMINT_BINARY(+, Add, x + y)
XPORT_SYMINT_BINARY(-, Sub, x - y)
XPORT_SYMINT_BINARY(*, Mul, x* y)
#undef XPORT_SYMINT_BINARY

SymInt operator/(const SymInt& a, const SymInt& b) {
  if (!a.node_ && !b.node_) [[likely]] {
    XPORT_CHECK(b.value_ != 0, InvalidInput, "integer division by zero in a shape expression");
    return SymInt(floor_div(a.value_, b.value_));
  }
  return int_op(SymOp::FloorDiv, a, b);
}

SymInt operator%(const SymInt& a, const SymInt& b) {
  if (!a.node_ && !b.node_) [[likely]] {
    XPORT_CHECK(b.value_ != 0, InvalidInput, "integer modulo by zero in a shape expression");
    return SymInt(python_mod(a.value_, b.value_));
  }
  return int_op(SymOp::Mod, a, b);
}

SymInt sym_min(const SymInt& a, const SymInt& b) {
  if (!a.node_ && !b.node_) return SymInt(std::min(a.value_, b.value_));
  return int_op(SymOp::Min, a, b);
}
SymInt sym_max(const SymInt& a, const SymInt& b) {
  if (!a.node_ && !b.node_) return SymInt(std::max(a.value_, b.value_));
  return int_op(SymOp::Max, a, b);
}

#define XPORT_SYMINT_COMPARE(OP, SYMOP)                   \
  SymBool operator OP(const SymInt& a, const SymInt& b) { \
    if (!a.node_ && !b.node_) [[likely]]                  \
      return SymBool(a.value_ OP b.value_);               \
    return bool_op(SymOp::SYMOP, a, b);                   \
  }
XPORT_SYMINT_COMPARE(==, Eq)
XPORT_SYMINT_COMPARE(!=, Ne)
XPORT_SYMINT_COMPARE(<, Lt)
XPORT_SYMINT_COMPARE(<=, Le)
XPORT_SYMINT_COMPARE(>, Gt)
XPORT_SYMINT_COMPARE(>=, Ge)
#undef XPORT_SYMINT_COMPARE

std::optional<bool> SymNode::decide_without_guard() const {
  if (auto v = maybe_int()) return *v != 0;
  return std::nullopt;
}

std::optional<bool> SymBool::maybe_bool() const {
  if (!node_) return value_;
  if (auto v = node_->maybe_int()) return *v != 0;
  return std::nullopt;
}

SymBool SymBool::operator!() const {
  if (!node_) return SymBool(!value_);
  return fold_bool(node_->logical_not());
}

namespace {
SymBool logical(SymOp op, const SymBool& a, const SymBool& b) {
  const SymNodePtr& like = a.is_symbolic() ? a.node() : b.node();
  auto lift = [&](const SymBool& v) {
    return v.is_symbolic() ? v.node() : like->wrap_bool(*v.maybe_bool());
  };
  return fold_bool(lift(a)->binary(op, lift(b)));
}
}  // namespace

SymBool operator&&(const SymBool& a, const SymBool& b) {
  if (!a.node_ && !b.node_) return SymBool(a.value_ && b.value_);
  // Short-circuit on a known operand so no node is built needlessly.
  if (!a.node_ && !a.value_) return SymBool(false);
  if (!b.node_ && !b.value_) return SymBool(false);
  return logical(SymOp::And, a, b);
}
SymBool operator||(const SymBool& a, const SymBool& b) {
  if (!a.node_ && !b.node_) return SymBool(a.value_ || b.value_);
  if (!a.node_ && a.value_) return SymBool(true);
  if (!b.node_ && b.value_) return SymBool(true);
  return logical(SymOp::Or, a, b);
}

std::string SymBool::str() const { return node_ ? node_->str() : (value_ ? "True" : "False"); }
SymNodePtr SymNode::wrap_float(double value) const {
  XPORT_FAIL(InvalidSpec, "a float (", value, ") cannot be combined with the symbolic value ",
             str(), "; only floats from item_float() take part in float arithmetic");
}

SymFloat SymFloat::operator-() const {
  if (!node_) return SymFloat(-value_);
  return SymFloat(node_->negate());
}

namespace {
SymFloat float_op(SymOp op, const SymFloat& a, const SymFloat& b) {
  const SymNodePtr& like = a.is_symbolic() ? a.node() : b.node();
  auto lift = [&](const SymFloat& v) {
    return v.is_symbolic() ? v.node() : like->wrap_float(v.guard_float());
  };
  return SymFloat(lift(a)->binary(op, lift(b)));
}
}  // namespace

#define XPORT_SYMFLOAT_BINARY(OP, SYMOP)                       \
  SymFloat operator OP(const SymFloat& a, const SymFloat& b) { \
    if (!a.node_ && !b.node_) [[likely]]                       \
      return SymFloat(a.value_ OP b.value_);                   \
    return float_op(SymOp::SYMOP, a, b);                       \
  }
XPORT_SYMFLOAT_BINARY(+, Add)
XPORT_SYMFLOAT_BINARY(-, Sub)
XPORT_SYMFLOAT_BINARY(*, Mul)
XPORT_SYMFLOAT_BINARY(/, TrueDiv)
#undef XPORT_SYMFLOAT_BINARY

std::string SymFloat::str() const { return node_ ? node_->str() : std::to_string(value_); }

std::ostream& operator<<(std::ostream& out, const SymInt& v) { return out << v.str(); }
std::ostream& operator<<(std::ostream& out, const SymBool& v) { return out << v.str(); }
std::ostream& operator<<(std::ostream& out, const SymFloat& v) { return out << v.str(); }

}  // namespace xport
