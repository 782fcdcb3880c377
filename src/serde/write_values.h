#pragma once
// The serialized schema's encodings of values: SymInts (sympy's srepr of expressions), floats
// (non-finite ones as strings) and tensor metadata.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "xport/ir/ir.h"
#include "xport/tensor/tensor.h"

namespace xport::serde {

/// Whether a symbol's name is an unbacked one's (u0, u1, ...).
bool is_unbacked_name(const std::string& name);
/// sympy's srepr, as torch.export writes expressions.
std::string srepr(sym::ExprPtr e);
nlohmann::ordered_json sym_int(sym::ExprPtr e);
nlohmann::ordered_json float_value(double v);
nlohmann::ordered_json tensor_meta(DType dtype, const std::vector<sym::ExprPtr>& sizes,
                                   const std::vector<sym::ExprPtr>& strides,
                                   sym::ExprPtr storage_offset);
nlohmann::ordered_json tensor_meta(const ir::TensorSpec& spec);
nlohmann::ordered_json tensor_meta(const Tensor& t);

}  // namespace xport::serde
