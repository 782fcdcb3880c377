#include "torch_oracle.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "torch_program.h"
#include "xport/onnx/onnx.h"
#include "xport/ops/npy.h"

namespace xport::soundness {
namespace fs = std::filesystem;

TorchOracle::TorchOracle(const std::string& python, const std::string& worker,
                         const std::string& known) {
  std::ifstream in(known);
  if (!in) throw std::runtime_error("torch oracle: cannot read " + known);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    line = line.substr(0, line.find("  #"));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) known_.push_back(line);
  }
  // A worker that dies (torch missing, a crash) must fail the run with a message, not end it
  // with SIGPIPE on the next request.
  signal(SIGPIPE, SIG_IGN);
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) {
    throw std::runtime_error("torch oracle: pipe failed");
  }
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("torch oracle: fork failed");
  if (pid_ == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    close(to_child[1]);
    close(from_child[0]);
    execlp(python.c_str(), python.c_str(), worker.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  to_ = fdopen(to_child[1], "w");
  from_ = fdopen(from_child[0], "r");
  dir_ = (fs::temp_directory_path() / ("xport-torch-oracle-" + std::to_string(getpid())))
             .string();
}

TorchOracle::~TorchOracle() {
  if (to_ != nullptr) {
    std::fputs("\n", to_);
    std::fclose(to_);
  }
  if (from_ != nullptr) std::fclose(from_);
  if (pid_ > 0) waitpid(pid_, nullptr, 0);
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
  fs::remove(dir_ + ".onnx", ignored);
}

bool TorchOracle::pytorch_own(const std::string& error) const {
  for (const std::string& part : known_) {
    if (error.find(part) != std::string::npos) return true;
  }
  return false;
}

namespace {

// The runs of one engine in a reply: each an error, or its outputs (set{K}{out}{J}.npy) and
// the inputs after the run (set{K}{after}{I}.npy).
std::vector<TorchOracle::Run> read_runs(const nlohmann::json& runs, const std::string& dir,
                                        const std::string& out, const std::string& after,
                                        size_t inputs) {
  std::vector<TorchOracle::Run> read;
  for (size_t k = 0; k < runs.size(); ++k) {
    const nlohmann::json& r = runs[k];
    TorchOracle::Run run;
    if (r.contains("error")) {
      run.error = r["error"].get<std::string>();
    } else {
      const std::string stem = (fs::path(dir) / ("set" + std::to_string(k))).string();
      for (int j = 0; j < r["outputs"].get<int>(); ++j) {
        run.outputs.push_back(load_npy(stem + out + std::to_string(j) + ".npy"));
      }
      for (size_t i = 0; i < inputs; ++i) {
        run.inputs_after.push_back(load_npy(stem + after + std::to_string(i) + ".npy"));
      }
    }
    read.push_back(std::move(run));
  }
  return read;
}

}  // namespace

void TorchOracle::offer_onnx(const ExportedProgram& program) {
  onnx_written_ = false;
  onnx_refused_.reset();
  if (onnx_every <= 0 || onnx_seen++ % onnx_every != 0) return;
  try {
    onnx::save(program, dir_ + ".onnx");
    onnx_written_ = true;
  } catch (const Error& e) {
    onnx_refused_ = e;
    onnx_refusals[to_string(e.kind())]++;
  }
}

TorchOracle::Answer TorchOracle::run(const ProgramSpec& spec,
                                     const std::vector<std::vector<Tensor>>& sets) {
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
  fs::create_directories(dir_);
  std::ofstream(fs::path(dir_) / "program.py") << torch_source(spec);
  const size_t inputs = sets.empty() ? 0 : sets[0].size();
  for (size_t k = 0; k < sets.size(); ++k) {
    for (size_t i = 0; i < inputs; ++i) {
      save_npy(sets[k][i], (fs::path(dir_) / ("set" + std::to_string(k) + "_in" +
                                              std::to_string(i) + ".npy"))
                               .string());
    }
  }
  Answer answer;
  answer.onnx_refused = onnx_refused_;
  nlohmann::json request = {{"dir", dir_}, {"sets", sets.size()}, {"inputs", inputs}};
  if (onnx_written_) request["onnx"] = dir_ + ".onnx";
  onnx_written_ = false;
  onnx_refused_.reset();
  std::fputs((request.dump() + "\n").c_str(), to_);
  std::fflush(to_);
  std::string line;
  for (int c; (c = std::fgetc(from_)) != EOF && c != '\n';) line += static_cast<char>(c);
  if (line.empty()) throw std::runtime_error("torch oracle: the worker is gone");
  const nlohmann::json reply = nlohmann::json::parse(line);
  if (reply.contains("failed")) {
    throw std::runtime_error("PyTorch cannot build the program: " +
                             reply["failed"].get<std::string>());
  }
  ++programs;
  answer.torch = read_runs(reply["runs"], dir_, "_out", "_after", inputs);
  if (reply.contains("onnx_runs")) {
    ++onnx_programs;
    answer.onnx_ran = true;
    answer.onnx = read_runs(reply["onnx_runs"], dir_, "_onnx_out", "_onnx_after", inputs);
  }
  return answer;
}

}  // namespace xport::soundness
