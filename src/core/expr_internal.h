#pragma once
// Internals of the symbolic expression engine shared by the expr_*.cpp files.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xport/core/expr.h"

namespace xport::sym::detail {

/// Returns the one node with these fields, creating it on first use (thread-safe).
ExprPtr intern(ExprKind kind, int64_t value, std::string name, std::vector<ExprPtr> args,
               std::vector<int64_t> coefficients);

/// A total order on nodes that depends only on structure (never on pointer values): kind, then
/// symbols by natural name order (s2 < s10), then fields recursively. 0 only for the same node.
int structural_compare(ExprPtr a, ExprPtr b);
inline bool less(ExprPtr a, ExprPtr b) { return structural_compare(a, b) < 0; }
/// Natural order of names: digit runs compare as numbers.
int compare_names(std::string_view a, std::string_view b);
/// The order of the terms of a sum (sympy's lex order on monomials): by the first factor where
/// they differ, the smaller factor or the higher power first; a monomial before its divisors.
int compare_terms(ExprPtr a, ExprPtr b);

/// An integer expression as constant + sum of coefficient * term; terms are neither Add nor
/// Integer nodes.
struct Linear {
  int64_t constant = 0;
  std::vector<std::pair<ExprPtr, int64_t>> terms;
};
Linear linear_of(ExprPtr e);
/// into += k * e.
void add_scaled(Linear& into, ExprPtr e, int64_t k, const char* op);
/// Sorts the terms in canonical order, merges like terms and drops zero coefficients.
void normalize(Linear& l, const char* op);
/// The canonical node for `l`.
ExprPtr make_sum(Linear l, const char* op);
/// base ** n for n >= 0 (products expanded).
ExprPtr pow_expr(ExprPtr base, int64_t n);
/// t / m for monomials (a symbol, a Mul of powers, or another atom): nullopt unless every
/// factor of m divides t.
std::optional<ExprPtr> divide_monomial(ExprPtr t, ExprPtr m);
/// For a = sum(c_i * t_i) and b = k * m with m dividing every t_i: (sum(c_i * t_i / m), k).
std::optional<std::pair<ExprPtr, ExprPtr>> cancel_common_factor(ExprPtr a, ExprPtr b);
/// The canonical relation `l <op> 0` for kind Eq, Ne or Le.
ExprPtr make_relation(ExprKind kind, Linear l, const char* op);

// Checked constant arithmetic. Constants and coefficients stay within
// [-INT64_MAX, INT64_MAX] so negation and absolute values never overflow.
int64_t checked_add(int64_t a, int64_t b, const char* op);
int64_t checked_mul(int64_t a, int64_t b, const char* op);
int64_t checked_pow(int64_t base, int64_t n, const char* op);
/// gcd of |a| and |b| (both in the symmetric range).
int64_t gcd(int64_t a, int64_t b);

void require_int(ExprPtr e, const char* op);
void require_bool(ExprPtr e, const char* op);

}  // namespace xport::sym::detail
