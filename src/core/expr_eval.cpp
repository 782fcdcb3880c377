// Evaluation, substitution, free symbols and solving a linear equation for one symbol.

#include <algorithm>
#include <unordered_set>

#include "core/expr_internal.h"
#include "xport/core/error.h"
#include "xport/core/sym.h"

namespace xport::sym {

namespace {

using ValueOf = std::function<std::optional<int64_t>(ExprPtr)>;

[[noreturn]] void overflow(ExprPtr e) {
  XPORT_FAIL(InvalidInput, "sym::evaluate: integer overflow evaluating ", str(e),
             "; the values given to its symbols make it exceed 64-bit integers");
}

int64_t add_or_throw(int64_t a, int64_t b, ExprPtr e) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) overflow(e);
  return r;
}

int64_t mul_or_throw(int64_t a, int64_t b, ExprPtr e) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) overflow(e);
  return r;
}

int64_t pow_or_throw(int64_t base, int64_t n, ExprPtr e) {
  int64_t result = 1;
  while (n > 0) {
    if (n & 1) result = mul_or_throw(result, base, e);
    n >>= 1;
    if (n > 0 && base != 0 && base != 1) base = mul_or_throw(base, base, e);
  }
  return result;
}

std::optional<int64_t> eval(ExprPtr e, const ValueOf& value_of) {
  auto arg = [&](size_t i) { return eval(e->args()[i], value_of); };
  switch (e->kind()) {
    case ExprKind::Integer:
      return e->value();
    case ExprKind::Symbol:
      return value_of(e);
    case ExprKind::Add: {
      int64_t sum = e->value();
      for (size_t i = 0; i < e->args().size(); ++i) {
        std::optional<int64_t> v = arg(i);
        if (!v) return std::nullopt;
        sum = add_or_throw(sum, mul_or_throw(e->coefficients()[i], *v, e), e);
      }
      return sum;
    }
    case ExprKind::Mul: {
      int64_t product = 1;
      for (size_t i = 0; i < e->args().size(); ++i) {
        std::optional<int64_t> v = arg(i);
        if (!v) return std::nullopt;
        product = mul_or_throw(product, pow_or_throw(*v, e->exponents()[i], e), e);
      }
      return product;
    }
    case ExprKind::FloorDiv:
    case ExprKind::Mod: {
      std::optional<int64_t> a = arg(0), b = arg(1);
      if (!a || !b || *b == 0) return std::nullopt;
      // INT64_MIN // -1 overflows; INT64_MIN % -1 is 0 but undefined in C++.
      if (*b == -1) return e->kind() == ExprKind::Mod ? 0 : mul_or_throw(*a, -1, e);
      return e->kind() == ExprKind::Mod ? python_mod(*a, *b) : xport::floor_div(*a, *b);
    }
    case ExprKind::Min:
    case ExprKind::Max: {
      std::optional<int64_t> best;
      for (size_t i = 0; i < e->args().size(); ++i) {
        std::optional<int64_t> v = arg(i);
        if (!v) return std::nullopt;
        if (!best || (e->kind() == ExprKind::Min ? *v < *best : *v > *best)) best = v;
      }
      return best;
    }
    case ExprKind::True:
      return 1;
    case ExprKind::False:
      return 0;
    case ExprKind::Eq:
    case ExprKind::Ne:
    case ExprKind::Le: {
      std::optional<int64_t> v = arg(0);
      if (!v) return std::nullopt;
      if (e->kind() == ExprKind::Eq) return *v == 0;
      if (e->kind() == ExprKind::Ne) return *v != 0;
      return *v <= 0;
    }
    case ExprKind::And:
    case ExprKind::Or: {
      // A false conjunct decides an And even when another one has no value (and dually).
      const int64_t decisive = e->kind() == ExprKind::And ? 0 : 1;
      bool unknown = false;
      for (size_t i = 0; i < e->args().size(); ++i) {
        std::optional<int64_t> v = arg(i);
        if (!v) {
          unknown = true;
        } else if (*v == decisive) {
          return decisive;
        }
      }
      if (unknown) return std::nullopt;
      return 1 - decisive;
    }
    case ExprKind::Not: {
      std::optional<int64_t> v = arg(0);
      if (!v) return std::nullopt;
      return *v == 0 ? 1 : 0;
    }
  }
  return std::nullopt;
}

class Substituter {
 public:
  /// With `range_of`, a Min or Max also drops each arg that the ranges show another arg bounds
  /// (Max(0, s0) is s0 when s0 >= 0).
  explicit Substituter(const std::unordered_map<ExprPtr, ExprPtr>& replacements,
                       const std::function<Range(ExprPtr)>* range_of = nullptr)
      : replacements_(replacements), range_of_(range_of) {}

  ExprPtr run(ExprPtr e) {
    auto it = memo_.find(e);
    if (it != memo_.end()) return it->second;
    ExprPtr result = rebuild(e);
    memo_.emplace(e, result);
    return result;
  }

 private:
  ExprPtr rebuild(ExprPtr e) {
    if (e->kind() == ExprKind::Symbol) {
      auto it = replacements_.find(e);
      return it == replacements_.end() ? e : it->second;
    }
    std::vector<ExprPtr> args;
    args.reserve(e->args().size());
    bool changed = false;
    for (ExprPtr a : e->args()) {
      args.push_back(run(a));
      changed = changed || args.back() != a;
    }
    if (range_of_ && (e->kind() == ExprKind::Min || e->kind() == ExprKind::Max)) {
      changed = drop_bounded_args(e->kind(), args) || changed;
    }
    if (!changed) return e;
    switch (e->kind()) {
      case ExprKind::Add: {
        detail::Linear l;
        l.constant = e->value();
        for (size_t i = 0; i < args.size(); ++i) {
          detail::add_scaled(l, args[i], e->coefficients()[i], "sym::substitute");
        }
        return detail::make_sum(std::move(l), "sym::substitute");
      }
      case ExprKind::Mul: {
        ExprPtr product = integer(1);
        for (size_t i = 0; i < args.size(); ++i) {
          product = mul(product, detail::pow_expr(args[i], e->exponents()[i]));
        }
        return product;
      }
      case ExprKind::FloorDiv:
        return floor_div(args[0], args[1]);
      case ExprKind::Mod:
        return mod(args[0], args[1]);
      case ExprKind::Min:
      case ExprKind::Max:
      case ExprKind::And:
      case ExprKind::Or: {
        auto combine = e->kind() == ExprKind::Min   ? &min
                       : e->kind() == ExprKind::Max ? &max
                       : e->kind() == ExprKind::And ? &logical_and
                                                    : &logical_or;
        ExprPtr result = args[0];
        for (size_t i = 1; i < args.size(); ++i) result = combine(result, args[i]);
        return result;
      }
      case ExprKind::Eq:
      case ExprKind::Ne:
      case ExprKind::Le:
        return detail::make_relation(e->kind(), detail::linear_of(args[0]), "sym::substitute");
      case ExprKind::Not:
        return logical_not(args[0]);
      default:
        return e;  // leaves have no args, so they never reach here
    }
  }

  // Removes from a Min's (Max's) args each that some other arg is <= (>=) for every value in
  // the ranges; true when it removed one.
  bool drop_bounded_args(ExprKind kind, std::vector<ExprPtr>& args) const {
    bool dropped = false;
    for (size_t i = 0; i < args.size() && args.size() > 1;) {
      bool bounded = false;
      for (size_t j = 0; j < args.size() && !bounded; ++j) {
        if (j == i) continue;
        const ExprPtr relation =
            kind == ExprKind::Min ? le(args[j], args[i]) : ge(args[j], args[i]);
        bounded = decide(relation, *range_of_) == true;
      }
      if (bounded) {
        args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
        dropped = true;
      } else {
        ++i;
      }
    }
    return dropped;
  }

  const std::unordered_map<ExprPtr, ExprPtr>& replacements_;
  const std::function<Range(ExprPtr)>* range_of_;
  std::unordered_map<ExprPtr, ExprPtr> memo_;
};

bool contains_symbol(ExprPtr e, ExprPtr s) {
  if (e == s) return true;
  return std::ranges::any_of(e->args(), [&](ExprPtr a) { return contains_symbol(a, s); });
}

}  // namespace

std::vector<ExprPtr> free_symbols(ExprPtr e) {
  XPORT_CHECK(e != nullptr, InvalidInput, "sym::free_symbols: got a null expression");
  std::vector<ExprPtr> symbols, stack{e};
  std::unordered_set<ExprPtr> seen{e};
  while (!stack.empty()) {
    ExprPtr x = stack.back();
    stack.pop_back();
    if (x->kind() == ExprKind::Symbol) symbols.push_back(x);
    for (ExprPtr a : x->args()) {
      if (seen.insert(a).second) stack.push_back(a);
    }
  }
  std::sort(symbols.begin(), symbols.end(), detail::less);
  return symbols;
}

ExprPtr substitute(ExprPtr e, const std::unordered_map<ExprPtr, ExprPtr>& replacements) {
  XPORT_CHECK(e != nullptr, InvalidInput, "sym::substitute: got a null expression");
  for (const auto& [key, value] : replacements) {
    XPORT_CHECK(key != nullptr && key->kind() == ExprKind::Symbol, InvalidInput,
                "sym::substitute: replacement keys must be symbols, got ",
                key ? str(key) : std::string("null"));
    XPORT_CHECK(value != nullptr && !value->is_bool(), InvalidInput,
                "sym::substitute: the replacement for ", key->name(),
                " must be an integer expression, got ", value ? str(value) : std::string("null"));
  }
  if (replacements.empty()) return e;
  return Substituter(replacements).run(e);
}

ExprPtr simplify_min_max(ExprPtr e, const std::function<Range(ExprPtr)>& range_of) {
  XPORT_CHECK(e != nullptr, InvalidInput, "sym::simplify_min_max: got a null expression");
  static const std::unordered_map<ExprPtr, ExprPtr> kNone;
  return Substituter(kNone, &range_of).run(e);
}

std::optional<int64_t> evaluate(ExprPtr e, const ValueOf& value_of) {
  XPORT_CHECK(e != nullptr, InvalidInput, "sym::evaluate: got a null expression");
  return eval(e, value_of);
}

std::optional<Affine> as_affine(ExprPtr e) {
  if (e == nullptr || e->is_bool()) return std::nullopt;
  const detail::Linear l = detail::linear_of(e);
  if (l.terms.size() != 1 || l.terms[0].first->kind() != ExprKind::Symbol) return std::nullopt;
  return Affine{l.terms[0].first, l.terms[0].second, l.constant};
}

std::optional<std::pair<ExprPtr, ExprPtr>> solve_for_symbol(ExprPtr eq) {
  if (eq == nullptr || eq->kind() != ExprKind::Eq) return std::nullopt;
  detail::Linear l = detail::linear_of(eq->args()[0]);
  std::optional<size_t> best;
  for (size_t i = 0; i < l.terms.size(); ++i) {
    const auto& [t, c] = l.terms[i];
    if (t->kind() != ExprKind::Symbol || (c != 1 && c != -1)) continue;
    bool elsewhere = false;
    for (size_t j = 0; j < l.terms.size() && !elsewhere; ++j) {
      elsewhere = j != i && contains_symbol(l.terms[j].first, t);
    }
    if (!elsewhere && (!best || detail::less(l.terms[*best].first, t))) best = i;
  }
  if (!best) return std::nullopt;
  // c*s + rest == 0 with c = +-1 gives s = -c*rest.
  auto [s, c] = l.terms[*best];
  l.terms.erase(l.terms.begin() + static_cast<ptrdiff_t>(*best));
  detail::Linear value;
  value.constant = l.constant;
  value.terms = std::move(l.terms);
  ExprPtr rest = detail::make_sum(std::move(value), "sym::solve_for_symbol");
  return std::make_pair(s, c == 1 ? neg(rest) : rest);
}

}  // namespace xport::sym
