// _softmax / _log_softmax (core) and softmax.int / log_softmax.int, which convert to `dtype`
// first and call them.
#include "kernels/cpu/softmax.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/typed_kernel.h"

namespace xport::ops {

namespace cpu = kernels::cpu;

void _softmax_out(const Tensor& self, int64_t dim, bool, const Tensor& out) {
  cpu::softmax_out(self, wrap_dim("aten::_softmax", dim, self.dim()), false, out);
}
void _log_softmax_out(const Tensor& self, int64_t dim, bool, const Tensor& out) {
  cpu::softmax_out(self, wrap_dim("aten::_log_softmax", dim, self.dim()), true, out);
}

namespace {

// y = softmax(x): dx = y * (g - sum(g * y)); y = log_softmax(x): dx = g - exp(y) * sum(g).
void softmax_derivative(Backward& b) {
  const Tensor& y = b.result();
  const Tensor g = b.grad();
  const std::vector<int64_t> dim = {b.args().integer("dim")};
  b.set("self", y * (g - (g * y).sum(dim, true)));
}

void log_softmax_derivative(Backward& b) {
  const Tensor g = b.grad();
  const std::vector<int64_t> dim = {b.args().integer("dim")};
  b.set("self", g - b.result().exp() * g.sum(dim, true));
}

void register_core(const char* schema, const OpKernel& kernel, DerivativeFn derivative) {
  register_op({
      .schema = schema,
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            XPORT_CHECK(is_floating(self.dtype()), InvalidInput, args.name(),
                        ": needs a floating point tensor, got ", dtype_name(self.dtype()),
                        "; call softmax with dtype=float32 or convert the input first");
            wrap_dim(args, args.integer("dim"), self.dim());
            const bool half_to_float = args.boolean("half_to_float");
            XPORT_CHECK(!half_to_float || self.dtype() == DType::Float16, InvalidInput, args.name(),
                        ": half_to_float needs a float16 input, got ", dtype_name(self.dtype()),
                        "; pass half_to_float=False");
            return std::vector<TensorMeta>{
                contiguous_meta(self.sizes(), half_to_float ? DType::Float32 : self.dtype())};
          },
      .kernel = kernel,
      .derivative = std::move(derivative),
      .core = true,
  });
}

void register_composite(const char* schema, const char* core_name) {
  const OpDef* target = &find_op(core_name);  // registered just before
  register_op({
      .schema = schema,
      .decomp =
          [target](const OpArgs& args) {
            Tensor x = args.tensor("self");
            if (const std::optional<DType> dtype = args.optional_dtype("dtype")) x = x.to(*dtype);
            return std::vector<Tensor>{call1(*target, {x, args["dim"], false})};
          },
  });
}

}  // namespace

void register_softmax_ops() {
  register_core("aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
                XPORT_OP_KERNEL(_softmax_out), softmax_derivative);
  register_core("aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
                XPORT_OP_KERNEL(_log_softmax_out), log_softmax_derivative);
  register_composite("aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
                     "aten::_softmax");
  register_composite(
      "aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
      "aten::_log_softmax");
}

}  // namespace xport::ops
