#include <xport/xport.h>

#include <iostream>

int main() {
  const xport::Tensor x = xport::arange(6, xport::DType::Float32).view({2, 3});
  const xport::Tensor y = xport::relu(x - 2.0);
  std::cout << y << "\n";
  return y.to_vector<float>() == std::vector<float>{0, 0, 0, 1, 2, 3} ? 0 : 1;
}
