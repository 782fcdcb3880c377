#include <gtest/gtest.h>

#include "xport/xport.h"

namespace xport {
namespace {

TEST(Schema, ParsesOverloadDefaultsAndKeywordOnlyArguments) {
  const Schema s =
      parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(s.qualified_name(), "aten::add.Tensor");
  ASSERT_EQ(s.arguments.size(), 3u);
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_EQ(s.arguments[2].type.base, BaseType::Scalar);
  ASSERT_TRUE(s.arguments[2].default_value.has_value());
  EXPECT_EQ(s.arguments[2].default_value->to_int(), 1);
  EXPECT_EQ(s.str(), "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
}

TEST(Schema, ParsesOptionalListAndAliasTypes) {
  const Schema s = parse_schema(
      "aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) "
      "-> Tensor(a!)");
  EXPECT_TRUE(s.arguments[0].is_write);
  EXPECT_EQ(s.arguments[0].alias_set, "a");
  EXPECT_TRUE(s.arguments[1].type.list);
  EXPECT_TRUE(s.arguments[1].type.element_optional);
  EXPECT_FALSE(s.arguments[1].type.optional);
  EXPECT_EQ(s.aliased_argument(0), 0);
  EXPECT_TRUE(s.is_mutating());
}

TEST(Schema, ExpandsFixedSizeListDefaults) {
  const Schema s = parse_schema(
      "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
      "SymInt[2] padding=0, int[1]? dim=None, float eps=1e-05, str approximate='none') -> Tensor");
  EXPECT_EQ(s.arguments[3].default_value->to_int_list(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(s.arguments[3].type.fixed_size, 2);
  EXPECT_TRUE(s.arguments[5].type.optional);
  EXPECT_TRUE(s.arguments[5].default_value->is_none());
  EXPECT_DOUBLE_EQ(s.arguments[6].default_value->to_double(), 1e-5);
  EXPECT_EQ(s.arguments[7].default_value->to_string_value(), "none");
}

TEST(Schema, ParsesNamedTupleAndListReturns) {
  const Schema s = parse_schema(
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[1].name, "indices");
  const Schema split = parse_schema(
      "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  EXPECT_TRUE(split.returns_list);
}

TEST(Schema, SyntaxErrorsNameTheColumn) {
  try {
    parse_schema("aten::bad(Tensor self Tensor other) -> Tensor");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidSpec);
    EXPECT_NE(std::string(e.what()).find("column"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_schema("aten::bad(Widget w) -> Tensor"), Error);
}

}  // namespace
}  // namespace xport
