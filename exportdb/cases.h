#pragma once
// Shared by the catalogue's source files: how a case is added, and one function per group.

#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "xport/exportdb/exportdb.h"

namespace xport::exportdb {

using detail::adapt;

// Export options with a dynamic-shape spec (one DimSpec per input, or none) and input names.
inline ExportOptions spec(std::vector<DimSpec> dynamic_shapes,
                          std::vector<std::string> input_names = {}) {
  ExportOptions options;
  options.dynamic_shapes = std::move(dynamic_shapes);
  options.input_names = std::move(input_names);
  return options;
}

// Appends `c`, recording the file and line of the call as where the case is written.
void add(std::vector<Case>& cases, Case c,
         std::source_location where = std::source_location::current());

void add_static_cases(std::vector<Case>& cases);
void add_dynamic_shape_cases(std::vector<Case>& cases);
void add_dynamic_shape_op_cases(std::vector<Case>& cases);
void add_spec_cases(std::vector<Case>& cases);
void add_data_dependent_cases(std::vector<Case>& cases);
void add_module_cases(std::vector<Case>& cases);
void add_input_output_cases(std::vector<Case>& cases);
void add_mutation_cases(std::vector<Case>& cases);
void add_control_flow_cases(std::vector<Case>& cases);
void add_size_zero_one_cases(std::vector<Case>& cases);
void add_custom_op_cases(std::vector<Case>& cases);

}  // namespace xport::exportdb
