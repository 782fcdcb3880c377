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

// `bool[3] output_mask` (the backward ops): a Value holds the list, defaults parse to one, the
// binder checks its length, and an op reads it by name.
TEST(Schema, BoolListArgumentsBindAndReadByName) {
  const Schema s = parse_schema(
      "schema_test::masked(Tensor x, bool[3] output_mask=[True, False, True]) -> Tensor");
  ASSERT_TRUE(s.arguments[1].default_value->is_bool_list());
  EXPECT_EQ(s.arguments[1].default_value->to_bool_list(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(s.arguments[1].type.base, BaseType::Bool);
  EXPECT_TRUE(s.arguments[1].type.list);
  Library("schema_test")
      .define("pick(Tensor x, bool[3] output_mask=[True, False, True]) -> Tensor")
      .impl("pick", [](const std::vector<Value>& args) -> Value {
        const std::vector<bool>& mask = args[1].to_bool_list();
        return args[0].to_tensor() * static_cast<double>(mask[0] + 2 * mask[1] + 4 * mask[2]);
      });
  const Tensor x = ones({2});
  EXPECT_TRUE(allclose(call_op("schema_test::pick", {x}).to_tensor(), x * 5.0));
  const Value mask = std::vector<bool>{false, true, true};
  EXPECT_EQ(mask.str(), "[False, True, True]");
  EXPECT_TRUE(allclose(call_op("schema_test::pick", {x, mask}).to_tensor(), x * 6.0));
  const OpArgs bound = bind_args(find_op("schema_test::pick"), {x, mask});
  EXPECT_EQ(bound.bools("output_mask"), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(bound.index("output_mask"), 1u);
  EXPECT_THROW(call_op("schema_test::pick", {x, std::vector<bool>{true}}), Error);
  EXPECT_THROW(bound.tensor("no_such_argument"), Error);
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
