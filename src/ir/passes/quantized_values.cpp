#include "ir/passes/quantized_values.h"

#include <optional>

#include "ir/ir_util.h"

namespace xport::ir::passes::quantized {

using detail::int_of;
using detail::ref_of;

bool whole_range(const Node& node, DType dtype) {
  const bool u8 = dtype == DType::UInt8;
  return (u8 || dtype == DType::Int8) &&
         int_of(node.arg("quant_min")) == std::optional<int64_t>(u8 ? 0 : -128) &&
         int_of(node.arg("quant_max")) == std::optional<int64_t>(u8 ? 255 : 127);
}

const DType* whole_range_dtype(const Node* quantize) {
  static const OpDef& op = find_op("quantized_decomposed::quantize_per_tensor");
  if (quantize == nullptr || quantize->op() != &op) return nullptr;
  const auto* dtype = std::get_if<DType>(&quantize->arg("dtype").value);
  return dtype != nullptr && whole_range(*quantize, *dtype) ? dtype : nullptr;
}

const ValueRef* statically_dequantized(const Node* dequantize) {
  static const OpDef& op = find_op("quantized_decomposed::dequantize_per_tensor");
  if (dequantize == nullptr || dequantize->op() != &op ||
      dequantize->outputs()[0].dtype != DType::Float32) {
    return nullptr;
  }
  const ValueRef* q = ref_of(dequantize->arg("input"));
  if (q == nullptr || !std::holds_alternative<double>(dequantize->arg("scale").value) ||
      !int_of(dequantize->arg("zero_point"))) {
    return nullptr;
  }
  return whole_range(*dequantize, q->node->outputs()[q->index].dtype) ? q : nullptr;
}

bool same_parameters(const Node& a, DType a_dtype, const Node& b, DType b_dtype) {
  const auto* a_scale = std::get_if<double>(&a.arg("scale").value);
  const auto* b_scale = std::get_if<double>(&b.arg("scale").value);
  const std::optional<int64_t> zero_point = int_of(a.arg("zero_point"));
  return a_dtype == b_dtype && a_scale != nullptr && b_scale != nullptr && *a_scale == *b_scale &&
         zero_point && int_of(b.arg("zero_point")) == zero_point;
}

}  // namespace xport::ir::passes::quantized
