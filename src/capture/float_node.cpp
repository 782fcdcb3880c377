#include "capture/float_node.h"

#include "capture/call_site.h"
#include "capture/tracer.h"
#include "xport/core/error.h"
#include "xport/ops/op_registry.h"

namespace xport::capture {
namespace {

const FloatNode& float_node(const SymNodePtr& node) {
  const auto* f = dynamic_cast<const FloatNode*>(node.get());
  XPORT_CHECK(f != nullptr, Internal, "a symbolic float from another export reached this one");
  return *f;
}

SymNodePtr record(const char* op, std::vector<Value> operands) {
  std::vector<Tensor> out = call_tensors(find_op(op), std::move(operands));
  return std::make_shared<FloatNode>(std::move(out.at(0)));
}

[[noreturn]] void refuse(const FloatNode& v, const char* what) {
  const std::string line = user_source(capture_call_site());
  ::xport::detail::throw_error_with_case(
      ErrorKind::DataDependent,
      ::xport::detail::concat(what, line.empty() ? "" : " at " + line, ": ", v.str(),
                     " comes from item_float(), so its value is known only when the program "
                     "runs. Pass it to ops as it is (x * v, full(sizes, v) and arithmetic on it "
                     "are recorded); to branch on it, compare tensors and use "
                     "xport::cond(y > 0.5, true_fn, false_fn, operands)"),
      "item_float_decision");
}

}  // namespace

Scalar FloatNode::operand() const {
  if (!value_.defined()) return Scalar(constant_);
  return Scalar(SymFloat(SymNodePtr(shared_from_this())));
}

SymNodePtr FloatNode::binary(SymOp op, const SymNodePtr& other) const {
  const Scalar a = operand(), b = float_node(other).operand();
  switch (op) {
    case SymOp::Add:
      return record("_operator::add", {a, b});
    case SymOp::Sub:
      return record("_operator::sub", {a, b});
    case SymOp::Mul:
      return record("_operator::mul", {a, b});
    case SymOp::TrueDiv:
      return record("_operator::truediv", {a, b});
    default:
      refuse(*this, "this operation on a symbolic float");
  }
}

SymNodePtr FloatNode::negate() const { return record("_operator::neg", {operand()}); }
SymNodePtr FloatNode::logical_not() const { refuse(*this, "logical not of a float"); }
SymNodePtr FloatNode::wrap_int(int64_t value) const {
  return std::make_shared<FloatNode>(Tensor(), static_cast<double>(value));
}
SymNodePtr FloatNode::wrap_bool(bool value) const { return wrap_int(value ? 1 : 0); }
SymNodePtr FloatNode::wrap_float(double value) const {
  return std::make_shared<FloatNode>(Tensor(), value);
}
int64_t FloatNode::guard_int(const std::source_location&) const {
  refuse(*this, "converting a symbolic float to an integer");
}
bool FloatNode::guard_bool(const std::source_location&) const {
  refuse(*this, "deciding on a symbolic float");
}
double FloatNode::guard_float(const std::source_location&) const {
  if (!value_.defined()) return constant_;
  refuse(*this, "reading a symbolic float into C++");
}

std::string FloatNode::str() const {
  if (!value_.defined()) return Scalar(constant_).str();
  const auto* traced = static_cast<const TracedValue*>(value_.impl()->capture_info.get());
  return traced != nullptr ? "%" + traced->ref.node->name() : "a float from item_float()";
}

const Tensor& float_value(const SymFloat& v) {
  const Tensor& t = float_node(v.node()).value();
  XPORT_CHECK(t.defined(), Internal, "a constant float node reached a graph argument");
  return t;
}

}  // namespace xport::capture
