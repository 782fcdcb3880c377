// The runtime services that generated code calls (xport/runtime/aot_model.h).

#include "ir/argument_value.h"
#include "runtime/pointwise_chain.h"
#include "xport/core/error.h"
#include "xport/runtime/aot_model.h"

namespace xport::aot {

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

void run_chunked(const std::vector<Tensor>& inputs, const Tensor& out, ChainFn chain) {
  runtime::for_each_chunk(inputs, out,
                          [chain](const std::vector<Tensor>& in, const Tensor* scratch,
                                  const Tensor& piece) { chain(in.data(), scratch, piece); });
}

}  // namespace xport::aot
