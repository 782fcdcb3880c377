#include "torch_oracle.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "torch_program.h"
#include "xport/npy.h"

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
}

bool TorchOracle::pytorch_own(const std::string& error) const {
  for (const std::string& part : known_) {
    if (error.find(part) != std::string::npos) return true;
  }
  return false;
}

std::vector<TorchOracle::Run> TorchOracle::run(const ProgramSpec& spec,
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
  const nlohmann::json request = {{"dir", dir_}, {"sets", sets.size()}, {"inputs", inputs}};
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
  std::vector<Run> runs;
  for (size_t k = 0; k < reply["runs"].size(); ++k) {
    const nlohmann::json& r = reply["runs"][k];
    Run run;
    if (r.contains("error")) {
      run.error = r["error"].get<std::string>();
    } else {
      const std::string stem = (fs::path(dir_) / ("set" + std::to_string(k))).string();
      for (int j = 0; j < r["outputs"].get<int>(); ++j) {
        run.outputs.push_back(load_npy(stem + "_out" + std::to_string(j) + ".npy"));
      }
      for (size_t i = 0; i < inputs; ++i) {
        run.inputs_after.push_back(load_npy(stem + "_after" + std::to_string(i) + ".npy"));
      }
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace xport::soundness
