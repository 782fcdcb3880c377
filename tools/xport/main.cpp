// The xport command-line tool.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "tools/xport/decompose.h"
#include "tools/xport/demo.h"
#include "tools/xport/inspect.h"
#include "xport/xport.h"

namespace {

int list_ops() {
  for (const xport::OpDef* op : xport::all_ops()) {
    std::cout << op->parsed.str() << (op->core ? "  core" : "") << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"xport: sound full-graph capture for C++ tensor programs"};
  app.require_subcommand(1);
  int result = 0;
  app.add_subcommand("ops", "list every registered op: its schema, then 'core' if in the core set")
      ->callback([&] { result = list_ops(); });
  xport::tools::DemoOptions demo;
  CLI::App* demo_cmd =
      app.add_subcommand("demo", "run GPT-2 eagerly on a short prompt and print the next tokens");
  demo_cmd
      ->add_option("--weights", demo.weights,
                   "GPT-2 checkpoint (safetensors, e.g. the Hub's model.safetensors)")
      ->check(CLI::ExistingFile);
  demo_cmd->add_option("--steps", demo.steps, "greedy tokens to generate")
      ->check(CLI::Range(0, 512));
  demo_cmd->callback([&] { result = xport::tools::run_demo(demo, std::cout); });
  std::string inspect_path;
  CLI::App* inspect_cmd = app.add_subcommand(
      "inspect", "print a PT2 archive's program, versions, weight sizes and input contract");
  inspect_cmd->add_option("FILE", inspect_path, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  inspect_cmd->callback([&] { result = xport::tools::run_inspect(inspect_path, std::cout); });
  std::string decompose_in, decompose_out;
  CLI::App* decompose_cmd = app.add_subcommand(
      "decompose", "rewrite an archive's program into core ops only and save it as a new archive");
  decompose_cmd->add_option("FILE", decompose_in, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  decompose_cmd->add_option("OUT", decompose_out, "the archive to write")->required();
  decompose_cmd->callback(
      [&] { result = xport::tools::run_decompose(decompose_in, decompose_out, std::cout); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const xport::Error& e) {
    std::cerr << "xport: " << e.what() << "\n";
    return 1;
  }
  return result;
}
