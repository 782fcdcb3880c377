// The runtime services that generated code calls (xport/aot_model.h).

#include "ir/argument_value.h"
#include "kernels/cpu/conv.h"
#include "kernels/cpu/packed_linear.h"
#include "runtime/pointwise_chain.h"
#include "xport/aot_model.h"
#include "xport/error.h"

namespace xport::aot {

struct PackedKernel {
  std::shared_ptr<kernels::cpu::PackedConv2d> conv;
  std::shared_ptr<kernels::cpu::PackedLinear> linear;
};

std::vector<TensorMeta> decode_layouts(const int64_t* code, size_t count) {
  std::vector<TensorMeta> out(count);
  for (TensorMeta& meta : out) {
    meta.dtype = static_cast<DType>(*code++);
    const auto rank = static_cast<size_t>(*code++);
    meta.storage_offset = *code++;
    meta.sizes.assign(code, code + rank);
    meta.strides.assign(code + rank, code + 2 * rank);
    code += 2 * rank;
  }
  return out;
}

Tensor fresh_tensor(const TensorMeta& meta) {
  return Tensor::make(Storage::allocate(storage_bytes(meta)), meta);
}

std::shared_ptr<Storage> unowned_storage(const void* data, int64_t bytes) {
  static int anchor = 0;  // the owner: not null, and nothing to free
  static const std::shared_ptr<void> kNothingToFree(&anchor, [](void*) {});
  return Storage::wrap(const_cast<void*>(data), bytes, kNothingToFree);
}

namespace {
std::vector<int64_t> ints(const std::vector<SymInt>& values) {
  std::vector<int64_t> out;
  for (const SymInt& v : values) out.push_back(v.maybe_int().value_or(-1));
  return out;
}
}  // namespace

void expect_archive(const std::vector<Tensor>& placeholders, const ArchiveTensor* tensors,
                    size_t count, const std::vector<TensorMeta>& layouts) {
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = placeholders.at(static_cast<size_t>(tensors[i].placeholder));
    const TensorMeta& meta = layouts.at(static_cast<size_t>(tensors[i].layout));
    const bool same = t.defined() && t.dtype() == meta.dtype &&
                      t.int_sizes() == ints(meta.sizes) && t.int_strides() == ints(meta.strides) &&
                      t.storage_offset().maybe_int() == meta.storage_offset.maybe_int();
    XPORT_CHECK(same, InvalidArchive, "the archive's '", tensors[i].name, "' is ",
                t.defined() ? Value(t).str() : std::string("missing"),
                "; the compiled model was made for ", Value(Tensor::make(nullptr, meta)).str(),
                " (its layout too): load it with the archive it was compiled from");
  }
}

void add_constants(std::vector<Tensor>& placeholders, const ConstantTensor* constants,
                   size_t count, const std::vector<TensorMeta>& layouts,
                   const unsigned char* embedded) {
  for (size_t i = 0; i < count; ++i) {
    const ConstantTensor& c = constants[i];
    const TensorMeta& meta = layouts.at(static_cast<size_t>(c.layout));
    placeholders.push_back(
        c.view_of >= 0
            ? Tensor::make(placeholders.at(static_cast<size_t>(c.view_of)).storage(), meta)
            : Tensor::make(unowned_storage(embedded + c.offset, c.bytes), meta));
  }
}

void expect_placeholders(size_t count, size_t expected) {
  XPORT_CHECK(count == expected, InvalidArchive, "the archive has ", count,
              " placeholders (parameters, buffers, constants and inputs); the compiled model was "
              "made for ", expected, ": load it with the archive it was compiled from");
}

std::vector<std::optional<Tensor>> optional_tensors(std::initializer_list<Tensor> tensors) {
  std::vector<std::optional<Tensor>> out;
  for (const Tensor& t : tensors) out.push_back(t.defined() ? std::optional(t) : std::nullopt);
  return out;
}

Scalar scalar_of(const Tensor& t) { return ir::scalar_value(t).to_scalar(); }

void require_cpu_feature(bool present, const char* feature) {
  XPORT_CHECK(present, InvalidInput, "this compiled model was built for CPUs with ", feature,
              ", which this CPU lacks: compile it again on (or for) this machine, without "
              "-march flags that name newer instruction sets");
}

std::vector<std::shared_ptr<const PackedKernel>> pack_kernels(
    const std::vector<Tensor>& placeholders, const PackedSpec* specs, size_t count) {
  std::vector<std::shared_ptr<const PackedKernel>> out;
  for (size_t i = 0; i < count; ++i) {
    const PackedSpec& s = specs[i];
    const Tensor& weight = placeholders.at(static_cast<size_t>(s.weight));
    const Tensor bias = s.bias < 0 ? Tensor() : placeholders.at(static_cast<size_t>(s.bias));
    const int64_t* p = s.params;
    auto kernel = std::make_shared<PackedKernel>();
    if (s.kind == 0) {
      kernels::cpu::Conv2dParams params;
      params.stride = {p[0], p[1]};
      params.padding = {p[2], p[3]};
      params.dilation = {p[4], p[5]};
      params.groups = p[6];
      const kernels::cpu::ConvEpilogue epilogue{.residual = p[7] != 0, .relu = p[8] != 0};
      kernel->conv = std::make_shared<kernels::cpu::PackedConv2d>(weight, bias, params, epilogue);
      kernel->conv->set_layouts(
          {.src_nhwc = p[9] != 0, .residual_nhwc = p[10] != 0, .dst_nhwc = p[11] != 0});
    } else {
      kernel->linear = std::make_shared<kernels::cpu::PackedLinear>(
          weight, bias, static_cast<kernels::cpu::LinearActivation>(p[0]));
    }
    out.push_back(std::move(kernel));
  }
  return out;
}

void run_conv2d(const PackedKernel& kernel, const Tensor& input, const Tensor& residual,
                const Tensor& out) {
  kernel.conv->run(input, residual, out);
}

void run_linear(const PackedKernel& kernel, const Tensor& input, const Tensor& out) {
  kernel.linear->run(input, out);
}

void run_chunked(const std::vector<Tensor>& inputs, const Tensor& out, ChainFn chain) {
  runtime::for_each_chunk(inputs, out,
                          [chain](const std::vector<Tensor>& in, const Tensor* scratch,
                                  const Tensor& piece) { chain(in.data(), scratch, piece); });
}

}  // namespace xport::aot
