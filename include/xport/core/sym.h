#pragma once
/// \file Symbolic scalars: SymInt, SymBool, SymFloat.
///
/// Each is either a plain value (the fast path: no allocation, no virtual call) or a handle to a
/// SymNode, an expression owned by a shape environment (the capture layer implements SymNode).
/// Turning a symbolic value into a C++ value goes through the node, which records a guard.

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <source_location>
#include <string>

namespace xport {

class SymNode;
using SymNodePtr = std::shared_ptr<const SymNode>;

/// Operations a shape environment implements on its expressions.
enum class SymOp {
  Add,
  Sub,
  Mul,
  FloorDiv,
  Mod,
  Min,
  Max,  // int -> int
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,  // int -> bool
  And,
  Or,       // bool -> bool
  TrueDiv,  // -> float
};

/// A symbolic expression node. Implemented by the capture layer's shape environment; core only
/// dispatches to it. Nodes are immutable.
class SymNode {
 public:
  virtual ~SymNode() = default;
  /// `this op other`; `other` may be a plain constant wrapped by wrap_int/wrap_bool.
  virtual SymNodePtr binary(SymOp op, const SymNodePtr& other) const = 0;
  virtual SymNodePtr negate() const = 0;
  virtual SymNodePtr logical_not() const = 0;
  virtual SymNodePtr wrap_int(int64_t value) const = 0;
  virtual SymNodePtr wrap_bool(bool value) const = 0;
  /// A float constant in this node's environment; the default refuses (InvalidSpec): only
  /// nodes that hold floats (item_float() under capture) do float arithmetic.
  virtual SymNodePtr wrap_float(double value) const;
  /// Evaluates on the hints and records a guard at `where`.
  virtual int64_t guard_int(const std::source_location& where) const = 0;
  virtual bool guard_bool(const std::source_location& where) const = 0;
  virtual double guard_float(const std::source_location& where) const = 0;
  /// The value when the expression is a known constant, without recording a guard.
  virtual std::optional<int64_t> maybe_int() const = 0;
  virtual std::string str() const = 0;
  /// True when both nodes hold the same expression (never guards).
  virtual bool is_same_as(const SymNode& other) const { return this == &other; }
  /// The value, decided without a guard on the assumption that every size symbol is at least 2;
  /// nullopt when that does not decide it. See guard_size_oblivious().
  virtual std::optional<bool> decide_size_oblivious() const { return std::nullopt; }
  /// The value where what is known (the Dims' ranges, the guards taken so far) decides it,
  /// without recording a guard; nullopt when only a new guard or the data could.
  virtual std::optional<bool> decide_without_guard() const;
};

class SymBool;

/// An integer that may be symbolic.
class SymInt {
 public:
  constexpr SymInt(int64_t value = 0) : value_(value) {}  // NOLINT: implicit, like c10::SymInt
  constexpr SymInt(int value) : value_(value) {}          // NOLINT
  explicit SymInt(SymNodePtr node) : node_(std::move(node)) {}

  bool is_symbolic() const { return node_ != nullptr; }
  /// The plain value; only valid when !is_symbolic().
  int64_t as_int_unchecked() const { return value_; }
  /// The plain value, or the constant the node folds to, without a guard.
  std::optional<int64_t> maybe_int() const {
    if (!node_) return value_;
    return node_->maybe_int();
  }
  const SymNodePtr& node() const { return node_; }
  /// Specialises: returns the value, recording an equality guard when symbolic.
  int64_t guard_int(const std::source_location& where = std::source_location::current()) const {
    if (!node_) [[likely]]
      return value_;
    return node_->guard_int(where);
  }
  explicit operator int64_t() const { return guard_int(); }
  std::string str() const;

  SymInt operator-() const;
  friend SymInt operator+(const SymInt& a, const SymInt& b);
  friend SymInt operator-(const SymInt& a, const SymInt& b);
  friend SymInt operator*(const SymInt& a, const SymInt& b);
  /// Floor division, as in Python and ATen's shape arithmetic.
  friend SymInt operator/(const SymInt& a, const SymInt& b);
  /// Python modulo (result has the sign of the divisor).
  friend SymInt operator%(const SymInt& a, const SymInt& b);
  SymInt& operator+=(const SymInt& b) { return *this = *this + b; }
  SymInt& operator-=(const SymInt& b) { return *this = *this - b; }
  SymInt& operator*=(const SymInt& b) { return *this = *this * b; }
  friend SymBool operator==(const SymInt& a, const SymInt& b);
  friend SymBool operator!=(const SymInt& a, const SymInt& b);
  friend SymBool operator<(const SymInt& a, const SymInt& b);
  friend SymBool operator<=(const SymInt& a, const SymInt& b);
  friend SymBool operator>(const SymInt& a, const SymInt& b);
  friend SymBool operator>=(const SymInt& a, const SymInt& b);
  friend SymInt sym_min(const SymInt& a, const SymInt& b);
  friend SymInt sym_max(const SymInt& a, const SymInt& b);

  /// True when both are the same plain value or the same node; never guards.
  bool is_same(const SymInt& other) const;

 private:
  int64_t value_ = 0;
  SymNodePtr node_;
};

/// The smaller / larger of two sizes, symbolic when either is (`xport::sym_min(x.size(0), 100)`).
/// Declared here as well as a friend, so the qualified spelling finds them.
SymInt sym_min(const SymInt& a, const SymInt& b);
SymInt sym_max(const SymInt& a, const SymInt& b);

/// A boolean that may be symbolic (the result of comparing SymInts).
class SymBool {
 public:
  constexpr SymBool(bool value = false) : value_(value) {}  // NOLINT
  explicit SymBool(SymNodePtr node) : node_(std::move(node)) {}
  bool is_symbolic() const { return node_ != nullptr; }
  const SymNodePtr& node() const { return node_; }
  /// The value without a guard, when known.
  std::optional<bool> maybe_bool() const;
  /// Evaluates, recording a guard when symbolic.
  bool guard_bool(const std::source_location& where = std::source_location::current()) const {
    if (!node_) [[likely]]
      return value_;
    return node_->guard_bool(where);
  }
  explicit operator bool() const { return guard_bool(); }
  SymBool operator!() const;
  friend SymBool operator&&(const SymBool& a, const SymBool& b);
  friend SymBool operator||(const SymBool& a, const SymBool& b);
  std::string str() const;

 private:
  bool value_ = false;
  SymNodePtr node_;
};

/// For decisions whose answer at size 0 or 1 is irrelevant or only more permissive: decides `b`
/// as if every dynamic size were at least 2, without a guard, so a Dim whose range includes 0 or
/// 1 keeps it. Falls back to a guard when that assumption does not decide `b`. PyTorch takes the
/// same decisions this way: layout (strides of a view, contiguity) and broadcasting (a dynamic
/// size against a static 1 is that size, 1 or not; against another size the equality is
/// guarded). Never use it where 0 or 1 changes the result (squeezing, reductions over an empty
/// dim).
inline bool guard_size_oblivious(const SymBool& b,
                                 const std::source_location& where =
                                     std::source_location::current()) {
  if (!b.is_symbolic()) return b.guard_bool(where);
  if (const std::optional<bool> v = b.node()->decide_size_oblivious()) return *v;
  return b.guard_bool(where);
}

/// `b` where what is known decides it, without a guard; nullopt where only a new guard (or the
/// data) could. For decisions with a symbolic way out: a slice's end is min(end, size) when
/// neither is known to be the smaller, valid at every size, where a guard would narrow the
/// contract to the example's side (PyTorch's statically_known_true, both ways).
inline std::optional<bool> decide_without_guard(const SymBool& b) {
  if (!b.is_symbolic()) return b.maybe_bool();
  return b.node()->decide_without_guard();
}

/// A floating value that may be symbolic (e.g. the result of item_float during capture).
class SymFloat {
 public:
  constexpr SymFloat(double value = 0.0) : value_(value) {}  // NOLINT
  explicit SymFloat(SymNodePtr node) : node_(std::move(node)) {}
  bool is_symbolic() const { return node_ != nullptr; }
  const SymNodePtr& node() const { return node_; }
  double guard_float(const std::source_location& where = std::source_location::current()) const {
    if (!node_) [[likely]]
      return value_;
    return node_->guard_float(where);
  }
  explicit operator double() const { return guard_float(); }
  std::string str() const;

  /// Arithmetic as on Python floats; with a symbolic operand it is recorded (under capture, as
  /// the graph's `_operator.mul` etc.), so the value stays symbolic.
  SymFloat operator-() const;
  friend SymFloat operator+(const SymFloat& a, const SymFloat& b);
  friend SymFloat operator-(const SymFloat& a, const SymFloat& b);
  friend SymFloat operator*(const SymFloat& a, const SymFloat& b);
  friend SymFloat operator/(const SymFloat& a, const SymFloat& b);

 private:
  double value_ = 0.0;
  SymNodePtr node_;
};

std::ostream& operator<<(std::ostream& out, const SymInt& v);
std::ostream& operator<<(std::ostream& out, const SymBool& v);
std::ostream& operator<<(std::ostream& out, const SymFloat& v);

/// Python-style floor division and modulo on plain integers (divisor must be non-zero).
inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t python_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

}  // namespace xport
