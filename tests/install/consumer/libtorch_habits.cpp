// A program written the way a libtorch user writes one: a default-constructed Module subclass,
// single-dim reductions, compound assignment (`acc += y`), <xport/xport.h> for everything
// including the runtime and the tokenizer, sym_min / sym_max spelled qualified, and ATen's ops as
// libtorch's at:: gives them (<xport/aten.h>, generated from the op registry).
#include <xport/aten.h>
#include <xport/xport.h>

#include <iostream>
#include <memory>

namespace nn = xport::nn;

struct Net : nn::Module {
  Net() {
    fc1 = register_module("fc1", std::make_shared<nn::Linear>(4, 8));
    fc2 = register_module("fc2", std::make_shared<nn::Linear>(8, 3));
  }
  xport::Tensor forward(const xport::Tensor& x) override {
    return fc2->forward(xport::relu(fc1->forward(x)));
  }
  std::shared_ptr<nn::Linear> fc1, fc2;
};

int main() {
  Net net;
  net.eval();
  const xport::Tensor x = xport::randn({2, 4}, 7);
  const xport::Tensor y = net.forward(x);
  const xport::Tensor rows = y.sum(1);            // [2]
  const xport::Tensor centred = y - y.mean(-1, true);  // [2, 3]
  const xport::Tensor peak = y.amax(0);           // [3]
  if (rows.dim() != 1 || centred.dim() != 2 || peak.dim() != 1) return 1;
  if (!xport::allclose(centred.sum(1), xport::zeros({2}), 1e-5, 1e-5)) return 1;
  if (static_cast<int64_t>(xport::sym_min(x.size(0), 100)) != 2) return 1;
  if (static_cast<int64_t>(xport::sym_max(x.size(1), 1)) != 4) return 1;
  static_assert(sizeof(xport::text::WordPiece) > 0, "<xport/xport.h> includes the tokenizer");
  const auto [normed, mean, rstd] =
      xport::aten::native_layer_norm(y, {3}, std::nullopt, std::nullopt, 1e-5);
  if (!xport::allclose(mean.squeeze(-1), y.mean(-1), 1e-5, 1e-6)) return 1;
  const xport::Tensor elu = xport::aten::elu(normed, 0.5);
  if (!xport::allclose(elu, xport::aten::elu(normed, 0.5, 1, 1))) return 1;
  // Compound assignment updates in place, as libtorch's does.
  xport::Tensor acc = y.clone();
  acc += y;
  acc *= 2.0;
  acc -= y;
  acc /= 3;
  if (!xport::allclose(acc, y, 1e-5, 1e-6)) return 1;

  const xport::ExportedProgram program =
      xport::export_program(net, [&](const xport::Tensor& in) { return net.forward(in); }, {x});
  xport::save(program, "libtorch_habits.pt2");
  const auto runtime = xport::runtime::Program::load("libtorch_habits.pt2");
  const xport::Tensor out = runtime.run({x}).at(0);
  std::cout << "libtorch habits: " << net.named_parameters().size() << " parameters\n";
  return xport::allclose(out, y, 1e-5, 1e-6) ? 0 : 1;
}
