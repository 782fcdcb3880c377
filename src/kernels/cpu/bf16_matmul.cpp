#include "kernels/cpu/bf16_matmul.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "kernels/cpu/bf16_dot.h"
#include "kernels/cpu/onednn.h"

namespace xport::kernels::cpu {
namespace {

using dnnl::memory;

struct Bf16Matmul {
  dnnl::matmul matmul;
  memory::desc src, weights, bias, dst, scratch;
};

// One primitive per shape (rows change with the batch), made under the lock; null where
// oneDNN would run its reference code.
std::shared_ptr<const Bf16Matmul> primitive_for(int64_t m, int64_t k, int64_t n, bool bias) {
  static std::mutex mutex;
  static std::map<std::tuple<int64_t, int64_t, int64_t, bool>,
                  std::shared_ptr<const Bf16Matmul>> made;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(m, k, n, bias);
  if (auto it = made.find(key); it != made.end()) return it->second;
  if (made.size() > 256) made.clear();  // many batch sizes: start over rather than grow
  using Tag = memory::format_tag;
  const auto bf16 = memory::data_type::bf16, f32 = memory::data_type::f32;
  auto p = std::make_shared<Bf16Matmul>();
  p->src = memory::desc({m, k}, bf16, Tag::ab);
  p->weights = memory::desc({k, n}, bf16, Tag::ba);  // the layer's [N, K], read transposed
  p->bias = bias ? memory::desc({1, n}, f32, Tag::ab) : memory::desc();
  p->dst = memory::desc({m, n}, f32, Tag::ab);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  std::shared_ptr<const Bf16Matmul> result;
  try {
    const dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(p->src, p->weights, p->bias, p->dst), attr, onednn_engine());
    if (!is_reference_implementation(pd)) {
      note_implementation(pd);
      p->matmul = dnnl::matmul(pd);
      p->scratch = pd.scratchpad_desc();
      result = std::move(p);
    }
  } catch (const dnnl::error&) {
    // No implementation for these types here: the caller computes in float32.
  }
  return made.emplace(key, std::move(result)).first->second;
}

}  // namespace

bool bf16_matmul(const uint16_t* x, int64_t m, const uint16_t* w, int64_t k, int64_t n,
                 const float* bias, float* out) {
  if (!has_bf16_dot()) return false;
  const std::shared_ptr<const Bf16Matmul> p = primitive_for(m, k, n, bias != nullptr);
  if (!p) return false;
  thread_local ScratchBuffer scratch;
  dnnl::engine& eng = onednn_engine();
  dnnl::stream stream(eng);
  // oneDNN reads its inputs through non-const pointers.
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(p->src, eng, const_cast<uint16_t*>(x))},
      {DNNL_ARG_WEIGHTS, memory(p->weights, eng, const_cast<uint16_t*>(w))},
      {DNNL_ARG_DST, memory(p->dst, eng, out)},
      {DNNL_ARG_SCRATCHPAD, memory(p->scratch, eng, scratch.get(p->scratch.get_size()))}};
  if (bias != nullptr) {
    args.emplace(DNNL_ARG_BIAS, memory(p->bias, eng, const_cast<float*>(bias)));
  }
  p->matmul.execute(stream, args);
  stream.wait();
  scratch.trim();
  return true;
}

}  // namespace xport::kernels::cpu
