#include <xport/runtime.h>

int main() {
  const xport::Tensor t = xport::ones({4});
  return xport::call_op("aten::add.Tensor", {t, t}).to_tensor().to_vector<float>()[0] == 2.0f ? 0
                                                                                              : 1;
}
