// What people look at, opened in a real browser (headless Chromium, Debian's `chromium`) and
// driven over the DevTools protocol with real input events: the ExportDB site, `xport view`'s
// page of GPT-2 (zoom, pan, fit, search, a click on a node, a weight's statistics) and the page
// comparing GPT-2 with its decomposition. Screenshots are left in the build tree
// (XPORT_BROWSER_DIR).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "tests/serde/round_trip.h"
#include "tests/tools/devtools_browser.h"
#include "tools/xport/view.h"
#include "tools/xport/view_diff.h"
#include "xport/exportdb/exportdb.h"
#include "xport/nn/models.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::DevToolsBrowser;

const fs::path kDir = XPORT_BROWSER_DIR;
constexpr int kWidth = 1400, kHeight = 900;

// The browser, or a failure saying what to install: a missing chromium never passes.
std::unique_ptr<DevToolsBrowser> browser() {
  const std::string binary = XPORT_CHROMIUM;
  if (binary.empty() || !fs::exists(binary)) {
    ADD_FAILURE() << "no chromium: install it (scripts/install-deps.sh installs Debian's "
                     "chromium) and reconfigure";
    return nullptr;
  }
  fs::remove_all(kDir / "profile");
  return std::make_unique<DevToolsBrowser>(binary, (kDir / "profile").string(), kWidth, kHeight);
}

std::string url(const fs::path& file, const std::string& fragment = "") {
  return "file://" + fs::absolute(file).string() + fragment;
}

// The viewer's archive of GPT-2, in the temp directory: 500 MB that need not outlive the tests.
const test_support::TempFile& gpt2_archive() {
  static const test_support::TempFile file("gpt2");
  return file;
}

// GPT-2 (12 layers, dynamic sequence length), exported and saved once for the viewer's tests.
const ExportedProgram& gpt2() {
  static const ExportedProgram program = [] {
    auto model = models::gpt2();
    model->eval();
    ExportOptions options;
    options.dynamic_shapes = {{{1, Dim("seq", 2, 1024)}}};
    const Tensor ids = from_vector<int64_t>({464, 3290, 318, 13779}, {1, 4});
    ExportedProgram p = export_program(
        *model, [&](const Tensor& x) { return model->forward(x); }, {ids}, options);
    save(p, gpt2_archive().path());
    return p;
  }();
  return program;
}

// The viewport transform of a picture: translate(x,y)scale(k) as {x, y, k}.
std::vector<double> transform_of(DevToolsBrowser& b, const std::string& picture) {
  const std::string t = b.evaluate("document.querySelector('#" + picture +
                                   " g.viewport').getAttribute('transform')");
  double x = 0, y = 0, k = 0;
  EXPECT_EQ(std::sscanf(t.c_str(), "translate(%lf,%lf)scale(%lf)", &x, &y, &k), 3) << t;
  return {x, y, k};
}

// The centre of an element on the screen.
std::pair<double, double> centre_of(DevToolsBrowser& b, const std::string& selector) {
  const json r = b.evaluate("(() => { const r = document.querySelector('" + selector +
                            "').getBoundingClientRect(); return [r.x + r.width / 2, "
                            "r.y + r.height / 2]; })()");
  return {r.at(0).get<double>(), r.at(1).get<double>()};
}

std::string text_of(DevToolsBrowser& b, const std::string& selector) {
  return b.evaluate("(document.querySelector('" + selector + "') || {}).textContent || ''");
}

TEST(Browser, ShowsTheExportDbSiteWithEveryCaseItsProgramAndItsFix) {
  const fs::path site = kDir / "exportdb-site";
  fs::remove_all(site);
  exportdb::write_site(site.string());
  auto b = browser();
  if (!b) return;
  b->open(url(site / "index.html"));
  for (const exportdb::Case& c : exportdb::all_cases()) {
    EXPECT_TRUE(b->evaluate("!!document.getElementById('" + c.name + "')").get<bool>()) << c.name;
  }
  b->screenshot((kDir / "exportdb_index.png").string());
  // A refused case: the program it exports (the function's body, highlighted by highlight.js),
  // its error, and the program that fixes it, which links back.
  b->open(url(site / exportdb::case_page("dynamic_shape_if_guard")));
  EXPECT_NE(text_of(*b, "#program").find("if (x.size(0) <= 16) return x * 2.0;"),
            std::string::npos) << text_of(*b, "#program");
  EXPECT_GT(b->evaluate("document.querySelectorAll('#program .hljs-number').length").get<int>(),
            1);
  EXPECT_NE(text_of(*b, "#error").find("x.size(0) <= 16"), std::string::npos)
      << text_of(*b, "#error");
  EXPECT_NE(text_of(*b, "table.inputs").find("f32[8, 3]"), std::string::npos);
  EXPECT_NE(text_of(*b, "#fix").find("Dim(\"batch\", 2, 16)"), std::string::npos);
  b->screenshot((kDir / "exportdb_case.png").string());
  b->evaluate("document.getElementById('fix-link').scrollIntoView({block: 'center'})");
  b->screenshot((kDir / "exportdb_fix.png").string());
  b->click_link(centre_of(*b, "#fix-link").first, centre_of(*b, "#fix-link").second);
  EXPECT_NE(b->evaluate("location.href").get<std::string>().find("dynamic_shape_if_guard_fixed"),
            std::string::npos);
  EXPECT_NE(text_of(*b, "#fixes").find("dynamic_shape_if_guard"), std::string::npos);
  EXPECT_NE(text_of(*b, "#graph").find("graph("), std::string::npos);
}

TEST(Browser, ViewerOfGpt2ZoomsPansFindsAndShowsANodesArgumentsAndWeights) {
  const ExportedProgram& program = gpt2();
  const fs::path page = kDir / "gpt2.html";
  std::ostringstream log;
  ASSERT_EQ(tools::run_view({gpt2_archive().path()}, page.string(), log), 0);
  std::cout << log.str();
  auto b = browser();
  if (!b) return;
  b->open(url(page));
  // It opens on the input: the node of `x` is on the screen.
  const json x = b->evaluate("(() => { const r = document.getElementById('node_x')"
                             ".getBoundingClientRect(); return [r.left, r.top, r.right, "
                             "r.bottom]; })()");
  EXPECT_GT(x[0].get<double>(), 0);
  EXPECT_LT(x[2].get<double>(), kWidth);
  EXPECT_GT(x[1].get<double>(), 0);
  EXPECT_LT(x[3].get<double>(), kHeight);
  // The wheel zooms about the pointer, a drag pans.
  const auto [cx, cy] = centre_of(*b, "#picture_0 > svg");
  const std::vector<double> t0 = transform_of(*b, "picture_0");
  b->wheel(cx, cy, -300);
  const std::vector<double> t1 = transform_of(*b, "picture_0");
  EXPECT_GT(t1[2], t0[2] * 1.2);
  b->drag(cx, cy, cx - 200, cy - 150);
  const std::vector<double> t2 = transform_of(*b, "picture_0");
  EXPECT_NEAR(t2[0] - t1[0], -200, 1);
  EXPECT_NEAR(t2[1] - t1[1], -150, 1);
  EXPECT_DOUBLE_EQ(t2[2], t1[2]);
  // Fit to screen: the whole graph on the screen, and the minimap frames the view.
  b->click(centre_of(*b, "#fit").first, centre_of(*b, "#fit").second);
  const json fit = b->evaluate("(() => { const g = document.querySelector('#picture_0 "
                               "g.viewport').getBoundingClientRect(), s = document."
                               "querySelector('#picture_0 > svg').getBoundingClientRect(); "
                               "return [g.top - s.top, s.bottom - g.bottom, g.height]; })()");
  EXPECT_GE(fit[0].get<double>(), -1);
  EXPECT_GE(fit[1].get<double>(), -1);
  EXPECT_GT(b->evaluate("+document.querySelector('#picture_0 svg.minimap rect.view')"
                        ".getAttribute('width')").get<double>(), 0);
  b->screenshot((kDir / "gpt2_fit.png").string());
  // Search by module path: typed into the box, the matches listed; a click on one jumps to it.
  const auto [sx, sy] = centre_of(*b, "#search");
  b->click(sx, sy);
  b->type("transformer.h.1.attn.c_attn");
  EXPECT_NE(text_of(*b, "#results").find("addmm_4 aten::addmm"), std::string::npos)
      << text_of(*b, "#results");
  const auto [rx, ry] = centre_of(*b, "#results li[data-id=\"node_addmm_4\"]");
  b->click(rx, ry);
  EXPECT_EQ(b->evaluate("document.querySelectorAll('g.node.found').length").get<int>(), 1);
  EXPECT_EQ(text_of(*b, "#props h3"), "addmm_4");
  // A weight's row in the parameters table shows its statistics; then the click on
  // the node found above fills the panel with the node.
  const std::string row = "tr[data-weight=\"p_transformer_wte_weight\"]";
  b->evaluate("document.querySelector('" + row + "').scrollIntoView()");
  const auto [wx, wy] = centre_of(*b, row);
  b->click(wx, wy);
  EXPECT_NE(text_of(*b, "#props").find("154389504"), std::string::npos) << text_of(*b, "#props");
  // A click on a node fills the panel: its arguments by name, its source line, the weight.
  const auto [nx, ny] = centre_of(*b, "#node_addmm_4");
  b->click(nx, ny);
  EXPECT_EQ(text_of(*b, "#props h3"), "addmm_4");
  const std::string args = text_of(*b, "#node-args");
  for (const char* name : {"self", "mat1", "mat2"}) {
    EXPECT_NE(args.find(name), std::string::npos) << name << " in " << args;
  }
  EXPECT_NE(args.find("%p_transformer_h_1_attn_c_attn_weight"), std::string::npos) << args;
  const ir::Node* node = nullptr;
  for (const auto& n : program.graph().nodes()) {
    if (n->name() == "addmm_4") node = n.get();
  }
  ASSERT_NE(node, nullptr);
  ASSERT_FALSE(node->meta().source.empty());
  EXPECT_NE(text_of(*b, "#node-props").find(node->meta().source), std::string::npos);
  EXPECT_NE(text_of(*b, "#node-props").find(node->meta().module_path), std::string::npos);
  // The weight it reads, with its statistics read from the archive.
  const Tensor weight = program.state().at("transformer.h.1.attn.c_attn.weight");
  const double mean = weight.mean({0, 1}).item<float>();
  const std::string table =
      "#props table.weight[data-weight=\"p_transformer_h_1_attn_c_attn_weight\"]";
  const double shown_mean = std::stod(text_of(*b, table + " tr:nth-child(8) td"));
  EXPECT_NEAR(shown_mean, mean, 1e-4 * std::abs(mean) + 1e-6);
  EXPECT_NE(text_of(*b, table).find("7077888"), std::string::npos);  // 768 * 2304 * 4 bytes
  b->screenshot((kDir / "gpt2_view.png").string());
}

TEST(Browser, DiffPageOfGpt2AndItsDecompositionMarksTheChangedNodes) {
  const ExportedProgram& program = gpt2();
  const ExportedProgram core = program.run_decompositions();
  const test_support::TempFile core_archive("gpt2_core");
  save(core, core_archive.path());
  const fs::path page = kDir / "gpt2_diff.html";
  std::ostringstream log;
  ASSERT_EQ(tools::run_view({gpt2_archive().path(), core_archive.path()},
                            page.string(), log),
            0);
  std::cout << log.str();
  const tools::GraphDiff diff = tools::diff_graphs(program.graph(), core.graph());
  ASSERT_GT(diff.changed_a, 0);
  auto b = browser();
  if (!b) return;
  b->open(url(page));
  EXPECT_EQ(b->evaluate("document.querySelectorAll('#picture_a g.node.changed').length")
                .get<int>(),
            diff.changed_a);
  EXPECT_EQ(b->evaluate("document.querySelectorAll('#picture_b g.node.changed').length")
                .get<int>(),
            diff.changed_b);
  // Attention is decomposed: its node is marked changed and matched to what replaced it.
  const std::string sdpa = b->evaluate(
      "(() => { const d = JSON.parse(document.getElementById('xport-data').textContent); "
      "return Object.keys(d.nodes).find(id => id.startsWith('node_a/') && d.nodes[id].op && "
      "d.nodes[id].op.startsWith('aten::scaled_dot_product_attention')) || ''; })()");
  ASSERT_FALSE(sdpa.empty());
  const std::string selector = "[id=\"" + sdpa + "\"]";
  EXPECT_TRUE(b->evaluate("document.querySelector('" + selector + "').classList.contains("
                          "'changed')").get<bool>());
  const auto [sx, sy] = centre_of(*b, "#search");
  b->click(sx, sy);
  b->type(sdpa.substr(7));
  b->press_enter();
  const auto [nx, ny] = centre_of(*b, selector);
  b->click(nx, ny);
  EXPECT_NE(text_of(*b, "#props").find("changed: matches"), std::string::npos)
      << text_of(*b, "#props");
  EXPECT_EQ(b->evaluate("document.querySelectorAll('#picture_b g.node.found').length").get<int>(),
            1);
  b->screenshot((kDir / "gpt2_diff.png").string());
}

}  // namespace
}  // namespace xport
