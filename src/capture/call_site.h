#pragma once
/// \file The user's source line for each traced op and guard.
///
/// Every graph node and shape guard records where in the *user's* code it came from, not xport's
/// line. Capturing is cheap (raw return addresses from the DWARF unwinder, no symbols); turning
/// them into lines is deferred and cached per address, using libdw on the running process.
///
/// A frame is xport's own when its source file lies under xport's `src/` or `include/xport/`
/// (including installed xport headers inlined into user code); frames whose file or library lies
/// under /usr (the standard library, system libraries) are skipped too. The first remaining frame
/// with line info is the user's. Calls inlined by the optimizer count as frames of their own, so
/// an inlined xport header function still leads to the user's line that called it.
///
/// User code must be compiled with debug line info (`-g`, or `-g1` for line tables only) for lines
/// to appear. Without it user_source() is empty and user_function() falls back to the symbol
/// table: the first function not in namespace `xport` or `std` and not in a system library.

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace xport::capture {

inline constexpr int kMaxCallSiteDepth = 48;

/// Raw return addresses of a call stack, innermost first, without capture_call_site's own frame.
struct CallSite {
  std::array<void*, kMaxCallSiteDepth> pcs{};
  int depth = 0;
};

/// One source-level frame; a call the compiler inlined is a frame of its own.
struct SourceFrame {
  std::string file;  ///< path as recorded in the debug info (absolute for CMake builds)
  int line = 0;
  std::string function;  ///< demangled; empty when unknown
};

/// Records the current call stack (up to kMaxCallSiteDepth frames). Thread-safe; about 90 ns per
/// frame, since -O3 code has no frame pointers and each frame is unwound from DWARF CFI.
CallSite capture_call_site();

/// The user's frames with line info, innermost first, at most `max_frames`. Thread-safe.
std::vector<SourceFrame> user_frames(const CallSite& site, int max_frames);

/// "model.cpp:42": basename and line of the innermost user frame; empty when there is none.
std::string user_source(const CallSite& site);

/// Demangled name of the innermost user function; from the symbol table when the user's code has
/// no line info. Empty when there is none.
std::string user_function(const CallSite& site);

/// "model.cpp:42 in Net::forward(xport::Tensor const&)" per user frame, innermost first, for a
/// node's stack trace.
std::vector<std::string> user_stack(const CallSite& site, int max_frames);

/// Whether a source file is xport's own: under its src/, or an xport header wherever installed.
bool is_xport_file(std::string_view path);

namespace detail {
/// Test-only: captures the call site `extra_depth` xport frames below the caller.
CallSite capture_call_site_for_test(int extra_depth);
}  // namespace detail

}  // namespace xport::capture
