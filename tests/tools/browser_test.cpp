// What people look at, opened in a real browser (headless Chromium, Debian's `chromium`): the
// ExportDB site and `xport view`'s page of GPT-2. The DOM is read after the pages' scripts ran
// (--dump-dom), and screenshots are left in the build tree (XPORT_BROWSER_DIR).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>

#include "tools/xport/view.h"
#include "xport/exportdb.h"
#include "xport/models.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = XPORT_BROWSER_DIR;

// Runs headless Chromium on `url` with `mode` (--dump-dom, or --screenshot=FILE); its stdout.
std::string chromium(const std::string& mode, const std::string& url) {
  const std::string binary = XPORT_CHROMIUM;
  if (binary.empty() || !fs::exists(binary)) {
    ADD_FAILURE() << "no chromium: install it (scripts/install-deps.sh installs Debian's "
                     "chromium) and reconfigure";
    return "";
  }
  const std::string command =
      "timeout 120 " + binary +
      " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
      "--disable-component-update --disable-sync --hide-scrollbars --window-size=1400,900 "
      "--user-data-dir=" + (kDir / "profile").string() + " " + mode + " '" + url +
      "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  char buf[65536];
  size_t n = 0;
  while (pipe && (n = fread(buf, 1, sizeof(buf), pipe.get())) > 0) out.append(buf, n);
  return out;
}

std::string url(const fs::path& file, const std::string& fragment = "") {
  return "file://" + fs::absolute(file).string() + fragment;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Browser, ShowsTheExportDbSiteWithEveryCaseAndHighlightedSources) {
  const fs::path site = kDir / "exportdb-site";
  fs::remove_all(site);
  exportdb::write_site(site.string());
  const std::string index = chromium("--dump-dom", url(site / "index.html"));
  for (const exportdb::Case& c : exportdb::all_cases()) {
    EXPECT_NE(index.find("<tr id=\"" + c.name + "\">"), std::string::npos) << c.name;
  }
  // A refused case: its error, and its source highlighted by highlight.js in the browser.
  const std::string refused =
      chromium("--dump-dom", url(site / exportdb::case_page("dynamic_shape_if_guard")));
  EXPECT_NE(refused.find("<pre id=\"error\">"), std::string::npos);
  EXPECT_GT(count(refused, "class=\"hljs-string\""), 5u) << refused.substr(0, 2000);
  EXPECT_GT(count(refused, "class=\"hljs-number\""), 2u);
  // A supported case shows its graph.
  const std::string supported =
      chromium("--dump-dom", url(site / exportdb::case_page("static_export")));
  EXPECT_NE(supported.find("<pre id=\"graph\"><code class=\"nohighlight\">graph("),
            std::string::npos);
  chromium("--screenshot=" + (kDir / "exportdb_index.png").string(), url(site / "index.html"));
  chromium("--screenshot=" + (kDir / "exportdb_case.png").string(),
           url(site / exportdb::case_page("dynamic_shape_if_guard")));
  EXPECT_TRUE(fs::exists(kDir / "exportdb_index.png"));
  EXPECT_TRUE(fs::exists(kDir / "exportdb_case.png"));
}

TEST(Browser, ViewerDrawsEveryNodeOfGpt2AndFindsOneByName) {
  auto model = models::gpt2();
  model->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{1, Dim("seq", 2, 1024)}}};
  const Tensor ids = from_vector<int64_t>({464, 3290, 318, 13779}, {1, 4});
  const ExportedProgram program = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {ids}, options);
  const fs::path page = kDir / "gpt2.html";
  save(program, (kDir / "gpt2.pt2").string());
  std::ostringstream log;
  ASSERT_EQ(tools::run_view((kDir / "gpt2.pt2").string(), page.string(), log), 0);

  const std::string dom = chromium("--dump-dom", url(page, "#search=addmm_5"));
  // Every node is drawn (one of them found), but parameters, buffers and constants: they are
  // written inside the nodes that read them.
  size_t state = 0;
  for (const InputSpec& in : program.signature().inputs) {
    if (in.kind == InputSpec::Kind::UserInput) continue;
    ++state;
    EXPECT_NE(dom.find(in.name + ": f32["), std::string::npos) << in.name;
  }
  EXPECT_EQ(count(dom, "class=\"node"), program.graph().nodes().size() - state);
  EXPECT_EQ(count(dom, "class=\"node found\""), 1u);
  EXPECT_NE(dom.find("<g id=\"node_addmm_5\" class=\"node found\">"), std::string::npos);
  EXPECT_NE(dom.find("<div id=\"status\">found addmm_5</div>"), std::string::npos);
  chromium("--screenshot=" + (kDir / "gpt2_view.png").string(), url(page, "#search=addmm_5"));
  EXPECT_TRUE(fs::exists(kDir / "gpt2_view.png"));
}

}  // namespace
}  // namespace xport
