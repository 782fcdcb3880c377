// Views, copies and indexing. ONNX has values, not views: a view is the value it shows, and its
// sizes come from the node's result spec (expressions over the program's symbols).
#include <algorithm>
#include <limits>
#include <numeric>

#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

// The value reshaped to the node's result sizes (view, squeeze, unsqueeze: exact, since the
// result's sizes are known). Where a size may be 0, `allowzero`: a 0 in Reshape's shape
// otherwise copies the input's dim there ([0, 5] unsqueezed to [1, 0, 5] became [1, 5, 5]).
void reshape_to_result(NodeLowering& n) {
  const std::vector<sym::ExprPtr>& sizes = n.out_spec().sizes;
  const bool may_be_zero = std::any_of(sizes.begin(), sizes.end(), [](sym::ExprPtr s) {
    const std::optional<int64_t> v = sym::as_int(s);
    return !v || *v == 0;
  });
  n.emit("Reshape", {n.tensor("self"), n.g.shape(sizes)},
         may_be_zero ? std::vector{attr("allowzero", int64_t{1})}
                     : std::vector<::onnx::AttributeProto>{});
}

void identity(NodeLowering& n) { n.emit("Identity", {n.tensor("self")}); }

void to_copy(NodeLowering& n) {
  const DType from = n.spec("self").dtype, to = n.out_dtype();
  if (from == to) return identity(n);
  n.emit("Cast", {n.tensor("self")}, {attr("to", static_cast<int64_t>(onnx_type(to)))});
}

void slice(NodeLowering& n) {
  const int64_t dim = n.dim();
  GraphBuilder& g = n.g;
  const std::string start = n.is_none("start") ? g.ints({0}) : g.sym_int(n.size("start"));
  const std::string end = n.is_none("end") ? g.ints({std::numeric_limits<int64_t>::max()})
                                           : g.sym_int(n.size("end"));
  n.emit("Slice", {n.tensor("self"), start, end, g.ints({dim}), g.sym_int(n.size("step"))});
}

void select(NodeLowering& n) {
  const int64_t dim = n.dim();
  n.emit("Gather", {n.tensor("self"), n.g.sym_scalar(n.size("index"))},
         {attr("axis", dim)});
}

void permute(NodeLowering& n) {
  std::vector<int64_t> perm = n.integers("dims");
  for (int64_t& d : perm) d = wrap_dim(d, perm.size());
  n.emit("Transpose", {n.tensor("self")}, {attr("perm", perm)});
}

void cat(NodeLowering& n) {
  const DType t = n.out_dtype();
  const std::vector<std::string> values = n.tensors("tensors");
  const std::vector<const ir::TensorSpec*> specs = n.specs("tensors");
  const size_t rank = n.out_spec().sizes.size();
  std::vector<std::string> inputs;
  for (size_t i = 0; i < values.size(); ++i) {
    // PyTorch skips a 1-D tensor of size 0 beside tensors of other ranks (legacy behaviour).
    const auto& sizes = specs[i]->sizes;
    if (sizes.size() == 1 && rank != 1 && sym::as_int(sizes[0]) == 0) continue;
    inputs.push_back(n.g.cast(values[i], specs[i]->dtype, t));
  }
  n.emit("Concat", std::move(inputs), {attr("axis", wrap_dim(n.integer("dim"), rank))});
}

void split_with_sizes(NodeLowering& n) {
  const int64_t dim = n.dim();
  n.emit("Split", {n.tensor("self"), n.g.shape(n.sizes("split_sizes"))}, {attr("axis", dim)});
}

void copy(NodeLowering& n) {
  const std::string src = n.g.cast(n.tensor("src"), n.spec("src").dtype, n.out_dtype());
  n.emit("Expand", {src, n.g.shape(n.out_spec().sizes)});
}

void repeat(NodeLowering& n) {
  const std::vector<sym::ExprPtr> repeats = n.sizes("repeats");
  const ir::TensorSpec& self = n.spec("self");
  std::string x = n.tensor("self");
  if (repeats.size() > self.sizes.size()) {
    std::vector<sym::ExprPtr> padded(repeats.size() - self.sizes.size(), sym::integer(1));
    padded.insert(padded.end(), self.sizes.begin(), self.sizes.end());
    x = n.g.add("Reshape", {x, n.g.shape(padded)});
  }
  n.emit("Tile", {x, n.g.shape(repeats)});
}

// ATen's pad list (last dim first, before/after pairs) as ONNX's (each dim's begins, then
// each dim's ends).
std::string onnx_pads(NodeLowering& n, const char* name, size_t rank) {
  const std::vector<int64_t> pad = n.integers(name);
  if (pad.size() % 2 != 0 || pad.size() / 2 > rank) n.refuse("a pad list of odd length");
  std::vector<int64_t> pads(2 * rank, 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t dim = rank - 1 - i;
    pads[dim] = pad[2 * i];
    pads[rank + dim] = pad[2 * i + 1];
  }
  return n.g.ints(pads);
}

void constant_pad(NodeLowering& n) {
  const size_t rank = n.spec("self").sizes.size();
  n.emit("Pad", {n.tensor("self"), onnx_pads(n, "pad", rank), n.scalar("value", n.out_dtype())});
}

LowerFn mode_pad(const char* mode) {
  return [mode](NodeLowering& n) {
    const size_t rank = n.spec("self").sizes.size();
    n.emit("Pad", {n.tensor("self"), onnx_pads(n, "padding", rank)},
           {attr("mode", std::string(mode))});
  };
}

void flip(NodeLowering& n) {
  const size_t rank = n.spec("self").sizes.size();
  std::vector<int64_t> axes = n.integers("dims");
  for (int64_t& d : axes) d = wrap_dim(d, rank);
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  const std::vector<int64_t> starts(axes.size(), -1), ends(axes.size(), lowest),
      steps(axes.size(), -1);
  GraphBuilder& g = n.g;
  n.emit("Slice", {n.tensor("self"), g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)});
}

// Advanced indexing (`x[idx]`, `x[:, i, j]`): the indexed dims moved to the front, GatherND
// over the indices broadcast and stacked, then the result's dims put where PyTorch puts them
// (at the first indexed dim when the indexed dims are adjacent, else first).
struct Indexing {
  std::vector<int64_t> dims;             // the indexed dims, in order
  std::vector<int64_t> perm;             // indexed dims first, then the others
  std::string stacked;                   // the indices broadcast and stacked on a last dim
  std::vector<sym::ExprPtr> broadcast;   // the indices' broadcast sizes
  bool adjacent = true;
  bool from_mask = false;                // a boolean mask's nonzero positions
};

Indexing indexing(NodeLowering& n) {
  const std::vector<std::string> indices = n.tensors("indices");
  const std::vector<const ir::TensorSpec*> specs = n.specs("indices");
  const size_t rank = n.spec("self").sizes.size();
  GraphBuilder& g = n.g;
  Indexing ix;
  std::vector<std::string> columns;  // one int64 index per indexed dim
  bool ints = false;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i].empty()) continue;
    const ir::TensorSpec& spec = *specs[i];
    if (spec.dtype != DType::Bool && spec.dtype != DType::UInt8) {
      ints = true;
      ix.dims.push_back(static_cast<int64_t>(i));
      columns.push_back(g.cast(indices[i], spec.dtype, DType::Int64));
      continue;
    }
    // A mask over k dims indexes them with the k rows of its nonzero positions.
    ix.from_mask = true;
    const std::string nonzero = g.add("NonZero", {g.cast(indices[i], spec.dtype, DType::Bool)});
    for (size_t j = 0; j < spec.sizes.size(); ++j) {
      ix.dims.push_back(static_cast<int64_t>(i + j));
      const std::string row = g.constant(DType::Int64, {static_cast<double>(j)}, {});
      columns.push_back(g.add("Gather", {nonzero, row}, {attr("axis", int64_t{0})}));
    }
  }
  if (ix.from_mask && (ints || ix.dims.size() != columns.size())) {
    n.refuse("a boolean mask beside other indices");
  }
  for (size_t k = 1; k < ix.dims.size(); ++k) ix.adjacent &= ix.dims[k] == ix.dims[k - 1] + 1;
  ix.perm = ix.dims;
  for (size_t d = 0; d < rank; ++d) {
    if (std::find(ix.dims.begin(), ix.dims.end(), static_cast<int64_t>(d)) == ix.dims.end()) {
      ix.perm.push_back(static_cast<int64_t>(d));
    }
  }
  if (ix.from_mask) {
    ix.broadcast = {nullptr};  // one dim: the number of true elements, known when it runs
  } else {
    // Broadcast sizes: per dim from the right, a size that is not 1.
    size_t b_rank = 0;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (!indices[i].empty()) b_rank = std::max(b_rank, specs[i]->sizes.size());
    }
    ix.broadcast.assign(b_rank, sym::integer(1));
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i].empty()) continue;
      const auto& s = specs[i]->sizes;
      for (size_t k = 0; k < s.size(); ++k) {
        sym::ExprPtr& b = ix.broadcast[b_rank - s.size() + k];
        if (sym::as_int(s[k]) != 1) b = s[k];
      }
    }
    const std::string b_shape = g.shape(ix.broadcast);
    for (std::string& c : columns) c = g.add("Expand", {c, b_shape});
  }
  for (std::string& c : columns) c = g.add("Unsqueeze", {c, g.ints({-1})});
  ix.stacked = columns.size() == 1 ? columns[0]
                                   : g.add("Concat", columns, {attr("axis", int64_t{-1})});
  return ix;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

void index(NodeLowering& n) {
  const Indexing ix = indexing(n);
  GraphBuilder& g = n.g;
  std::string data = n.tensor("self");
  if (ix.dims.size() == 1 && !ix.from_mask) {
    // One index: Gather puts its dims in place of the indexed dim, as PyTorch does.
    const std::string idx = n.g.cast(n.tensors("indices")[static_cast<size_t>(ix.dims[0])],
                                     n.specs("indices")[static_cast<size_t>(ix.dims[0])]->dtype,
                                     DType::Int64);
    return n.emit("Gather", {data, idx}, {attr("axis", ix.dims[0])});
  }
  if (!is_identity(ix.perm)) data = g.add("Transpose", {data}, {attr("perm", ix.perm)});
  std::string out = g.add("GatherND", {data, ix.stacked});
  const auto b = static_cast<int64_t>(ix.broadcast.size());
  const int64_t first = ix.dims.front();
  if (ix.adjacent && first > 0) {
    // [B..., before..., after...] -> [before..., B..., after...]
    std::vector<int64_t> back;
    const auto rest = static_cast<int64_t>(n.out_spec().sizes.size()) - b;
    for (int64_t i = 0; i < first; ++i) back.push_back(b + i);
    for (int64_t i = 0; i < b; ++i) back.push_back(i);
    for (int64_t i = first; i < rest; ++i) back.push_back(b + i);
    out = g.add("Transpose", {out}, {attr("perm", back)});
  }
  n.set(g.add("Identity", {out}, {}, n.node().name()));
}

void index_put(NodeLowering& n) {
  const Indexing ix = indexing(n);
  if (ix.from_mask) n.refuse("updates at a boolean mask's positions");
  GraphBuilder& g = n.g;
  const ir::TensorSpec& self = n.spec("self");
  const DType t = n.out_dtype();
  std::string data = n.tensor("self");
  if (!is_identity(ix.perm)) data = g.add("Transpose", {data}, {attr("perm", ix.perm)});
  // The updates: values broadcast to the shape indexing gives (PyTorch's order: B at the first
  // indexed dim when the indexed dims are adjacent, else first), then put in the transposed
  // order (B, then the dims not indexed).
  const int64_t first = ix.dims.front();
  const bool b_inside = ix.adjacent && first > 0;
  std::vector<sym::ExprPtr> indexed_sizes;
  for (size_t k = ix.dims.size(); k < ix.perm.size(); ++k) {
    indexed_sizes.push_back(self.sizes[static_cast<size_t>(ix.perm[k])]);
  }
  std::vector<sym::ExprPtr> aten_sizes = indexed_sizes;
  const auto b = static_cast<std::ptrdiff_t>(ix.broadcast.size());
  aten_sizes.insert(aten_sizes.begin() + (b_inside ? first : 0), ix.broadcast.begin(),
                    ix.broadcast.end());
  std::string values = g.add("Expand", {n.tensor_as("values", t), g.shape(aten_sizes)});
  if (b_inside) {
    std::vector<int64_t> to_front;
    for (int64_t i = 0; i < b; ++i) to_front.push_back(first + i);
    for (int64_t i = 0; i < first; ++i) to_front.push_back(i);
    for (auto i = first + b; i < static_cast<int64_t>(aten_sizes.size()); ++i) {
      to_front.push_back(i);
    }
    values = g.add("Transpose", {values}, {attr("perm", to_front)});
  }
  std::vector<::onnx::AttributeProto> attrs;
  if (n.flag("accumulate")) attrs.push_back(attr("reduction", std::string("add")));
  std::string out = g.add("ScatterND", {data, ix.stacked, values}, std::move(attrs));
  if (!is_identity(ix.perm)) {
    std::vector<int64_t> inverse(ix.perm.size());
    for (size_t i = 0; i < ix.perm.size(); ++i) {
      inverse[static_cast<size_t>(ix.perm[i])] = static_cast<int64_t>(i);
    }
    out = g.add("Transpose", {out}, {attr("perm", inverse)});
  }
  n.set(g.add("Identity", {out}, {}, n.node().name()));
}

void index_select(NodeLowering& n) {
  const int64_t dim = n.dim();
  const std::string idx = n.g.add("Reshape", {n.tensor_as("index", DType::Int64), n.g.ints({-1})});
  const std::string out = n.g.add("Gather", {n.tensor("self"), idx}, {attr("axis", dim)});
  n.emit("Reshape", {out, n.g.shape(n.out_spec().sizes)});
}

void gather(NodeLowering& n) {
  const int64_t dim = n.dim();
  n.emit("GatherElements", {n.tensor("self"), n.tensor_as("index", DType::Int64)},
         {attr("axis", dim)});
}

LowerFn scatter(const char* reduction) {
  return [reduction](NodeLowering& n) {
    const int64_t dim = n.dim();
    const DType t = n.out_dtype();
    const OpDef& op = *n.node().op();
    std::string src;
    if (op.arg_position("src") >= 0) {
      src = n.tensor_as("src", t);
    } else {
      // scatter.value: the value at every index.
      src = n.g.add("Expand", {n.scalar("value", t), n.g.add("Shape", {n.tensor("index")})});
    }
    std::vector<::onnx::AttributeProto> attrs{attr("axis", dim)};
    if (*reduction) attrs.push_back(attr("reduction", std::string(reduction)));
    // ScatterElements takes updates of the index's shape; src may be larger.
    const std::string index = n.tensor_as("index", DType::Int64);
    const std::string zeros = n.g.ints(std::vector<int64_t>(n.spec("index").sizes.size(), 0));
    src = n.g.add("Slice", {src, zeros, n.g.add("Shape", {index})});
    n.emit("ScatterElements", {n.tensor("self"), index, src}, std::move(attrs));
  };
}

// A position along `dim` of `self` given as a possibly negative size: counted from the end
// when it is a negative constant.
sym::ExprPtr wrapped_position(NodeLowering& n, sym::ExprPtr v, int64_t dim) {
  const std::optional<int64_t> c = sym::as_int(v);
  if (c && *c < 0) return sym::add(v, n.spec("self").sizes[static_cast<size_t>(dim)]);
  return v;
}

// The indices of `values` (shaped like `like`) along `dim`: `positions` (1-D) placed on that dim
// and broadcast over the others.
std::string along(NodeLowering& n, const std::string& positions, const std::string& like,
                  size_t rank, int64_t dim) {
  std::vector<int64_t> shape(rank, 1);
  shape[static_cast<size_t>(dim)] = -1;
  const std::string placed = n.g.add("Reshape", {positions, n.g.ints(shape)});
  return n.g.add("Expand", {placed, n.g.add("Shape", {like})});
}

// slice_scatter: src written over self[start:end:step] along dim.
void slice_scatter(NodeLowering& n) {
  const size_t rank = n.spec("self").sizes.size();
  const int64_t dim = n.dim();
  GraphBuilder& g = n.g;
  const sym::ExprPtr start =
      n.is_none("start") ? sym::integer(0) : wrapped_position(n, n.size("start"), dim);
  const sym::ExprPtr count = n.spec("src").sizes[static_cast<size_t>(dim)];
  const std::string zero = g.constant(DType::Int64, {0}, {});
  const std::string one = g.constant(DType::Int64, {1}, {});
  std::string positions = g.add("Range", {zero, g.sym_scalar(count), one});
  positions = g.add("Add", {g.add("Mul", {positions, g.sym_scalar(n.size("step"))}),
                            g.sym_scalar(start)});
  const std::string src = n.tensor_as("src", n.out_dtype());
  n.emit("ScatterElements", {n.tensor("self"), along(n, positions, src, rank, dim), src},
         {attr("axis", dim)});
}

// select_scatter: src written over self.select(dim, index).
void select_scatter(NodeLowering& n) {
  const size_t rank = n.spec("self").sizes.size();
  const int64_t dim = n.dim();
  GraphBuilder& g = n.g;
  const std::string src =
      g.add("Unsqueeze", {n.tensor_as("src", n.out_dtype()), g.ints({dim})});
  const std::string position = g.sym_int(wrapped_position(n, n.size("index"), dim));
  n.emit("ScatterElements", {n.tensor("self"), along(n, position, src, rank, dim), src},
         {attr("axis", dim)});
}

// masked_scatter: source's elements, in order, written where mask (broadcast to self) is true.
void masked_scatter(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const std::string self = n.tensor("self");
  const std::string mask =
      g.add("Expand", {n.tensor_as("mask", DType::Bool), g.add("Shape", {self})});
  const std::string positions =
      g.add("Transpose", {g.add("NonZero", {mask})}, {attr("perm", std::vector<int64_t>{1, 0})});
  const std::string count =
      g.add("Shape", {positions}, {attr("start", int64_t{0}), attr("end", int64_t{1})});
  const std::string flat = g.add("Reshape", {n.tensor_as("source", n.out_dtype()), g.ints({-1})});
  const std::string values = g.add("Slice", {flat, g.ints({0}), count});
  n.emit("ScatterND", {self, positions, values});
}

void embedding(NodeLowering& n) {
  n.emit("Gather", {n.tensor("weight"), n.tensor_as("indices", DType::Int64)},
         {attr("axis", int64_t{0})});
}

void nonzero(NodeLowering& n) {
  const std::string nz = n.g.add("NonZero", {n.tensor("self")});
  n.emit("Transpose", {nz}, {attr("perm", std::vector<int64_t>{1, 0})});
}

void masked_select(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const std::string mask = n.tensor_as("mask", DType::Bool);
  const std::string self = g.add("Expand", {n.tensor("self"), g.add("Shape", {mask})});
  const std::string full_mask = g.add("Expand", {mask, g.add("Shape", {self})});
  const std::string flat = g.add("Reshape", {self, g.ints({-1})});
  const std::string flat_mask = g.add("Reshape", {full_mask, g.ints({-1})});
  n.emit("Compress", {flat, flat_mask}, {attr("axis", int64_t{0})});
}

// as_strided of a contiguous tensor: the elements at offset + sum(i_d * stride_d), gathered from
// the flat tensor. (ONNX values have no storage: a view's strides over another tensor's memory
// have no meaning there.)
void as_strided(NodeLowering& n) {
  const ir::TensorSpec& self = n.spec("self");
  const ir::TensorSpec dense = ir::TensorSpec::contiguous(self.dtype, self.sizes);
  const bool no_offset = self.storage_offset == nullptr || sym::as_int(self.storage_offset) == 0;
  if (self.strides != dense.strides || !no_offset) {
    n.refuse("as_strided of a view (its strides address another tensor's memory)");
  }
  GraphBuilder& g = n.g;
  const std::vector<sym::ExprPtr> sizes = n.sizes("size"), strides = n.sizes("stride");
  std::string index =
      n.is_none("storage_offset") ? g.ints({0}) : g.sym_int(n.size("storage_offset"));
  const std::string zero = g.constant(DType::Int64, {0}, {});
  const std::string one = g.constant(DType::Int64, {1}, {});
  for (size_t d = 0; d < sizes.size(); ++d) {
    const std::string size = g.sym_scalar(sizes[d]);
    std::string steps = g.add("Mul", {g.add("Range", {zero, size, one}), g.sym_int(strides[d])});
    std::vector<int64_t> shape(sizes.size(), 1);
    shape[d] = -1;
    index = g.add("Add", {index, g.add("Reshape", {steps, g.ints(shape)})});
  }
  const std::string flat = g.add("Reshape", {n.tensor("self"), g.ints({-1})});
  n.emit("Gather", {flat, index}, {attr("axis", int64_t{0})});
}

// item(): the value, as a 0-D tensor (its unbacked symbol is bound from it).
void item(NodeLowering& n) {
  n.emit("Reshape", {n.tensor("self"), n.g.ints({})});
}

}  // namespace

LoweringList shape_lowerings() {
  return {
      {"aten::view", reshape_to_result},
      {"aten::squeeze.dims", reshape_to_result},
      {"aten::unsqueeze", reshape_to_result},
      {"aten::expand",
       [](NodeLowering& n) {
         n.emit("Expand", {n.tensor("self"), n.g.shape(n.out_spec().sizes)});
       }},
      {"aten::permute", permute},
      {"aten::slice.Tensor", slice},
      {"aten::select.int", select},
      {"aten::alias", identity},
      {"aten::clone", identity},
      {"aten::_to_copy", to_copy},
      {"aten::copy", copy},
      {"aten::cat", cat},
      {"aten::split_with_sizes", split_with_sizes},
      {"aten::repeat", repeat},
      {"aten::constant_pad_nd", constant_pad},
      {"aten::reflection_pad1d", mode_pad("reflect")},
      {"aten::reflection_pad2d", mode_pad("reflect")},
      {"aten::reflection_pad3d", mode_pad("reflect")},
      {"aten::replication_pad2d", mode_pad("edge")},
      {"aten::replication_pad3d", mode_pad("edge")},
      {"aten::flip", flip},
      {"aten::index.Tensor", index},
      {"aten::index_put", index_put},
      {"aten::index_select", index_select},
      {"aten::gather", gather},
      {"aten::scatter.src", scatter("")},
      {"aten::scatter.value", scatter("")},
      {"aten::scatter_add", scatter("add")},
      {"aten::scatter_reduce.two",
       [](NodeLowering& n) {
         const std::string reduce = n.str("reduce");
         if (!n.flag("include_self")) n.refuse("include_self=False has no ONNX equivalent");
         if (reduce == "sum") return scatter("add")(n);
         if (reduce == "prod") return scatter("mul")(n);
         n.refuse("reduce='" + reduce + "' needs opset 18 (ScatterElements' max and min)");
       }},
      {"aten::slice_scatter", slice_scatter},
      {"aten::select_scatter", select_scatter},
      {"aten::masked_scatter", masked_scatter},
      {"aten::embedding", embedding},
      {"aten::nonzero", nonzero},
      {"aten::as_strided", as_strided},
      {"aten::masked_select", masked_select},
      {"aten::item", item},
      {"aten::_local_scalar_dense", item},
  };
}

}  // namespace xport::onnx
