#include <gtest/gtest.h>

#include <map>

#include "core/expr_random.h"
#include "xport/core/expr.h"

namespace xport::sym {
namespace {

constexpr int64_t kInf = Range::kPosInf;
constexpr int64_t kNegInf = Range::kNegInf;

ExprPtr s(int i) { return symbol("s" + std::to_string(i)); }
ExprPtr c(int64_t v) { return integer(v); }

// Ranges per symbol; unlisted symbols are unbounded.
struct Ranges {
  std::map<ExprPtr, Range> ranges;
  Range operator()(ExprPtr e) const {
    auto it = ranges.find(e);
    return it == ranges.end() ? Range{} : it->second;
  }
};

TEST(Range, PrintsInfinitiesAsOo) {
  EXPECT_EQ((Range{2, 1024}).str(), "[2, 1024]");
  EXPECT_EQ((Range{2, kInf}).str(), "[2, oo]");
  EXPECT_EQ((Range{}).str(), "[-oo, oo]");
  EXPECT_TRUE((Range{3, 3}).is_point());
  EXPECT_TRUE((Range{2, kInf}).contains(INT64_MAX - 1));
}

TEST(Range, BoundsSumsWithNegativeCoefficients) {
  Ranges r{{{s(0), {2, 10}}, {s(1), {0, kInf}}}};
  EXPECT_EQ(bound(add(mul(c(-3), s(0)), c(5)), r), (Range{-25, -1}));
  EXPECT_EQ(bound(sub(s(0), s(1)), r), (Range{kNegInf, 10}));
  EXPECT_EQ(bound(add(mul(c(2), s(1)), c(1)), r), (Range{1, kInf}));
  EXPECT_EQ(bound(sub(s(1), s(1)), r), (Range{0, 0}));
}

TEST(Range, BoundsProductsOfRangesThatCrossZero) {
  Ranges r{{{s(0), {-3, 2}}, {s(1), {-5, 4}}, {s(2), {-2, -1}}}};
  EXPECT_EQ(bound(mul(s(0), s(1)), r), (Range{-12, 15}));
  EXPECT_EQ(bound(mul(s(0), s(0)), r), (Range{0, 9}));
  EXPECT_EQ(bound(mul(mul(s(0), s(0)), s(0)), r), (Range{-27, 8}));
  EXPECT_EQ(bound(mul(s(2), s(2)), r), (Range{1, 4}));
  EXPECT_EQ(bound(mul(c(-2), mul(s(0), s(1))), r), (Range{-30, 24}));
}

TEST(Range, SaturatesAtInfinityWithoutOverflow) {
  const int64_t big = int64_t{1} << 62;
  Ranges r{{{s(0), {big, big}}, {s(1), {kNegInf, kInf}}, {s(2), {0, kInf}}}};
  EXPECT_EQ(bound(mul(c(1000), s(0)), r), (Range{kInf, kInf}));
  EXPECT_EQ(bound(add(s(0), s(0)), r).hi, kInf);
  EXPECT_EQ(bound(mul(mul(s(0), s(0)), s(0)), r), (Range{kInf, kInf}));
  EXPECT_EQ(bound(mul(s(1), s(2)), r), (Range{kNegInf, kInf}));
  EXPECT_EQ(bound(sub(s(2), s(1)), r), (Range{kNegInf, kInf}));
  EXPECT_EQ(bound(mul(s(1), s(1)), r), (Range{0, kInf}));
  EXPECT_EQ(bound(neg(s(2)), r), (Range{kNegInf, 0}));
  EXPECT_EQ(bound(floor_div(s(1), c(2)), r), (Range{kNegInf, kInf}));
  EXPECT_EQ(bound(floor_div(s(2), add(s(2), c(1))), r), (Range{0, kInf}));
}

TEST(Range, BoundsDivisionAndModulo) {
  Ranges r{{{s(0), {-5, 7}}, {s(1), {2, 5}}, {s(2), {-2, 3}}, {s(3), {5, 6}}}};
  EXPECT_EQ(bound(floor_div(s(0), c(2)), r), (Range{-3, 3}));
  EXPECT_EQ(bound(floor_div(s(0), s(1)), r), (Range{-3, 3}));
  EXPECT_EQ(bound(mod(s(0), c(4)), r), (Range{0, 3}));
  EXPECT_EQ(bound(mod(s(3), c(4)), r), (Range{1, 2}));
  EXPECT_EQ(bound(mod(s(1), c(8)), r), (Range{2, 5}));
  EXPECT_EQ(bound(mod(s(0), s(1)), r), (Range{0, 4}));
  // A divisor range that crosses zero: both signs, never 0.
  EXPECT_EQ(bound(floor_div(s(0), s(2)), r), (Range{-7, 7}));
  EXPECT_EQ(bound(mod(s(0), s(2)), r), (Range{-1, 2}));
  EXPECT_EQ(bound(min(s(0), s(1)), r), (Range{-5, 5}));
  EXPECT_EQ(bound(max(s(0), s(1)), r), (Range{2, 7}));
}

TEST(Range, DecidesGuardsFromRanges) {
  Ranges dynamic{{{s(0), {2, kInf}}}};
  EXPECT_EQ(decide(ge(s(0), c(2)), dynamic), true);
  EXPECT_EQ(decide(eq(s(0), c(1)), dynamic), false);
  EXPECT_EQ(decide(ne(s(0), c(1)), dynamic), true);
  EXPECT_EQ(decide(le(s(0), c(16)), dynamic), std::nullopt);
  EXPECT_EQ(decide(gt(mul(s(0), s(0)), c(3)), dynamic), true);
  Ranges bounded{{{s(0), {2, 16}}, {s(1), {-4, -1}}}};
  EXPECT_EQ(decide(le(mul(c(2), s(0)), c(40)), bounded), true);
  EXPECT_EQ(decide(lt(s(1), s(0)), bounded), true);
  EXPECT_EQ(decide(eq(mod(s(0), c(2)), c(0)), bounded), std::nullopt);
  EXPECT_EQ(decide(eq(floor_div(s(1), c(8)), c(-1)), bounded), true);
  EXPECT_EQ(decide(logical_and(ge(s(0), c(2)), le(s(0), c(100))), bounded), true);
  EXPECT_EQ(decide(logical_and(ge(s(0), c(3)), le(s(0), c(1))), bounded), false);
  EXPECT_EQ(decide(logical_or(ge(s(0), c(3)), le(s(1), c(-4))), bounded), std::nullopt);
  EXPECT_EQ(decide(logical_or(ge(s(0), c(3)), le(s(1), c(0))), bounded), true);
  EXPECT_EQ(decide(logical_not(logical_and(ge(s(0), c(3)), le(s(1), c(0)))), bounded),
            std::nullopt);
  EXPECT_EQ(decide(logical_not(logical_or(ge(s(0), c(2)), le(s(1), c(5)))), bounded), false);
  EXPECT_EQ(decide(true_expr(), bounded), true);
}

// Property: for random expressions and ranges, every value at a point inside the ranges lies in
// bound(), and decide() never disagrees with evaluation.
TEST(Range, BoundsAndDecisionsAreSoundOnRandomExpressions) {
  testing::RandomExprs gen(2024, 1);
  std::mt19937_64& rng = gen.rng();
  int decided = 0;
  for (int i = 0; i < 2000; ++i) {
    Ranges ranges;
    for (ExprPtr x : gen.symbols()) {
      int64_t lo = gen.pick(13) - 6, hi = lo + gen.pick(8);
      ranges.ranges[x] = {gen.pick(6) == 0 ? kNegInf : lo, gen.pick(6) == 0 ? kInf : hi};
    }
    bool is_bool = i % 2 == 1;
    ExprPtr e = is_bool ? gen.bool_expr(3).expr : gen.integer_expr(4).expr;
    Range r = bound(e, ranges);
    std::optional<bool> d = is_bool ? decide(e, ranges) : std::nullopt;
    decided += d.has_value();
    for (int p = 0; p < 30; ++p) {
      std::map<ExprPtr, int64_t> point;
      for (ExprPtr x : gen.symbols()) {
        Range xr = ranges(x);
        // Small values keep depth-4 products within 64 bits.
        int64_t lo = xr.lo == kNegInf ? -8 : xr.lo, hi = xr.hi == kInf ? lo + 8 : xr.hi;
        point[x] = std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi))(rng);
      }
      std::optional<int64_t> v = evaluate(e, [&](ExprPtr x) { return point.at(x); });
      if (!v) continue;
      ASSERT_TRUE(r.contains(*v)) << str(e) << " = " << *v << " outside " << r.str();
      if (d) {
        ASSERT_EQ(*v != 0, *d) << str(e);
      }
    }
  }
  EXPECT_GT(decided, 100);
}

}  // namespace
}  // namespace xport::sym

namespace xport::sym {
namespace {

TEST(Range, DecidesInequalitiesWithFloorDivisionOfTheSameSymbol) {
  const ExprPtr s = symbol("s0");
  auto sizes = [](ExprPtr) { return Range{2, Range::kPosInf}; };
  EXPECT_EQ(decide(le(floor_div(s, integer(2)), s), sizes), true);   // s//2 <= s
  EXPECT_EQ(decide(lt(s, floor_div(s, integer(3))), sizes), false);  // s < s//3
  // s//2 + s//3 <= 5s/6 < s: false for every size.
  EXPECT_EQ(decide(ge(add(floor_div(s, integer(2)), floor_div(s, integer(3))), s), sizes), false);
  EXPECT_EQ(decide(le(mul(integer(2), floor_div(s, integer(2))), s), sizes), true);
}

// Min and Max are decided per arg, where their interval bounds lose that the args and the rest
// of the relation move together: a slice end of Max(0, s0) in a dim of size s0 + 1.
TEST(Range, DecidesRelationsOfMinAndMaxPerArg) {
  const ExprPtr s = symbol("s0"), t = symbol("s1");
  auto sizes = [](ExprPtr) { return Range{0, Range::kPosInf}; };
  EXPECT_EQ(decide(le(max(c(0), s), add(s, c(1))), sizes), true);
  EXPECT_EQ(decide(gt(max(c(0), s), add(s, c(1))), sizes), false);
  EXPECT_EQ(decide(le(min(s, t), s), sizes), true);
  EXPECT_EQ(decide(ge(min(s, t), add(s, c(1))), sizes), false);
  EXPECT_EQ(decide(le(add(max(s, t), min(s, c(4))), add(add(s, t), c(4))), sizes), true);
  EXPECT_EQ(decide(le(max(s, t), s), sizes), std::nullopt);  // true only when s1 <= s0
  EXPECT_EQ(decide(le(mul(c(2), max(c(3), s)), add(s, c(2))), sizes), std::nullopt);
}

// Args that the ranges order are dropped first: the slice of a dim of size s0 + 1 from
// Min(1, s0 + 1) to Max(0, s0) + ... (PyTorch's own expressions for a KV-cache position).
TEST(Range, SimplifiesMinAndMaxByRanges) {
  const ExprPtr s = symbol("s0"), t = symbol("s1");
  auto sizes = [](ExprPtr) { return Range{0, Range::kPosInf}; };
  EXPECT_EQ(simplify_min_max(max(c(0), s), sizes), s);
  EXPECT_EQ(simplify_min_max(min(c(1), add(s, c(1))), sizes), c(1));
  EXPECT_EQ(simplify_min_max(max(s, t), sizes), max(s, t));
  EXPECT_EQ(simplify_min_max(add(max(c(0), s), min(s, t)), sizes), add(s, min(s, t)));
  EXPECT_EQ(decide(eq(add(s, c(1)), add(min(c(1), add(s, c(1))), max(c(0), s))), sizes), true);
  auto any = [](ExprPtr) { return Range{}; };
  EXPECT_EQ(simplify_min_max(max(c(0), s), any), max(c(0), s));
}

}  // namespace
}  // namespace xport::sym
