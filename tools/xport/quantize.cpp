// Calibration inputs: DIR holds one input set as NAME.npy per tensor input of the program (NAME
// as the contract names it), or one subfolder per input set, each laid out so. Plain inputs
// (int, float, bool) take the value the program was specialised to.
#include "tools/xport/quantize.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "tools/xport/program_inputs.h"
#include "xport/ops/npy.h"
#include "xport/quant/quant.h"
#include "xport/serde/archive.h"

namespace xport::tools {
namespace {

namespace fs = std::filesystem;

// The input set in `dir`: NAME.npy for each tensor input.
std::vector<Value> input_set(const ExportedProgram& program, const fs::path& dir) {
  std::vector<Value> inputs;
  for (const InputContract& c : program.contract()) {
    if (is_plain(c)) {
      inputs.push_back(plain_input(c, nullptr, "quantize"));
      continue;
    }
    XPORT_CHECK(c.kind == InputContract::Kind::Tensor, UnsupportedOp, "xport quantize: input '",
                c.name, "' is a list of tensors; calibration reads one .npy per tensor input");
    const fs::path file = dir / (c.name + ".npy");
    XPORT_CHECK(fs::exists(file), InvalidInput, "xport quantize: ", dir.string(), " has no ",
                file.filename().string(), " for input '", c.name, "'; the program takes:",
                expected_inputs(program.contract(), program.symbols()));
    inputs.emplace_back(load_npy(file.string()));
  }
  return inputs;
}

// The input sets of a calibration folder: itself, or each of its subfolders, in name order.
std::vector<fs::path> input_set_dirs(const fs::path& root) {
  XPORT_CHECK(fs::is_directory(root), InvalidInput, "xport quantize: --calibrate ",
              root.string(), " is not a folder");
  std::vector<fs::path> dirs;
  bool has_npy = false;
  for (const fs::directory_entry& e : fs::directory_iterator(root)) {
    if (e.is_directory()) dirs.push_back(e.path());
    has_npy = has_npy || e.path().extension() == ".npy";
  }
  if (has_npy) return {root};
  std::sort(dirs.begin(), dirs.end());
  XPORT_CHECK(!dirs.empty(), InvalidInput, "xport quantize: ", root.string(),
              " holds no input set (NAME.npy per input, or one subfolder of them per set)");
  return dirs;
}

int64_t state_bytes(const ExportedProgram& p) {
  int64_t bytes = 0;
  for (const auto& [name, t] : p.state()) {
    bytes += t.int_numel() * element_size(t.dtype());
  }
  return bytes;
}

int count_calls(const ExportedProgram& p, const std::string& prefix) {
  int n = 0;
  for (const auto& node : p.graph().nodes()) {
    if (node->kind() == ir::NodeKind::Call && node->op()->qualified_name.rfind(prefix, 0) == 0) {
      ++n;
    }
  }
  return n;
}

}  // namespace

namespace {

// bf16: quant::to_bf16, its linear layers computed as torch.autocast(bfloat16) computes them.
int run_to_bf16(const QuantizeOptions& options, std::ostream& report) {
  XPORT_CHECK(options.calibrate.empty(), InvalidInput,
              "xport quantize: bf16 needs no calibration; --calibrate is for static-int8");
  const ExportedProgram program = load(options.archive);
  const ExportedProgram half = quant::to_bf16(program);
  save(half, options.out);
  int stored = 0;
  for (const auto& [name, value] : half.state()) stored += value.dtype() == DType::BFloat16;
  report << options.archive << " -> " << options.out << " (bf16): " << stored
         << " weights stored as bfloat16, linear layers computed in bfloat16"
         << "\n  weights and buffers: " << bytes_str(state_bytes(program)) << " -> "
         << bytes_str(state_bytes(half)) << "\n";
  return 0;
}

}  // namespace

int run_quantize(const QuantizeOptions& options, std::ostream& report) {
  if (options.scheme == "bf16") return run_to_bf16(options, report);
  const quant::Scheme scheme = quant::scheme_from_string(options.scheme);
  const bool calibrated = scheme == quant::Scheme::StaticInt8;
  XPORT_CHECK(!calibrated || !options.calibrate.empty(), InvalidInput,
              "xport quantize: static-int8 takes its activations' ranges from calibration "
              "inputs: add --calibrate DIR (NAME.npy per input, or a subfolder of them per "
              "input set), or choose dynamic-int8, which needs none");
  XPORT_CHECK(calibrated || options.calibrate.empty(), InvalidInput, "xport quantize: ",
              options.scheme, " needs no calibration; --calibrate is for static-int8");
  const ExportedProgram program = load(options.archive);
  const ExportedProgram prepared =
      quant::prepare(program, {.scheme = scheme, .group_size = options.group_size});
  int sets = 0;
  if (calibrated) {
    for (const fs::path& dir : input_set_dirs(options.calibrate)) {
      prepared.run(input_set(prepared, dir));
      ++sets;
    }
  }
  const ExportedProgram quantized = quant::convert(prepared);
  save(quantized, options.out);
  // Layers this call quantized (a program PyTorch quantized may hold some already).
  const int layers = count_calls(quantized, "quantized_decomposed::dequantize_per_channel") -
                     count_calls(program, "quantized_decomposed::dequantize_per_channel");
  report << options.archive << " -> " << options.out << " (" << options.scheme << "): "
         << layers << " layers quantized";
  if (calibrated) report << ", activations calibrated on " << sets << " input sets";
  report << "\n  weights and buffers: " << bytes_str(state_bytes(program)) << " -> "
         << bytes_str(state_bytes(quantized)) << "\n";
  return 0;
}

}  // namespace xport::tools
