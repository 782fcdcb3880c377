#include "xport/exportdb/exportdb.h"

#include <string>
#include <vector>

#include "exportdb/cases.h"

namespace xport::exportdb {

void add(std::vector<Case>& cases, Case c, std::source_location where) {
  // Paths relative to the source tree read the same on every machine.
  std::string file = where.file_name();
  if (size_t at = file.rfind("/exportdb/"); at != std::string::npos) file = file.substr(at + 1);
  c.file = std::move(file);
  c.line = static_cast<int>(where.line());
  cases.push_back(std::move(c));
}

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> out;
    add_static_cases(out);
    add_dynamic_shape_cases(out);
    add_dynamic_shape_op_cases(out);
    add_spec_cases(out);
    add_data_dependent_cases(out);
    add_module_cases(out);
    add_input_output_cases(out);
    add_mutation_cases(out);
    add_control_flow_cases(out);
    add_size_zero_one_cases(out);
    add_custom_op_cases(out);
    return out;
  }();
  return cases;
}

ExportedProgram export_case(const Case& c) {
  ExportedProgram p = c.module ? export_program(*c.module, c.fn, c.example_inputs, c.options)
                               : export_program(c.fn, c.example_inputs, c.options);
  return c.backend ? c.backend(p) : std::move(p);
}

const Case* find_case(std::string_view name) {
  for (const Case& c : all_cases()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace xport::exportdb
