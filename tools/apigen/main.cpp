// xport_apigen OUT_DIR: writes the C++ declarations derived from the op registry (see
// src/ops/declarations.h) into OUT_DIR: xport/aten.h, xport/kernels.h and
// kernel_references.cpp. A file whose text is unchanged is left alone, so nothing rebuilds.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "ops/declarations.h"
#include "xport/core/error.h"

namespace {

void write_if_changed(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream old;
    old << in.rdbuf();
    if (in && old.str() == text) return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: xport_apigen OUT_DIR\n";
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    write_if_changed(dir / "xport" / "aten.h", xport::ops::aten_api_header());
    write_if_changed(dir / "xport" / "kernels.h", xport::ops::kernel_declarations_header());
    write_if_changed(dir / "kernel_references.cpp", xport::ops::kernel_references_source());
  } catch (const std::exception& e) {
    std::cerr << "xport_apigen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
