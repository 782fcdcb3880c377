#pragma once
/// \file ExportedProgram: a captured graph, its signature, and the shape contract under which it
/// is valid. run() checks every input against the contract before any kernel runs.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "xport/core/expr.h"
#include "xport/ir/ir.h"
#include "xport/tensor/value.h"

namespace xport {

/// What one graph input is.
struct InputSpec {
  enum class Kind { Parameter, Buffer, Constant, UserInput };
  Kind kind = Kind::UserInput;
  std::string name;        ///< the placeholder's name (`p_fc_weight`, `x`)
  std::string target;      ///< dotted path of a parameter/buffer (`fc.weight`); constant's name
  bool persistent = true;  ///< buffers: in the state dict
};

/// What one graph output is: a result for the caller, or the new value of a buffer or user
/// input that the program updates in place (whoever runs the program writes it back).
struct OutputSpec {
  enum class Kind { UserOutput, BufferMutation, UserInputMutation };
  Kind kind = Kind::UserOutput;
  std::string name;    ///< the value's name in the graph
  std::string target;  ///< BufferMutation: the buffer's path; UserInputMutation: the input's name
};

struct GraphSignature {
  /// How the program's function returned its user outputs: one tensor alone, or a sequence (a
  /// tuple, pair or vector, flattened in order). Callers that rebuild the return value read it:
  /// Python's `program(x)` and PyTorch's `ep.module()(x)` give a lone tensor for `Single`, a tuple
  /// otherwise (the archive's out_spec: a leaf or a tuple).
  enum class Returns { Sequence, Single };

  std::vector<InputSpec> inputs;  ///< parameters, buffers, constants, then user inputs
  std::vector<OutputSpec> outputs;
  Returns returns = Returns::Sequence;
  std::string str() const;
};

/// Op qualified name ("aten::transpose.int") -> the decomposition that replaces it.
using DecompositionTable = std::map<std::string, DecompFn>;
/// Every registered op outside the core set, with its decomposition: applying it leaves only
/// core ops.
DecompositionTable core_decompositions();

/// symbol name -> [min, max] (max may be sym::Range::kPosInf).
using RangeConstraints = std::map<std::string, sym::Range>;

/// The contract for one user input: a tensor with a dtype and sizes (Integer expressions for
/// static dims, expressions over symbols for dynamic ones), a list of such tensors, or a plain
/// value the program was specialised to.
struct InputContract {
  enum class Kind { Tensor, TensorList, Int, Float, Bool };
  Kind kind = Kind::Tensor;
  std::string name;                     ///< `x`, or the list's name
  DType dtype = DType::Float32;         ///< tensors
  std::vector<sym::ExprPtr> sizes;      ///< tensors
  std::vector<InputContract> elements;  ///< tensor lists: one per element
  int64_t int_value = 0;                ///< Int / Bool (0 or 1)
  double float_value = 0;               ///< Float
};

/// "tensor", "tensor_list", "int", "float" or "bool": the kind's name in archives, ONNX metadata
/// and the Python package.
const char* to_string(InputContract::Kind kind);

/// A symbol's meaning for error messages and for binding it at run time.
struct SymbolSpec {
  std::string name;      ///< `s0`, or `u0` for an unbacked symbol
  std::string source;    ///< `x.size(0)`; for an unbacked symbol what defines it (`x.item()`)
  std::string dim_name;  ///< the user's Dim name (`batch`); empty for an unbacked symbol
  sym::Range range;
  /// Defined by a node when the program runs (item, nonzero), not by an input dim; its range is
  /// what the program's checks assert.
  bool unbacked;
};

class ExportedProgram {
 public:
  ExportedProgram(ir::Graph graph, GraphSignature signature, std::vector<InputContract> contract,
                  std::vector<SymbolSpec> symbols, std::map<std::string, Tensor> state);
  ExportedProgram(ExportedProgram&&) noexcept;
  ExportedProgram& operator=(ExportedProgram&&) noexcept;
  ~ExportedProgram();

  const ir::Graph& graph() const;
  const GraphSignature& signature() const;
  RangeConstraints range_constraints() const;
  const std::vector<InputContract>& contract() const;
  const std::vector<SymbolSpec>& symbols() const;
  /// Parameter, buffer and constant values by placeholder target (`fc.weight`).
  const std::map<std::string, Tensor>& state() const;

  /// Checks arity, kinds, dtypes, ranks, static dims, symbol ranges, equalities and derived
  /// relations (InvalidInput naming the input and dim), then runs the graph. Returns the user
  /// outputs; buffer mutations are written to state() and user-input mutations to the caller's
  /// tensors, in place, as the eager program would.
  std::vector<Tensor> run(const std::vector<Value>& inputs) const;
  /// The graph, then the signature, then the range constraints.
  std::string to_string() const;
#ifndef XPORT_RUNTIME_ONLY
  /// The same program with every op in `table` replaced by its decomposition (re-traced over
  /// the same symbols; nodes keep their source lines and module paths). Defined in the capture
  /// layer, which re-traces: a program linking xport::runtime alone (XPORT_RUNTIME_ONLY) does
  /// not see it.
  ExportedProgram run_decompositions(DecompositionTable table = core_decompositions()) const;
#endif
  /// A program whose graph is a copy of this one's after `pass` changed it (find_nodes,
  /// insert_call, replace_all_uses, erase, ...). The result is verified: structure, then every
  /// call's recorded sizes and dtype against its op's meta function at sizes inside the
  /// contract (Internal naming the node when they disagree). Inputs stay as they are; results
  /// keep their places in the signature.
  ExportedProgram transform(const std::function<void(ir::Graph&)>& pass) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xport
