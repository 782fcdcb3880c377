#include <gtest/gtest.h>

#include "core/expr_random.h"
#include "xport/core/error.h"
#include "xport/core/expr.h"

namespace xport::sym {
namespace {

ExprPtr s(int i) { return symbol("s" + std::to_string(i)); }
ExprPtr c(int64_t v) { return integer(v); }

// The message of the error `text` raises when parsed, or "" if it parses.
std::string parse_error(std::string_view text) {
  try {
    parse(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    return e.what();
  }
  return "";
}

TEST(ExprText, PrintsSumsAndProductsLikeSympy) {
  EXPECT_EQ(str(c(-5)), "-5");
  EXPECT_EQ(str(add(mul(c(2), s(0)), c(1))), "2*s0 + 1");
  EXPECT_EQ(str(add(mul(s(0), s(1)), s(0))), "s0*s1 + s0");
  EXPECT_EQ(str(sub(s(1), s(0))), "s1 - s0");
  EXPECT_EQ(str(sub(s(0), c(1))), "s0 - 1");
  EXPECT_EQ(str(sub(c(3), s(0))), "3 - s0");
  EXPECT_EQ(str(sub(neg(s(0)), c(1))), "-s0 - 1");
  EXPECT_EQ(str(neg(mul(c(2), s(0)))), "-2*s0");
  EXPECT_EQ(str(sub(mul(s(0), s(1)), add(s(0), c(1)))), "s0*s1 - s0 - 1");
  EXPECT_EQ(str(sub(add(s(0), c(1)), s(1))), "s0 - s1 + 1");
  EXPECT_EQ(str(add(s(10), s(2))), "s2 + s10");
  EXPECT_EQ(str(mul(s(0), s(0))), "s0**2");
  EXPECT_EQ(str(mul(mul(s(0), s(0)), s(1))), "s0**2*s1");
  EXPECT_EQ(str(add(s(0), mul(s(1), s(1)))), "s0 + s1**2");
  EXPECT_EQ(str(add(mul(s(0), s(0)), mul(s(0), s(1)))), "s0**2 + s0*s1");
  EXPECT_EQ(str(mul(add(s(0), c(1)), add(s(1), c(1)))), "s0*s1 + s0 + s1 + 1");
}

TEST(ExprText, PrintsDivisionModuloMinMax) {
  EXPECT_EQ(str(floor_div(s(0), c(2))), "(s0//2)");
  EXPECT_EQ(str(floor_div(add(s(0), c(1)), c(2))), "((s0 + 1)//2)");
  EXPECT_EQ(str(floor_div(neg(s(0)), c(2))), "(-s0//2)");
  EXPECT_EQ(str(floor_div(s(0), s(1))), "(s0//s1)");
  EXPECT_EQ(str(floor_div(s(0), mul(s(1), s(2)))), "(s0//(s1*s2))");
  EXPECT_EQ(str(add(mul(c(2), floor_div(s(0), c(2))), c(1))), "2*(s0//2) + 1");
  EXPECT_EQ(str(mod(s(0), c(2))), "Mod(s0, 2)");
  EXPECT_EQ(str(mod(add(s(0), s(1)), s(2))), "Mod(s0 + s1, s2)");
  EXPECT_EQ(str(min(s(1), s(0))), "Min(s0, s1)");
  EXPECT_EQ(str(max(s(0), c(5))), "Max(5, s0)");
  EXPECT_EQ(str(mul(floor_div(s(0), c(2)), floor_div(s(0), c(2)))), "(s0//2)**2");
}

TEST(ExprText, PrintsRelationsWithPositiveSides) {
  EXPECT_EQ(str(le(s(0), c(16))), "s0 <= 16");
  EXPECT_EQ(str(ge(s(0), c(2))), "s0 >= 2");
  EXPECT_EQ(str(gt(s(0), c(1))), "s0 >= 2");
  EXPECT_EQ(str(le(mul(c(2), s(0)), c(3))), "s0 <= 1");
  EXPECT_EQ(str(eq(s(1), mul(c(2), s(0)))), "2*s0 == s1");
  EXPECT_EQ(str(ne(s(0), c(1))), "s0 != 1");
  EXPECT_EQ(str(eq(s(0), c(-1))), "s0 == -1");
  EXPECT_EQ(str(eq(mul(s(0), s(1)), c(12))), "s0*s1 == 12");
  EXPECT_EQ(str(lt(s(0), s(1))), "s0 < s1");
  EXPECT_EQ(str(gt(s(0), s(1))), "s1 < s0");
  EXPECT_EQ(str(le(s(0), s(1))), "s0 <= s1");
  EXPECT_EQ(str(lt(add(s(0), c(2)), s(1))), "s0 + 2 < s1");
  EXPECT_EQ(str(le(s(0), add(s(1), c(3)))), "s0 <= s1 + 3");
  EXPECT_EQ(str(eq(s(0), add(s(1), c(1)))), "s0 == s1 + 1");
  EXPECT_EQ(str(eq(add(s(0), c(1)), s(1))), "s0 + 1 == s1");
  EXPECT_EQ(str(le(add(s(0), s(1)), c(5))), "s0 + s1 <= 5");
}

TEST(ExprText, PrintsBooleansWithParentheses) {
  EXPECT_EQ(str(true_expr()), "True");
  EXPECT_EQ(str(false_expr()), "False");
  EXPECT_EQ(str(logical_and(le(s(0), c(16)), ge(s(0), c(2)))), "(s0 >= 2) & (s0 <= 16)");
  EXPECT_EQ(str(logical_or(eq(s(0), c(1)), logical_and(le(s(1), c(4)), ge(s(1), c(2))))),
            "(s0 == 1) | ((s1 >= 2) & (s1 <= 4))");
  EXPECT_EQ(str(logical_not(logical_and(ge(s(0), c(2)), ge(s(1), c(2))))),
            "~((s0 >= 2) & (s1 >= 2))");
}

TEST(ExprText, RenamesSymbols) {
  auto rename = [](ExprPtr e) { return "x.size(" + e->name().substr(1) + ")"; };
  EXPECT_EQ(str(le(s(0), c(16)), rename), "x.size(0) <= 16");
  EXPECT_EQ(str(add(mul(c(2), s(0)), s(1)), rename), "2*x.size(0) + x.size(1)");
}

// PyTorch 2.13 writes expr_str in archives as sympy's srepr.
TEST(ExprText, ParsesSympySreprAsPyTorchWritesIt) {
  EXPECT_EQ(parse("Symbol('s77', positive=True, integer=True)"), symbol("s77"));
  EXPECT_EQ(parse("Symbol('u0', integer=True)"), symbol("u0"));
  EXPECT_EQ(parse("Mul(Integer(12), Symbol('s0', positive=True, integer=True))"), mul(c(12), s(0)));
  EXPECT_EQ(parse("Add(Symbol('s0', integer=True), Integer(-1))"), add(s(0), c(-1)));
  EXPECT_EQ(parse("Pow(Symbol('s0'), Integer(2))"), mul(s(0), s(0)));
  EXPECT_EQ(parse("PythonMod(Symbol('s0'), Integer(4))"), mod(s(0), c(4)));
  EXPECT_EQ(parse("FloorDiv(Add(Symbol('s0'), Integer(1)), Integer(2))"),
            floor_div(add(s(0), c(1)), c(2)));
  EXPECT_THROW(parse("Symbol('S0')"), Error);
  EXPECT_THROW(parse("Symbol(s0)"), Error);
  EXPECT_THROW(parse("Symbol('s0', positive=Maybe)"), Error);
  EXPECT_THROW(parse("Pow(Symbol('s0'), Symbol('s1'))"), Error);
}

TEST(ExprText, ParsesWhatItPrintsAndSympySpellings) {
  EXPECT_EQ(parse("2*s0 + 1"), add(mul(c(2), s(0)), c(1)));
  EXPECT_EQ(parse("  2 *s0+1 "), parse("2*s0 + 1"));
  EXPECT_EQ(parse("s0*2 - s0"), s(0));
  EXPECT_EQ(parse("FloorDiv(s0 + 1, 2)"), floor_div(add(s(0), c(1)), c(2)));
  EXPECT_EQ(parse("(s0 + 1)//2"), floor_div(add(s(0), c(1)), c(2)));
  EXPECT_EQ(parse("s0 % 3"), mod(s(0), c(3)));
  EXPECT_EQ(parse("Mod(s0, 3)"), mod(s(0), c(3)));
  EXPECT_EQ(parse("Min(s0, s1, 3)"), min(min(s(0), s(1)), c(3)));
  EXPECT_EQ(parse("Max(s0)"), s(0));
  EXPECT_EQ(parse("-s0**2"), neg(mul(s(0), s(0))));
  EXPECT_EQ(parse("2**3**2"), c(512));
  EXPECT_EQ(parse("s0**0"), c(1));
  EXPECT_EQ(parse("(s0 + 1)**2"), mul(add(s(0), c(1)), add(s(0), c(1))));
  EXPECT_EQ(parse("-7//2"), c(-4));
  EXPECT_EQ(parse("-(7//2)"), c(-3));
  EXPECT_EQ(parse("s0 >= 2"), ge(s(0), c(2)));
  EXPECT_EQ(parse("s0 > 1"), ge(s(0), c(2)));
  EXPECT_EQ(parse("(s0 <= 16) & (s1 >= 2)"), logical_and(le(s(0), c(16)), ge(s(1), c(2))));
  EXPECT_EQ(parse("~(s0 == 1)"), ne(s(0), c(1)));
  EXPECT_EQ(parse("True | (s0 < 2)"), true_expr());
  EXPECT_EQ(parse("False"), false_expr());
  EXPECT_EQ(parse("9223372036854775807"), c(INT64_MAX));
}

TEST(ExprText, ParseErrorsNameThePosition) {
  EXPECT_NE(parse_error("s0 +").find("unexpected end of input at position 4"), std::string::npos);
  EXPECT_NE(parse_error("s0 + (s1").find("expected ')' at position 8"), std::string::npos);
  EXPECT_NE(parse_error("Foo(s0)").find("unknown name 'Foo'"), std::string::npos);
  EXPECT_NE(parse_error("s0 < s1 < s2").find("chained comparisons"), std::string::npos);
  EXPECT_NE(parse_error("s0 + True").find("expected an integer expression"), std::string::npos);
  EXPECT_NE(parse_error("s0 & s1").find("expected a boolean expression"), std::string::npos);
  EXPECT_NE(parse_error("s0 // 0").find("division by zero"), std::string::npos);
  EXPECT_NE(parse_error("99999999999999999999").find("out of range"), std::string::npos);
  EXPECT_NE(parse_error("s0 ** s1").find("exponent"), std::string::npos);
  EXPECT_NE(parse_error("s0 = 1").find("unexpected '='"), std::string::npos);
  EXPECT_NE(parse_error("").find("unexpected end of input"), std::string::npos);
  EXPECT_NE(parse_error("Mod(s0)").find("Mod takes 2 arguments"), std::string::npos);
  EXPECT_NE(parse_error("2s0").find("position 1"), std::string::npos);
  EXPECT_NE(parse_error("s0 + (s1").find("in \"s0 + (s1\""), std::string::npos);
}

TEST(ExprText, RefusesHostileInputWithAnError) {
  std::string deep = std::string(100000, '(') + "s0" + std::string(100000, ')');
  EXPECT_NE(parse_error(deep).find("nested too deeply"), std::string::npos);
  EXPECT_NE(parse_error(std::string(100000, '-') + "s0").find("nested too deeply"),
            std::string::npos);
  EXPECT_NE(parse_error(std::string(100000, '~') + "True").find("nested too deeply"),
            std::string::npos);
  std::string tower = "s0";
  for (int i = 0; i < 100000; ++i) tower += "**s0";
  EXPECT_NE(parse_error(tower).find("nested too deeply"), std::string::npos);
  EXPECT_NE(parse_error("(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9)**64").find("expand"),
            std::string::npos);
  EXPECT_NE(parse_error("(s0 + 1)**65").find("exponents above 64"), std::string::npos);
  EXPECT_EQ(parse("(((s0)))"), s(0));
}

TEST(ExprText, RandomExpressionsRoundTripThroughText) {
  testing::RandomExprs gen(4242, 1);
  for (int i = 0; i < 4000; ++i) {
    ExprPtr e = i % 4 == 3 ? gen.bool_expr(3).expr : gen.integer_expr(4).expr;
    std::string text = str(e);
    ExprPtr back = nullptr;
    ASSERT_NO_THROW(back = parse(text)) << text;
    ASSERT_EQ(back, e) << text << " came back as " << str(back);
  }
}

}  // namespace
}  // namespace xport::sym
