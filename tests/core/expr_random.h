#pragma once
// Random expressions for property tests, each with its value computed directly from the tree
// (Python semantics, no simplification) at a few fixed assignments of the symbols.

#include <optional>
#include <random>
#include <vector>

#include "xport/core/expr.h"
#include "xport/core/sym.h"

namespace xport::sym::testing {

/// An expression and its direct value at each assignment (nullopt: division by zero).
struct Sample {
  ExprPtr expr;
  std::vector<std::optional<int64_t>> values;
};

class RandomExprs {
 public:
  static constexpr int kSymbols = 4;

  RandomExprs(uint64_t seed, int points) : rng_(seed) {
    for (int i = 0; i < kSymbols; ++i) symbols_.push_back(symbol("s" + std::to_string(i)));
    std::uniform_int_distribution<int64_t> value(-6, 6);
    points_.resize(points);
    for (auto& p : points_) {
      for (int i = 0; i < kSymbols; ++i) p.push_back(value(rng_));
    }
  }

  int points() const { return static_cast<int>(points_.size()); }
  const std::vector<ExprPtr>& symbols() const { return symbols_; }

  /// The value of symbol `s` at assignment `point`.
  std::optional<int64_t> value(int point, ExprPtr s) const {
    for (int i = 0; i < kSymbols; ++i) {
      if (symbols_[i] == s) return points_[point][i];
    }
    return std::nullopt;
  }

  Sample integer_expr(int depth) {
    if (depth == 0 || pick(4) == 0) return leaf();
    switch (pick(11)) {
      case 0:
      case 1:
        return binary(depth, add, [](int64_t a, int64_t b) { return a + b; });
      case 2:
        return binary(depth, sub, [](int64_t a, int64_t b) { return a - b; });
      case 3:
      case 4:
        return binary(depth, mul, [](int64_t a, int64_t b) { return a * b; });
      case 5: {
        Sample a = integer_expr(depth - 1);
        for (auto& v : a.values) v = v ? std::optional<int64_t>(-*v) : std::nullopt;
        return {neg(a.expr), a.values};
      }
      case 6:
      case 7: {
        // Divisions mostly by a non-zero constant, sometimes by an expression.
        bool is_mod = pick(2) == 0;
        Sample a = integer_expr(depth - 1);
        Sample b = pick(3) == 0 ? integer_expr(depth - 1) : constant_divisor();
        if (as_int(b.expr) == 0) b = constant_divisor();  // e.g. s0 - s0: a constant zero
        Sample out{is_mod ? mod(a.expr, b.expr) : floor_div(a.expr, b.expr), {}};
        for (int p = 0; p < points(); ++p) {
          std::optional<int64_t> x = a.values[p], y = b.values[p];
          if (!x || !y || *y == 0) {
            out.values.push_back(std::nullopt);
          } else {
            out.values.push_back(is_mod ? python_mod(*x, *y) : xport::floor_div(*x, *y));
          }
        }
        return out;
      }
      case 8:
        return binary(depth, min, [](int64_t a, int64_t b) { return std::min(a, b); });
      case 9:
        return binary(depth, max, [](int64_t a, int64_t b) { return std::max(a, b); });
      default:
        return leaf();
    }
  }

  Sample bool_expr(int depth) {
    if (depth == 0 || pick(3) == 0) {
      if (pick(20) == 0) {
        bool b = pick(2) == 0;
        return {boolean(b), std::vector<std::optional<int64_t>>(points_.size(), b ? 1 : 0)};
      }
      using Make = ExprPtr (*)(ExprPtr, ExprPtr);
      static constexpr Make kMakes[] = {&eq, &ne, &lt, &le, &gt, &ge};
      int which = static_cast<int>(pick(6));
      return binary_with(2, kMakes[which], [which](int64_t a, int64_t b) -> int64_t {
        switch (which) {
          case 0:
            return a == b;
          case 1:
            return a != b;
          case 2:
            return a < b;
          case 3:
            return a <= b;
          case 4:
            return a > b;
          default:
            return a >= b;
        }
      });
    }
    switch (pick(3)) {
      case 0: {
        Sample a = bool_expr(depth - 1);
        for (auto& v : a.values) v = v ? std::optional<int64_t>(1 - *v) : std::nullopt;
        return {logical_not(a.expr), a.values};
      }
      default: {
        bool is_and = pick(2) == 0;
        Sample a = bool_expr(depth - 1), b = bool_expr(depth - 1);
        Sample out{is_and ? logical_and(a.expr, b.expr) : logical_or(a.expr, b.expr), {}};
        const int64_t decisive = is_and ? 0 : 1;
        for (int p = 0; p < points(); ++p) {
          std::optional<int64_t> x = a.values[p], y = b.values[p];
          if (x == decisive || y == decisive) {
            out.values.push_back(decisive);
          } else if (!x || !y) {
            out.values.push_back(std::nullopt);
          } else {
            out.values.push_back(1 - decisive);
          }
        }
        return out;
      }
    }
  }

  int64_t pick(int64_t n) { return std::uniform_int_distribution<int64_t>(0, n - 1)(rng_); }
  std::mt19937_64& rng() { return rng_; }

 private:
  Sample leaf() {
    if (pick(3) == 0) {
      int64_t c = pick(11) - 5;
      return {integer(c), std::vector<std::optional<int64_t>>(points_.size(), c)};
    }
    int i = static_cast<int>(pick(kSymbols));
    Sample s{symbols_[i], {}};
    for (const auto& p : points_) s.values.push_back(p[i]);
    return s;
  }

  Sample constant_divisor() {
    int64_t c = pick(9) - 4;
    if (c == 0) c = 3;
    return {integer(c), std::vector<std::optional<int64_t>>(points_.size(), c)};
  }

  template <class F>
  Sample binary(int depth, ExprPtr (*make)(ExprPtr, ExprPtr), F f) {
    return binary_with(depth, make, f);
  }

  template <class F>
  Sample binary_with(int depth, ExprPtr (*make)(ExprPtr, ExprPtr), F f) {
    Sample a = integer_expr(depth - 1), b = integer_expr(depth - 1);
    Sample out{make(a.expr, b.expr), {}};
    for (int p = 0; p < points(); ++p) {
      if (a.values[p] && b.values[p]) {
        out.values.push_back(f(*a.values[p], *b.values[p]));
      } else {
        out.values.push_back(std::nullopt);
      }
    }
    return out;
  }

  std::mt19937_64 rng_;
  std::vector<ExprPtr> symbols_;
  std::vector<std::vector<int64_t>> points_;
};

/// Rebuilds `e` from its parts through the public constructors; canonical nodes come back as
/// the same pointer.
inline ExprPtr rebuild(ExprPtr e) {
  auto arg = [&](size_t i) { return rebuild(e->args()[i]); };
  switch (e->kind()) {
    case ExprKind::Add: {
      ExprPtr sum = integer(e->value());
      for (size_t i = 0; i < e->args().size(); ++i) {
        sum = add(sum, mul(integer(e->coefficients()[i]), arg(i)));
      }
      return sum;
    }
    case ExprKind::Mul: {
      ExprPtr product = integer(1);
      for (size_t i = 0; i < e->args().size(); ++i) {
        for (int64_t k = 0; k < e->exponents()[i]; ++k) product = mul(product, arg(i));
      }
      return product;
    }
    case ExprKind::FloorDiv:
      return floor_div(arg(0), arg(1));
    case ExprKind::Mod:
      return mod(arg(0), arg(1));
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::And:
    case ExprKind::Or: {
      ExprPtr (*combine)(ExprPtr, ExprPtr) = e->kind() == ExprKind::Min   ? &min
                                             : e->kind() == ExprKind::Max ? &max
                                             : e->kind() == ExprKind::And ? &logical_and
                                                                          : &logical_or;
      ExprPtr out = arg(0);
      for (size_t i = 1; i < e->args().size(); ++i) out = combine(out, arg(i));
      return out;
    }
    case ExprKind::Eq:
      return eq(arg(0), integer(0));
    case ExprKind::Ne:
      return ne(arg(0), integer(0));
    case ExprKind::Le:
      return le(arg(0), integer(0));
    case ExprKind::Not:
      return logical_not(arg(0));
    default:
      return e;
  }
}

}  // namespace xport::sym::testing
