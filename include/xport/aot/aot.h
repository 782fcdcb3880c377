#pragma once
/// \file Ahead-of-time compilation: a program as a shared library of native code with a C ABI
/// (xport/runtime/model_abi.h). The library runs the runtime's execution plan as generated C++
/// (direct calls of the typed kernels; per tuple of symbol values, the runtime's memory plan, made
/// once; weights packed once at load) between the same contract check and write-back as
/// runtime::Program; runtime::Program::load and `xport.load` open it like an archive. Needs a C++20
/// compiler where it compiles, nothing where the library runs but the libraries the runtime links
/// (oneDNN).

#include <string>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport::aot {

struct Options {
  std::string cxx = "c++";         ///< the C++ compiler (g++ or clang++, C++20)
  std::vector<std::string> flags;  ///< extra compiler flags (e.g. -march=native: recorded and
                                   ///< checked against the CPU when the library loads)
  /// Where xport's headers and libxport_runtime.a are (PREFIX/include, PREFIX/lib); empty: the
  /// XPORT_HOME environment variable, else the build tree or the install prefix this library
  /// was built for.
  std::string prefix = {};
  bool fuse = true;             ///< fuse as runtime::Options::fuse does
  /// Embed the archive (weights, contract, graph) in the library, which then is the one file
  /// to deploy, rather than write it beside the library as NAME.pt2.
  bool embed_archive = false;
  std::string keep_source = {};  ///< when set, the generated C++ is also written here
  /// Where the headers the generated code includes are kept precompiled, per compiler, flags
  /// and headers (GCC); empty: XPORT_AOT_CACHE, else $XDG_CACHE_HOME/xport/aot, else
  /// ~/.cache/xport/aot; "none": nothing is precompiled.
  std::string cache_dir = {};
};

/// What compile() made and how long it took.
struct CompileReport {
  std::string so_path;
  std::string archive_path;  ///< the archive beside the library (weights, contract); empty
                             ///< when embedded
  int64_t embedded_bytes = 0;  ///< the archive's bytes in the library, when embedded
  std::string header_path;   ///< NAME.h: the inputs' and outputs' names, dtypes and sizes, for C
  int64_t so_bytes = 0;
  int64_t kernel_calls = 0;    ///< typed kernel calls per run
  int64_t packed_calls = 0;    ///< packed convolutions and matrix products per run
  int64_t chains = 0;          ///< elementwise chains per run
  /// Steps the runtime runs per run: those whose sizes only the data decides.
  int64_t runtime_steps = 0;
  /// Higher-order ops (cond, map, while_loop): the op runs in the runtime and calls its
  /// subgraphs, which are generated functions (subgraph_functions of them, nested included).
  int64_t control_flow_steps = 0;
  int64_t subgraph_functions = 0;
  double generate_s = 0;       ///< planning and printing C++
  double compile_s = 0;        ///< the compiler and linker
  /// The compiler read the generated code's headers precompiled (GCC's .gch in the cache), not
  /// parsed: about 0.8 s of compile_s.
  bool precompiled_headers = false;
  std::string str() const;
};

/// Compiles `program` into the shared library `so_path` (NAME.so), saves the program beside it
/// as NAME.pt2 or, with Options::embed_archive, in it (the library reads its weights, contract
/// and graph from it when it loads; with composite ops decomposed: PyTorch's training IR keeps
/// aten::conv2d, aten::linear, ..., which would otherwise run as their decompositions in each
/// run) and writes NAME.h (the inputs and outputs as C arrays, for a C program calling the
/// library).
/// Throws UnsupportedOp naming the first node it cannot compile yet (before invoking the
/// compiler), InvalidInput when the compiler fails (with its output).
CompileReport compile(const ExportedProgram& program, const std::string& so_path,
                      Options options = {});
/// The same for the archive at `archive` (xport's or torch.export.save's), which is linked (or
/// copied) beside the library rather than written again when nothing in it needs decomposing.
CompileReport compile_archive(const std::string& archive, const std::string& so_path,
                              Options options = {});

}  // namespace xport::aot
