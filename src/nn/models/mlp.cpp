#include "xport/nn/models.h"

namespace xport::models {

MLP::MLP(const std::vector<int64_t>& widths) : nn::Module("MLP") {
  XPORT_CHECK(widths.size() >= 2, InvalidInput,
              "mlp: needs at least two widths (input and output), got ", widths.size());
  layers = register_module("layers", std::make_shared<nn::Sequential>());
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    if (i > 0) layers->push_back(std::make_shared<nn::GELU>());
    layers->push_back(std::make_shared<nn::Linear>(widths[i], widths[i + 1]));
  }
}

Tensor MLP::forward(const Tensor& x) {
  nn::ModuleScope scope(*this);
  return layers->forward(x);
}

std::shared_ptr<MLP> mlp(std::vector<int64_t> widths) { return std::make_shared<MLP>(widths); }

}  // namespace xport::models
