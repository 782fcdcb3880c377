#include "ir/passes/constant_graph.h"

#include "ir/ir_util.h"
#include "xport/core/error.h"

namespace xport::ir::passes {

Tensor ConstantGraph::constant(const Argument& arg) const {
  const ValueRef* ref = detail::ref_of(arg);
  if (ref == nullptr || ref->node->kind() != NodeKind::Placeholder) return Tensor();
  return constants.at(ref->node->position());  // placeholders come first, in order
}

ValueRef ConstantGraph::add_constant(const std::string& base, const Tensor& value) {
  std::string name = base;
  for (int k = 1; graph.uses_name(name); ++k) name = base + "_" + std::to_string(k);
  TensorSpec spec;
  spec.dtype = value.dtype();
  for (int64_t s : value.int_sizes()) spec.sizes.push_back(sym::integer(s));
  for (int64_t s : value.int_strides()) spec.strides.push_back(sym::integer(s));
  const int64_t offset = *value.storage_offset().maybe_int();
  if (offset != 0) spec.storage_offset = sym::integer(offset);
  const Node* p = graph.add_placeholder(name, std::move(spec));
  XPORT_CHECK(p->position() == constants.size(), Internal,
              "add_constant: placeholder ", name, " is not the last one");
  constants.push_back(value);
  return p->out(0);
}

int64_t constant_int(sym::ExprPtr e) {
  const std::optional<int64_t> v = sym::as_int(e);
  XPORT_CHECK(v.has_value(), Internal, "not a constant: ", sym::str(e));
  return *v;
}

}  // namespace xport::ir::passes
