#include "capture/call_site.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>
#include <unwind.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

#ifndef XPORT_GENERATED_DIR
#error "XPORT_GENERATED_DIR must name the build's generated headers (set by CMakeLists.txt)"
#endif
#ifndef XPORT_SOURCE_DIR
#error "XPORT_SOURCE_DIR must name xport's source tree (set by CMakeLists.txt)"
#endif

namespace xport::capture {
namespace {

// ---- capture --------------------------------------------------------------------------------

struct UnwindState {
  CallSite* site;
  bool skipped_self;
};

_Unwind_Reason_Code record_frame(_Unwind_Context* context, void* arg) {
  auto* state = static_cast<UnwindState*>(arg);
  if (!state->skipped_self) {
    state->skipped_self = true;
    return _URC_NO_REASON;
  }
  CallSite& site = *state->site;
  if (site.depth >= kMaxCallSiteDepth) return _URC_END_OF_STACK;
  int before_insn = 0;
  uintptr_t pc = _Unwind_GetIPInfo(context, &before_insn);
  if (pc == 0) return _URC_END_OF_STACK;
  // Symbolization looks up pc - 1 (inside the call instruction); a signal frame's pc is the
  // interrupted instruction itself.
  if (before_insn) ++pc;
  site.pcs[site.depth++] = reinterpret_cast<void*>(pc);
  return _URC_NO_REASON;
}

// ---- classification -------------------------------------------------------------------------

enum class Origin : uint8_t { kUser, kXport, kSystem };

// One source-level frame of one address, with where it belongs.
struct Frame {
  SourceFrame source;
  Origin origin = Origin::kUser;
  bool has_line() const { return source.line > 0 && !source.file.empty(); }
};

bool is_system_path(std::string_view path) {
  return path.starts_with("/usr/") || path.starts_with("/lib/") || path.starts_with("/lib64/") ||
         (path.starts_with("[") && path.ends_with("]"));
}

Origin classify_file(std::string_view path) {
  static const std::string src_dir = std::string(XPORT_SOURCE_DIR) + "/src/";
  static const std::string generated_dir = std::string(XPORT_GENERATED_DIR) + "/";
  // Installed headers are xport's too, wherever they were installed, and so are the headers the
  // build generates (xport/aten.h) where the build tree has them.
  if (path.starts_with(src_dir) || path.starts_with(generated_dir) ||
      path.find("/include/xport/") != std::string_view::npos) {
    return Origin::kXport;
  }
  if (is_system_path(path)) return Origin::kSystem;
  return Origin::kUser;
}

// Without line info only the symbol tells: C++ names in namespace xport (also local entities
// and cv/ref-qualified members: _ZN5xport, _ZZN5xport, _ZNK5xport, ...) are xport's.
Origin classify_symbol(std::string_view mangled) {
  if (!mangled.starts_with("_Z")) {
    // C symbols: _start, __libc_start_main and the like are runtime; `main` is the user's.
    return mangled.starts_with("_") ? Origin::kSystem : Origin::kUser;
  }
  std::string_view rest = mangled.substr(2);
  if (rest.starts_with("Z")) rest.remove_prefix(1);
  if (rest.starts_with("St") || rest.starts_with("Sa") || rest.starts_with("Ss")) {
    return Origin::kSystem;
  }
  if (!rest.starts_with("N")) return Origin::kUser;
  rest.remove_prefix(1);
  while (!rest.empty() && std::string_view("rVKRO").find(rest.front()) != std::string_view::npos) {
    rest.remove_prefix(1);
  }
  if (rest.starts_with("5xport")) return Origin::kXport;
  if (rest.starts_with("St") || rest.starts_with("9__gnu_cxx")) return Origin::kSystem;
  return Origin::kUser;
}

std::string demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string result(out);
  std::free(out);
  // GCC's specialized copies ("f() [clone .constprop.0]") are the same source function.
  if (size_t clone = result.find(" [clone "); clone != std::string::npos) result.resize(clone);
  return result;
}

// ---- symbolization --------------------------------------------------------------------------

bool is_function_scope(Dwarf_Die* die) {
  int tag = dwarf_tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

// Linkage name (demangled) of a function or inlined instance, else its plain name.
std::string die_function_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (name == nullptr) {
    name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  }
  if (name != nullptr) return demangle(name);
  name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  return name != nullptr ? name : "";
}

// File and line an inlined instance was called from.
std::pair<std::string, int> inline_call_site(Dwarf_Die* inlined) {
  Dwarf_Attribute attr;
  Dwarf_Word file_index = 0;
  Dwarf_Word line = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &file_index) != 0) return {};
  dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &line);
  Dwarf_Die cu;
  Dwarf_Files* files = nullptr;
  if (dwarf_diecu(inlined, &cu, nullptr, nullptr) == nullptr ||
      dwarf_getsrcfiles(&cu, &files, nullptr) != 0) {
    return {};
  }
  const char* file = dwarf_filesrc(files, file_index, nullptr, nullptr);
  return {file != nullptr ? file : "", static_cast<int>(line)};
}

std::string normalize(const char* path) {
  return std::filesystem::path(path).lexically_normal().string();
}

// The process-wide libdw session and the per-address cache. libdw is not thread-safe: every
// call goes through mutex_.
class Symbolizer {
 public:
  static Symbolizer& instance() {
    // Never destroyed: another thread may still symbolize while statics are torn down.
    static Symbolizer* symbolizer = new Symbolizer();
    return *symbolizer;
  }

  // Calls visit(const Frame&) for each source-level frame of `site`, innermost first, until it
  // returns false.
  template <class Visit>
  void for_each_frame(const CallSite& site, Visit&& visit) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int i = 0; i < site.depth; ++i) {
      const auto pc = reinterpret_cast<uintptr_t>(site.pcs[i]) - 1;
      auto it = cache_.find(pc);
      if (it == cache_.end()) it = cache_.emplace(pc, resolve(pc)).first;
      for (const Frame& frame : it->second) {
        if (!visit(frame)) return;
      }
    }
  }

 private:
  Symbolizer() {
    dwfl_ = dwfl_begin(&callbacks_);
    if (dwfl_ != nullptr) report();
  }

  void report() {
    dwfl_report_begin(dwfl_);
    dwfl_linux_proc_report(dwfl_, getpid());
    dwfl_report_end(dwfl_, nullptr, nullptr);
  }

  Dwfl_Module* module_at(uintptr_t pc) {
    if (dwfl_ == nullptr) return nullptr;
    Dwfl_Module* module = dwfl_addrmodule(dwfl_, pc);
    if (module == nullptr) {
      // Perhaps loaded by dlopen since the last report. An address in no module at all (JIT
      // code) costs one re-read of /proc/self/maps, then is cached as unknown.
      report();
      module = dwfl_addrmodule(dwfl_, pc);
    }
    return module;
  }

  std::vector<Frame> resolve(uintptr_t pc) {
    Dwfl_Module* module = module_at(pc);
    if (module == nullptr) return {};
    const char* module_name =
        dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    // System libraries are never the user's: skip loading their debug info.
    if (module_name != nullptr && is_system_path(module_name)) {
      Frame frame;
      frame.origin = Origin::kSystem;
      return {frame};
    }
    const char* symbol = dwfl_module_addrname(module, pc);
    Dwfl_Line* line_record = dwfl_module_getsrc(module, pc);
    int line = 0;
    const char* file = line_record != nullptr
                           ? dwfl_lineinfo(line_record, nullptr, &line, nullptr, nullptr, nullptr)
                           : nullptr;
    if (file == nullptr || line <= 0) {
      Frame frame;
      frame.source.function = demangle(symbol);
      frame.origin = symbol != nullptr ? classify_symbol(symbol) : Origin::kSystem;
      return {frame};
    }

    // Expand the chain of inlined calls: the line table gives the innermost location; each
    // inlined instance's DW_AT_call_file/line gives the location in the function around it.
    std::vector<Frame> frames;
    std::string current_file = normalize(file);
    int current_line = line;
    auto push = [&](std::string function) {
      Origin origin = classify_file(current_file);
      frames.push_back(Frame{.source = {.file = std::move(current_file),
                                        .line = current_line,
                                        .function = std::move(function)},
                             .origin = origin});
    };
    Dwarf_Addr bias = 0;
    Dwarf_Die* cu = dwfl_module_addrdie(module, pc, &bias);
    Dwarf_Die* scopes = nullptr;
    int count = cu != nullptr ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    if (count > 0) {
      // dwarf_getscopes continues into the abstract definition past an inlined instance; the
      // concrete nesting comes from the innermost scope's parents.
      Dwarf_Die innermost = scopes[0];
      std::free(scopes);
      scopes = nullptr;
      count = dwarf_getscopes_die(&innermost, &scopes);
    }
    for (int i = 0; i < count; ++i) {
      Dwarf_Die* scope = &scopes[i];
      if (!is_function_scope(scope)) continue;
      if (dwarf_tag(scope) != DW_TAG_inlined_subroutine) {
        // The out-of-line function: the symbol table has its full name even without -g2.
        push(symbol != nullptr ? demangle(symbol) : die_function_name(scope));
        break;
      }
      push(die_function_name(scope));
      auto [call_file, call_line] = inline_call_site(scope);
      current_file = normalize(call_file.c_str());
      current_line = call_line;
    }
    std::free(scopes);
    if (frames.empty()) push(demangle(symbol));
    return frames;
  }

  inline static char* debuginfo_path_ = nullptr;
  inline static const Dwfl_Callbacks callbacks_ = {
      .find_elf = dwfl_linux_proc_find_elf,
      .find_debuginfo = dwfl_standard_find_debuginfo,
      .section_address = nullptr,
      .debuginfo_path = &debuginfo_path_,
  };

  std::mutex mutex_;
  Dwfl* dwfl_ = nullptr;
  std::unordered_map<uintptr_t, std::vector<Frame>> cache_;
};

std::string basename_and_line(const SourceFrame& frame) {
  std::string_view file = frame.file;
  if (size_t slash = file.rfind('/'); slash != std::string_view::npos) {
    file.remove_prefix(slash + 1);
  }
  return std::string(file) + ":" + std::to_string(frame.line);
}

}  // namespace

bool is_xport_file(std::string_view path) { return classify_file(path) == Origin::kXport; }

[[gnu::noinline]] CallSite capture_call_site() {
  CallSite site;
  UnwindState state{&site, false};
  _Unwind_Backtrace(record_frame, &state);
  return site;
}

std::vector<SourceFrame> user_frames(const CallSite& site, int max_frames) {
  std::vector<SourceFrame> out;
  if (max_frames <= 0) return out;
  Symbolizer::instance().for_each_frame(site, [&](const Frame& frame) {
    if (frame.origin == Origin::kUser && frame.has_line()) out.push_back(frame.source);
    return static_cast<int>(out.size()) < max_frames;
  });
  return out;
}

std::string user_source(const CallSite& site) {
  std::vector<SourceFrame> frames = user_frames(site, 1);
  return frames.empty() ? std::string() : basename_and_line(frames[0]);
}

std::string user_function(const CallSite& site) {
  std::string with_line;
  std::string without_line;
  Symbolizer::instance().for_each_frame(site, [&](const Frame& frame) {
    if (frame.origin != Origin::kUser || frame.source.function.empty()) return true;
    if (frame.has_line()) {
      with_line = frame.source.function;
      return false;
    }
    if (without_line.empty()) without_line = frame.source.function;
    return true;
  });
  return !with_line.empty() ? with_line : without_line;
}

std::vector<std::string> user_stack(const CallSite& site, int max_frames) {
  std::vector<std::string> out;
  for (const SourceFrame& frame : user_frames(site, max_frames)) {
    std::string entry = basename_and_line(frame);
    if (!frame.function.empty()) entry += " in " + frame.function;
    out.push_back(std::move(entry));
  }
  return out;
}

namespace detail {

[[gnu::noinline]] CallSite capture_call_site_for_test(int extra_depth) {
  if (extra_depth <= 0) return capture_call_site();
  CallSite site = capture_call_site_for_test(extra_depth - 1);
  // Keeps the recursion real calls: no tail call, no loop.
  asm volatile("" : : "r"(&site) : "memory");
  return site;
}

}  // namespace detail

}  // namespace xport::capture
