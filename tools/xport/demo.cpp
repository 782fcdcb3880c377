#include "tools/xport/demo.h"

#include <chrono>

#include "xport/xport.h"

namespace xport::tools {

int run_demo(std::ostream& out) {
  // A 3-layer MLP classifier with fixed random weights, run eagerly on a batch of 4.
  const Tensor x = randn({4, 16}, 1);
  const Tensor w1 = randn({16, 32}, 2) * 0.25, b1 = randn({32}, 3) * 0.1;
  const Tensor w2 = randn({32, 10}, 4) * 0.25;
  auto forward = [&] { return gelu(x.matmul(w1) + b1).matmul(w2).softmax(-1); };
  forward();  // the first call also sets up the kernel libraries; time the second
  const auto start = std::chrono::steady_clock::now();
  const Tensor probs = forward();
  const auto [best, label] = probs.max(1);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out << "xport demo: a 16-32-10 MLP (GELU, softmax) run eagerly on a batch of 4\n\n"
      << "input:\n"
      << x.slice(1, 0, 6) << "  (first 6 of 16 features)\n\n"
      << "class probabilities:\n"
      << probs << "\n\n"
      << "predicted class: " << label << "\n"
      << "confidence:      " << best << "\n\n"
      << "forward pass (warm): " << ms << " ms\n";
  return 0;
}

}  // namespace xport::tools
