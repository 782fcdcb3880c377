#include "tools/xport/run.h"

#include <cctype>
#include <filesystem>
#include <set>

#include "tools/xport/program_inputs.h"
#include "xport/ops/npy.h"
#include "xport/runtime.h"

namespace xport::tools {
namespace {

Tensor read_input(const std::string& name, const std::string& path) {
  try {
    return load_npy(path);
  } catch (const Error& e) {
    throw Error(e.kind(), "run: input " + name + ": " + e.what());
  }
}

// The inputs in contract order, each from its --input argument.
std::vector<Value> read_inputs(const runtime::Program& program, const RunOptions& options) {
  const auto& contract = program.contract();
  const std::map<std::string, std::string> given =
      assignments_by_name(options.inputs, "run", "--input", contract, program.symbols());
  std::vector<Value> values;
  for (const InputContract& c : contract) {
    const auto it = given.find(c.name);
    if (is_plain(c)) {
      values.push_back(plain_input(c, it == given.end() ? nullptr : &it->second, "run"));
      continue;
    }
    XPORT_CHECK(it != given.end(), InvalidInput, "run: no --input for ", c.name, " (",
                contract_type(c), "); pass --input ", c.name, "=FILE.npy",
                c.kind == InputContract::Kind::TensorList
                    ? " with one file per element, e.g. " + c.name + "=a.npy,b.npy"
                    : "",
                expected_inputs(contract, program.symbols()));
    if (c.kind == InputContract::Kind::Tensor) {
      values.push_back(read_input(c.name, it->second));
      continue;
    }
    std::vector<Tensor> list;
    size_t start = 0;
    while (start <= it->second.size()) {
      size_t comma = it->second.find(',', start);
      if (comma == std::string::npos) comma = it->second.size();
      list.push_back(read_input(c.name, it->second.substr(start, comma - start)));
      start = comma + 1;
    }
    values.push_back(std::move(list));
  }
  return values;
}

// A file name for each output: the graph's name for it where that is a plain identifier not
// used by an earlier output, else output_<i>.
std::vector<std::string> output_file_stems(const ExportedProgram& program, size_t count) {
  std::vector<std::string> stems;
  std::set<std::string> used;
  const auto& specs = program.signature().outputs;
  for (size_t i = 0; i < count; ++i) {
    std::string stem = i < specs.size() ? specs[i].name : "";
    bool plain = !stem.empty();
    for (char ch : stem)
      plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
    if (!plain || used.count(stem)) stem = "output_" + std::to_string(i);
    used.insert(stem);
    stems.push_back(stem);
  }
  return stems;
}

}  // namespace

int run_run(const RunOptions& options, std::ostream& out) {
  runtime::Options runtime_options;
  runtime_options.num_threads = options.threads;
  runtime_options.fuse = options.fuse;
  const runtime::Program program = runtime::Program::load(options.archive, runtime_options);
  const std::vector<Value> inputs = read_inputs(program, options);
  const std::vector<Tensor> outputs = program.run_values(inputs);

  const std::filesystem::path dir = options.out_dir.empty() ? "." : options.out_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  XPORT_CHECK(!ec, InvalidInput, "run: cannot create the output directory '", dir.string(),
              "': ", ec.message());
  const std::vector<std::string> stems = output_file_stems(program.program(), outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    // NumPy has no bfloat16: such outputs are written as float32.
    const Tensor& t = outputs[i];
    const bool widened = t.dtype() == DType::BFloat16;
    const std::string path = (dir / (stems[i] + ".npy")).string();
    save_npy(widened ? t.to(DType::Float32) : t, path);
    out << stems[i] << ": " << dtype_name(t.dtype()) << " " << shape_str(t.int_sizes()) << " -> "
        << path << (widened ? " (written as float32)" : "") << "\n";
  }
  return 0;
}

}  // namespace xport::tools
