// The ExportDB site (`xport exportdb OUT_DIR`): every case on the index and on a page of its own
// with its source and what export does with it; and how a case's source is cut from its file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "exportdb/case_source.h"
#include "xport/exportdb/exportdb.h"

namespace xport::exportdb {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// What the pages show of a text: HTML-escaped.
std::string escaped(std::string s) {
  std::string out;
  for (char c : s) {
    out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;"
                                                                                : std::string(1, c);
  }
  return out;
}

TEST(Site, ListsEveryCaseAndGivesEachAPageWithItsSourceAndOutcome) {
  const fs::path dir = fs::temp_directory_path() / ("xport_site_" + std::to_string(getpid()));
  const SiteSummary summary = write_site(dir.string());
  EXPECT_EQ(summary.cases, static_cast<int>(all_cases().size()));
  EXPECT_EQ(summary.exported + summary.refused, summary.cases);
  EXPECT_GT(fs::file_size(dir / "assets/highlight.min.js"), 100'000u);
  const std::string index = read(dir / "index.html");
  for (const Case& c : all_cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_NE(index.find("<tr id=\"" + c.name + "\"><td><a href=\"" + case_page(c.name) + "\">"),
              std::string::npos);
    const std::string html = read(dir / case_page(c.name));
    // The source cut from the case's file holds the case's own definition.
    EXPECT_NE(html.find(".name = &quot;" + c.name + "&quot;"), std::string::npos);
    EXPECT_NE(html.find(escaped(c.file)), std::string::npos);
    EXPECT_NE(html.find("<pre id=\"program\">"), std::string::npos);
    EXPECT_NE(html.find("<table class=\"inputs\">"), std::string::npos);
    if (c.expected_error) {
      EXPECT_NE(html.find("<pre id=\"error\">"), std::string::npos);
      EXPECT_NE(html.find(std::string("fails: ") + to_string(*c.expected_error)),
                std::string::npos);
      // Every refused case names the case whose program fixes it, which exports and links back.
      const Case* fix = find_case(c.fix);
      ASSERT_NE(fix, nullptr) << "no fix for " << c.name;
      EXPECT_FALSE(fix->expected_error) << fix->name;
      EXPECT_NE(html.find("<a id=\"fix-link\" href=\"" + fix->name + ".html\">"),
                std::string::npos);
      const std::string fixed = read(dir / case_page(fix->name));
      EXPECT_NE(fixed.find("fixes <a href=\"" + c.name + ".html\">"), std::string::npos)
          << fix->name;
    } else {
      EXPECT_NE(html.find("<pre id=\"graph\"><code class=\"nohighlight\">graph("),
                std::string::npos);
    }
  }
  // The program of a case whose function is defined apart from its registration.
  EXPECT_NE(read(dir / case_page("dynamic_shape_if_guard"))
                .find("<pre id=\"program\"><code class=\"language-cpp\">Tensor if_guard("
                      "const Tensor&amp; x) {\n  if (x.size(0) &lt;= 16) return x * 2.0;"),
            std::string::npos);
  // A refused case's page has the error word for word, which links back to the page.
  const Case& guard = *find_case("dynamic_shape_if_guard");
  try {
    export_program(guard.fn, guard.example_inputs, guard.options);
    ADD_FAILURE() << "dynamic_shape_if_guard exported";
  } catch (const Error& e) {
    EXPECT_NE(read(dir / case_page(guard.name)).find(escaped(e.what())), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(case_page(guard.name)), std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(CaseSource, CutsTheProgramTheCaseExports) {
  const std::string file =
      "namespace {\n"
      "// Doubles.\n"
      "Tensor twice(const Tensor& x) { return x * 2.0; }\n"
      "Tensor unused(const Tensor& x);\n"
      "class Net : public nn::Module {\n"
      " public:\n"
      "  Tensor forward(const Tensor& x) override { return twice(x); }\n"
      "};\n"
      "}  // namespace\n"
      "void add_some_cases(std::vector<Case>& cases) {\n"
      "  add(cases, {.name = \"a\", .fn = adapt(twice)});\n"
      "  add(cases, {.name = \"b\",\n"
      "              .fn = adapt([](const Tensor& x) {\n"
      "                return x + 1.0;  // }, (\n"
      "              }),\n"
      "              .example_inputs = {}});\n"
      "  auto net = std::make_shared<Net>();\n"
      "  add(cases, {.name = \"c\", .module = net});\n"
      "}\n";
  EXPECT_EQ(program_source(file, case_source(file, 11, {})),
            "// Doubles.\nTensor twice(const Tensor& x) { return x * 2.0; }\n");
  EXPECT_EQ(program_source(file, case_source(file, 12, {11})),
            "auto program = [](const Tensor& x) {\n  return x + 1.0;  // }, (\n};\n");
  EXPECT_EQ(program_source(file, case_source(file, 18, {11, 12})),
            "// Doubles.\nTensor twice(const Tensor& x) { return x * 2.0; }\n\n"
            "class Net : public nn::Module {\n public:\n  Tensor forward(const Tensor& x) "
            "override { return twice(x); }\n};\n\nauto net = std::make_shared<Net>();\n");
}

TEST(CaseSource, CutsTheCallWithItsSetupAndTheBlockItOpens) {
  const std::string file =
      "void add_some_cases(std::vector<Case>& cases) {\n"  // 1
      "  add(cases, {.name = \"a\", .fn = f(\")\"), /* ) */});\n"  // 2
      "\n"                                                   // 3
      "  {\n"                                                // 4
      "    const Tensor t = ones({2});  // ( {\n"            // 5
      "    add(cases,\n"                                     // 6
      "        {.name = \"b\", .fn = R\"x()})\")x\"});\n"    // 7
      "  }\n"                                                // 8
      "  add(cases, {.name = 'c'});\n"                       // 9
      "}\n";
  EXPECT_EQ(case_source(file, 2, {}),
            "add(cases, {.name = \"a\", .fn = f(\")\"), /* ) */});\n");
  EXPECT_EQ(case_source(file, 6, {2}),
            "{\n  const Tensor t = ones({2});  // ( {\n  add(cases,\n"
            "      {.name = \"b\", .fn = R\"x()})\")x\"});\n}\n");
  EXPECT_EQ(case_source(file, 9, {2, 6}), "add(cases, {.name = 'c'});\n");
  EXPECT_EQ(case_source(file, 5, {}), "");  // no add( call on that line
}

}  // namespace
}  // namespace xport::exportdb
