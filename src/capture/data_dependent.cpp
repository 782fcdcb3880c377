// check, constrain_as_size and constrain_as_value: facts about unbacked symbols that capture
// decides with and the program asserts (aten::_assert_scalar) when it runs.
#include "xport/capture/data_dependent.h"

#include "capture/call_site.h"
#include "capture/expr_node.h"
#include "capture/tracer.h"

namespace xport {
namespace {

using capture::active_tracer;

void check_as(const SymBool& condition, const std::string& what) {
  if (const auto known = condition.maybe_bool()) {
    XPORT_CHECK(*known, InvalidInput, what);
    return;
  }
  capture::Tracer* tracer = active_tracer();
  if (tracer == nullptr) {
    XPORT_CHECK(condition.guard_bool(), InvalidInput, what);
    return;
  }
  capture::ShapeEnv& env = *tracer->env();
  const sym::ExprPtr e = env.simplify(capture::expr_of(condition));
  const std::string line = capture::user_source(capture::capture_call_site());
  const std::string at = line.empty() ? "" : " (" + line + ")";
  const auto decided = sym::decide(e, [&](sym::ExprPtr s) { return env.range(s); });
  if (decided) {
    XPORT_CHECK(*decided, InvalidSpec, what, at, ": ", sym::str(e),
                " can never hold with what is known of its symbols");
    return;
  }
  if (!env.uses_unbacked(e)) {
    // Input sizes only: a guard on the example, checked against the spec like any other.
    XPORT_CHECK(condition.guard_bool(), InvalidSpec, what, at, ": ", sym::str(e),
                " is false for the example inputs");
    return;
  }
  env.add_fact(e);
  tracer->add_node(find_op("aten::_assert_scalar"),
                   {ir::Argument(e), ir::Argument("Runtime assertion failed for expression " +
                                                  sym::str(e) + at)},
                   {});
}

}  // namespace

void check(const SymBool& condition, const std::string& message) {
  check_as(condition, message.empty() ? "check(" + condition.str() + ") failed" : message);
}

void constrain_as_size(const SymInt& value, int64_t min, int64_t max) {
  const int64_t lo = std::max<int64_t>(min, 0);
  const std::string range =
      "[" + std::to_string(lo) + ", " + (max == sym::Range::kPosInf ? "inf" : std::to_string(max)) +
      "]";
  check_as(value >= lo, "constrain_as_size: " + value.str() + " is not a size in " + range);
  if (max != sym::Range::kPosInf) {
    check_as(value <= max, "constrain_as_size: " + value.str() + " is not a size in " + range);
  }
}

void constrain_as_value(const SymInt& value, int64_t min, int64_t max) {
  XPORT_CHECK(min <= max, InvalidSpec, "constrain_as_value: min ", min, " is above max ", max);
  const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  const std::string what = "constrain_as_value: " + value.str() + " is outside " + range;
  if (min != sym::Range::kNegInf) check_as(value >= min, what);
  if (max != sym::Range::kPosInf) check_as(value <= max, what);
}

}  // namespace xport
