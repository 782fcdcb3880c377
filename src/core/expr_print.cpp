// Printing expressions the way PyTorch's sympy printer shows sizes and guards.
//
// Sums print their positive terms first, then the negative ones (each group in canonical order),
// then the constant: `2*s0 + 1`, `s1 - s0`, `s0*s1 - s0 - 1`; when every term is negative a
// positive constant leads: `3 - s0`. Relations move terms so both sides have positive
// coefficients, the constant on the right (`s0 <= 16`, `s0 >= 2`, `2*s0 == s1`, `s0 == s1 + 1`);
// a relation with symbols on both sides and a positive constant prints as strict (`s0 < s1`).

#include <cstdlib>

#include "core/expr_internal.h"
#include "xport/core/error.h"

namespace xport::sym {

namespace {

using Terms = std::vector<std::pair<ExprPtr, int64_t>>;

bool is_relation(ExprPtr e) {
  return e->kind() == ExprKind::Eq || e->kind() == ExprKind::Ne || e->kind() == ExprKind::Le;
}

class Printer {
 public:
  explicit Printer(const std::function<std::string(ExprPtr)>& rename) : rename_(rename) {}

  std::string out;

  void any(ExprPtr e) {
    if (e->is_bool()) {
      boolean(e);
    } else {
      integer_expr(e);
    }
  }

 private:
  void integer_expr(ExprPtr e) {
    if (e->kind() == ExprKind::Integer) {
      out += std::to_string(e->value());
    } else if (e->kind() == ExprKind::Add) {
      detail::Linear l = detail::linear_of(e);
      sum(l.terms, l.constant);
    } else {
      product(e);
    }
  }

  void sum(const Terms& terms, int64_t constant) {
    if (terms.empty()) {
      out += std::to_string(constant);
      return;
    }
    bool first = true;
    auto emit = [&](ExprPtr term, int64_t c) {
      if (first) {
        if (c < 0) out += '-';
      } else {
        out += c < 0 ? " - " : " + ";
      }
      first = false;
      if (std::abs(c) != 1) {
        out += std::to_string(std::abs(c));
        out += '*';
      }
      product(term);
    };
    bool any_positive = false;
    for (const auto& [t, c] : terms) any_positive = any_positive || c > 0;
    if (!any_positive && constant > 0) {
      out += std::to_string(constant);
      first = false;
      constant = 0;
    }
    for (const auto& [t, c] : terms) {
      if (c > 0) emit(t, c);
    }
    for (const auto& [t, c] : terms) {
      if (c < 0) emit(t, c);
    }
    if (constant != 0) {
      out += constant < 0 ? " - " : " + ";
      out += std::to_string(std::abs(constant));
    }
  }

  // A term of a sum: a monomial or an atom; never needs parentheses after `k*`.
  void product(ExprPtr e) {
    if (e->kind() != ExprKind::Mul) {
      atom(e);
      return;
    }
    for (size_t i = 0; i < e->args().size(); ++i) {
      if (i > 0) out += '*';
      atom(e->args()[i]);
      if (e->exponents()[i] != 1) {
        out += "**";
        out += std::to_string(e->exponents()[i]);
      }
    }
  }

  void atom(ExprPtr e) {
    switch (e->kind()) {
      case ExprKind::Symbol:
        out += rename_ ? rename_(e) : e->name();
        return;
      case ExprKind::FloorDiv: {
        // Python's precedence: the numerator binds to `//` unless it is a sum; the divisor
        // needs parentheses unless it is an atom.
        ExprPtr num = e->args()[0], den = e->args()[1];
        bool num_parens =
            num->kind() == ExprKind::Add && num->args().size() + (num->value() != 0 ? 1 : 0) > 1;
        bool den_parens = !(den->kind() == ExprKind::Symbol || den->kind() == ExprKind::FloorDiv ||
                            den->kind() == ExprKind::Mod || den->kind() == ExprKind::Min ||
                            den->kind() == ExprKind::Max ||
                            (den->kind() == ExprKind::Integer && den->value() >= 0));
        out += '(';
        parenthesized(num, num_parens);
        out += "//";
        parenthesized(den, den_parens);
        out += ')';
        return;
      }
      case ExprKind::Mod:
        call("Mod", e);
        return;
      case ExprKind::Min:
        call("Min", e);
        return;
      case ExprKind::Max:
        call("Max", e);
        return;
      default:
        parenthesized(e, true);  // not reached for canonical nodes
        return;
    }
  }

  void parenthesized(ExprPtr e, bool parens) {
    if (parens) out += '(';
    any(e);
    if (parens) out += ')';
  }

  void call(const char* name, ExprPtr e) {
    out += name;
    out += '(';
    for (size_t i = 0; i < e->args().size(); ++i) {
      if (i > 0) out += ", ";
      any(e->args()[i]);
    }
    out += ')';
  }

  void relation(ExprPtr e) {
    detail::Linear l = detail::linear_of(e->args()[0]);
    Terms pos, negs;  // both with positive coefficients
    for (const auto& [t, c] : l.terms) {
      if (c > 0) {
        pos.emplace_back(t, c);
      } else {
        negs.emplace_back(t, -c);
      }
    }
    const int64_t c = l.constant;
    auto side = [&](const Terms& terms, int64_t constant, const char* op) {
      sum(terms, constant);
      out += op;
    };
    if (e->kind() == ExprKind::Le) {
      if (negs.empty()) {
        side(pos, 0, " <= ");
        out += std::to_string(-c);
      } else if (pos.empty()) {
        side(negs, 0, " >= ");
        out += std::to_string(c);
      } else if (c >= 1) {
        side(pos, c - 1, " < ");  // p - n + c <= 0  <=>  p + c - 1 < n
        sum(negs, 0);
      } else {
        side(pos, 0, " <= ");
        sum(negs, -c);
      }
      return;
    }
    const char* op = e->kind() == ExprKind::Eq ? " == " : " != ";
    if (negs.empty()) {
      side(pos, 0, op);
      out += std::to_string(-c);
    } else if (pos.empty()) {
      side(negs, 0, op);
      out += std::to_string(c);
    } else if (c > 0) {
      side(pos, c, op);
      sum(negs, 0);
    } else {
      side(pos, 0, op);
      sum(negs, -c);
    }
  }

  void boolean(ExprPtr e) {
    switch (e->kind()) {
      case ExprKind::True:
        out += "True";
        return;
      case ExprKind::False:
        out += "False";
        return;
      case ExprKind::And:
      case ExprKind::Or:
        for (size_t i = 0; i < e->args().size(); ++i) {
          if (i > 0) out += e->kind() == ExprKind::And ? " & " : " | ";
          ExprPtr a = e->args()[i];
          // Like sympy: `&` and `|` bind tighter than comparisons in Python.
          parenthesized(a,
                        is_relation(a) || a->kind() == ExprKind::And || a->kind() == ExprKind::Or);
        }
        return;
      case ExprKind::Not:
        out += '~';
        parenthesized(e->args()[0], true);
        return;
      default:
        relation(e);
        return;
    }
  }

  const std::function<std::string(ExprPtr)>& rename_;
};

}  // namespace

std::string str(ExprPtr e, const std::function<std::string(ExprPtr)>& rename) {
  if (e == nullptr) return "<null>";
  Printer printer(rename);
  printer.any(e);
  return std::move(printer.out);
}

}  // namespace xport::sym
