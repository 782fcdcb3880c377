// A guard's message names the user's file and line, not an installed xport header, in Release
// (-O2 -g1) and Debug (-O0 -g) builds of the user's code; built without line info (-g0), it
// names the user's function and says how to get the line. The message also speaks in the
// user's Dim names. Exits 1 with the message when any of that is wrong.
#include <cstdio>
#include <string>
#include <xport/xport.h>

int main() {
  using namespace xport;
  int guard_line = 0;
  auto fn = [&guard_line](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    guard_line = __LINE__ + 1;
    if (x.size(0) > 4) return std::vector<Tensor>{x + 1.0};
    return std::vector<Tensor>{x * 2.0};
  };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch")}}};
  std::string message;
  try {
    export_program(fn, {randn({8, 3}, 0)}, options);
  } catch (const Error& e) {
    message = e.what();
  }
  bool ok = message.find("x.size(0) >= 5, i.e. batch >= 5") != std::string::npos &&
            message.find("sym.h") == std::string::npos;
#ifdef XPORT_CONSUMER_NO_DEBUG_INFO
  ok = ok && message.find("build your code with -g1 to see the line") != std::string::npos;
#else
  ok = ok && message.find("(guard_lines.cpp:" + std::to_string(guard_line) + ")") !=
                 std::string::npos;
#endif
  if (!ok) {
    std::fprintf(stderr, "guard_lines: the guard's message is wrong (line %d):\n%s\n", guard_line,
                 message.c_str());
    return 1;
  }
  std::puts("guard_lines: the guard names the user's line and Dim");
  return 0;
}
