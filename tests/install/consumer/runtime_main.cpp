#include <xport/runtime.h>

// xport::runtime declares nothing it cannot link: decompositions re-trace, which is capture's.
template <class P>
concept CanDecompose = requires(const P& p) { p.run_decompositions(); };
static_assert(!CanDecompose<xport::ExportedProgram>,
              "xport::runtime must not declare ExportedProgram::run_decompositions");
// Nor the eager ops (xport/ops/functions.h): its umbrella has the factories, not xport::relu.
template <class T>
concept HasEagerOps = requires(const T& t) { relu(t); };  // found by ADL when declared
static_assert(!HasEagerOps<xport::Tensor>, "xport/runtime.h must not declare the eager ops");

int main() {
  const xport::Tensor t = xport::ones({4});
  return xport::call_op("aten::add.Tensor", {t, t}).to_tensor().to_vector<float>()[0] == 2.0f ? 0
                                                                                              : 1;
}
