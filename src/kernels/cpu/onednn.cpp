#include "kernels/cpu/onednn.h"

#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <mutex>

namespace xport::kernels::cpu {
namespace {

struct Implementations {
  std::mutex mutex;
  std::vector<std::string> seen;
  std::vector<std::string> reference;  // those of `seen` that are oneDNN's reference code
};

Implementations& implementations() {
  static Implementations all;
  return all;
}

}  // namespace

dnnl::algorithm eltwise_algorithm(LinearActivation activation) {
  switch (activation) {
    case LinearActivation::Relu:
      return dnnl::algorithm::eltwise_relu;
    case LinearActivation::GeluErf:
      return dnnl::algorithm::eltwise_gelu_erf;
    case LinearActivation::GeluTanh:
      return dnnl::algorithm::eltwise_gelu_tanh;
    case LinearActivation::None:
      break;
  }
  return dnnl::algorithm::undef;
}

void reorder_now(const dnnl::memory& from, const dnnl::memory& to) {
  dnnl::engine& eng = onednn_engine();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::reorder::primitive_desc pd(eng, from.get_desc(), eng, to.get_desc(), attr);
  note_implementation(pd);
  const dnnl::memory::desc scratch_md = pd.scratchpad_desc();
  std::vector<uint8_t> scratch(std::max<size_t>(scratch_md.get_size(), 64));
  dnnl::stream stream(eng);
  dnnl::reorder(pd).execute(stream, {{DNNL_ARG_FROM, from},
                                     {DNNL_ARG_TO, to},
                                     {DNNL_ARG_SCRATCHPAD, dnnl::memory(scratch_md, eng,
                                                                        scratch.data())}});
  stream.wait();
}

void note_implementation(const dnnl::primitive_desc_base& pd) {
  const auto kind = static_cast<dnnl_primitive_kind_t>(pd.get_kind());
  std::string entry = std::string(dnnl_prim_kind2str(kind)) + " " + pd.impl_info_str();
  Implementations& all = implementations();
  std::lock_guard<std::mutex> lock(all.mutex);
  if (std::find(all.seen.begin(), all.seen.end(), entry) == all.seen.end()) {
    if (is_reference_implementation(pd)) all.reference.push_back(entry);
    all.seen.push_back(std::move(entry));
  }
}

std::vector<std::string> onednn_implementations() {
  Implementations& all = implementations();
  std::lock_guard<std::mutex> lock(all.mutex);
  return all.seen;
}

std::vector<std::string> onednn_reference_implementations() {
  Implementations& all = implementations();
  std::lock_guard<std::mutex> lock(all.mutex);
  return all.reference;
}

}  // namespace xport::kernels::cpu
