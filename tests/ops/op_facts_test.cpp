// What kind of op each OpDef is, computed once at registration: the runtime, eager dispatch,
// the tracer and the fusion pass read these instead of working them out from names or schemas.
#include <gtest/gtest.h>

#include "xport/xport.h"

namespace xport {
namespace {

TEST(OpFacts, KindAndAliasedArgumentComeFromTheSchemaAndFunctions) {
  EXPECT_EQ(find_op("aten::add.Tensor").kind, OpKind::Functional);
  EXPECT_EQ(find_op("aten::view").kind, OpKind::View);
  EXPECT_EQ(find_op("aten::view").aliased_arg, 0);
  EXPECT_EQ(find_op("aten::transpose.int").kind, OpKind::View);
  EXPECT_EQ(find_op("aten::add_.Tensor").kind, OpKind::InPlace);
  EXPECT_EQ(find_op("aten::add_.Tensor").aliased_arg, 0);
  EXPECT_EQ(find_op("aten::index_copy_").kind, OpKind::InPlace);
  // Updates its running statistics, returns fresh tensors: in place, aliasing no result.
  EXPECT_EQ(find_op("aten::_native_batch_norm_legit").kind, OpKind::InPlace);
  EXPECT_EQ(find_op("aten::_native_batch_norm_legit").aliased_arg, -1);
  EXPECT_EQ(find_op("aten::reshape").kind, OpKind::Composite);
  EXPECT_EQ(find_op("higher_order::cond").kind, OpKind::HigherOrder);
}

TEST(OpFacts, PointwiseIsTheTagElementwiseOpsAreRegisteredWith) {
  for (const char* name : {"aten::add.Tensor", "aten::mul.Scalar", "aten::relu", "aten::gelu",
                           "aten::clamp", "aten::pow.Tensor_Scalar", "aten::sigmoid"}) {
    EXPECT_TRUE(has_tag(find_op(name), Tag::Pointwise)) << name;
  }
  for (const char* name : {"aten::mm", "aten::sum.dim_IntList", "aten::view", "aten::_softmax"}) {
    EXPECT_FALSE(has_tag(find_op(name), Tag::Pointwise)) << name;
  }
  EXPECT_TRUE(has_tag(find_op("aten::_assert_scalar"), Tag::RuntimeAssert));
}

TEST(OpFacts, ALibraryOpIsReclassifiedWhenItGetsAMetaFunction) {
  Library lib("opfacts");
  lib.define("twice(Tensor x) -> Tensor");
  EXPECT_EQ(find_op("opfacts::twice").kind, OpKind::Composite);
  lib.impl_meta("twice", [](const std::vector<Value>& a) -> Value {
    return empty_like(a[0].to_tensor());
  });
  EXPECT_EQ(find_op("opfacts::twice").kind, OpKind::Functional);
  lib.define("bump_(Tensor(a!) x) -> Tensor(a!)");
  EXPECT_EQ(find_op("opfacts::bump_").parsed.str(), "opfacts::bump_(Tensor(a!) x) -> Tensor(a!)");
  EXPECT_EQ(functional_variant(find_op("opfacts::bump_")), &find_op("opfacts::bump"));
}

}  // namespace
}  // namespace xport
