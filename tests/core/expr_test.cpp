#include "xport/core/expr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <thread>

#include "core/expr_random.h"
#include "xport/core/error.h"

namespace xport::sym {
namespace {

ExprPtr s(int i) { return symbol("s" + std::to_string(i)); }
ExprPtr c(int64_t v) { return integer(v); }

template <class F>
ErrorKind error_kind(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return ErrorKind::Internal;  // nothing thrown
}

// ---- canonical forms ----

TEST(Expr, EqualExpressionsAreTheSameNode) {
  EXPECT_EQ(symbol("s0"), symbol("s0"));
  EXPECT_EQ(c(42), c(42));
  EXPECT_EQ(add(mul(c(2), s(0)), c(1)), add(c(1), mul(s(0), c(2))));
  EXPECT_NE(s(0), s(1));
}

TEST(Expr, AdditionIsCommutativeAndAssociative) {
  EXPECT_EQ(add(s(0), s(1)), add(s(1), s(0)));
  EXPECT_EQ(add(add(s(0), s(1)), s(2)), add(s(0), add(s(2), s(1))));
}

TEST(Expr, CollectsLikeTermsIntoOneCoefficient) {
  EXPECT_EQ(sub(mul(c(2), s(0)), s(0)), s(0));
  ExprPtr e = add(add(s(0), s(1)), add(s(0), c(3)));
  ASSERT_EQ(e->kind(), ExprKind::Add);
  EXPECT_EQ(e->value(), 3);
  ASSERT_EQ(e->args().size(), 2u);
  EXPECT_EQ(e->args()[0], s(0));
  EXPECT_EQ(e->coefficients()[0], 2);
  EXPECT_EQ(e->coefficients()[1], 1);
}

TEST(Expr, CancelsToZeroAndDropsIdentities) {
  ExprPtr x = add(mul(s(0), s(1)), floor_div(s(2), c(3)));
  EXPECT_EQ(sub(x, x), c(0));
  EXPECT_EQ(mul(x, c(0)), c(0));
  EXPECT_EQ(add(c(0), x), x);
  EXPECT_EQ(mul(c(1), x), x);
  EXPECT_EQ(neg(neg(x)), x);
}

TEST(Expr, MultiplicationIsCommutativeAndKeepsCoefficientsInTheSum) {
  EXPECT_EQ(mul(s(0), c(2)), mul(c(2), s(0)));
  EXPECT_EQ(mul(s(0), s(1)), mul(s(1), s(0)));
  ExprPtr e = mul(c(3), mul(s(0), s(1)));
  ASSERT_EQ(e->kind(), ExprKind::Add);
  EXPECT_EQ(e->coefficients()[0], 3);
  EXPECT_EQ(e->args()[0]->kind(), ExprKind::Mul);
}

TEST(Expr, DistributesConstantsOverSums) {
  EXPECT_EQ(mul(add(s(0), c(1)), c(2)), add(mul(c(2), s(0)), c(2)));
}

TEST(Expr, ExpandsProductsOfSums) {
  ExprPtr product = mul(add(s(0), c(1)), add(s(1), c(1)));
  ExprPtr expanded = add(add(mul(s(0), s(1)), s(0)), add(s(1), c(1)));
  EXPECT_EQ(product, expanded);
  EXPECT_EQ(mul(s(0), add(s(1), c(1))), add(mul(s(0), s(1)), s(0)));
}

TEST(Expr, RepeatedFactorsBecomePowers) {
  ExprPtr sq = mul(s(0), s(0));
  ASSERT_EQ(sq->kind(), ExprKind::Mul);
  ASSERT_EQ(sq->args().size(), 1u);
  EXPECT_EQ(sq->args()[0], s(0));
  EXPECT_EQ(sq->exponents()[0], 2);
  EXPECT_EQ(mul(sq, s(0)), mul(s(0), sq));
  EXPECT_EQ(mul(sq, s(0))->exponents()[0], 3);
}

TEST(Expr, OrdersSymbolsNaturally) {
  ExprPtr e = add(s(10), s(2));
  ASSERT_EQ(e->kind(), ExprKind::Add);
  EXPECT_EQ(e->args()[0], s(2));
  EXPECT_EQ(e->args()[1], s(10));
  auto syms = free_symbols(add(mul(s(10), s(1)), s(2)));
  ASSERT_EQ(syms.size(), 3u);
  EXPECT_EQ(syms[0], s(1));
  EXPECT_EQ(syms[1], s(2));
  EXPECT_EQ(syms[2], s(10));
  std::vector<ExprPtr> v{s(10), mod(s(0), c(2)), c(3), s(2), floor_div(s(0), c(2))};
  std::sort(v.begin(), v.end(), [](ExprPtr a, ExprPtr b) { return compare(a, b) < 0; });
  EXPECT_EQ(v, (std::vector<ExprPtr>{c(3), s(2), s(10), floor_div(s(0), c(2)), mod(s(0), c(2))}));
  EXPECT_EQ(compare(s(3), s(3)), 0);
}

TEST(Expr, RefusesBadSymbolNamesAndMixedTypes) {
  EXPECT_EQ(error_kind([] { symbol("S0"); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { symbol("0s"); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { symbol(""); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { add(s(0), true_expr()); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { logical_and(s(0), true_expr()); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { add(s(0), nullptr); }), ErrorKind::InvalidInput);
}

TEST(Expr, ChecksConstantOverflow) {
  EXPECT_EQ(error_kind([] { add(c(INT64_MAX), c(1)); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { mul(c(INT64_MAX), c(2)); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { mul(mul(c(INT64_MAX), s(0)), c(-2)); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { integer(INT64_MIN); }), ErrorKind::InvalidInput);
  EXPECT_EQ(neg(c(INT64_MAX)), c(-INT64_MAX));
}

// ---- floor division, modulo, min, max ----

TEST(Expr, FoldsFloorDivAndModWithPythonSemantics) {
  EXPECT_EQ(floor_div(c(-7), c(2)), c(-4));
  EXPECT_EQ(floor_div(c(7), c(-2)), c(-4));
  EXPECT_EQ(floor_div(c(-7), c(-2)), c(3));
  EXPECT_EQ(mod(c(-7), c(2)), c(1));
  EXPECT_EQ(mod(c(7), c(-2)), c(-1));
  EXPECT_EQ(mod(c(-7), c(-2)), c(-1));
  EXPECT_EQ(mod(c(-INT64_MAX), c(-1)), c(0));
  auto at = [](ExprPtr e, int64_t v) { return evaluate(e, [v](ExprPtr) { return v; }); };
  EXPECT_EQ(at(floor_div(s(0), c(2)), -7), -4);
  EXPECT_EQ(at(mod(s(0), c(-3)), 7), -2);
  EXPECT_EQ(at(floor_div(s(0), c(-3)), 7), -3);
}

TEST(Expr, RefusesConstantZeroDivisors) {
  EXPECT_EQ(error_kind([] { floor_div(s(0), c(0)); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([] { mod(s(0), c(0)); }), ErrorKind::InvalidInput);
}

TEST(Expr, SimplifiesDivisionByConstants) {
  EXPECT_EQ(floor_div(s(0), c(1)), s(0));
  EXPECT_EQ(floor_div(s(0), c(-1)), neg(s(0)));
  EXPECT_EQ(mod(s(0), c(1)), c(0));
  EXPECT_EQ(floor_div(mul(c(4), s(0)), c(4)), s(0));
  // (k*x + c)//k = x + c//k and Mod(k*x + c, k) = Mod(c, k).
  EXPECT_EQ(floor_div(add(mul(c(4), s(0)), c(6)), c(4)), add(s(0), c(1)));
  EXPECT_EQ(floor_div(add(mul(c(4), s(0)), c(-1)), c(4)), sub(s(0), c(1)));
  EXPECT_EQ(mod(add(mul(c(4), s(0)), c(6)), c(4)), c(2));
  // Multiples of the divisor come out of a floor division; the rest stays inside.
  EXPECT_EQ(floor_div(add(mul(c(4), s(0)), s(1)), c(4)), add(s(0), floor_div(s(1), c(4))));
  EXPECT_EQ(mod(add(mul(c(5), s(0)), s(1)), c(5)), mod(s(1), c(5)));
  // Common factors cancel: (2*s0 + 1)//4 = s0//2, Mod(2*s0, 4) = 2*Mod(s0, 2).
  EXPECT_EQ(floor_div(add(mul(c(2), s(0)), c(1)), c(4)), floor_div(s(0), c(2)));
  EXPECT_EQ(mod(mul(c(2), s(0)), c(4)), mul(c(2), mod(s(0), c(2))));
  // Nested: (x//2)//3 = x//6, Mod(Mod(x, 4), 2) = Mod(x, 2).
  EXPECT_EQ(floor_div(floor_div(s(0), c(2)), c(3)), floor_div(s(0), c(6)));
  EXPECT_EQ(mod(mod(s(0), c(4)), c(2)), mod(s(0), c(2)));
  // A negative divisor is made positive.
  EXPECT_EQ(floor_div(s(0), c(-2)), floor_div(neg(s(0)), c(2)));
  EXPECT_EQ(mod(s(0), c(-2)), neg(mod(neg(s(0)), c(2))));
  // Symbols are sizes (positive): a common monomial factor cancels.
  EXPECT_EQ(floor_div(s(0), s(0)), c(1));
  EXPECT_EQ(floor_div(mul(c(768), mul(s(0), s(1))), mul(c(12), mul(s(0), s(1)))), c(64));
  EXPECT_EQ(floor_div(add(mul(c(6), mul(s(0), s(1))), mul(c(3), s(1))), mul(c(3), s(1))),
            add(mul(c(2), s(0)), c(1)));
  EXPECT_EQ(mod(mul(c(6), s(0)), mul(c(4), s(0))), mul(s(0), c(2)));
  EXPECT_EQ(floor_div(add(s(0), c(1)), s(0))->kind(), ExprKind::FloorDiv);
}

TEST(Expr, FoldsAndFlattensMinMax) {
  EXPECT_EQ(min(c(3), c(5)), c(3));
  EXPECT_EQ(max(c(3), c(5)), c(5));
  EXPECT_EQ(min(s(0), s(0)), s(0));
  EXPECT_EQ(min(min(s(0), s(1)), s(2)), min(s(2), min(s(1), s(0))));
  EXPECT_EQ(min(min(s(0), s(1)), s(2))->args().size(), 3u);
  EXPECT_EQ(min(min(s(0), c(5)), c(3)), min(s(0), c(3)));
  EXPECT_EQ(min(s(0), add(s(0), c(1))), s(0));
  EXPECT_EQ(max(s(0), add(s(0), c(1))), add(s(0), c(1)));
  EXPECT_EQ(min(s(0), max(s(0), s(1))), s(0));
  EXPECT_EQ(max(s(0), min(s(1), s(0))), s(0));
  EXPECT_EQ(min(c(3), max(c(5), s(0))), c(3));
  EXPECT_EQ(max(s(0), s(1))->kind(), ExprKind::Max);
}

// ---- relations and booleans ----

TEST(Expr, RelationsCompareOneExpressionWithZero) {
  ExprPtr e = le(s(0), c(16));
  ASSERT_EQ(e->kind(), ExprKind::Le);
  EXPECT_EQ(e->args()[0], sub(s(0), c(16)));
  EXPECT_EQ(lt(s(0), s(1)), le(add(s(0), c(1)), s(1)));
  EXPECT_EQ(lt(s(0), s(1))->args()[0], add(sub(s(0), s(1)), c(1)));
  EXPECT_EQ(gt(s(0), c(3)), ge(s(0), c(4)));
  EXPECT_EQ(ge(s(0), c(2)), le(c(2), s(0)));
}

TEST(Expr, NormalizesSignAndCommonFactorOfRelations) {
  EXPECT_EQ(eq(mul(c(2), s(0)), mul(c(2), s(1))), eq(s(0), s(1)));
  EXPECT_EQ(eq(s(1), s(0)), eq(s(0), s(1)));
  EXPECT_EQ(ne(neg(s(0)), c(3)), ne(s(0), c(-3)));
  // 2*s0 <= 3  <=>  s0 <= 1;  2*s0 >= 3  <=>  s0 >= 2;  2*s0 < 3  <=>  s0 <= 1.
  EXPECT_EQ(le(mul(c(2), s(0)), c(3)), le(s(0), c(1)));
  EXPECT_EQ(ge(mul(c(2), s(0)), c(3)), ge(s(0), c(2)));
  EXPECT_EQ(lt(mul(c(2), s(0)), c(3)), le(s(0), c(1)));
  EXPECT_EQ(le(mul(c(-2), s(0)), c(3)), ge(s(0), c(-1)));
  EXPECT_EQ(le(add(mul(c(6), s(0)), mul(c(4), s(1))), c(7)),
            le(add(mul(c(3), s(0)), mul(c(2), s(1))), c(3)));
}

TEST(Expr, FoldsRelationsWithoutIntegerSolutions) {
  EXPECT_EQ(eq(mul(c(2), s(0)), c(3)), false_expr());
  EXPECT_EQ(ne(mul(c(2), s(0)), c(3)), true_expr());
  EXPECT_EQ(eq(s(0), s(0)), true_expr());
  EXPECT_EQ(le(c(3), c(4)), true_expr());
  EXPECT_EQ(lt(c(4), c(4)), false_expr());
  EXPECT_EQ(ne(c(1), c(1)), false_expr());
}

TEST(Expr, NegatesRelations) {
  EXPECT_EQ(logical_not(eq(s(0), s(1))), ne(s(0), s(1)));
  EXPECT_EQ(logical_not(ne(s(0), s(1))), eq(s(0), s(1)));
  EXPECT_EQ(logical_not(le(s(0), c(16))), gt(s(0), c(16)));
  EXPECT_EQ(logical_not(lt(mul(c(2), s(0)), c(3))), ge(s(0), c(2)));
  EXPECT_EQ(logical_not(true_expr()), false_expr());
  ExprPtr both = logical_and(le(s(0), c(16)), eq(s(1), c(2)));
  ASSERT_EQ(logical_not(both)->kind(), ExprKind::Not);
  EXPECT_EQ(logical_not(logical_not(both)), both);
}

TEST(Expr, FlattensSortsAndFoldsAndOr) {
  ExprPtr a = le(s(0), c(16)), b = eq(s(1), c(2)), d = ne(s(2), c(1));
  EXPECT_EQ(logical_and(a, b), logical_and(b, a));
  EXPECT_EQ(logical_and(logical_and(a, b), d), logical_and(d, logical_and(b, a)));
  EXPECT_EQ(logical_and(logical_and(a, b), d)->args().size(), 3u);
  EXPECT_EQ(logical_and(a, logical_and(b, a)), logical_and(a, b));
  EXPECT_EQ(logical_and(a, true_expr()), a);
  EXPECT_EQ(logical_and(a, false_expr()), false_expr());
  EXPECT_EQ(logical_or(a, true_expr()), true_expr());
  EXPECT_EQ(logical_or(a, false_expr()), a);
  EXPECT_EQ(logical_and(a, logical_not(a)), false_expr());
  EXPECT_EQ(logical_or(b, logical_not(b)), true_expr());
  EXPECT_EQ(logical_or(a, logical_and(a, b)), a);
  EXPECT_EQ(logical_and(a, logical_or(a, b)), a);
}

// ---- evaluate, substitute, solve ----

TEST(Expr, EvaluatesWithGivenValues) {
  std::map<ExprPtr, int64_t> values{{s(0), 5}, {s(1), -3}};
  auto value_of = [&](ExprPtr e) -> std::optional<int64_t> {
    auto it = values.find(e);
    return it == values.end() ? std::nullopt : std::optional<int64_t>(it->second);
  };
  ExprPtr e = add(mul(mul(c(2), s(0)), s(0)), s(1));  // 2*s0**2 + s1
  EXPECT_EQ(evaluate(e, value_of), 47);
  EXPECT_EQ(evaluate(floor_div(s(1), c(2)), value_of), -2);
  EXPECT_EQ(evaluate(mod(s(1), c(2)), value_of), 1);
  EXPECT_EQ(evaluate(min(s(0), s(1)), value_of), -3);
  EXPECT_EQ(evaluate(le(s(0), c(16)), value_of), 1);
  EXPECT_EQ(evaluate(eq(s(0), s(1)), value_of), 0);
  EXPECT_EQ(evaluate(add(s(0), s(2)), value_of), std::nullopt);
  EXPECT_EQ(evaluate(floor_div(s(0), sub(s(0), c(5))), value_of), std::nullopt);
  // A false conjunct decides an And even when another one has no value.
  EXPECT_EQ(evaluate(logical_and(eq(s(0), c(4)), eq(s(2), c(1))), value_of), 0);
  EXPECT_EQ(evaluate(logical_or(eq(s(0), c(5)), eq(s(2), c(1))), value_of), 1);
  EXPECT_EQ(error_kind([&] { evaluate(mul(s(0), s(0)), [](ExprPtr) { return INT64_MAX; }); }),
            ErrorKind::InvalidInput);
}

TEST(Expr, SubstitutesAndResimplifies) {
  ExprPtr two_s0 = mul(c(2), s(0));
  std::unordered_map<ExprPtr, ExprPtr> r{{s(1), two_s0}};
  EXPECT_EQ(substitute(sub(s(1), two_s0), r), c(0));
  EXPECT_EQ(substitute(eq(s(1), two_s0), r), true_expr());
  EXPECT_EQ(substitute(floor_div(s(1), c(2)), r), s(0));
  EXPECT_EQ(substitute(mul(s(1), s(1)), r), mul(c(4), mul(s(0), s(0))));
  EXPECT_EQ(substitute(le(s(1), c(16)), r), le(s(0), c(8)));
  ExprPtr untouched = add(s(0), s(2));
  EXPECT_EQ(substitute(untouched, r), untouched);
  EXPECT_EQ(error_kind([&] { substitute(s(0), {{two_s0, s(1)}}); }), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind([&] {
              substitute(floor_div(s(0), s(1)), {{s(1), c(0)}});
            }),
            ErrorKind::InvalidInput);
}

TEST(Expr, SolvesForTheNewestSymbol) {
  auto solved = solve_for_symbol(eq(s(1), mul(c(2), s(0))));
  ASSERT_TRUE(solved);
  EXPECT_EQ(solved->first, s(1));
  EXPECT_EQ(solved->second, mul(c(2), s(0)));
  solved = solve_for_symbol(eq(add(s(0), s(2)), c(5)));
  ASSERT_TRUE(solved);
  EXPECT_EQ(solved->first, s(2));
  EXPECT_EQ(solved->second, sub(c(5), s(0)));
  solved = solve_for_symbol(eq(mul(c(2), s(0)), add(s(1), s(10))));
  ASSERT_TRUE(solved);
  EXPECT_EQ(solved->first, s(10));
  EXPECT_EQ(solved->second, sub(mul(c(2), s(0)), s(1)));
  // s1 also occurs in s0*s1, so only s2 can be isolated.
  solved = solve_for_symbol(eq(add(s(1), mul(s(0), s(1))), s(2)));
  ASSERT_TRUE(solved);
  EXPECT_EQ(solved->first, s(2));
  EXPECT_EQ(solve_for_symbol(eq(add(s(2), mul(s(0), s(2))), c(3))), std::nullopt);
  EXPECT_EQ(solve_for_symbol(eq(mul(c(2), s(0)), mul(c(3), s(1)))), std::nullopt);
  EXPECT_EQ(solve_for_symbol(le(s(0), c(3))), std::nullopt);
}

// ---- properties over random expressions ----

TEST(Expr, RandomExpressionsEvaluateLikeTheirUnsimplifiedTrees) {
  testing::RandomExprs gen(12345, 6);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    testing::Sample sample = i % 3 == 2 ? gen.bool_expr(3) : gen.integer_expr(4);
    for (int p = 0; p < gen.points(); ++p) {
      if (!sample.values[p]) continue;
      auto got = evaluate(sample.expr, [&](ExprPtr x) { return gen.value(p, x); });
      ASSERT_EQ(got, sample.values[p]) << str(sample.expr) << " at point " << p;
      ++checked;
    }
  }
  EXPECT_GT(checked, 10000);
}

TEST(Expr, ConstructorsAreIdempotentOnCanonicalNodes) {
  testing::RandomExprs gen(777, 1);
  for (int i = 0; i < 3000; ++i) {
    ExprPtr e = i % 3 == 2 ? gen.bool_expr(3).expr : gen.integer_expr(4).expr;
    ASSERT_EQ(testing::rebuild(e), e) << str(e);
    std::unordered_map<ExprPtr, ExprPtr> identity;
    for (ExprPtr x : free_symbols(e)) identity[x] = add(x, c(0));
    ASSERT_EQ(substitute(e, identity), e) << str(e);
  }
}

TEST(Expr, ThreadsBuildingTheSameExpressionsGetTheSamePointers) {
  auto build = [](uint64_t seed, std::vector<ExprPtr>& out) {
    testing::RandomExprs gen(seed, 1);
    for (int i = 0; i < 3000; ++i) out.push_back(gen.integer_expr(4).expr);
  };
  std::vector<ExprPtr> a, b;
  std::thread t1([&] { build(99, a); });
  std::thread t2([&] { build(99, b); });
  t1.join();
  t2.join();
  EXPECT_EQ(a, b);
}

TEST(Expr, BuildsManyExpressionsQuickly) {
  auto start = std::chrono::steady_clock::now();
  std::vector<ExprPtr> syms{s(0), s(1), s(2), s(3)};
  size_t distinct = 0;
  ExprPtr last = nullptr;
  for (int i = 0; i < 100000; ++i) {
    ExprPtr x = syms[i % 4], y = syms[(i / 4) % 4];
    // (k*x + i + x*y)//m <= 2*y: 11 constructor calls.
    ExprPtr e = add(mul(c(i % 13 + 1), x), c(i));
    e = floor_div(add(e, mul(x, y)), c(i % 5 + 1));
    ExprPtr g = le(e, mul(c(2), y));
    distinct += g != last;
    last = g;
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ perf     ] 100k guards (1.1M constructor calls) built in " << ms << " ms\n";
  EXPECT_GT(distinct, 0u);
}

}  // namespace
}  // namespace xport::sym

namespace xport::sym {
namespace {

TEST(Expr, RecognisesAffineFunctionsOfOneSymbol) {
  const ExprPtr s0 = symbol("s0"), s1 = symbol("s1");
  const auto f = as_affine(add(mul(integer(2), s0), integer(1)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->symbol, s0);
  EXPECT_EQ(f->a, 2);
  EXPECT_EQ(f->b, 1);
  EXPECT_EQ(as_affine(s1)->a, 1);
  EXPECT_EQ(as_affine(sub(integer(3), s0))->a, -1);
  EXPECT_FALSE(as_affine(integer(4)).has_value());
  EXPECT_FALSE(as_affine(mul(s0, s0)).has_value());
  EXPECT_FALSE(as_affine(add(s0, s1)).has_value());
  EXPECT_FALSE(as_affine(floor_div(s0, integer(2))).has_value());
  EXPECT_FALSE(as_affine(le(s0, integer(2))).has_value());
}

}  // namespace
}  // namespace xport::sym
