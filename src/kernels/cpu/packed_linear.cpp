#include "kernels/cpu/packed_linear.h"

#include <unordered_map>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/onednn.h"
#include "kernels/cpu/shape.h"
#include "kernels/cpu/vec_math.h"
#include "tensor/file_mapping.h"

namespace xport::kernels::cpu {

using dnnl::memory;

struct PackedLinear::Packed {
  memory::desc md;
  std::shared_ptr<Storage> data;
};

struct PackedLinear::Primitive {
  dnnl::matmul matmul;
  memory::desc src_md, dst_md, bias_md, scratch_md;
  std::shared_ptr<const Packed> weights;
};

namespace {

memory::desc strided_md(const Tensor& t) {
  const std::vector<int64_t> sizes = t.int_sizes(), strides = t.int_strides();
  return memory::desc(memory::dims(sizes.begin(), sizes.end()), memory::data_type::f32,
                      memory::dims(strides.begin(), strides.end()));
}

}  // namespace

PackedLinear::PackedLinear(Tensor weight, Tensor bias, LinearActivation activation)
    : weight_(std::move(weight)), bias_(std::move(bias)), activation_(activation) {
  XPORT_CHECK(weight_.dim() == 2 && weight_.dtype() == DType::Float32 &&
                  (!bias_.defined() || (bias_.dim() == 1 && bias_.dtype() == DType::Float32 &&
                                        bias_.int_size(0) == weight_.int_size(1))),
              InvalidInput, "PackedLinear: expected a float32 weight [K, N] and bias [N]");
  if (bias_.defined() && !bias_.is_contiguous()) {
    Tensor packed = Tensor::empty_contiguous(bias_.int_sizes(), DType::Float32);
    copy_tensor(packed, bias_);
    bias_ = packed;
  }
}

PackedLinear::~PackedLinear() = default;

std::shared_ptr<const PackedLinear::Primitive> PackedLinear::primitive_for(int64_t rows) const {
  // Made under the lock: two threads meeting a new shape make one primitive, not two (a
  // duplicate destroyed while its twin runs is what ThreadSanitizer flags in oneDNN).
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = by_rows_.find(rows); it != by_rows_.end()) return it->second;
  const int64_t k = weight_.int_size(0), n = weight_.int_size(1);
  const auto f32 = memory::data_type::f32;
  using Tag = memory::format_tag;
  auto p = std::make_shared<Primitive>();
  p->src_md = memory::desc({rows, k}, f32, Tag::ab);
  p->dst_md = memory::desc({rows, n}, f32, Tag::ab);
  p->bias_md = bias_.defined() ? memory::desc({1, n}, f32, Tag::ab) : memory::desc();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (activation_ != LinearActivation::None) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.f, eltwise_algorithm(activation_), 0.f, 0.f);
    attr.set_post_ops(ops);
  }
  const dnnl::matmul::primitive_desc pd(
      dnnl::matmul::desc(p->src_md, memory::desc({k, n}, f32, Tag::any), p->bias_md, p->dst_md),
      attr, onednn_engine());
  note_implementation(pd);
  p->matmul = dnnl::matmul(pd);
  p->scratch_md = pd.scratchpad_desc();
  const memory::desc wei_md = pd.weights_desc();
  for (const auto& packed : packed_) {
    if (packed->md == wei_md) p->weights = packed;
  }
  if (!p->weights) {
    auto packed = std::make_shared<Packed>();
    packed->md = wei_md;
    packed->data = Storage::allocate(static_cast<int64_t>(wei_md.get_size()));
    memory user(strided_md(weight_), onednn_engine(), weight_.raw_data());
    memory to(wei_md, onednn_engine(), packed->data->data());
    dnnl::stream stream(onednn_engine());
    const dnnl::reorder::primitive_desc reorder_pd(user, to);
    note_implementation(reorder_pd);
    dnnl::reorder(reorder_pd).execute(stream, user, to);
    stream.wait();
    packed_.push_back(packed);
    p->weights = std::move(packed);
    detail::release_file_pages(weight_);  // the copy runs; a later layout reads the file again
  }
  return by_rows_.emplace(rows, std::move(p)).first->second;
}

const PackedGemv& PackedLinear::gemv() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!gemv_) {
    gemv_ = std::make_shared<const PackedGemv>(weight_);
    detail::release_file_pages(weight_);
  }
  return *gemv_;
}

// A few rows: a bandwidth-bound product on the GEMV layout, then bias and activation per row.
void PackedLinear::run_few_rows(const Tensor& x, const Tensor& out) const {
  const int64_t rows = x.int_size(0), n = weight_.int_size(1);
  float* y = static_cast<float*>(out.raw_data());
  gemv().run(static_cast<const float*>(x.raw_data()), rows, y);
  for (int64_t r = 0; r < rows; ++r) {
    float* row = y + r * n;
    if (bias_.defined()) vec::add(row, static_cast<const float*>(bias_.raw_data()), row, n, 1.0f);
    switch (activation_) {
      case LinearActivation::Relu:
        vec::relu(row, row, n);
        break;
      case LinearActivation::GeluErf:
        vec::gelu_erf(row, row, n);
        break;
      case LinearActivation::GeluTanh:
        vec::gelu_tanh(row, row, n);
        break;
      case LinearActivation::None:
        break;
    }
  }
}

void PackedLinear::run(const Tensor& input, const Tensor& out) const {
  XPORT_CHECK(input.dim() == 2 && input.int_size(1) == weight_.int_size(0) &&
                  input.dtype() == DType::Float32 && out.is_contiguous(),
              Internal, "PackedLinear::run: expected a float32 input [M, ", weight_.int_size(0),
              "] and a contiguous output");
  const int64_t rows = input.int_size(0);
  if (rows == 0) return;
  const Tensor x = contiguous_as(input, DType::Float32);
  if (rows <= PackedGemv::kMaxRows) {
    run_few_rows(x, out);
    return;
  }
  const std::shared_ptr<const Primitive> p = primitive_for(rows);
  thread_local ScratchBuffer scratch;
  dnnl::engine& eng = onednn_engine();
  dnnl::stream stream(eng);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(p->src_md, eng, x.raw_data())},
      {DNNL_ARG_WEIGHTS, memory(p->weights->md, eng, p->weights->data->data())},
      {DNNL_ARG_DST, memory(p->dst_md, eng, out.raw_data())},
      {DNNL_ARG_SCRATCHPAD, memory(p->scratch_md, eng, scratch.get(p->scratch_md.get_size()))}};
  if (bias_.defined()) args.emplace(DNNL_ARG_BIAS, memory(p->bias_md, eng, bias_.raw_data()));
  p->matmul.execute(stream, args);
  stream.wait();
  scratch.trim();
}

}  // namespace xport::kernels::cpu
