#include <gtest/gtest.h>

#include <map>

#include "xport/xport.h"

namespace xport {
namespace {

// A toy shape environment: nodes are expression strings with a hint; guards are recorded.
struct Recorder {
  std::vector<std::string> guards;
};

class ToyNode : public SymNode, public std::enable_shared_from_this<ToyNode> {
 public:
  ToyNode(std::string expr, int64_t hint, Recorder* rec)
      : expr_(std::move(expr)), hint_(hint), rec_(rec) {}
  SymNodePtr binary(SymOp op, const SymNodePtr& other) const override {
    const auto& o = static_cast<const ToyNode&>(*other);
    static const std::map<SymOp, std::string> kNames = {
        {SymOp::Add, "+"},   {SymOp::Sub, "-"},   {SymOp::Mul, "*"},   {SymOp::FloorDiv, "//"},
        {SymOp::Mod, "%"},   {SymOp::Eq, "=="},   {SymOp::Lt, "<"},    {SymOp::Ge, ">="},
        {SymOp::And, "and"}, {SymOp::Or, "or"},   {SymOp::Ne, "!="},   {SymOp::Le, "<="},
        {SymOp::Gt, ">"},    {SymOp::Min, "min"}, {SymOp::Max, "max"}, {SymOp::TrueDiv, "/"}};
    int64_t v = 0;
    switch (op) {
      case SymOp::Add:
        v = hint_ + o.hint_;
        break;
      case SymOp::Sub:
        v = hint_ - o.hint_;
        break;
      case SymOp::Mul:
        v = hint_ * o.hint_;
        break;
      case SymOp::FloorDiv:
        v = floor_div(hint_, o.hint_);
        break;
      case SymOp::Mod:
        v = python_mod(hint_, o.hint_);
        break;
      case SymOp::Eq:
        v = hint_ == o.hint_;
        break;
      case SymOp::Ne:
        v = hint_ != o.hint_;
        break;
      case SymOp::Lt:
        v = hint_ < o.hint_;
        break;
      case SymOp::Le:
        v = hint_ <= o.hint_;
        break;
      case SymOp::Gt:
        v = hint_ > o.hint_;
        break;
      case SymOp::Ge:
        v = hint_ >= o.hint_;
        break;
      case SymOp::And:
        v = hint_ && o.hint_;
        break;
      case SymOp::Or:
        v = hint_ || o.hint_;
        break;
      case SymOp::Min:
        v = std::min(hint_, o.hint_);
        break;
      case SymOp::Max:
        v = std::max(hint_, o.hint_);
        break;
      case SymOp::TrueDiv:
        v = 0;
        break;
    }
    return std::make_shared<ToyNode>("(" + expr_ + " " + kNames.at(op) + " " + o.expr_ + ")", v,
                                     rec_);
  }
  SymNodePtr negate() const override {
    return std::make_shared<ToyNode>("-" + expr_, -hint_, rec_);
  }
  SymNodePtr logical_not() const override {
    return std::make_shared<ToyNode>("not " + expr_, !hint_, rec_);
  }
  SymNodePtr wrap_int(int64_t v) const override {
    return std::make_shared<ToyNode>(std::to_string(v), v, rec_);
  }
  SymNodePtr wrap_bool(bool v) const override {
    return std::make_shared<ToyNode>(v ? "True" : "False", v, rec_);
  }
  int64_t guard_int(const std::source_location&) const override {
    rec_->guards.push_back(expr_ + " == " + std::to_string(hint_));
    return hint_;
  }
  bool guard_bool(const std::source_location& where) const override {
    rec_->guards.push_back(expr_ + " is " + (hint_ ? "True" : "False") + " @" +
                           std::to_string(where.line()));
    return hint_ != 0;
  }
  double guard_float(const std::source_location&) const override {
    return static_cast<double>(hint_);
  }
  std::optional<int64_t> maybe_int() const override { return std::nullopt; }
  std::string str() const override { return expr_; }

 private:
  std::string expr_;
  int64_t hint_;
  Recorder* rec_;
};

TEST(SymInt, PlainValuesUsePythonFloorDivisionAndModulo) {
  EXPECT_EQ((SymInt(-7) / SymInt(2)).as_int_unchecked(), -4);
  EXPECT_EQ((SymInt(-7) % SymInt(2)).as_int_unchecked(), 1);
  EXPECT_EQ((SymInt(7) % SymInt(-2)).as_int_unchecked(), -1);
  EXPECT_FALSE((SymInt(3) + 4).is_symbolic());
  EXPECT_TRUE(static_cast<bool>(SymInt(3) < SymInt(4)));
  EXPECT_THROW(SymInt(1) / SymInt(0), Error);
}

TEST(SymInt, SymbolicArithmeticBuildsExpressionsThroughTheNode) {
  Recorder rec;
  const SymInt s0(std::make_shared<ToyNode>("s0", 8, &rec));
  const SymInt e = s0 * 2 + 1;
  EXPECT_TRUE(e.is_symbolic());
  EXPECT_EQ(e.str(), "((s0 * 2) + 1)");
  EXPECT_TRUE(rec.guards.empty());
}

// API.md spells them qualified, `xport::sym_min(x.size(0), 100)`: not only found by ADL.
TEST(SymInt, MinAndMaxAreCallableQualified) {
  EXPECT_EQ(xport::sym_min(SymInt(3), SymInt(100)).as_int_unchecked(), 3);
  EXPECT_EQ(xport::sym_max(SymInt(3), SymInt(100)).as_int_unchecked(), 100);
  SymInt (*min_fn)(const SymInt&, const SymInt&) = &xport::sym_min;
  EXPECT_EQ(min_fn(SymInt(-1), SymInt(0)).as_int_unchecked(), -1);
  Recorder rec;
  const SymInt s0(std::make_shared<ToyNode>("s0", 8, &rec));
  EXPECT_TRUE(xport::sym_max(s0, SymInt(4)).is_symbolic());
}

TEST(SymInt, SpecialisingRecordsAnEqualityGuard) {
  Recorder rec;
  const SymInt s0(std::make_shared<ToyNode>("s0", 8, &rec));
  EXPECT_EQ(static_cast<int64_t>(s0 + 2), 10);
  ASSERT_EQ(rec.guards.size(), 1u);
  EXPECT_EQ(rec.guards[0], "(s0 + 2) == 10");
}

TEST(SymBool, EvaluatingRecordsAGuardWithTheCallersLine) {
  Recorder rec;
  const SymInt s0(std::make_shared<ToyNode>("s0", 8, &rec));
  const int line = __LINE__ + 1;
  const bool small = (s0 <= 16).guard_bool();
  EXPECT_TRUE(small);
  ASSERT_EQ(rec.guards.size(), 1u);
  EXPECT_EQ(rec.guards[0], "(s0 <= 16) is True @" + std::to_string(line));
}

TEST(SymBool, LogicalOpsShortCircuitOnKnownOperands) {
  Recorder rec;
  const SymInt s0(std::make_shared<ToyNode>("s0", 8, &rec));
  EXPECT_FALSE((SymBool(false) && (s0 == 8)).is_symbolic());
  EXPECT_FALSE((SymBool(true) || (s0 == 8)).is_symbolic());
  EXPECT_EQ(((s0 > 2) && SymBool(true)).str(), "((s0 > 2) and True)");
}

TEST(SymInt, PlainPathIsSmallAndAllocationFree) {
  // The fast path holds a value and a null pointer: no heap object, no virtual call.
  static_assert(sizeof(SymInt) <= 24);
  const SymInt a = 5;
  EXPECT_EQ(a.node(), nullptr);
}

}  // namespace
}  // namespace xport
