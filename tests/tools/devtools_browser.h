#pragma once
// Headless Chromium driven over the DevTools protocol through --remote-debugging-pipe (JSON
// messages ended by '\0': commands on the browser's fd 3, replies and events on its fd 4), so a
// test gives a page real input events (wheel, drag, click, keys) and its own handlers run.

#include <string>

#include <nlohmann/json.hpp>

namespace xport::testing {

class DevToolsBrowser {
 public:
  /// Starts `binary` headless, with a fresh profile in `profile_dir` and a `width` x `height`
  /// viewport. Throws std::runtime_error when it cannot start or does not answer.
  DevToolsBrowser(const std::string& binary, const std::string& profile_dir, int width,
                  int height);
  ~DevToolsBrowser();
  DevToolsBrowser(const DevToolsBrowser&) = delete;
  DevToolsBrowser& operator=(const DevToolsBrowser&) = delete;

  /// Loads `url` in the page and waits for its load event (its scripts have run).
  void open(const std::string& url);
  /// The value of `expression` in the page (Runtime.evaluate, by value); throws
  /// std::runtime_error with the page's exception when it throws.
  nlohmann::json evaluate(const std::string& expression);
  void click(double x, double y);
  /// A click on a link: waits for the page it opens to load.
  void click_link(double x, double y);
  /// A wheel turn at (x, y): negative `delta_y` scrolls up (d3 zooms in).
  void wheel(double x, double y, double delta_y);
  void drag(double x0, double y0, double x1, double y1);
  /// Types `text` into the focused element, as an input method would.
  void type(const std::string& text);
  void press_enter();
  /// Writes a PNG of the viewport.
  void screenshot(const std::string& png_path);

 private:
  nlohmann::json call(const std::string& method, nlohmann::json params, bool in_page = true);
  nlohmann::json next_message(const std::string& waiting_for);
  void mouse(const std::string& type, double x, double y, int buttons);
  void wait_for_load(const std::string& what);

  int pid_ = -1, to_browser_ = -1, from_browser_ = -1;
  int next_id_ = 1;
  std::string buffer_, session_;
  bool loaded_ = false;
};

}  // namespace xport::testing
