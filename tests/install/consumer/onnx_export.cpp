// A user's program that exports a captured model to ONNX through the installed xport::onnx.
#include <xport/onnx/onnx.h>
#include <xport/xport.h>

#include <cstdio>
#include <iostream>

int main() {
  xport::nn::Linear fc(3, 4);
  xport::ExportOptions options;
  options.dynamic_shapes = {{{0, xport::Dim("batch", 1, 64)}}};
  const xport::ExportedProgram program = xport::export_program(
      fc, [&](const xport::Tensor& x) { return xport::relu(fc.forward(x)); },
      {xport::randn({2, 3}, 0)}, options);
  xport::onnx::save(program, "consumer.onnx");
  const std::string text = xport::onnx::describe("consumer.onnx");
  std::remove("consumer.onnx");
  if (text.find("input x: FLOAT [batch, 3]") == std::string::npos) {
    std::cerr << "unexpected model:\n" << text;
    return 1;
  }
  std::cout << "onnx consumer: ok\n";
  return 0;
}
