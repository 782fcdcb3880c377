#pragma once
// The archive round trip every exported program must survive: load(save(p)) prints the same,
// runs to bit-identical results, and saving it again writes the same bytes.

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "xport/runtime.h"
#include "xport/serde/archive.h"
#include "xport/tensor/value.h"

namespace xport::test_support {

/// A path in the temp directory unique to this process and call; the file is removed with the
/// object.
class TempFile {
 public:
  explicit TempFile(const std::string& stem) {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             (stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".pt2"))
                .string();
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Same bytes, compared a block at a time (archives of large models are hundreds of MB).
inline bool files_equal(const std::string& a, const std::string& b) {
  if (std::filesystem::file_size(a) != std::filesystem::file_size(b)) return false;
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  std::vector<char> ba(1 << 20), bb(1 << 20);
  while (fa && fb) {
    fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
    fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
    if (fa.gcount() != fb.gcount() ||
        std::memcmp(ba.data(), bb.data(), static_cast<size_t>(fa.gcount())) != 0) {
      return false;
    }
  }
  return true;
}

inline bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.int_sizes() != b.int_sizes()) return false;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.raw_data(), cb.raw_data(),
                     static_cast<size_t>(ca.int_numel() * element_size(ca.dtype()))) == 0;
}

/// max |a - b| / max |b| (0 when both are all zeros); NaN or infinity when they disagree on those.
inline double relative_difference(const Tensor& a, const Tensor& b) {
  if (a.int_numel() == 0 && b.int_numel() == 0) return 0;
  const Tensor fa = a.to(DType::Float64), fb = b.to(DType::Float64);
  const double diff = (fa - fb).abs().max().item<double>();
  const double scale = fb.abs().max().item<double>();
  return diff == 0 ? 0 : diff / scale;
}

/// Copies of the tensors among `inputs` (lists too); other values as they are.
inline std::vector<Value> copy_inputs(const std::vector<Value>& inputs) {
  std::vector<Value> out;
  for (const Value& v : inputs) {
    if (v.is_tensor()) {
      out.emplace_back(v.to_tensor().clone());
    } else if (v.is_list()) {
      std::vector<Tensor> list;
      for (const Tensor& t : v.to_tensor_list()) list.push_back(t.clone());
      out.emplace_back(std::move(list));
    } else {
      out.push_back(v);
    }
  }
  return out;
}

/// Everything that breaks the round trip for `p` on each of `inputs`, as messages. The runtime
/// (runtime::Program) runs the saved file too: unfused it must give the same bits as `p.run`;
/// fused (its default) the same to float rounding (1e-5 of the output's largest magnitude).
inline std::vector<std::string> round_trip_problems(const ExportedProgram& p,
                                                    const std::vector<std::vector<Value>>& inputs,
                                                    const std::string& stem) {
  std::vector<std::string> problems;
  TempFile first(stem), second(stem);
  save(p, first.path());
  const ExportedProgram q = load(first.path());
  if (q.to_string() != p.to_string()) {
    problems.push_back("the loaded program prints differently:\n--- saved\n" + p.to_string() +
                       "\n--- loaded\n" + q.to_string());
  }
  save(q, second.path());  // before the runs below update its buffers
  runtime::Options unfused;
  unfused.fuse = false;
  const runtime::Program runtime_program = runtime::Program::load(first.path(), unfused);
  const runtime::Program fused_program = runtime::Program::load(first.path());
  for (size_t i = 0; i < inputs.size(); ++i) {
    // Each runner gets its own copy of the inputs, which a program may update in place; each
    // holds its own buffers, which its runs update in step.
    const std::vector<Tensor> want = p.run(copy_inputs(inputs[i]));
    struct Run {
      const char* who;
      std::vector<Tensor> got;
      bool rounding_allowed;
    };
    const Run runs[] = {
        {"the loaded program", q.run(copy_inputs(inputs[i])), false},
        {"the runtime", runtime_program.run_values(copy_inputs(inputs[i])), false},
        {"the fused runtime", fused_program.run_values(copy_inputs(inputs[i])), true}};
    for (const auto& [who, got, rounding_allowed] : runs) {
      if (want.size() != got.size()) {
        problems.push_back("input set " + std::to_string(i) + ": " + who + " gives " +
                           std::to_string(got.size()) + " outputs, the program " +
                           std::to_string(want.size()));
        continue;
      }
      for (size_t o = 0; o < want.size(); ++o) {
        const bool close = rounding_allowed && is_floating(want[o].dtype()) &&
                           got[o].int_sizes() == want[o].int_sizes() &&
                           relative_difference(got[o], want[o]) <= 1e-5;
        if (!close && !bitwise_equal(want[o], got[o])) {
          problems.push_back("input set " + std::to_string(i) + ", output " + std::to_string(o) +
                             ": " + who + "'s result differs");
        }
      }
    }
  }
  if (!files_equal(first.path(), second.path())) {
    problems.push_back("saving the loaded program again gives different bytes");
  }
  return problems;
}

}  // namespace xport::test_support
