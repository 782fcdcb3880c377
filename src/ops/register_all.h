#pragma once
// Every op family registers itself explicitly from one list (no static initializers).

namespace xport::ops {

void register_unary_ops();
void register_binary_ops();
void register_ternary_ops();
void register_view_ops();
void register_size_ops();
void register_factory_ops();
void register_copy_ops();
void register_reduction_ops();
void register_linalg_ops();
void register_nn_ops();
void register_shape_ops();
void register_control_flow_ops();
void register_data_dependent_ops();
void register_sym_float_ops();
void register_fft_ops();
/// PyTorch's PT2E quantize / dequantize ops (quantized_decomposed::*).
void register_quantized_decomposed_ops();
/// xport::quantized_linear and quantized_conv2d, which the quantized fusion writes; after the
/// ops they replace.
void register_quantized_ops();
void register_weight_only_ops();
/// out= overloads of the ops above (atan2.out).
void register_out_overloads();
/// The ops the shared fusion pass writes (xport::fused_conv2d, ...); after the ops they fuse.
void register_fused_ops();

/// Calls every register_*_ops above, once.
void register_all_ops();

}  // namespace xport::ops
