// aot::compile: the generated C++, compiled and linked with the runtime library into one shared
// library that exports the C ABI only.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "aot/codegen.h"
#include "aot_paths.h"
#include "xport/aot/aot.h"
#include "xport/core/error.h"
#include "xport/serde/archive.h"

extern char** environ;

namespace xport::aot {
namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void write_file(const fs::path& path, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  XPORT_CHECK(out.good(), InvalidInput, "aot::compile: cannot write ", path.string());
}

void write_text(const fs::path& path, const std::string& text) {
  write_file(path, text.data(), text.size());
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> split(const std::string& words) {
  std::istringstream in(words);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A temporary directory, removed with what it holds.
class WorkDir {
 public:
  WorkDir() {
    std::string pattern = (fs::temp_directory_path() / "xport-aot-XXXXXX").string();
    XPORT_CHECK(mkdtemp(pattern.data()) != nullptr, InvalidInput,
                "aot::compile: cannot make a temporary directory in ",
                fs::temp_directory_path().string());
    path_ = pattern;
  }
  ~WorkDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs `argv` with its output in `log`; returns its exit status.
int run_command(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  XPORT_CHECK(spawned == 0, InvalidInput, "aot::compile: cannot run the compiler '", argv[0],
              "' (", std::strerror(spawned), "); set aot::Options::cxx to a C++20 compiler");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    XPORT_CHECK(errno == EINTR, Internal, "aot::compile: waitpid failed");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Where the headers and libxport_runtime.a are: -I flags, the library, and whether it is this
// build's own (then built with this build's sanitizers).
struct RuntimeFiles {
  std::vector<std::string> includes;
  std::string library;
  bool this_build = false;
};

RuntimeFiles runtime_files(const Options& options) {
  std::string prefix = options.prefix;
  if (prefix.empty()) {
    if (const char* home = std::getenv("XPORT_HOME"); home != nullptr && *home != '\0') {
      prefix = home;
    }
  }
  if (prefix.empty() && fs::exists(XPORT_AOT_BUILD_RUNTIME)) {
    return {{"-I" XPORT_AOT_SOURCE_INCLUDE, "-I" XPORT_AOT_GENERATED_INCLUDE},
            XPORT_AOT_BUILD_RUNTIME,
            true};
  }
  if (prefix.empty()) prefix = XPORT_AOT_INSTALL_PREFIX;
  RuntimeFiles files{{"-I" + (fs::path(prefix) / "include").string()}, "", false};
  for (const char* libdir : {XPORT_AOT_INSTALL_LIBDIR, "lib", "lib64"}) {
    const fs::path candidate = fs::path(prefix) / libdir / "libxport_runtime.a";
    if (fs::exists(candidate)) {
      files.library = candidate.string();
      break;
    }
  }
  XPORT_CHECK(!files.library.empty(), InvalidInput, "aot::compile: no libxport_runtime.a under ",
              prefix, "/", XPORT_AOT_INSTALL_LIBDIR,
              "; install xport there, or set aot::Options::prefix or XPORT_HOME to its prefix");
  return files;
}

// The library exports the C ABI and nothing else.
constexpr const char* kExports =
    "{\n  global:\n    xport_model_*;\n    xport_outputs_*;\n    xport_last_error;\n"
    "  local:\n    *;\n};\n";

const char* abi_dtype(DType d) {
  static const char* const kNames[] = {
      "XPORT_BOOL",    "XPORT_UINT8",    "XPORT_INT8",    "XPORT_INT16",
      "XPORT_INT32",   "XPORT_INT64",    "XPORT_FLOAT16", "XPORT_BFLOAT16",
      "XPORT_FLOAT32", "XPORT_FLOAT64",  "XPORT_COMPLEX64", "XPORT_COMPLEX128"};
  return kNames[static_cast<size_t>(d)];
}

// One tensor the C ABI passes: its name, dtype and static sizes.
struct AbiTensor {
  std::string name;
  DType dtype;
  std::vector<int64_t> sizes;
};

std::vector<int64_t> static_sizes(const std::vector<sym::ExprPtr>& sizes) {
  std::vector<int64_t> out;
  for (sym::ExprPtr e : sizes) out.push_back(sym::evaluate(e, [](sym::ExprPtr) {
                                               return std::optional<int64_t>();
                                             }).value_or(-1));
  return out;
}

std::vector<AbiTensor> abi_inputs(const ExportedProgram& program) {
  std::vector<AbiTensor> out;
  for (const InputContract& c : program.contract()) {
    switch (c.kind) {
      case InputContract::Kind::Tensor:
        out.push_back({c.name, c.dtype, static_sizes(c.sizes)});
        break;
      case InputContract::Kind::TensorList:
        for (size_t e = 0; e < c.elements.size(); ++e) {
          out.push_back({c.name + "[" + std::to_string(e) + "]", c.elements[e].dtype,
                         static_sizes(c.elements[e].sizes)});
        }
        break;
      case InputContract::Kind::Int:
        out.push_back({c.name, DType::Int64, {}});
        break;
      case InputContract::Kind::Float:
        out.push_back({c.name, DType::Float64, {}});
        break;
      case InputContract::Kind::Bool:
        out.push_back({c.name, DType::Bool, {}});
        break;
    }
  }
  return out;
}

std::vector<AbiTensor> abi_outputs(const ExportedProgram& program) {
  std::vector<AbiTensor> out;
  const std::vector<ir::Argument>& results = program.graph().output()->args();
  const std::vector<OutputSpec>& specs = program.signature().outputs;
  for (size_t r = 0; r < specs.size() && r < results.size(); ++r) {
    if (specs[r].kind != OutputSpec::Kind::UserOutput) continue;
    const auto* ref = std::get_if<ir::ValueRef>(&results[r].value);
    if (ref == nullptr) continue;
    const ir::TensorSpec& spec = ref->node->outputs().at(ref->index);
    out.push_back({specs[r].name, spec.dtype, static_sizes(spec.sizes)});
  }
  return out;
}

// NAME.h: what a C program needs to call NAME.so (the inputs' and outputs' names, dtypes and
// sizes), as arrays prefixed with NAME.
std::string model_header(const std::string& stem, const ExportedProgram& program) {
  std::string prefix;
  for (const char c : stem) prefix += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (prefix.empty() || std::isdigit(static_cast<unsigned char>(prefix[0]))) prefix = "m" + prefix;
  std::string guard = prefix;
  for (char& c : guard) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::ostringstream out;
  out << "/* " << stem << ".h: generated by xport::aot::compile for " << stem
      << ".so, which reads " << stem << ".pt2 beside it. */\n"
      << "#ifndef XPORT_MODEL_" << guard << "_H\n#define XPORT_MODEL_" << guard << "_H\n\n"
      << "#include \"xport/runtime/model_abi.h\"\n\n"
      << "#if defined(__GNUC__)\n#define " << prefix << "_UNUSED __attribute__((unused))\n"
      << "#else\n#define " << prefix << "_UNUSED\n#endif\n\n";
  const auto table = [&](const char* side, const std::vector<AbiTensor>& tensors) {
    std::string names, dtypes, ndims, sizes;
    for (const AbiTensor& t : tensors) {
      out << "/* " << side << " " << t.name << ": " << dtype_name(t.dtype) << "[";
      for (size_t d = 0; d < t.sizes.size(); ++d) out << (d ? ", " : "") << t.sizes[d];
      out << "] */\n";
      names += (names.empty() ? "\"" : ", \"") + t.name + "\"";
      dtypes += (dtypes.empty() ? "" : ", ") + std::string(abi_dtype(t.dtype));
      ndims += (ndims.empty() ? "" : ", ") + std::to_string(t.sizes.size());
      for (int64_t v : t.sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(v);
    }
    const std::string p = prefix + "_" + side;
    out << "#define " << guard << "_NUM_" << (side[0] == 'i' ? "INPUTS " : "OUTPUTS ")
        << tensors.size() << "\n"
        << "static const char* const " << p << "_names[] " << prefix << "_UNUSED = {"
        << (names.empty() ? "0" : names) << "};\n"
        << "static const int32_t " << p << "_dtypes[] " << prefix << "_UNUSED = {"
        << (dtypes.empty() ? "0" : dtypes) << "};\n"
        << "static const int32_t " << p << "_ndims[] " << prefix << "_UNUSED = {"
        << (ndims.empty() ? "0" : ndims) << "};\n"
        << "/* every " << side << "'s sizes, one after another */\n"
        << "static const int64_t " << p << "_sizes[] " << prefix << "_UNUSED = {"
        << (sizes.empty() ? "0" : sizes) << "};\n\n";
  };
  table("input", abi_inputs(program));
  table("output", abi_outputs(program));
  out << "#endif\n";
  return out.str();
}

bool have_program(const char* name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// FNV-1a, for the cache's keys.
void mix(uint64_t& h, const std::string& text) {
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull;
}

fs::path cache_root(const Options& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  if (const char* dir = std::getenv("XPORT_AOT_CACHE"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir != nullptr && *dir != '\0') {
    return fs::path(dir) / "xport" / "aot";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".cache" / "xport" / "aot";
  }
  return {};
}

// Keeps the cache small (each entry is some 60 MB): the four newest entries stay.
void forget_old_entries(const fs::path& root, const fs::path& keep) {
  std::error_code error;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    if (entry.is_directory(error) && entry.path() != keep) {
      entries.emplace_back(entry.last_write_time(error), entry.path());
    }
  }
  std::sort(entries.rbegin(), entries.rend());
  for (size_t i = 3; i < entries.size(); ++i) fs::remove_all(entries[i].second, error);
}

// The generated code's headers, precompiled once per compiler, flags and headers (their sizes
// and times), for `-include`: GCC takes the .gch beside the header when it was made with the
// same flags, and parses the header otherwise. Empty when there is no cache (or no GCC).
std::string precompiled_prelude(const Options& options, const std::vector<std::string>& flags,
                                const std::vector<std::string>& include_dirs,
                                const fs::path& log) {
  const fs::path root = cache_root(options);
  if (root.empty() || options.cache_dir == "none" ||
      fs::path(options.cxx).filename().string().find("clang") != std::string::npos) {
    return "";
  }
  uint64_t key = 14695981039346656037ull;
  mix(key, kGeneratedIncludes);
  for (const std::string& f : flags) mix(key, f);
  std::error_code error;
  for (const std::string& dir : include_dirs) {
    for (const auto& entry : fs::directory_iterator(fs::path(dir) / "xport", error)) {
      mix(key, entry.path().string());
      mix(key, std::to_string(entry.file_size(error)));
      mix(key, std::to_string(entry.last_write_time(error).time_since_epoch().count()));
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
  const fs::path dir = root / hex;
  const fs::path header = dir / "prelude.h";
  if (fs::exists(fs::path(header).concat(".gch"), error)) return header.string();
  fs::create_directories(dir, error);
  if (error) return "";
  forget_old_entries(root, dir);
  write_text(header, kGeneratedIncludes);
  const fs::path partial = fs::path(header).concat(".gch." + std::to_string(getpid()));
  std::vector<std::string> argv = {options.cxx};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-x", "c++-header", header.string(), "-o", partial.string()});
  if (run_command(argv, log) != 0) {
    fs::remove(partial, error);
    return "";
  }
  fs::rename(partial, fs::path(header).concat(".gch"), error);  // another compile may win
  return error ? "" : header.string();
}

// Whether a call (here or in a subgraph) is of an op with no meta function, which the runtime
// runs only eagerly, as its decomposition (PyTorch's training IR keeps aten::conv2d,
// aten::linear, ...): decomposed, they are planned kernel steps.
bool has_composite_op(const ir::Graph& graph) {
  for (const auto& node : graph.nodes()) {
    if (node->kind() != ir::NodeKind::Call) continue;
    if (node->op()->kind == OpKind::Composite) return true;
    for (const ir::Argument& a : node->args()) {
      const auto* sub = std::get_if<ir::SubgraphRef>(&a.value);
      if (sub != nullptr && has_composite_op(*sub->graph)) return true;
    }
  }
  return false;
}

// The decompositions of composite ops alone: the rest of the graph stays as the runtime runs it.
DecompositionTable composite_decompositions() {
  DecompositionTable table;
  for (auto& [name, decomposition] : core_decompositions()) {
    if (find_op(name).kind == OpKind::Composite) table.emplace(name, std::move(decomposition));
  }
  return table;
}

}  // namespace

std::string CompileReport::str() const {
  std::ostringstream out;
  out << so_path << ": " << so_bytes << " bytes";
  if (embedded_bytes > 0) out << " (" << embedded_bytes << " of them the embedded archive)";
  out << ", " << kernel_calls << " kernel calls, "
      << packed_calls << " packed, " << chains << " elementwise chains, " << control_flow_steps
      << " control flow steps with " << subgraph_functions << " subgraph functions, "
      << runtime_steps << " steps by the runtime per run; generated in " << generate_s
      << " s, compiled in "
      << compile_s << " s" << (precompiled_headers ? " (headers precompiled)" : "")
      << "; weights and contract from "
      << (archive_path.empty() ? "the library" : archive_path);
  return out.str();
}

namespace {

// Writes NAME.pt2 beside the library: the program (its composite ops decomposed), or, when
// `source` names the archive `program` was loaded from and nothing needs decomposing, that file
// (linked or copied: faster than writing the weights again, and the same bytes).
void write_archive(const ExportedProgram& program, const std::string* source,
                   const std::string& archive) {
  // Written aside and renamed: the program's weights may be mapped from the file it replaces.
  const auto save_over = [&](const ExportedProgram& p) {
    const std::string partial = archive + ".partial";
    save(p, partial);
    fs::rename(partial, archive);
  };
  if (has_composite_op(program.graph())) {
    std::optional<ExportedProgram> decomposed;
    try {
      decomposed.emplace(program.run_decompositions(composite_decompositions()));
    } catch (const Error& e) {
      XPORT_FAIL(UnsupportedOp, "aot::compile: the program has composite ops (no meta "
                 "function: they would run as their decompositions in each call), and "
                 "decomposing them failed: ", e.what());
    }
    save_over(*decomposed);
  } else if (source != nullptr) {
    // A hard link where the file system allows one (no bytes copied), else a copy.
    std::error_code error;
    if (fs::equivalent(*source, archive, error)) return;
    fs::remove(archive, error);
    fs::create_hard_link(*source, archive, error);
    if (error) fs::copy_file(*source, archive, fs::copy_options::overwrite_existing);
  } else {
    save_over(program);
  }
}

// The archive at `path` as read-only data between xport_aot_archive_begin and _end (which the C
// ABI reads: xport_model_embedded_archive), 64-byte aligned like the tensors in it.
std::string archive_assembly(const std::string& path) {
  return ".section .rodata.xport_aot_archive,\"a\"\n"
         ".balign 64\n"
         ".globl xport_aot_archive_begin\n"
         ".hidden xport_aot_archive_begin\n"
         "xport_aot_archive_begin:\n"
         ".incbin \"" + path + "\"\n"
         ".globl xport_aot_archive_end\n"
         ".hidden xport_aot_archive_end\n"
         "xport_aot_archive_end:\n"
         ".section .note.GNU-stack,\"\",@progbits\n";
}

CompileReport compile_program(const ExportedProgram& program, const std::string* archive,
                              const std::string& so_path, const Options& options) {
  const fs::path so = fs::absolute(so_path);
  XPORT_CHECK(so.extension() == ".so", InvalidInput, "aot::compile: '", so_path,
              "' does not end in .so; name the library NAME.so (NAME.pt2 is written beside it)");
  CompileReport report;
  report.so_path = so.string();
  const WorkDir work;
  // The archive goes beside the library, or into it (assembled from the work directory).
  const std::string archive_out = options.embed_archive
                                      ? (work.path() / "model.pt2").string()
                                      : fs::path(so).replace_extension(".pt2").string();
  if (!options.embed_archive) report.archive_path = archive_out;

  // Planned from the archive as the library will read it, so that weights' layouts match.
  const auto generate_start = std::chrono::steady_clock::now();
  write_archive(program, archive, archive_out);
  const ExportedProgram saved = load(archive_out);
  const GeneratedModel model = generate(saved, options.fuse);
  report.generate_s = seconds_since(generate_start);
  report.kernel_calls = model.kernel_calls;
  report.packed_calls = model.packed_calls;
  report.chains = model.chains;
  report.runtime_steps = model.runtime_steps;
  report.control_flow_steps = model.control_flow_steps;
  report.subgraph_functions = model.subgraph_functions;

  const auto compile_start = std::chrono::steady_clock::now();
  const fs::path source = work.path() / "model.cpp";
  write_text(source, model.source);
  if (!options.keep_source.empty()) write_text(options.keep_source, model.source);
  write_text(work.path() / "exports.map", kExports);
  const RuntimeFiles runtime = runtime_files(options);
  const fs::path partial = fs::path(so).concat(".partial");
  // -fopenmp defines _OPENMP: the precompiled headers must be made with it too, or GCC parses
  // the headers again (about 0.8 s).
  std::vector<std::string> flags = {"-std=c++20", "-O1", "-fPIC", "-fvisibility=hidden",
                                    "-fopenmp"};
  std::vector<std::string> include_dirs;
  for (const std::string& i : runtime.includes) {
    flags.push_back(i);
    include_dirs.push_back(i.substr(2));
  }
  if (runtime.this_build) {
    for (const std::string& f : split(XPORT_AOT_SANITIZER_FLAGS)) flags.push_back(f);
  }
  flags.insert(flags.end(), options.flags.begin(), options.flags.end());
  const fs::path log = work.path() / "compiler.log";
  const std::string prelude = precompiled_prelude(options, flags, include_dirs, log);
  std::vector<std::string> argv = {options.cxx, "-shared"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  if (!prelude.empty()) argv.insert(argv.end(), {"-include", prelude, "-Winvalid-pch"});
  argv.insert(argv.end(), {source.string(), "-o", partial.string()});
  if (options.embed_archive) {
    const fs::path assembly = work.path() / "archive.s";
    write_text(assembly, archive_assembly(archive_out));
    argv.push_back(assembly.string());
    report.embedded_bytes = static_cast<int64_t>(fs::file_size(archive_out));
  }
  argv.insert(argv.end(), {"-Wl,--whole-archive", runtime.library, "-Wl,--no-whole-archive"});
  for (const std::string& lib : split(XPORT_AOT_SYSTEM_LIBS)) argv.push_back(lib);
  argv.insert(argv.end(), {"-ldl", "-lpthread",
                           "-Wl,--version-script=" + (work.path() / "exports.map").string(),
                           "-Wl,-Bsymbolic"});
  if (have_program("mold")) argv.push_back("-fuse-ld=mold");
  const int status = run_command(argv, log);
  if (status != 0) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    std::string output = read_text(log);
    if (output.size() > 4000) output = "..." + output.substr(output.size() - 4000);
    XPORT_FAIL(InvalidInput, "aot::compile: ", options.cxx, " failed (exit ", status,
               ") compiling ", so_path, ":\n", output);
  }
  fs::rename(partial, so);
  // GCC says why it passed over a precompiled header it was given (-Winvalid-pch).
  report.precompiled_headers =
      !prelude.empty() && read_text(log).find("-Winvalid-pch") == std::string::npos;
  report.header_path = fs::path(so).replace_extension(".h").string();
  write_text(report.header_path, model_header(so.stem().string(), saved));
  report.compile_s = seconds_since(compile_start);
  report.so_bytes = static_cast<int64_t>(fs::file_size(so));
  return report;
}

}  // namespace

CompileReport compile(const ExportedProgram& program, const std::string& so_path,
                      Options options) {
  return compile_program(program, nullptr, so_path, options);
}

CompileReport compile_archive(const std::string& archive, const std::string& so_path,
                              Options options) {
  return compile_program(load(archive), &archive, so_path, options);
}

}  // namespace xport::aot
