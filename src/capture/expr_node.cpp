#include "capture/expr_node.h"

#include "core/sym_expr.h"
#include "xport/core/error.h"

namespace xport::capture {
namespace {

sym::ExprPtr expr_of_node(const SymNodePtr& node) {
  const auto* e = dynamic_cast<const ExprNode*>(node.get());
  XPORT_CHECK(e != nullptr, Internal,
              "a symbolic value from another shape environment reached this export");
  return e->expr();
}

}  // namespace

SymNodePtr ExprNode::make(sym::ExprPtr e) const {
  return std::make_shared<ExprNode>(env_, env_->simplify(e));
}

SymNodePtr ExprNode::binary(SymOp op, const SymNodePtr& other) const {
  return make(sym::apply(op, expr_, expr_of_node(other)));
}

SymNodePtr ExprNode::negate() const { return make(sym::neg(expr_)); }
SymNodePtr ExprNode::logical_not() const { return make(sym::logical_not(expr_)); }
SymNodePtr ExprNode::wrap_int(int64_t value) const {
  return std::make_shared<ExprNode>(env_, sym::integer(value));
}
SymNodePtr ExprNode::wrap_bool(bool value) const {
  return std::make_shared<ExprNode>(env_, sym::boolean(value));
}
int64_t ExprNode::guard_int(const std::source_location& where) const {
  return env_->evaluate_int(expr_, where);
}
bool ExprNode::guard_bool(const std::source_location& where) const {
  return env_->evaluate_bool(expr_, where);
}
double ExprNode::guard_float(const std::source_location& where) const {
  return static_cast<double>(env_->evaluate_int(expr_, where));
}
std::optional<int64_t> ExprNode::maybe_int() const {
  if (auto v = sym::as_int(expr_)) return v;
  if (auto b = sym::as_bool(expr_)) return *b ? 1 : 0;
  return std::nullopt;
}
std::string ExprNode::str() const { return sym::str(expr_); }
bool ExprNode::is_same_as(const SymNode& other) const {
  const auto* e = dynamic_cast<const ExprNode*>(&other);
  return e != nullptr && e->expr_ == expr_;  // expressions are hash-consed
}

std::optional<bool> ExprNode::decide_size_oblivious() const {
  return env_->decide_size_oblivious(expr_);
}

std::optional<bool> ExprNode::decide_without_guard() const {
  return env_->decide_without_guard(expr_);
}

sym::ExprPtr expr_of(const SymInt& v) {
  return v.is_symbolic() ? expr_of_node(v.node()) : sym::integer(v.as_int_unchecked());
}
sym::ExprPtr expr_of(const SymBool& v) {
  return v.is_symbolic() ? expr_of_node(v.node()) : sym::boolean(*v.maybe_bool());
}

}  // namespace xport::capture
