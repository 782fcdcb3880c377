// xport's side of the peer benchmark (bench/peers/run.sh): exports a reference model with given
// weights to a PT2 archive, and times runtime::Program on an archive.
//
//   xport_peer_bench export MODEL WEIGHTS.safetensors OUT.pt2 --input IN.npy
//       Builds MODEL (mlp | resnet50 | bert | gpt2, include/xport/nn/models.h) in eval mode, loads
//       the weights (strict), exports it statically on IN.npy's tensor and saves the archive.
//   xport_peer_bench time FILE.pt2 --input IN.npy [--input ...] [--runs K] [--warmup W]
//                    [--min-time S] [--threads N] [--out OUT.npy]
//       Loads FILE with runtime::Program (num_threads N, default 2), runs it W times untimed, then
//       times runs until there are at least K and S seconds have passed; prints {"times_ms": [...],
//       "load_ms": ...} and writes the first run's first output to OUT.npy. Only run() calls are
//       timed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "xport/capture/export.h"
#include "xport/nn/models.h"
#include "xport/nn/safetensors.h"
#include "xport/ops/npy.h"
#include "xport/runtime.h"
#include "xport/serde/archive.h"
#include "xport/xport.h"

namespace {

using xport::Tensor;

struct Args {
  std::vector<std::string> positional;
  std::vector<std::string> inputs;
  std::string out;
  int runs = 10;
  int warmup = 2;
  int threads = 2;
  double min_time = 0;  // seconds
};

int parse_count(const std::string& flag, const char* text, int min) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > 1000000) {
    throw std::invalid_argument(flag + " takes an integer >= " + std::to_string(min) + ", got '" +
                                text + "'");
  }
  return static_cast<int>(v);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--input" && has_value) {
      a.inputs.push_back(argv[++i]);
    } else if (arg == "--out" && has_value) {
      a.out = argv[++i];
    } else if (arg == "--runs" && has_value) {
      a.runs = parse_count(arg, argv[++i], 1);
    } else if (arg == "--warmup" && has_value) {
      a.warmup = parse_count(arg, argv[++i], 0);
    } else if (arg == "--min-time" && has_value) {
      char* end = nullptr;
      a.min_time = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end != '\0' || !(a.min_time >= 0 && a.min_time < 3600)) {
        throw std::invalid_argument(std::string("--min-time takes seconds in [0, 3600), got '") +
                                    argv[i] + "'");
      }
    } else if (arg == "--threads" && has_value) {
      a.threads = parse_count(arg, argv[++i], 1);
    } else if (arg.rfind("--", 0) == 0) {
      throw std::invalid_argument("unknown option or missing value: " + arg);
    } else {
      a.positional.push_back(arg);
    }
  }
  return a;
}

std::shared_ptr<xport::nn::Module> make_model(const std::string& name) {
  if (name == "mlp") return xport::models::mlp({1024, 4096, 4096, 1024});
  // ResNetConfig()'s default head has 2 labels; BertModel(BertConfig()) is BERT-base.
  if (name == "resnet50") return xport::models::resnet50(2);
  if (name == "bert") return xport::models::bert();
  if (name == "gpt2") return xport::models::gpt2();
  throw std::invalid_argument("unknown model '" + name + "'; expected mlp, resnet50, bert or gpt2");
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

int export_model(const Args& a) {
  if (a.positional.size() != 3 || a.inputs.size() != 1) {
    throw std::invalid_argument("export takes MODEL WEIGHTS.safetensors OUT.pt2 --input IN.npy");
  }
  auto model = make_model(a.positional[0]);
  xport::load_safetensors(*model, a.positional[1]);
  model->eval();
  const Tensor x = xport::load_npy(a.inputs[0]);
  const auto start = std::chrono::steady_clock::now();
  const xport::ExportedProgram program =
      xport::export_program(*model, [&](const Tensor& t) { return model->forward(t); }, {x});
  xport::save(program, a.positional[2]);
  std::printf("{\"export_and_save_ms\": %.1f}\n", ms_since(start));
  return 0;
}

int time_program(const Args& a) {
  if (a.positional.size() != 1 || a.inputs.empty()) {
    throw std::invalid_argument("time takes FILE.pt2 --input IN.npy [--input ...]");
  }
  std::vector<Tensor> inputs;
  for (const std::string& path : a.inputs) inputs.push_back(xport::load_npy(path));
  xport::runtime::Options options;
  options.num_threads = a.threads;
  auto start = std::chrono::steady_clock::now();
  const xport::runtime::Program program = xport::runtime::Program::load(a.positional[0], options);
  const double load_ms = ms_since(start);
  std::vector<Tensor> first;
  for (int i = 0; i < a.warmup; ++i) {
    std::vector<Tensor> out = program.run(inputs);
    if (first.empty()) first = std::move(out);
  }
  std::vector<double> times;
  times.reserve(static_cast<size_t>(a.runs));
  const auto timing_start = std::chrono::steady_clock::now();
  while (static_cast<int>(times.size()) < a.runs || ms_since(timing_start) < 1e3 * a.min_time) {
    start = std::chrono::steady_clock::now();
    std::vector<Tensor> out = program.run(inputs);
    times.push_back(ms_since(start));
    if (first.empty()) first = std::move(out);
  }
  if (!a.out.empty()) xport::save_npy(first.at(0), a.out);
  std::printf("{\"load_ms\": %.3f, \"times_ms\": [", load_ms);
  for (size_t i = 0; i < times.size(); ++i) std::printf("%s%.7g", i ? ", " : "", times[i]);
  std::printf("]}\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      " export MODEL WEIGHTS.safetensors OUT.pt2 --input IN.npy\n"
      "   or: time FILE.pt2 --input IN.npy [--input ...] [--runs K] [--warmup W] [--min-time S] "
      "[--threads N] [--out OUT.npy]\n";
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << usage;
    return 2;
  }
  const std::string command = argv[1];
  try {
    const Args args = parse(argc, argv);
    if (command == "export") return export_model(args);
    if (command == "time") return time_program(args);
    std::cerr << "unknown command '" << command << "'\nusage: " << argv[0] << usage;
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "xport_peer_bench " << command << ": " << e.what() << "\nusage: " << argv[0]
              << usage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "xport_peer_bench " << command << ": " << e.what() << "\n";
    return 1;
  }
}
