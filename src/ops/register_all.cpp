#include "ops/register_all.h"

namespace xport::ops {

void register_all_ops() {
  register_unary_ops();
  register_binary_ops();
  register_ternary_ops();
  register_view_ops();
  register_size_ops();
  register_factory_ops();
  register_copy_ops();
  register_reduction_ops();
  register_linalg_ops();
  register_nn_ops();
  register_shape_ops();
  register_control_flow_ops();
  register_fused_ops();
  register_data_dependent_ops();
  register_sym_float_ops();
  register_fft_ops();
  register_quantized_decomposed_ops();
  register_quantized_ops();
  register_weight_only_ops();
  register_out_overloads();
}

}  // namespace xport::ops
