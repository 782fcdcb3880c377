// Value ranges: interval arithmetic over expressions, saturating at the infinities, and deciding
// booleans from the ranges alone.

#include <algorithm>

#include "core/expr_internal.h"
#include "xport/core/error.h"
#include "xport/core/sym.h"

namespace xport::sym {

namespace {

constexpr int64_t kNegInf = Range::kNegInf;
constexpr int64_t kPosInf = Range::kPosInf;

bool is_inf(int64_t v) { return v == kNegInf || v == kPosInf; }
int64_t signed_inf(bool negative) { return negative ? kNegInf : kPosInf; }

// a + b where the infinities absorb finite values; -oo + oo resolves outward (`upper` says
// which end of an interval is being computed).
int64_t sat_add(int64_t a, int64_t b, bool upper) {
  if ((a == kPosInf && b == kNegInf) || (a == kNegInf && b == kPosInf)) {
    return upper ? kPosInf : kNegInf;
  }
  if (is_inf(a)) return a;
  if (is_inf(b)) return b;
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return signed_inf(a < 0);
  return r;
}

int64_t sat_neg(int64_t a) { return a == kNegInf ? kPosInf : (a == kPosInf ? kNegInf : -a); }

// 0 * oo is 0: the infinities stand for unbounded finite values.
int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  const bool negative = (a < 0) != (b < 0);
  if (is_inf(a) || is_inf(b)) return signed_inf(negative);
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return signed_inf(negative);
  return r;
}

int64_t sat_pow(int64_t v, int64_t n) {
  int64_t result = 1;
  while (n > 0) {
    if (n & 1) result = sat_mul(result, v);
    n >>= 1;
    if (n > 0) v = sat_mul(v, v);
  }
  return result;
}

Range point(int64_t v) { return {v, v}; }
Range full() { return {}; }

Range add_ranges(const Range& a, const Range& b) {
  return {sat_add(a.lo, b.lo, false), sat_add(a.hi, b.hi, true)};
}

Range negate(const Range& a) { return {sat_neg(a.hi), sat_neg(a.lo)}; }

Range unite(const Range& a, const Range& b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

Range mul_ranges(const Range& a, const Range& b) {
  int64_t p[] = {sat_mul(a.lo, b.lo), sat_mul(a.lo, b.hi), sat_mul(a.hi, b.lo),
                 sat_mul(a.hi, b.hi)};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

Range pow_range(const Range& a, int64_t n) {
  if (n % 2 == 1 || a.lo >= 0) return {sat_pow(a.lo, n), sat_pow(a.hi, n)};  // monotone
  if (a.hi <= 0) return {sat_pow(a.hi, n), sat_pow(a.lo, n)};
  return {0, std::max(sat_pow(a.lo, n), sat_pow(a.hi, n))};
}

// floor(x / y) for y >= 1 (y may be oo); a range, because oo // oo may be any value >= 0.
Range div_corner(int64_t x, int64_t y) {
  if (y == kPosInf) {
    if (x == kPosInf) return {0, kPosInf};
    if (x == kNegInf) return {kNegInf, -1};
    return point(x >= 0 ? 0 : -1);
  }
  if (is_inf(x)) return point(x);
  return point(xport::floor_div(x, y));
}

// a // b for b >= 1. floor(x/y) is monotone in x, and in y for fixed x, so the extremes lie
// at the corners.
Range div_positive(const Range& a, const Range& b) {
  return unite(unite(div_corner(a.lo, b.lo), div_corner(a.lo, b.hi)),
               unite(div_corner(a.hi, b.lo), div_corner(a.hi, b.hi)));
}

// a mod b for b >= 1.
Range mod_positive(const Range& a, const Range& b) {
  if (a.lo >= 0 && a.hi < b.lo) return a;  // a mod b == a when 0 <= a < b
  if (b.is_point() && !is_inf(a.lo) && !is_inf(a.hi) && !is_inf(b.lo) &&
      xport::floor_div(a.lo, b.lo) == xport::floor_div(a.hi, b.lo)) {
    return {python_mod(a.lo, b.lo), python_mod(a.hi, b.lo)};
  }
  int64_t hi = b.hi == kPosInf ? kPosInf : b.hi - 1;
  if (a.lo >= 0) hi = std::min(hi, a.hi);
  return {0, hi};
}

// Splits the divisor into its negative and positive parts (zero is never a divisor) and
// applies `positive` to each, mirroring the negative part: x op y == s(-x op -y) with s = 1
// for floor division and s = -1 for modulo.
template <class F>
Range by_divisor_sign(const Range& a, const Range& b, bool negate_mirror, F positive) {
  std::optional<Range> result;
  if (b.hi >= 1) result = positive(a, Range{std::max<int64_t>(b.lo, 1), b.hi});
  if (b.lo <= -1) {
    Range mirrored = positive(negate(a), negate(Range{b.lo, std::min<int64_t>(b.hi, -1)}));
    if (negate_mirror) mirrored = negate(mirrored);
    result = result ? unite(*result, mirrored) : mirrored;
  }
  return result.value_or(full());  // a divisor that can only be 0 has no value to bound
}

// e <= 0 when e has terms c * (x//k) for constants k > 0: bounding each term alone loses the
// link between x//k and x (s//2 - s looks unbounded). Multiplied by K = lcm of the k, each
// such term lies between c*(K/k)*(x - k + 1) and c*(K/k)*x, which gives polynomial upper and
// lower bounds of K*e without floors.
std::optional<bool> decide_without_floors(ExprPtr e,
                                          const std::function<Range(ExprPtr)>& range_of) {
  if (e->kind() != ExprKind::Add) return std::nullopt;
  int64_t lcm = 1;
  bool any = false;
  for (ExprPtr t : e->args()) {
    if (t->kind() != ExprKind::FloorDiv) continue;
    const std::optional<int64_t> k = as_int(t->args()[1]);
    if (!k || *k <= 0 || *k > (int64_t{1} << 20)) return std::nullopt;
    lcm = lcm / detail::gcd(lcm, *k) * *k;
    if (lcm > (int64_t{1} << 30)) return std::nullopt;
    any = true;
  }
  if (!any) return std::nullopt;
  detail::Linear upper, lower;
  upper.constant = lower.constant = detail::checked_mul(e->value(), lcm, "sym::decide");
  for (size_t i = 0; i < e->args().size(); ++i) {
    const ExprPtr t = e->args()[i];
    const int64_t c = e->coefficients()[i];
    if (t->kind() != ExprKind::FloorDiv) {
      detail::add_scaled(upper, t, detail::checked_mul(c, lcm, "sym::decide"), "sym::decide");
      detail::add_scaled(lower, t, detail::checked_mul(c, lcm, "sym::decide"), "sym::decide");
      continue;
    }
    const ExprPtr x = t->args()[0];
    const int64_t k = *as_int(t->args()[1]);
    const int64_t scale = detail::checked_mul(c, lcm / k, "sym::decide");
    const ExprPtr low = sub(x, integer(k - 1));  // k*(x//k) >= x - k + 1
    detail::add_scaled(upper, c > 0 ? x : low, scale, "sym::decide");
    detail::add_scaled(lower, c > 0 ? low : x, scale, "sym::decide");
  }
  if (bound(detail::make_sum(std::move(upper), "sym::decide"), range_of).hi <= 0) return true;
  if (bound(detail::make_sum(std::move(lower), "sym::decide"), range_of).lo > 0) return false;
  return std::nullopt;
}

// `c*M + rest <= 0` where M is a Min or Max term of `e` (the first, coefficient c): one
// relation per arg of M, joined so the result is exact, since interval bounds lose that M's
// args and `rest` move together (Max(0, s0) <= s0 + 1 is true, yet its bound is not <= 0). A
// positive multiple of a Max (a negative one of a Min) is <= 0 when every relation holds; of a
// Min (a negative one of a Max) when one does. nullopt when `e` has no such term.
std::optional<ExprPtr> split_min_max(ExprPtr e) {
  if (e->kind() != ExprKind::Add && e->kind() != ExprKind::Min && e->kind() != ExprKind::Max)
    return std::nullopt;
  ExprPtr term = e, rest = integer(0);
  int64_t c = 1;
  if (e->kind() == ExprKind::Add) {
    term = nullptr;
    for (size_t i = 0; i < e->args().size() && term == nullptr; ++i) {
      const ExprKind k = e->args()[i]->kind();
      if (k == ExprKind::Min || k == ExprKind::Max) {
        term = e->args()[i];
        c = e->coefficients()[i];
      }
    }
    if (term == nullptr) return std::nullopt;
    rest = sub(e, mul(integer(c), term));
  }
  const bool all = (term->kind() == ExprKind::Max) == (c > 0);
  ExprPtr joined = all ? true_expr() : false_expr();
  for (ExprPtr a : term->args()) {
    const ExprPtr relation = le(add(mul(integer(c), a), rest), integer(0));
    joined = all ? logical_and(joined, relation) : logical_or(joined, relation);
  }
  return joined;
}

bool has_min_max(ExprPtr e) {
  if (e->kind() == ExprKind::Min || e->kind() == ExprKind::Max) return true;
  return std::ranges::any_of(e->args(), [](ExprPtr a) { return has_min_max(a); });
}

}  // namespace

std::string Range::str() const {
  auto end = [](int64_t v) {
    return v == kNegInf ? std::string("-oo") : v == kPosInf ? std::string("oo") : std::to_string(v);
  };
  return "[" + end(lo) + ", " + end(hi) + "]";
}

Range bound(ExprPtr e, const std::function<Range(ExprPtr)>& range_of) {
  XPORT_CHECK(e != nullptr, InvalidInput, "sym::bound: got a null expression");
  auto arg = [&](size_t i) { return bound(e->args()[i], range_of); };
  switch (e->kind()) {
    case ExprKind::Integer:
      return point(e->value());
    case ExprKind::Symbol:
      return range_of ? range_of(e) : full();
    case ExprKind::Add: {
      Range r = point(e->value());
      for (size_t i = 0; i < e->args().size(); ++i) {
        r = add_ranges(r, mul_ranges(point(e->coefficients()[i]), arg(i)));
      }
      // Terms bounded one by one lose their correlation (s1 - s0*s1 looks unbounded); with a
      // symbol common to every term factored out, s1*(1 - s0) is bounded above. Keep the
      // tighter of the two.
      for (ExprPtr s : free_symbols(e)) {
        detail::Linear rest;
        bool common = e->args().size() > 1;
        for (size_t i = 0; common && i < e->args().size(); ++i) {
          auto q = detail::divide_monomial(e->args()[i], s);
          common = q.has_value();
          if (common) detail::add_scaled(rest, *q, e->coefficients()[i], "sym::bound");
        }
        if (!common) continue;
        const Range factored = add_ranges(
            point(e->value()),
            mul_ranges(bound(s, range_of),
                       bound(detail::make_sum(std::move(rest), "sym::bound"), range_of)));
        r = {std::max(r.lo, factored.lo), std::min(r.hi, factored.hi)};
      }
      return r;
    }
    case ExprKind::Mul: {
      Range r = point(1);
      for (size_t i = 0; i < e->args().size(); ++i) {
        r = mul_ranges(r, pow_range(arg(i), e->exponents()[i]));
      }
      return r;
    }
    case ExprKind::FloorDiv:
      return by_divisor_sign(arg(0), arg(1), false, div_positive);
    case ExprKind::Mod:
      return by_divisor_sign(arg(0), arg(1), true, mod_positive);
    case ExprKind::Min:
    case ExprKind::Max: {
      Range r = arg(0);
      for (size_t i = 1; i < e->args().size(); ++i) {
        Range x = arg(i);
        r = e->kind() == ExprKind::Min ? Range{std::min(r.lo, x.lo), std::min(r.hi, x.hi)}
                                       : Range{std::max(r.lo, x.lo), std::max(r.hi, x.hi)};
      }
      return r;
    }
    default: {
      std::optional<bool> d = decide(e, range_of);
      return d ? point(*d ? 1 : 0) : Range{0, 1};
    }
  }
}

std::optional<bool> decide(ExprPtr e, const std::function<Range(ExprPtr)>& range_of) {
  detail::require_bool(e, "sym::decide");
  if (has_min_max(e)) {
    // Each rewrite drops a Min or Max arg, so this recursion ends.
    if (const ExprPtr simpler = simplify_min_max(e, range_of); simpler != e)
      return decide(simpler, range_of);
  }
  switch (e->kind()) {
    case ExprKind::True:
      return true;
    case ExprKind::False:
      return false;
    case ExprKind::Eq:
    case ExprKind::Ne: {
      Range r = bound(e->args()[0], range_of);
      std::optional<bool> is_zero;
      if (r.lo == 0 && r.hi == 0) is_zero = true;
      if (r.lo > 0 || r.hi < 0) is_zero = false;
      if (!is_zero) return std::nullopt;
      return e->kind() == ExprKind::Eq ? *is_zero : !*is_zero;
    }
    case ExprKind::Le: {
      Range r = bound(e->args()[0], range_of);
      if (r.hi <= 0) return true;
      if (r.lo > 0) return false;
      if (const std::optional<ExprPtr> split = split_min_max(e->args()[0])) {
        if (std::optional<bool> d = decide(*split, range_of)) return d;
      }
      return decide_without_floors(e->args()[0], range_of);
    }
    case ExprKind::And:
    case ExprKind::Or: {
      // An And is false once one arg is false, true once all are (dually for Or).
      const bool decisive = e->kind() == ExprKind::Or;
      bool all_known = true;
      for (ExprPtr a : e->args()) {
        std::optional<bool> d = decide(a, range_of);
        if (d == decisive) return decisive;
        all_known = all_known && d.has_value();
      }
      if (all_known) return !decisive;
      return std::nullopt;
    }
    case ExprKind::Not: {
      std::optional<bool> d = decide(e->args()[0], range_of);
      if (!d) return std::nullopt;
      return !*d;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace xport::sym
