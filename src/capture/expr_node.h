#pragma once
// The shape environment's SymNode: a symbolic expression of one ShapeEnv. Arithmetic builds new
// expressions (with the environment's replacements applied); turning one into a C++ value goes
// through the environment, which records the guard.

#include <memory>

#include "capture/shape_env.h"
#include "xport/core/sym.h"

namespace xport::capture {

class ExprNode : public SymNode {
 public:
  ExprNode(std::shared_ptr<ShapeEnv> env, sym::ExprPtr expr) : env_(std::move(env)), expr_(expr) {}
  sym::ExprPtr expr() const { return expr_; }
  const std::shared_ptr<ShapeEnv>& env() const { return env_; }

  SymNodePtr binary(SymOp op, const SymNodePtr& other) const override;
  SymNodePtr negate() const override;
  SymNodePtr logical_not() const override;
  SymNodePtr wrap_int(int64_t value) const override;
  SymNodePtr wrap_bool(bool value) const override;
  int64_t guard_int(const std::source_location& where) const override;
  bool guard_bool(const std::source_location& where) const override;
  double guard_float(const std::source_location& where) const override;
  std::optional<int64_t> maybe_int() const override;
  std::string str() const override;
  bool is_same_as(const SymNode& other) const override;
  std::optional<bool> decide_size_oblivious() const override;
  std::optional<bool> decide_without_guard() const override;

 private:
  SymNodePtr make(sym::ExprPtr e) const;
  std::shared_ptr<ShapeEnv> env_;
  sym::ExprPtr expr_;
};

/// The expression of a SymInt: its node's, or an Integer for a plain value. Throws Internal for
/// a node of another kind.
sym::ExprPtr expr_of(const SymInt& v);
sym::ExprPtr expr_of(const SymBool& v);

}  // namespace xport::capture
