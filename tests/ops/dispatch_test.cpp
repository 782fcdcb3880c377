#include <gtest/gtest.h>

#include "xport/xport.h"

namespace xport {
namespace {

std::string message_of(const std::function<void()>& fn, ErrorKind expected) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

TEST(CallOp, BindsDefaultsAndKeywordOnlyArgumentsInSchemaOrder) {
  const Tensor a = from_vector<float>({1, 2}, {2});
  const Tensor b = from_vector<float>({10, 20}, {2});
  EXPECT_EQ(call_op("aten::add.Tensor", {a, b}).to_tensor().to_vector<float>(),
            (std::vector<float>{11, 22}));
  EXPECT_EQ(call_op("aten::add.Tensor", {a, b, 2}).to_tensor().to_vector<float>(),
            (std::vector<float>{21, 42}));
  EXPECT_EQ(call_op("aten::relu.default", {a}).to_tensor().to_vector<float>(),
            (std::vector<float>{1, 2}));
}

TEST(CallOp, WrongArgumentTypeNamesTheArgumentAndSchema) {
  const Tensor a = zeros({2});
  const std::string msg = message_of(
      [&] {
        call_op("aten::add.Tensor", {a, 2.0});
      },
      ErrorKind::InvalidInput);
  EXPECT_NE(msg.find("argument 'other' (position 2) must be Tensor, got float"), std::string::npos)
      << msg;
}

TEST(CallOp, MissingArgumentIsNamed) {
  const std::string msg =
      message_of([] { call_op("aten::add.Tensor", {zeros({2})}); }, ErrorKind::InvalidInput);
  EXPECT_NE(msg.find("missing argument 'other'"), std::string::npos) << msg;
}

TEST(CallOp, UnknownOpSuggestsOverloads) {
  const std::string msg =
      message_of([] { call_op("aten::add.Bogus", {}); }, ErrorKind::UnsupportedOp);
  EXPECT_NE(msg.find("aten::add.Tensor"), std::string::npos) << msg;
}

TEST(CallOp, BroadcastErrorNamesBothShapes) {
  const std::string msg = message_of([] { zeros({3}) + zeros({4}); }, ErrorKind::InvalidInput);
  EXPECT_NE(msg.find("shapes [3] and [4] do not broadcast"), std::string::npos) << msg;
}

// Records op names instead of running them, as the tracer will.
struct CountingInterceptor : DispatchInterceptor {
  std::vector<std::string> seen;
  std::vector<Tensor> intercept(const OpArgs& args) override {
    seen.push_back(args.name());
    return run_eager(args);
  }
};

TEST(Dispatch, InterceptorSeesEveryOpCallOnItsThreadOnly) {
  CountingInterceptor counter;
  {
    InterceptorGuard guard(&counter);
    const Tensor x = ones({2, 3});
    (void)(x * 2.0).relu();
  }
  (void)ones({2});  // after the guard: not seen
  // ones is composite: its decomposition into full is seen too.
  EXPECT_EQ(counter.seen, (std::vector<std::string>{"aten::ones", "aten::full", "aten::mul.Scalar",
                                                    "aten::relu"}));
}

TEST(Registry, RegisteringTheSameNameTwiceIsRefused) {
  EXPECT_THROW(register_op({.schema = "aten::relu(Tensor self) -> Tensor"}), Error);
}

}  // namespace
}  // namespace xport
