// Integer constructors: sums and products in expanded canonical form, floor division, modulo,
// min and max, with the simplifications that hold for every integer value (no ranges here).

#include <algorithm>

#include "core/expr_internal.h"
#include "xport/core/error.h"
#include "xport/core/sym.h"

namespace xport::sym {

using detail::checked_add;
using detail::checked_mul;
using detail::Linear;

namespace detail {

Linear linear_of(ExprPtr e) {
  Linear l;
  if (e->kind() == ExprKind::Integer) {
    l.constant = e->value();
  } else if (e->kind() == ExprKind::Add) {
    l.constant = e->value();
    l.terms.reserve(e->args().size());
    for (size_t i = 0; i < e->args().size(); ++i) {
      l.terms.emplace_back(e->args()[i], e->coefficients()[i]);
    }
  } else {
    l.terms.emplace_back(e, 1);
  }
  return l;
}

void add_scaled(Linear& into, ExprPtr e, int64_t k, const char* op) {
  if (k == 0) return;
  if (e->kind() == ExprKind::Integer || e->kind() == ExprKind::Add) {
    into.constant = checked_add(into.constant, checked_mul(e->value(), k, op), op);
  }
  if (e->kind() == ExprKind::Add) {
    for (size_t i = 0; i < e->args().size(); ++i) {
      into.terms.emplace_back(e->args()[i], checked_mul(e->coefficients()[i], k, op));
    }
  } else if (e->kind() != ExprKind::Integer) {
    into.terms.emplace_back(e, k);
  }
}

void normalize(Linear& l, const char* op) {
  std::sort(l.terms.begin(), l.terms.end(),
            [](const auto& a, const auto& b) { return compare_terms(a.first, b.first) < 0; });
  size_t out = 0;
  for (size_t i = 0; i < l.terms.size(); ++i) {
    if (out > 0 && l.terms[out - 1].first == l.terms[i].first) {
      l.terms[out - 1].second = checked_add(l.terms[out - 1].second, l.terms[i].second, op);
    } else {
      l.terms[out++] = l.terms[i];
    }
    if (l.terms[out - 1].second == 0) --out;
  }
  l.terms.resize(out);
}

ExprPtr make_sum(Linear l, const char* op) {
  normalize(l, op);
  if (l.terms.empty()) return integer(l.constant);
  if (l.terms.size() == 1 && l.terms[0].second == 1 && l.constant == 0) return l.terms[0].first;
  std::vector<ExprPtr> args;
  std::vector<int64_t> coefficients;
  args.reserve(l.terms.size());
  coefficients.reserve(l.terms.size());
  for (const auto& [term, c] : l.terms) {
    args.push_back(term);
    coefficients.push_back(c);
  }
  return intern(ExprKind::Add, l.constant, {}, std::move(args), std::move(coefficients));
}

}  // namespace detail

namespace {

using Factor = std::pair<ExprPtr, int64_t>;

void append_factors(std::vector<Factor>& out, ExprPtr term, int64_t power, const char* op) {
  if (term->kind() == ExprKind::Mul) {
    for (size_t i = 0; i < term->args().size(); ++i) {
      out.emplace_back(term->args()[i], checked_mul(term->exponents()[i], power, op));
    }
  } else {
    out.emplace_back(term, power);
  }
}

ExprPtr make_monomial(std::vector<Factor> factors, const char* op) {
  std::sort(factors.begin(), factors.end(),
            [](const Factor& a, const Factor& b) { return detail::less(a.first, b.first); });
  size_t out = 0;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (out > 0 && factors[out - 1].first == factors[i].first) {
      factors[out - 1].second = checked_add(factors[out - 1].second, factors[i].second, op);
    } else {
      factors[out++] = factors[i];
    }
  }
  factors.resize(out);
  if (factors.size() == 1 && factors[0].second == 1) return factors[0].first;
  std::vector<ExprPtr> atoms;
  std::vector<int64_t> exponents;
  for (const auto& [atom, e] : factors) {
    atoms.push_back(atom);
    exponents.push_back(e);
  }
  return detail::intern(ExprKind::Mul, 0, {}, std::move(atoms), std::move(exponents));
}

ExprPtr multiply_terms(ExprPtr a, ExprPtr b, const char* op) {
  std::vector<Factor> factors;
  append_factors(factors, a, 1, op);
  append_factors(factors, b, 1, op);
  return make_monomial(std::move(factors), op);
}

std::optional<int64_t> try_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r == INT64_MIN) return std::nullopt;
  return r;
}

// a - b when it is a constant (the same terms), else nullopt.
std::optional<int64_t> constant_difference(ExprPtr a, ExprPtr b) {
  Linear la = detail::linear_of(a), lb = detail::linear_of(b);
  if (la.terms != lb.terms) return std::nullopt;
  int64_t d = 0;
  if (__builtin_sub_overflow(la.constant, lb.constant, &d)) return std::nullopt;
  return d;
}

ExprPtr min_max(ExprKind kind, ExprPtr a, ExprPtr b, const char* op) {
  detail::require_int(a, op);
  detail::require_int(b, op);
  const bool is_min = kind == ExprKind::Min;
  std::vector<ExprPtr> args;
  std::optional<int64_t> constant;
  auto take = [&](ExprPtr e) {
    if (auto v = as_int(e)) {
      constant = !constant ? *v : (is_min ? std::min(*constant, *v) : std::max(*constant, *v));
    } else {
      args.push_back(e);
    }
  };
  for (ExprPtr e : {a, b}) {
    if (e->kind() == kind) {
      for (ExprPtr x : e->args()) take(x);
    } else {
      take(e);
    }
  }
  std::sort(args.begin(), args.end(), detail::less);
  args.erase(std::unique(args.begin(), args.end()), args.end());

  std::vector<bool> keep(args.size(), true);
  const ExprKind dual = is_min ? ExprKind::Max : ExprKind::Min;
  for (size_t i = 0; i < args.size(); ++i) {
    for (size_t j = 0; j < args.size() && keep[i]; ++j) {
      // Min(x + 1, x) = x: an argument beaten by a constant margin never wins.
      std::optional<int64_t> d = i == j ? std::nullopt : constant_difference(args[i], args[j]);
      if (d && (is_min ? *d > 0 : *d < 0)) keep[i] = false;
    }
    if (!keep[i] || args[i]->kind() != dual) continue;
    // Absorption: Min(x, Max(x, y)) = x, and Min(3, Max(5, y)) = 3.
    for (ExprPtr inner : args[i]->args()) {
      auto c = as_int(inner);
      bool absorbed = std::binary_search(args.begin(), args.end(), inner, detail::less) ||
                      (c && constant && (is_min ? *c >= *constant : *c <= *constant));
      if (absorbed) {
        keep[i] = false;
        break;
      }
    }
  }
  std::vector<ExprPtr> out;
  if (constant) out.push_back(integer(*constant));
  for (size_t i = 0; i < args.size(); ++i) {
    if (keep[i]) out.push_back(args[i]);
  }
  std::sort(out.begin(), out.end(), detail::less);
  if (out.size() == 1) return out[0];
  return detail::intern(kind, 0, {}, std::move(out), {});
}

}  // namespace

ExprPtr add(ExprPtr a, ExprPtr b) {
  detail::require_int(a, "sym::add");
  detail::require_int(b, "sym::add");
  Linear l = detail::linear_of(a);
  detail::add_scaled(l, b, 1, "sym::add");
  return detail::make_sum(std::move(l), "sym::add");
}

ExprPtr sub(ExprPtr a, ExprPtr b) {
  detail::require_int(a, "sym::sub");
  detail::require_int(b, "sym::sub");
  Linear l = detail::linear_of(a);
  detail::add_scaled(l, b, -1, "sym::sub");
  return detail::make_sum(std::move(l), "sym::sub");
}

ExprPtr neg(ExprPtr a) {
  detail::require_int(a, "sym::neg");
  Linear l;
  detail::add_scaled(l, a, -1, "sym::neg");
  return detail::make_sum(std::move(l), "sym::neg");
}

ExprPtr mul(ExprPtr a, ExprPtr b) {
  constexpr const char* op = "sym::mul";
  detail::require_int(a, op);
  detail::require_int(b, op);
  // Products are expanded: (s0 + 1)*(s1 + 2) is s0*s1 + 2*s0 + s1 + 2, so equal polynomials
  // are equal nodes.
  Linear la = detail::linear_of(a), lb = detail::linear_of(b), out;
  // Bounds the work (and memory) a hostile or runaway expression can ask for.
  constexpr size_t kMaxTermPairs = size_t{1} << 16;
  XPORT_CHECK(la.terms.size() * lb.terms.size() <= kMaxTermPairs, InvalidInput, op,
              ": refusing to expand a product of sums with ", la.terms.size(), " and ",
              lb.terms.size(), " terms (at most ", kMaxTermPairs,
              " term pairs); simplify the expression before multiplying");
  out.constant = checked_mul(la.constant, lb.constant, op);
  if (lb.constant != 0) {
    for (const auto& [t, c] : la.terms) out.terms.emplace_back(t, checked_mul(c, lb.constant, op));
  }
  if (la.constant != 0) {
    for (const auto& [t, c] : lb.terms) out.terms.emplace_back(t, checked_mul(la.constant, c, op));
  }
  for (const auto& [ta, ca] : la.terms) {
    for (const auto& [tb, cb] : lb.terms) {
      out.terms.emplace_back(multiply_terms(ta, tb, op), checked_mul(ca, cb, op));
    }
  }
  return detail::make_sum(std::move(out), op);
}

namespace detail {

ExprPtr pow_expr(ExprPtr base, int64_t n) {
  constexpr const char* op = "sym::pow";
  require_int(base, op);
  XPORT_CHECK(n >= 0, InvalidInput, op, ": negative exponent ", n, " on ", str(base),
              "; only integer powers with exponent >= 0 are supported");
  if (n == 0) return integer(1);
  if (n == 1) return base;
  if (auto v = as_int(base)) return integer(checked_pow(*v, n, op));
  if (base->kind() != ExprKind::Add) {
    std::vector<Factor> factors;
    append_factors(factors, base, n, op);
    return make_monomial(std::move(factors), op);
  }
  if (base->args().size() == 1 && base->value() == 0) {
    return mul(integer(checked_pow(base->coefficients()[0], n, op)), pow_expr(base->args()[0], n));
  }
  XPORT_CHECK(n <= 64, InvalidInput, op, ": refusing to expand (", str(base), ")**", n,
              "; powers of sums are expanded and exponents above 64 are not supported");
  ExprPtr result = integer(1);
  while (n > 0) {
    if (n & 1) result = mul(result, base);
    n >>= 1;
    if (n > 0) base = mul(base, base);
  }
  return result;
}

std::optional<ExprPtr> divide_monomial(ExprPtr t, ExprPtr m) {
  auto factors = [](ExprPtr e) {
    std::vector<std::pair<ExprPtr, int64_t>> f;
    if (e->kind() == ExprKind::Mul) {
      for (size_t i = 0; i < e->args().size(); ++i) f.emplace_back(e->args()[i], e->exponents()[i]);
    } else {
      f.emplace_back(e, 1);
    }
    return f;
  };
  std::vector<std::pair<ExprPtr, int64_t>> rest = factors(t);
  for (const auto& [base, exponent] : factors(m)) {
    // `base` is captured by name: clang < 16 cannot capture a structured binding implicitly.
    auto it = std::find_if(rest.begin(), rest.end(),
                           [&, &base = base](const auto& f) { return f.first == base; });
    if (it == rest.end() || it->second < exponent) return std::nullopt;
    it->second -= exponent;
  }
  ExprPtr q = integer(1);
  for (const auto& [base, exponent] : rest) q = mul(q, pow_expr(base, exponent));
  return q;
}

std::optional<std::pair<ExprPtr, ExprPtr>> cancel_common_factor(ExprPtr a, ExprPtr b) {
  const Linear lb = linear_of(b);
  if (lb.constant != 0 || lb.terms.size() != 1) return std::nullopt;
  const Linear la = linear_of(a);
  if (la.constant != 0 || la.terms.empty()) return std::nullopt;
  Linear q;
  for (const auto& [t, c] : la.terms) {
    auto d = divide_monomial(t, lb.terms[0].first);
    if (!d) return std::nullopt;
    add_scaled(q, *d, c, "sym::floor_div");
  }
  return std::make_pair(make_sum(std::move(q), "sym::floor_div"), integer(lb.terms[0].second));
}

}  // namespace detail

ExprPtr floor_div(ExprPtr a, ExprPtr b) {
  constexpr const char* op = "sym::floor_div";
  detail::require_int(a, op);
  detail::require_int(b, op);
  std::optional<int64_t> kb = as_int(b);
  if (!kb) {
    if (as_int(a) == 0) return integer(0);
    // Symbols are sizes, so positive: a monomial dividing the divisor and every term of the
    // dividend cancels, (768*s0*s1)//(12*s0*s1) == 64.
    if (auto q = detail::cancel_common_factor(a, b)) return floor_div(q->first, q->second);
    return detail::intern(ExprKind::FloorDiv, 0, {}, {a, b}, {});
  }
  int64_t k = *kb;
  XPORT_CHECK(k != 0, InvalidInput, op, ": division by zero in (", str(a),
              ")//0; the divisor must be non-zero");
  if (auto ka = as_int(a)) return integer(xport::floor_div(*ka, k));
  if (k == 1) return a;
  if (k == -1) return neg(a);
  if (k < 0) return floor_div(neg(a), integer(-k));  // a // -k == (-a) // k

  // (k*x + y + c)//k == x + c//k + (y + c mod k)//k: pull out the multiples of k.
  Linear l = detail::linear_of(a), whole, rest;
  for (const auto& [t, c] : l.terms) {
    if (c % k == 0) {
      whole.terms.emplace_back(t, c / k);
    } else {
      rest.terms.emplace_back(t, c);
    }
  }
  whole.constant = xport::floor_div(l.constant, k);
  rest.constant = python_mod(l.constant, k);
  if (rest.terms.empty()) return detail::make_sum(std::move(whole), op);

  // (g*y + c)//(g*m) == (y + c//g)//m: divide by the common factor.
  int64_t g = k;
  for (const auto& term : rest.terms) g = detail::gcd(g, term.second);
  if (g > 1) {
    for (auto& term : rest.terms) term.second /= g;
    rest.constant /= g;
    k /= g;
  }
  ExprPtr q = nullptr;
  const auto& [t0, c0] = rest.terms[0];
  if (rest.terms.size() == 1 && c0 == 1 && t0->kind() == ExprKind::FloorDiv) {
    // (x//m + c)//k == (x + c*m)//(m*k) for m, k > 0.
    std::optional<int64_t> m = as_int(t0->args()[1]);
    std::optional<int64_t> mk = m ? try_mul(*m, k) : std::nullopt;
    std::optional<int64_t> cm = m ? try_mul(rest.constant, *m) : std::nullopt;
    if (mk && cm) q = floor_div(add(t0->args()[0], integer(*cm)), integer(*mk));
  }
  if (q == nullptr) {
    q = detail::intern(ExprKind::FloorDiv, 0, {},
                       {detail::make_sum(std::move(rest), op), integer(k)}, {});
  }
  detail::add_scaled(whole, q, 1, op);
  return detail::make_sum(std::move(whole), op);
}

ExprPtr mod(ExprPtr a, ExprPtr b) {
  constexpr const char* op = "sym::mod";
  detail::require_int(a, op);
  detail::require_int(b, op);
  std::optional<int64_t> kb = as_int(b);
  if (!kb) {
    if (as_int(a) == 0) return integer(0);
    // Mod(M*x, M*k) == M*Mod(x, k) for a positive monomial M (symbols are sizes).
    if (auto q = detail::cancel_common_factor(a, b)) {
      const ExprPtr m = detail::linear_of(b).terms[0].first;
      return mul(m, mod(q->first, q->second));
    }
    return detail::intern(ExprKind::Mod, 0, {}, {a, b}, {});
  }
  int64_t k = *kb;
  XPORT_CHECK(k != 0, InvalidInput, op, ": modulo by zero in Mod(", str(a),
              ", 0); the divisor must be non-zero");
  if (k == 1 || k == -1) return integer(0);
  if (auto ka = as_int(a)) return integer(python_mod(*ka, k));
  if (k < 0) return neg(mod(neg(a), integer(-k)));  // a mod -k == -((-a) mod k)

  Linear l = detail::linear_of(a);
  // Mod(x, m) is congruent to x modulo any k dividing m.
  Linear unwrapped;
  unwrapped.constant = l.constant;
  bool changed = false;
  for (const auto& [t, c] : l.terms) {
    std::optional<int64_t> m =
        t->kind() == ExprKind::Mod ? as_int(t->args()[1]) : std::optional<int64_t>();
    if (m && *m % k == 0) {
      detail::add_scaled(unwrapped, t->args()[0], c, op);
      changed = true;
    } else {
      unwrapped.terms.emplace_back(t, c);
    }
  }
  if (changed) return mod(detail::make_sum(std::move(unwrapped), op), b);

  // Only the residues of the coefficients and the constant matter.
  for (auto& term : l.terms) term.second = python_mod(term.second, k);
  std::erase_if(l.terms, [](const auto& term) { return term.second == 0; });
  l.constant = python_mod(l.constant, k);
  if (l.terms.empty()) return integer(l.constant);

  // (g*y + c) mod (g*m) == g*((y + c//g) mod m) + c mod g.
  int64_t g = k;
  for (const auto& term : l.terms) g = detail::gcd(g, term.second);
  if (g > 1) {
    int64_t low = l.constant % g;
    for (auto& term : l.terms) term.second /= g;
    l.constant /= g;
    ExprPtr inner = mod(detail::make_sum(std::move(l), op), integer(k / g));
    return add(mul(integer(g), inner), integer(low));
  }
  return detail::intern(ExprKind::Mod, 0, {}, {detail::make_sum(std::move(l), op), integer(k)}, {});
}

ExprPtr min(ExprPtr a, ExprPtr b) { return min_max(ExprKind::Min, a, b, "sym::min"); }
ExprPtr max(ExprPtr a, ExprPtr b) { return min_max(ExprKind::Max, a, b, "sym::max"); }

}  // namespace xport::sym
