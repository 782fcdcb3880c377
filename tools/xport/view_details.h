#pragma once
// What `xport view`'s properties panel shows, as JSON the page reads: each node's op and schema,
// its arguments by their schema names (a value, or the node that produces it), its outputs'
// dtypes and symbolic shapes, its source line and module path; and each weight's shape, dtype,
// bytes and summary statistics, read from the program's state.

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "xport/ir/ir.h"
#include "xport/program/exported_program.h"

namespace xport::tools {

/// Calls `fn` for every graph value `arg` refers to, lists included.
void each_ref(const ir::Argument& arg, const std::function<void(const ir::ValueRef&)>& fn);

/// Adds every node of `graph` to `nodes`, keyed by its element id (`node_` + prefix + name):
/// {name, kind, op, schema, args: [{name, parts}], outputs, source, module, modules, users}.
/// An argument's parts are text ({t}) and references ({t, ref: element id, weight: name}).
/// `weights` names the placeholders that hold parameters, buffers or constants.
void add_node_details(const ir::Graph& graph, const std::string& prefix,
                      const nlohmann::json& weights, nlohmann::json& nodes);

/// The program's parameters, buffers and constants by placeholder name: {kind, target, module,
/// dtype, shape, bytes, min, max, mean, values (the first few)}.
nlohmann::json weight_details(const ExportedProgram& program);

}  // namespace xport::tools
