#include <xport/xport.h>

#include <iostream>

int main() {
  const xport::Tensor x = xport::arange(6, xport::DType::Float32).view({2, 3});
  const xport::Tensor y = xport::relu(x - 2.0);
  std::cout << y << "\n";
  if (y.to_vector<float>() != std::vector<float>{0, 0, 0, 1, 2, 3}) return 1;

  // Modules and safetensors weights from the installed package.
  xport::nn::Linear saved(3, 2), loaded(3, 2);
  xport::save_safetensors(saved, "consumer_linear.safetensors");
  xport::load_safetensors(loaded, "consumer_linear.safetensors");
  return xport::allclose(saved.forward(x), loaded.forward(x)) ? 0 : 1;
}
