// Runs a script of the tests' Python environment (PyTorch 2.13, the oracle; `make venv` makes it).
// A test that needs the oracle fails when it is missing: it never skips.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace xport::testing {

struct PythonRun {
  int status = 0;      // the command's exit status (0: success)
  std::string log;     // what the script printed to standard error
  bool ok() const { return status == 0; }
};

/// Runs `python script args...` (args already shell-quoted where needed), standard output to
/// `stdout_path` and, when `stdin_path` is not empty, standard input from it.
inline PythonRun run_python(const std::string& script, const std::string& args,
                            const std::filesystem::path& stdout_path,
                            const std::filesystem::path& stdin_path = {}) {
  const std::filesystem::path log_path = stdout_path.string() + ".stderr";
  std::string command = std::string(XPORT_PYTHON) + " " + script + " " + args + " >" +
                        stdout_path.string() + " 2>" + log_path.string();
  if (!stdin_path.empty()) command += " <" + stdin_path.string();
  PythonRun run;
  run.status = std::system(command.c_str());
  std::ifstream in(log_path);
  run.log = std::string(std::istreambuf_iterator<char>(in), {});
  if (run.status != 0) {
    run.log = "`" + command + "` failed (the Python test environment is " XPORT_PYTHON
                 ", made by `make venv`):\n" + run.log;
  }
  return run;
}

}  // namespace xport::testing
