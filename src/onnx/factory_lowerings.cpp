// Tensors made from sizes and numbers.
#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

// `value` broadcast to the result's sizes.
void fill_result(NodeLowering& n, const std::string& value) {
  n.emit("Expand", {value, n.g.shape(n.out_spec().sizes)});
}

void arange(NodeLowering& n) {
  const DType t = n.out_dtype();
  if (t != DType::Float32 && t != DType::Float64 && t != DType::Int16 && t != DType::Int32 &&
      t != DType::Int64) {
    n.refuse(std::string("a range of ") + dtype_name(t) + " (ONNX's Range makes floats and "
             "16-, 32- and 64-bit integers)");
  }
  n.emit("Range", {n.scalar("start", t), n.scalar("end", t), n.scalar("step", t)});
}

}  // namespace

LoweringList factory_lowerings() {
  return {
      {"aten::scalar_tensor",
       [](NodeLowering& n) { n.set(n.g.add("Identity", {n.scalar("s", n.out_dtype())}, {},
                                            n.node().name())); }},
      {"aten::full",
       [](NodeLowering& n) { fill_result(n, n.scalar("fill_value", n.out_dtype())); }},
      {"aten::fill.Scalar",
       [](NodeLowering& n) { fill_result(n, n.scalar("value", n.out_dtype())); }},
      // Uninitialised memory: zeros are one of its values.
      {"aten::empty.memory_format",
       [](NodeLowering& n) { fill_result(n, n.g.scalar(n.out_dtype(), 0)); }},
      {"aten::empty_strided",
       [](NodeLowering& n) { fill_result(n, n.g.scalar(n.out_dtype(), 0)); }},
      {"aten::arange.start_step", arange},
  };
}

}  // namespace xport::onnx
