// torchvision's ResNet (v1.5: the stride sits on the 3x3 conv of a bottleneck block).
#include <cmath>

#include "nn/init.h"
#include "xport/nn/models.h"
#include "xport/ops/functions.h"

namespace xport::models {
namespace {

using nn::BatchNorm2d;
using nn::Conv2d;

std::shared_ptr<Conv2d> conv(int64_t in, int64_t out, int64_t kernel, int64_t stride = 1) {
  Conv2d::Options o;
  o.stride = {stride, stride};
  o.padding = {kernel / 2, kernel / 2};
  o.bias = false;
  auto c = std::make_shared<Conv2d>(in, out, std::vector<int64_t>{kernel, kernel}, o);
  // torchvision: kaiming_normal_(mode="fan_out", nonlinearity="relu").
  const double std = std::sqrt(2.0 / static_cast<double>(out * kernel * kernel));
  c->weight.copy_(nn::detail::normal(c->weight.int_sizes(), std));
  return c;
}

// One residual block: BasicBlock (two 3x3 convs) or Bottleneck (1x1, 3x3, 1x1 with expansion 4).
class Block : public nn::Module {
 public:
  Block(bool bottleneck, int64_t inplanes, int64_t planes, int64_t stride)
      : Module(bottleneck ? "Bottleneck" : "BasicBlock") {
    const int64_t out = bottleneck ? planes * 4 : planes;
    if (bottleneck) {
      convs_.push_back(register_module("conv1", conv(inplanes, planes, 1)));
      bns_.push_back(register_module("bn1", std::make_shared<BatchNorm2d>(planes)));
      convs_.push_back(register_module("conv2", conv(planes, planes, 3, stride)));
      bns_.push_back(register_module("bn2", std::make_shared<BatchNorm2d>(planes)));
      convs_.push_back(register_module("conv3", conv(planes, out, 1)));
      bns_.push_back(register_module("bn3", std::make_shared<BatchNorm2d>(out)));
    } else {
      convs_.push_back(register_module("conv1", conv(inplanes, planes, 3, stride)));
      bns_.push_back(register_module("bn1", std::make_shared<BatchNorm2d>(planes)));
      convs_.push_back(register_module("conv2", conv(planes, planes, 3)));
      bns_.push_back(register_module("bn2", std::make_shared<BatchNorm2d>(planes)));
    }
    if (stride != 1 || inplanes != out) {
      downsample_ = register_module(
          "downsample", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<Module>>{
                            conv(inplanes, out, 1, stride), std::make_shared<BatchNorm2d>(out)}));
    }
  }

  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    Tensor y = x;
    for (size_t i = 0; i < convs_.size(); ++i) {
      y = bns_[i]->forward(convs_[i]->forward(y));
      if (i + 1 < convs_.size()) y = relu(y);
    }
    return relu(y + (downsample_ ? downsample_->forward(x) : x));
  }

 private:
  std::vector<std::shared_ptr<Conv2d>> convs_;
  std::vector<std::shared_ptr<BatchNorm2d>> bns_;
  std::shared_ptr<nn::Sequential> downsample_;
};

}  // namespace

ResNet::ResNet(bool bottleneck, const std::vector<int64_t>& blocks, int64_t num_classes)
    : Module("ResNet") {
  XPORT_CHECK(blocks.size() == 4, InvalidInput, "ResNet: needs the block count of 4 stages, got ",
              blocks.size());
  conv1_ = register_module("conv1", conv(3, 64, 7, 2));
  bn1_ = register_module("bn1", std::make_shared<BatchNorm2d>(64));
  const int64_t expansion = bottleneck ? 4 : 1;
  int64_t inplanes = 64;
  for (size_t s = 0; s < 4; ++s) {
    const int64_t planes = 64 << s;
    auto stage = std::make_shared<nn::Sequential>();
    for (int64_t b = 0; b < blocks[s]; ++b) {
      const int64_t stride = (s > 0 && b == 0) ? 2 : 1;
      stage->push_back(std::make_shared<Block>(bottleneck, inplanes, planes, stride));
      inplanes = planes * expansion;
    }
    stages_.push_back(register_module("layer" + std::to_string(s + 1), stage));
  }
  fc_ = register_module("fc", std::make_shared<nn::Linear>(512 * expansion, num_classes));
}

Tensor ResNet::forward(const Tensor& x) {
  nn::ModuleScope scope(*this);
  XPORT_CHECK(x.dim() == 4, InvalidInput, "ResNet: expected input [N, 3, H, W], got ", x.dim(),
              "-D");
  Tensor y = relu(bn1_->forward(conv1_->forward(x)));
  y = max_pool2d(y, {3, 3}, {2, 2}, {1, 1});
  for (const auto& stage : stages_) y = stage->forward(y);
  y = adaptive_avg_pool2d(y, {1, 1}).flatten(1);
  return fc_->forward(y);
}

std::shared_ptr<ResNet> resnet18(int64_t num_classes) {
  return std::make_shared<ResNet>(false, std::vector<int64_t>{2, 2, 2, 2}, num_classes);
}

std::shared_ptr<ResNet> resnet50(int64_t num_classes) {
  return std::make_shared<ResNet>(true, std::vector<int64_t>{3, 4, 6, 3}, num_classes);
}

}  // namespace xport::models
