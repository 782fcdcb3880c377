"""PyTorch reference definitions of xport's fused ops (src/ops/fused/fused_ops.cpp), under the
same names and schemas, written from their documented meaning so the op table can compare
xport's kernels with PyTorch's own convolution, matmul and activations."""
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401 (quantized_decomposed::*)


def _same_shape(residual, y):
    if residual is not None and residual.shape != y.shape:
        raise RuntimeError("the residual is %s, the convolution gives %s"
                           % (list(residual.shape), list(y.shape)))


def define_fused_ops():
    """Defines xport::fused_conv2d, fused_conv2d_, fused_linear, quantized_linear and
    quantized_conv2d (both overloads each), requantized_linear, requantized_conv2d and
    requantized_conv2d_, quantized_add, quantized_lookup, weight_only_linear and bf16_linear;
    returns the library, which must stay alive while the ops are used."""
    lib = torch.library.Library("xport", "DEF")
    conv = ("Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
            "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups")
    lib.define("fused_conv2d(" + conv + ", Tensor? residual=None, bool relu=False) -> Tensor")
    lib.define("fused_conv2d_(" + conv + ", Tensor(a!) residual, bool relu=False) -> Tensor(a!)")
    lib.define('fused_linear(Tensor input, Tensor weight, Tensor? bias=None, '
               'str activation="none") -> Tensor')
    quantized = ("Tensor weight, Tensor weight_scales, Tensor? bias=None) -> Tensor")
    lib.define("quantized_linear(Tensor input, float input_scale, int input_zero_point, "
               + quantized)
    lib.define("quantized_linear.tensor(Tensor input, Tensor input_scale, "
               "Tensor input_zero_point, " + quantized)
    conv = ("Tensor weight, Tensor weight_scales, Tensor? bias, SymInt[] stride, "
            "SymInt[] padding, SymInt[] dilation, SymInt groups) -> Tensor")
    lib.define("quantized_conv2d(Tensor input, float input_scale, int input_zero_point, " + conv)
    lib.define("quantized_conv2d.tensor(Tensor input, Tensor input_scale, "
               "Tensor input_zero_point, " + conv)
    lib.define("requantized_conv2d(Tensor input, float input_scale, int input_zero_point, "
               "Tensor weight, Tensor weight_scales, Tensor? bias, SymInt[] stride, "
               "SymInt[] padding, SymInt[] dilation, SymInt groups, bool relu, "
               "float output_scale, int output_zero_point, ScalarType output_dtype, "
               "Tensor? residual=None, float residual_scale=1., int residual_zero_point=0, "
               "float? conv_scale=None, int conv_zero_point=0, ScalarType? conv_dtype=None) "
               "-> Tensor")
    lib.define("requantized_linear(Tensor input, float input_scale, int input_zero_point, "
               "Tensor weight, Tensor weight_scales, Tensor? bias, str activation, "
               "float output_scale, int output_zero_point, ScalarType output_dtype) -> Tensor")
    lib.define("requantized_conv2d_(Tensor input, float input_scale, int input_zero_point, "
               "Tensor weight, Tensor weight_scales, Tensor? bias, SymInt[] stride, "
               "SymInt[] padding, SymInt[] dilation, SymInt groups, bool relu, "
               "float output_scale, int output_zero_point, ScalarType output_dtype, "
               "Tensor(a!) residual, float residual_scale, int residual_zero_point, "
               "float? conv_scale=None, int conv_zero_point=0, ScalarType? conv_dtype=None) "
               "-> Tensor(a!)")
    lib.define("quantized_add(Tensor self, float self_scale, int self_zero_point, "
               "Tensor other, float other_scale, int other_zero_point, bool relu, "
               "float output_scale, int output_zero_point, ScalarType output_dtype) -> Tensor")
    lib.define("quantized_lookup(Tensor self, Tensor table) -> Tensor")
    lib.define("bf16_linear(Tensor input, Tensor weight, Tensor? bias=None, "
               "bool bf16_compute=False) -> Tensor")
    lib.define("weight_only_linear(Tensor input, Tensor weight, int bits, Tensor scales, "
               "Tensor? zero_points, int group_size, Tensor? bias=None) -> Tensor")

    def fused_conv2d(input, weight, bias, stride, padding, dilation, transposed,
                     output_padding, groups, residual=None, relu=False):
        y = torch.ops.aten.convolution(input, weight, bias, stride, padding, dilation,
                                       transposed, output_padding, groups)
        _same_shape(residual, y)
        if residual is not None:
            y = y + residual
        return torch.relu(y) if relu else y

    def fused_conv2d_(input, weight, bias, stride, padding, dilation, transposed,
                      output_padding, groups, residual, relu=False):
        return residual.copy_(fused_conv2d(input, weight, bias, stride, padding, dilation,
                                           transposed, output_padding, groups, residual, relu))

    def fused_linear(input, weight, bias=None, activation="none"):
        y = input @ weight
        if bias is not None:
            y = y + bias
        if activation == "relu":
            return torch.relu(y)
        if activation == "gelu":
            return torch.nn.functional.gelu(y)
        if activation == "gelu_tanh":
            return torch.nn.functional.gelu(y, approximate="tanh")
        if activation != "none":
            raise RuntimeError("activation '%s' is none of none, relu, gelu, gelu_tanh"
                               % activation)
        return y

    def dequantized(input, input_scale, input_zero_point, weight, weight_scales):
        # What the fusion replaced, PT2E's: the input and the weights dequantized.
        q = torch.ops.quantized_decomposed
        bounds = (0, 255) if input.dtype == torch.uint8 else (-128, 127)
        dequantize = q.dequantize_per_tensor.tensor if isinstance(input_scale, torch.Tensor) \
            else q.dequantize_per_tensor
        x = dequantize(input, input_scale, input_zero_point, *bounds, input.dtype)
        w = q.dequantize_per_channel(weight, weight_scales, None, 0, -128, 127, torch.int8)
        return x, w

    def quantized_linear(input, input_scale, input_zero_point, weight, weight_scales,
                         bias=None):
        x, w = dequantized(input, input_scale, input_zero_point, weight, weight_scales)
        return torch.nn.functional.linear(x, w, bias)

    def quantized_conv2d(input, input_scale, input_zero_point, weight, weight_scales, bias,
                         stride, padding, dilation, groups):
        x, w = dequantized(input, input_scale, input_zero_point, weight, weight_scales)
        return torch.ops.aten.convolution(x, w, bias, stride, padding, dilation, False, [0, 0],
                                          groups)

    def requantized_conv2d(input, input_scale, input_zero_point, weight, weight_scales, bias,
                           stride, padding, dilation, groups, relu, output_scale,
                           output_zero_point, output_dtype, residual=None, residual_scale=1.0,
                           residual_zero_point=0, conv_scale=None, conv_zero_point=0,
                           conv_dtype=None):
        y = quantized_conv2d(input, input_scale, input_zero_point, weight, weight_scales, bias,
                             stride, padding, dilation, groups)
        if conv_scale is not None:  # XNNPACK's block: the convolution's result quantized first
            c_bounds = (0, 255) if conv_dtype == torch.uint8 else (-128, 127)
            y = torch.ops.quantized_decomposed.dequantize_per_tensor(
                torch.ops.quantized_decomposed.quantize_per_tensor(
                    y, conv_scale, conv_zero_point, *c_bounds, conv_dtype),
                conv_scale, conv_zero_point, *c_bounds, conv_dtype)
        if residual is not None:
            _same_shape(residual, y)
            r_bounds = (0, 255) if residual.dtype == torch.uint8 else (-128, 127)
            y = y + torch.ops.quantized_decomposed.dequantize_per_tensor(
                residual, residual_scale, residual_zero_point, *r_bounds, residual.dtype)
        if relu:
            y = torch.relu(y)
        bounds = (0, 255) if output_dtype == torch.uint8 else (-128, 127)
        return torch.ops.quantized_decomposed.quantize_per_tensor(
            y, output_scale, output_zero_point, *bounds, output_dtype)

    def requantized_linear(input, input_scale, input_zero_point, weight, weight_scales, bias,
                           activation, output_scale, output_zero_point, output_dtype):
        y = quantized_linear(input, input_scale, input_zero_point, weight, weight_scales, bias)
        if activation == "relu":
            y = torch.relu(y)
        elif activation in ("gelu", "gelu_tanh"):
            y = torch.nn.functional.gelu(y, approximate="none" if activation == "gelu" else "tanh")
        elif activation != "none":
            raise RuntimeError("unknown activation " + activation)
        bounds = (0, 255) if output_dtype == torch.uint8 else (-128, 127)
        return torch.ops.quantized_decomposed.quantize_per_tensor(
            y, output_scale, output_zero_point, *bounds, output_dtype)

    def requantized_conv2d_(input, input_scale, input_zero_point, weight, weight_scales, bias,
                            stride, padding, dilation, groups, relu, output_scale,
                            output_zero_point, output_dtype, residual, residual_scale,
                            residual_zero_point, conv_scale=None, conv_zero_point=0,
                            conv_dtype=None):
        return residual.copy_(requantized_conv2d(
            input, input_scale, input_zero_point, weight, weight_scales, bias, stride, padding,
            dilation, groups, relu, output_scale, output_zero_point, output_dtype, residual,
            residual_scale, residual_zero_point, conv_scale, conv_zero_point, conv_dtype))

    def quantized_add(self, self_scale, self_zero_point, other, other_scale, other_zero_point,
                      relu, output_scale, output_zero_point, output_dtype):
        def dequantized(q, scale, zero_point):
            bounds = (0, 255) if q.dtype == torch.uint8 else (-128, 127)
            return torch.ops.quantized_decomposed.dequantize_per_tensor(
                q, scale, zero_point, *bounds, q.dtype)
        if self.shape != other.shape:
            raise RuntimeError("quantized_add takes two tensors of one shape")
        y = dequantized(self, self_scale, self_zero_point) + dequantized(
            other, other_scale, other_zero_point)
        if relu:
            y = torch.relu(y)
        bounds = (0, 255) if output_dtype == torch.uint8 else (-128, 127)
        return torch.ops.quantized_decomposed.quantize_per_tensor(
            y, output_scale, output_zero_point, *bounds, output_dtype)

    def quantized_lookup(self, table):
        if table.shape != (256,):
            raise RuntimeError("quantized_lookup takes a table of 256 values")
        offset = 128 if self.dtype == torch.int8 else 0
        return table[self.to(torch.int64) + offset]

    def weight_only_linear(input, weight, bits, scales, zero_points, group_size, bias=None):
        # int8 [N, K], or int4 packed two to a byte in runs of 128 values: 16 little-endian
        # 32-bit words, nibble p of word i holding value 16p + i, plus 8.
        if bits == 4 and (group_size % 16 != 0 or weight.shape[1] % 64 != 0):
            raise RuntimeError("int4 groups must be a multiple of 16 wide, K of 128")
        q = weight.to(torch.int32)
        if bits == 4:
            b = q.view(q.shape[0], -1, 16, 4)  # [n, runs, word i, byte]
            nibbles = torch.stack([b & 15, b >> 4], dim=4)  # [n, runs, i, byte, half]
            q = nibbles.permute(0, 1, 3, 4, 2).reshape(q.shape[0], -1) - 8
        n, k = q.shape
        grouped = q.view(n, k // group_size, group_size).to(torch.float32)
        if zero_points is not None:
            grouped = grouped - zero_points.reshape(n, -1, 1)
        w = (grouped * scales.reshape(n, -1, 1)).reshape(n, k)
        return torch.nn.functional.linear(input, w, bias)

    def bf16_linear(input, weight, bias=None, bf16_compute=False):
        if weight.dtype != torch.bfloat16 or input.dtype != torch.float32:
            raise RuntimeError("bf16_linear takes float32 inputs and bfloat16 weights")
        if bf16_compute:  # as torch.autocast(bfloat16) runs the layer
            bias = None if bias is None else bias.to(torch.bfloat16)
            return torch.nn.functional.linear(input.to(torch.bfloat16), weight, bias).float()
        return torch.nn.functional.linear(input, weight.float(), bias)

    lib.impl("fused_conv2d", fused_conv2d, "CPU")
    lib.impl("fused_conv2d_", fused_conv2d_, "CPU")
    lib.impl("fused_linear", fused_linear, "CPU")
    lib.impl("quantized_linear", quantized_linear, "CPU")
    lib.impl("quantized_linear.tensor", quantized_linear, "CPU")
    lib.impl("quantized_conv2d", quantized_conv2d, "CPU")
    lib.impl("quantized_conv2d.tensor", quantized_conv2d, "CPU")
    lib.impl("requantized_conv2d", requantized_conv2d, "CPU")
    lib.impl("requantized_conv2d_", requantized_conv2d_, "CPU")
    lib.impl("requantized_linear", requantized_linear, "CPU")
    lib.impl("weight_only_linear", weight_only_linear, "CPU")
    lib.impl("bf16_linear", bf16_linear, "CPU")
    lib.impl("quantized_add", quantized_add, "CPU")
    lib.impl("quantized_lookup", quantized_lookup, "CPU")
    return lib
