// Boolean constructors: relations in canonical form (one integer expression compared with 0,
// divided by the gcd of its coefficients) and and/or/not.

#include <algorithm>

#include "core/expr_internal.h"
#include "xport/core/error.h"
#include "xport/core/sym.h"

namespace xport::sym {

using detail::Linear;

namespace detail {

ExprPtr make_relation(ExprKind kind, Linear l, const char* op) {
  normalize(l, op);
  if (l.terms.empty()) {
    if (kind == ExprKind::Eq) return boolean(l.constant == 0);
    if (kind == ExprKind::Ne) return boolean(l.constant != 0);
    return boolean(l.constant <= 0);
  }
  int64_t g = 0;
  for (const auto& term : l.terms) g = gcd(g, term.second);
  if (kind == ExprKind::Le) {
    // g*y + c <= 0  <=>  y <= -c/g  <=>  y + ceil(c/g) <= 0, since y is an integer.
    for (auto& term : l.terms) term.second /= g;
    l.constant = -xport::floor_div(-l.constant, g);
  } else {
    // g*y == -c has no integer solution unless g divides c.
    if (l.constant % g != 0) return boolean(kind == ExprKind::Ne);
    // Both signs mean the same: the first term gets a positive coefficient.
    int64_t s = l.terms[0].second < 0 ? -g : g;
    for (auto& term : l.terms) term.second /= s;
    l.constant /= s;
  }
  return intern(kind, 0, {}, {make_sum(std::move(l), op)}, {});
}

}  // namespace detail

namespace {

// `a - b + offset <kind> 0`.
ExprPtr relation(ExprKind kind, ExprPtr a, ExprPtr b, int64_t offset, const char* op) {
  detail::require_int(a, op);
  detail::require_int(b, op);
  Linear l = detail::linear_of(a);
  detail::add_scaled(l, b, -1, op);
  l.constant = detail::checked_add(l.constant, offset, op);
  return detail::make_relation(kind, std::move(l), op);
}

// Whether a == ~b, for canonical a and b (so no new nodes are needed to tell).
bool is_complement(ExprPtr a, ExprPtr b) {
  if (a->kind() == ExprKind::Not && a->args()[0] == b) return true;
  if (b->kind() == ExprKind::Not && b->args()[0] == a) return true;
  auto is_eq_ne = [](ExprKind x, ExprKind y) { return x == ExprKind::Eq && y == ExprKind::Ne; };
  if (is_eq_ne(a->kind(), b->kind()) || is_eq_ne(b->kind(), a->kind())) {
    return a->args()[0] == b->args()[0];
  }
  if (a->kind() != ExprKind::Le || b->kind() != ExprKind::Le) return false;
  // ~(e <= 0) is (-e + 1 <= 0).
  Linear la = detail::linear_of(a->args()[0]), lb = detail::linear_of(b->args()[0]);
  if (la.terms.size() != lb.terms.size()) return false;
  for (size_t i = 0; i < la.terms.size(); ++i) {
    if (la.terms[i].first != lb.terms[i].first || la.terms[i].second != -lb.terms[i].second) {
      return false;
    }
  }
  int64_t sum = 0;
  return !__builtin_add_overflow(la.constant, lb.constant, &sum) && sum == 1;
}

ExprPtr junction(ExprKind kind, ExprPtr a, ExprPtr b, const char* op) {
  detail::require_bool(a, op);
  detail::require_bool(b, op);
  const bool is_and = kind == ExprKind::And;
  const ExprPtr absorbing = boolean(!is_and);
  const ExprPtr identity = boolean(is_and);
  std::vector<ExprPtr> args;
  for (ExprPtr e : {a, b}) {
    if (e->kind() == kind) {
      args.insert(args.end(), e->args().begin(), e->args().end());
    } else {
      args.push_back(e);
    }
  }
  std::erase(args, identity);
  if (std::ranges::find(args, absorbing) != args.end()) return absorbing;
  std::sort(args.begin(), args.end(), detail::less);
  args.erase(std::unique(args.begin(), args.end()), args.end());
  for (size_t i = 0; i < args.size(); ++i) {
    for (size_t j = i + 1; j < args.size(); ++j) {
      if (is_complement(args[i], args[j])) return absorbing;  // x & ~x, x | ~x
    }
  }
  // Absorption: x & (x | y) = x, x | (x & y) = x.
  const ExprKind dual = is_and ? ExprKind::Or : ExprKind::And;
  std::vector<ExprPtr> out;
  for (ExprPtr arg : args) {
    bool absorbed = arg->kind() == dual && std::ranges::any_of(arg->args(), [&](ExprPtr inner) {
                      return std::binary_search(args.begin(), args.end(), inner, detail::less);
                    });
    if (!absorbed) out.push_back(arg);
  }
  if (out.empty()) return identity;
  if (out.size() == 1) return out[0];
  return detail::intern(kind, 0, {}, std::move(out), {});
}

}  // namespace

ExprPtr eq(ExprPtr a, ExprPtr b) { return relation(ExprKind::Eq, a, b, 0, "sym::eq"); }
ExprPtr ne(ExprPtr a, ExprPtr b) { return relation(ExprKind::Ne, a, b, 0, "sym::ne"); }
ExprPtr lt(ExprPtr a, ExprPtr b) { return relation(ExprKind::Le, a, b, 1, "sym::lt"); }
ExprPtr le(ExprPtr a, ExprPtr b) { return relation(ExprKind::Le, a, b, 0, "sym::le"); }
ExprPtr gt(ExprPtr a, ExprPtr b) { return relation(ExprKind::Le, b, a, 1, "sym::gt"); }
ExprPtr ge(ExprPtr a, ExprPtr b) { return relation(ExprKind::Le, b, a, 0, "sym::ge"); }

ExprPtr logical_and(ExprPtr a, ExprPtr b) {
  return junction(ExprKind::And, a, b, "sym::logical_and");
}

ExprPtr logical_or(ExprPtr a, ExprPtr b) { return junction(ExprKind::Or, a, b, "sym::logical_or"); }

ExprPtr logical_not(ExprPtr a) {
  constexpr const char* op = "sym::logical_not";
  detail::require_bool(a, op);
  switch (a->kind()) {
    case ExprKind::True:
      return false_expr();
    case ExprKind::False:
      return true_expr();
    case ExprKind::Eq:
      return detail::intern(ExprKind::Ne, 0, {}, {a->args()[0]}, {});
    case ExprKind::Ne:
      return detail::intern(ExprKind::Eq, 0, {}, {a->args()[0]}, {});
    case ExprKind::Le: {
      // ~(e <= 0)  <=>  e >= 1  <=>  -e + 1 <= 0.
      Linear l;
      detail::add_scaled(l, a->args()[0], -1, op);
      l.constant = detail::checked_add(l.constant, 1, op);
      return detail::make_relation(ExprKind::Le, std::move(l), op);
    }
    case ExprKind::Not:
      return a->args()[0];
    default:
      return detail::intern(ExprKind::Not, 0, {}, {a}, {});
  }
}

}  // namespace xport::sym
