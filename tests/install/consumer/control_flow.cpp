// Control flow and data-dependent values from the installed package, written as a PyTorch user
// writes torch.cond and torch._check: export with a dynamic batch, save, load in the runtime,
// and compare with eager on inputs that take both branches.
#include <xport/xport.h>

#include <iostream>

int main() {
  using Tensors = std::vector<xport::Tensor>;
  auto fn = [](const xport::Tensor& x, const xport::Tensor& k) {
    const Tensors y = xport::cond(
        x.sum().gt(0.0), [](const Tensors& o) { return Tensors{xport::relu(o[0])}; },
        [](const Tensors& o) { return Tensors{o[0] * -1.0}; }, {x});
    const xport::SymInt n = k.item_int();
    xport::constrain_as_size(n);
    xport::check(n <= x.size(0));
    return y[0].narrow(0, 0, n);
  };
  xport::ExportOptions options;
  options.dynamic_shapes = {{{0, xport::Dim("batch")}}, {}};
  const xport::ExportedProgram program = xport::export_program(
      fn, {xport::randn({4, 3}, 1), xport::full({}, 2, xport::DType::Int64)}, options);
  xport::save(program, "control_flow.pt2");
  const auto runtime = xport::runtime::Program::load("control_flow.pt2");
  for (int64_t batch : {2, 7}) {
    for (double sign : {1.0, -1.0}) {
      const xport::Tensor x = xport::ones({batch, 3}) * sign;
      const xport::Tensor k = xport::full({}, batch - 1, xport::DType::Int64);
      const xport::Tensor want = fn(x, k);
      if (!xport::allclose(runtime.run({x, k}).at(0), want)) return 1;
    }
  }
  try {  // k above the batch: refused by the program's own check
    runtime.run({xport::ones({2, 3}), xport::full({}, 5, xport::DType::Int64)});
    return 1;
  } catch (const xport::Error& e) {
    if (e.kind() != xport::ErrorKind::InvalidInput) return 1;
  }
  std::cout << "control flow: ok\n";
  return 0;
}
