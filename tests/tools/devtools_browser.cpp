#include "tests/tools/devtools_browser.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace xport::testing {
namespace {

using nlohmann::json;

constexpr int kReplyTimeoutMs = 60'000;

std::vector<unsigned char> base64_decode(const std::string& in) {
  std::vector<unsigned char> out;
  int bits = 0, value = 0;
  for (char c : in) {
    int d = -1;
    if (c >= 'A' && c <= 'Z') d = c - 'A';
    if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
    if (c >= '0' && c <= '9') d = c - '0' + 52;
    if (c == '+') d = 62;
    if (c == '/') d = 63;
    if (d < 0) continue;
    value = (value << 6) | d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<unsigned char>((value >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace

DevToolsBrowser::DevToolsBrowser(const std::string& binary, const std::string& profile_dir,
                                 int width, int height) {
  signal(SIGPIPE, SIG_IGN);  // a browser that died is reported by the next read, not a signal
  int to[2], from[2];
  if (pipe(to) != 0 || pipe(from) != 0) throw std::runtime_error("chromium: pipe failed");
  const std::string size = "--window-size=" + std::to_string(width) + "," +
                           std::to_string(height);
  const std::string profile = "--user-data-dir=" + profile_dir;
  std::vector<std::string> args = {binary, "--headless", "--no-sandbox", "--disable-gpu",
                                   "--no-first-run", "--disable-background-networking",
                                   "--disable-component-update", "--disable-sync",
                                   "--hide-scrollbars", "--remote-debugging-pipe", size,
                                   profile, "about:blank"};
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("chromium: fork failed");
  if (pid_ == 0) {
    // Out of the way of 3 and 4 first, then onto them.
    const int in = fcntl(to[0], F_DUPFD, 10), out = fcntl(from[1], F_DUPFD, 10);
    dup2(in, 3);
    dup2(out, 4);
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    for (int fd : {to[0], to[1], from[0], from[1], in, out, null}) {
      if (fd > 4) close(fd);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  to_browser_ = to[1];
  from_browser_ = from[0];
  const json targets = call("Target.getTargets", json::object(), false);
  std::string target;
  for (const json& t : targets["targetInfos"]) {
    if (t["type"] == "page") target = t["targetId"];
  }
  if (target.empty()) {
    target = call("Target.createTarget", {{"url", "about:blank"}}, false)["targetId"];
  }
  session_ = call("Target.attachToTarget", {{"targetId", target}, {"flatten", true}},
                  false)["sessionId"];
  call("Page.enable", json::object());
  call("Emulation.setDeviceMetricsOverride",
       {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", false}});
}

DevToolsBrowser::~DevToolsBrowser() {
  if (pid_ <= 0) return;
  const std::string close_message = R"({"id":0,"method":"Browser.close"})";
  (void)!write(to_browser_, close_message.c_str(), close_message.size() + 1);
  int status = 0;
  for (int i = 0; i < 100 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (i == 99) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  close(to_browser_);
  close(from_browser_);
}

json DevToolsBrowser::next_message(const std::string& waiting_for) {
  for (;;) {
    const size_t end = buffer_.find('\0');
    if (end != std::string::npos) {
      json message = json::parse(buffer_.substr(0, end));
      buffer_.erase(0, end + 1);
      return message;
    }
    pollfd p = {from_browser_, POLLIN, 0};
    if (poll(&p, 1, kReplyTimeoutMs) <= 0) {
      throw std::runtime_error("chromium: no answer to " + waiting_for + " in 60 s");
    }
    char buf[65536];
    const ssize_t n = read(from_browser_, buf, sizeof(buf));
    if (n <= 0) throw std::runtime_error("chromium: closed the pipe while " + waiting_for);
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

json DevToolsBrowser::call(const std::string& method, json params, bool in_page) {
  const int id = next_id_++;
  json message = {{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (in_page) message["sessionId"] = session_;
  const std::string text = message.dump() + '\0';
  if (write(to_browser_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    throw std::runtime_error("chromium: cannot send " + method);
  }
  for (;;) {
    json reply = next_message(method);
    if (reply.value("method", "") == "Page.loadEventFired") loaded_ = true;
    if (!reply.contains("id") || reply["id"] != id) continue;
    if (reply.contains("error")) {
      throw std::runtime_error("chromium: " + method + ": " + reply["error"].dump());
    }
    return reply["result"];
  }
}

void DevToolsBrowser::wait_for_load(const std::string& what) {
  while (!loaded_) {
    if (next_message("the load of " + what).value("method", "") == "Page.loadEventFired") {
      loaded_ = true;
    }
  }
}

void DevToolsBrowser::open(const std::string& url) {
  loaded_ = false;
  call("Page.navigate", {{"url", url}});
  wait_for_load(url);
}

void DevToolsBrowser::click_link(double x, double y) {
  loaded_ = false;
  click(x, y);
  wait_for_load("a link's page");
}

json DevToolsBrowser::evaluate(const std::string& expression) {
  const json r = call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true},
                                           {"awaitPromise", true}});
  if (r.contains("exceptionDetails")) {
    throw std::runtime_error("page: " + expression + ": " + r["exceptionDetails"].dump());
  }
  return r["result"].value("value", json());
}

void DevToolsBrowser::mouse(const std::string& type, double x, double y, int buttons) {
  json params = {{"type", type}, {"x", x}, {"y", y}, {"buttons", buttons}};
  if (type != "mouseMoved" || buttons != 0) params["button"] = "left";
  if (type != "mouseMoved") params["clickCount"] = 1;
  call("Input.dispatchMouseEvent", std::move(params));
}

void DevToolsBrowser::click(double x, double y) {
  mouse("mouseMoved", x, y, 0);
  mouse("mousePressed", x, y, 1);
  mouse("mouseReleased", x, y, 0);
}

void DevToolsBrowser::wheel(double x, double y, double delta_y) {
  call("Input.dispatchMouseEvent", {{"type", "mouseWheel"}, {"x", x}, {"y", y}, {"deltaX", 0},
                                    {"deltaY", delta_y}});
}

void DevToolsBrowser::drag(double x0, double y0, double x1, double y1) {
  mouse("mouseMoved", x0, y0, 0);
  mouse("mousePressed", x0, y0, 1);
  constexpr int kSteps = 5;
  for (int i = 1; i <= kSteps; ++i) {
    mouse("mouseMoved", x0 + (x1 - x0) * i / kSteps, y0 + (y1 - y0) * i / kSteps, 1);
  }
  mouse("mouseReleased", x1, y1, 0);
}

void DevToolsBrowser::type(const std::string& text) { call("Input.insertText", {{"text", text}}); }

void DevToolsBrowser::press_enter() {
  for (const char* type : {"keyDown", "keyUp"}) {
    call("Input.dispatchKeyEvent", {{"type", type}, {"key", "Enter"}, {"code", "Enter"},
                                    {"windowsVirtualKeyCode", 13}, {"text", "\r"}});
  }
}

void DevToolsBrowser::screenshot(const std::string& png_path) {
  const json r = call("Page.captureScreenshot", {{"format", "png"}});
  const std::vector<unsigned char> png = base64_decode(r["data"]);
  std::ofstream out(png_path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  if (!out.good()) throw std::runtime_error("cannot write " + png_path);
}

}  // namespace xport::testing
