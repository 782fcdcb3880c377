// Writes small programs that exercise the ONNX lowerings one op family at a time, in the layout
// tests/onnx/onnx_runtime_cases.py reads (OUT_DIR/manifest.json, and per case model.pt2 with its
// inputs and eager outputs as .npy files), so ONNX Runtime checks each lowering against xport.
// Usage: xport_write_onnx_op_cases OUT_DIR
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "xport/aten.h"
#include "xport/xport.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace xport;  // NOLINT: a test data writer

namespace {

struct OpCase {
  std::string name;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;
  std::vector<std::vector<Tensor>> runs;  // the first is the example
  std::vector<std::map<int64_t, Dim>> dynamic = {};
};

// Integers uniform in [lo, hi).
Tensor ints(std::vector<SymInt> sizes, int64_t lo, int64_t hi, uint64_t seed) {
  // rand * (hi - lo) truncates to [0, hi - lo) before the shift.
  return rand(sizes, seed).mul(static_cast<double>(hi - lo)).to(DType::Int64).add(lo);
}

std::vector<OpCase> cases() {
  const Dim batch("batch", 1, 16);
  std::vector<OpCase> c;
  c.push_back({"atan2",
               [](auto& in) { return std::vector{aten::atan2(in[0], in[1])}; },
               {{randn({4, 5}, 1), randn({4, 5}, 2)},
                {zeros({2, 5}),
                 from_vector(std::vector<float>{0, -1, 0, 2, 3, 0, -0.5f, 1, -2, 0}, {2, 5})}},
               {{{0, batch}}, {{0, batch}}}});
  c.push_back({"sort_topk",
               [](auto& in) {
                 auto [v, i] = aten::sort(in[0], 1, true);
                 auto [tv, ti] = aten::topk(in[0], 3, -1, false);
                 return std::vector{v, i, tv, ti};
               },
               {{randn({3, 7}, 3)}, {randn({5, 7}, 4)}},
               {{{0, batch}}}});
  c.push_back({"scatters",
               [](auto& in) {
                 const Tensor& x = in[0];
                 const Tensor a = aten::slice_scatter(x, in[1], 1, 1, 7, 2);
                 const Tensor b = aten::select_scatter(x, in[2], 1, -1);
                 const Tensor m = aten::masked_scatter(x, x.gt(0.0), in[3]);
                 return std::vector{a, b, m};
               },
               {{randn({4, 8}, 5), randn({4, 3}, 6), randn({4}, 7), randn({32}, 8)},
                {randn({2, 8}, 9), randn({2, 3}, 10), randn({2}, 11), randn({16}, 12)}},
               {{{0, batch}}, {{0, batch}}, {{0, batch}}, {{0, 8 * batch}}}});
  c.push_back({"scatter_reduce",
               [](auto& in) {
                 const Tensor index = in[1];
                 return std::vector{aten::scatter_reduce(in[0], 1, index, in[2], "sum"),
                                    aten::scatter_reduce(in[0], 1, index, in[2], "prod"),
                                    aten::scatter_add(in[0], 0, index, in[2])};
               },
               {{randn({3, 5}, 13), ints({3, 4}, 0, 3, 14), randn({3, 4}, 15)}}});
  c.push_back({"index_put_and_index",
               [](auto& in) {
                 const Tensor& x = in[0];
                 const Tensor i = in[1], j = in[2];
                 const Tensor put = aten::index_put(x, {std::nullopt, i}, in[3], true);
                 const Tensor both = aten::index(x, {i, j});
                 const Tensor apart = aten::index(in[4], {i, std::nullopt, j});
                 const Tensor mask = aten::index(x, {x.gt(0.5)});
                 return std::vector{put, both, apart, mask};
               },
               {{randn({4, 6}, 16), ints({3}, -4, 4, 17), ints({3}, 0, 6, 18), randn({4, 3}, 19),
                 randn({4, 2, 6}, 20)}}});
  // Group-wise int4 (quantized_decomposed): quantized, then dequantized with and without zero
  // points; both exact in ONNX.
  c.push_back({"per_channel_group",
               [](auto& in) {
                 const Tensor q =
                     call_op("quantized_decomposed::quantize_per_channel_group",
                             {in[0], in[1], in[2], int64_t{-8}, int64_t{7}, DType::Int8,
                              int64_t{16}})
                         .to_tensor();
                 const auto dequantize = [&](Value zero_points) {
                   return call_op("quantized_decomposed::dequantize_per_channel_group",
                                  {q, in[1], std::move(zero_points), int64_t{-8}, int64_t{7},
                                   DType::Int8, int64_t{16}, DType::Float32})
                       .to_tensor();
                 };
                 return std::vector{q, dequantize(in[2]), dequantize(Value())};
               },
               {{randn({4, 32}, 23) * 2.0, rand({4, 2}, 24) * 0.3 + 0.1,
                 ints({4, 2}, -3, 3, 25)}}});
  // torchao's dynamic int8 product: uint8 activations by a transposed int8 weight, int32 sums
  // (MatMulInteger), and int8 by int8.
  c.push_back({"int_mm",
               [](auto& in) {
                 const Tensor a = in[0].to(DType::UInt8), w = in[1].to(DType::Int8);
                 return std::vector{aten::_int_mm(a, w.t()),
                                    aten::_int_mm(in[2].to(DType::Int8), w.t())};
               },
               {{ints({3, 40}, 0, 255, 26), ints({7, 40}, -128, 127, 27),
                 ints({2, 40}, -128, 127, 28)}}});
  c.push_back({"pooling",
               [](auto& in) {
                 auto [y, idx] = aten::max_pool2d_with_indices(in[0], {3, 3}, {2, 2}, {1, 1});
                 auto [y3, idx3] = aten::max_pool3d_with_indices(in[1], {2, 2, 2});
                 return std::vector{y, idx, y3, idx3, aten::avg_pool3d(in[1], {2, 2, 2}),
                                    aten::_adaptive_avg_pool3d(in[1], {2, 2, 2}),
                                    aten::_adaptive_avg_pool2d(in[0], {2, 4})};
               },
               {{randn({2, 3, 8, 8}, 21), randn({1, 2, 4, 4, 4}, 22)}}});
  c.push_back({"grid_sample",
               [](auto& in) {
                 return std::vector{aten::grid_sampler_2d(in[0], in[1], 0, 0, false),
                                    aten::grid_sampler_2d(in[0], in[1], 1, 1, true)};
               },
               {{randn({1, 2, 5, 6}, 23), rand({1, 4, 3, 2}, 24).mul(1.8).sub(0.9)}}});
  c.push_back({"integer_arithmetic",
               [](auto& in) {
                 const Tensor& a = in[0];
                 const Tensor& b = in[1];
                 return std::vector{aten::div(a, b, std::string("floor")),
                                    aten::div(a, b, std::string("trunc")), aten::div(a, b),
                                    aten::remainder(a, b), aten::remainder(in[2], 0.75),
                                    aten::bitwise_not(a), a.mul(3).add(b)};
               },
               {{ints({6}, -20, 20, 25), from_vector(std::vector<int64_t>{3, -3, 7, -2, 5, 4}, {6}),
                 randn({6}, 26)}}});
  c.push_back({"normalization",
               [](auto& in) {
                 auto [g, gm, gr] = aten::native_group_norm(in[0], in[1], in[2], 2, 4, 9, 2, 1e-5);
                 auto [l, lm, lr] = aten::native_layer_norm(in[0], {3, 3}, std::nullopt,
                                                            std::nullopt, 1e-5);
                 return std::vector{g, gm, gr, l, lm, lr,
                                    aten::var(in[0], std::vector<int64_t>{1, 2}, Scalar(0), true)};
               },
               {{randn({2, 4, 3, 3}, 27), randn({4}, 28), randn({4}, 29)}}});
  c.push_back({"resize",
               [](auto& in) {
                 return std::vector{
                     aten::upsample_nearest2d(in[0], std::nullopt, std::vector<double>{2.0, 3.0}),
                     aten::upsample_bilinear2d(in[0], std::vector<SymInt>{7, 5}, false,
                                               std::nullopt),
                     aten::upsample_bilinear2d(in[0], std::vector<SymInt>{7, 5}, true,
                                               std::nullopt)};
               },
               {{randn({1, 2, 4, 3}, 30)}}});
  c.push_back({"activations",
               [](auto& in) {
                 const Tensor& x = in[0];
                 return std::vector{aten::gelu(x, "tanh"), aten::gelu(x),
                                    aten::elu(x, 0.5, 2.0, 1.5), aten::hardtanh(x, -0.5, 0.25),
                                    aten::log10(x.abs().add(1.0)),
                                    aten::clamp(x, in[1], std::nullopt)};
               },
               {{randn({3, 8}, 31), randn({8}, 32)}, {randn({6, 8}, 33), randn({8}, 34)}},
               {{{0, batch}}, {}}});
  c.push_back({"distances",
               [](auto& in) {
                 std::vector<Tensor> out;
                 for (double p : {2.0, 1.0, 3.0, 0.0, static_cast<double>(INFINITY)}) {
                   out.push_back(aten::_cdist_forward(in[0], in[1], p, std::nullopt));
                 }
                 out.push_back(aten::_pdist_forward(in[0], 2.0));
                 out.push_back(aten::_pdist_forward(in[0], 1.0));
                 return out;
               },
               {{randn({5, 3}, 37), randn({4, 3}, 38)}, {randn({7, 3}, 39), randn({2, 3}, 40)}},
               {{{0, batch}}, {{0, Dim("other", 1, 16)}}}});
  // Each branch of each cond is taken by some run: a data predicate (sum > 0) and a shape one
  // (batch > 4); the loop runs 0, 3 and 6 times; map over the batch.
  c.push_back({"control_flow",
               [](auto& in) {
                 const Tensor& x = in[0];
                 auto twice = [](const std::vector<Tensor>& o) { return std::vector{o[0] * 2.0}; };
                 auto minus = [](const std::vector<Tensor>& o) { return std::vector{o[0] - 1.0}; };
                 const Tensor by_data = cond(x.sum().gt(0.0), twice, minus, {x}).at(0);
                 const Tensor by_shape = cond(x.size(0) > 4, twice, minus, {x}).at(0);
                 const Tensor looped = while_loop(
                     [](const std::vector<Tensor>& c) { return c[0].lt(6.0); },
                     [](const std::vector<Tensor>& c) {
                       return std::vector{c[0] + 1, c[1] * 1.5};
                     },
                     {in[1], x}).at(1);
                 const Tensor mapped = map(
                     [](const Tensor& row, const std::vector<Tensor>& args) {
                       return std::vector{row * args[0]};
                     },
                     x, {in[2]}).at(0);
                 return std::vector{by_data, by_shape, looped, mapped};
               },
               {{randn({3, 4}, 41).abs(), from_vector(std::vector<int64_t>{3}, {}), randn({4}, 42)},
                {randn({6, 4}, 43).abs().neg(), from_vector(std::vector<int64_t>{6}, {}),
                 randn({4}, 44)},
                {randn({5, 4}, 45), from_vector(std::vector<int64_t>{0}, {}), randn({4}, 46)}},
               {{{0, batch}}, {}, {}}});
  // What ONNX's own rounding would get wrong: 1 % 0.1 and 1 // 0.1 (fmod-based in ATen), the
  // length of a float arange, pooling windows that start in the padding with ceil_mode, bools
  // added and multiplied, integers rounded, 0-D reductions, an int64 fill past 2^53.
  c.push_back({"edge_values",
               [](auto& in) {
                 const Tensor& x = in[0];
                 const Tensor mask = x.gt(0.0);
                 auto [pooled, where] = aten::max_pool2d_with_indices(in[1], {2, 2}, {2, 2},
                                                                      {1, 1}, {1, 1}, true);
                 const Tensor s = x.sum();
                 return std::vector{
                     aten::remainder(x, 0.1), aten::div(x, 0.1, std::string("floor")),
                     aten::arange(0.0, 0.3, 0.1) + x.sum(), pooled, where,
                     aten::avg_pool2d(in[1], {2, 2}, {2, 2}, {1, 1}, true),
                     aten::add(mask, mask), aten::mul(mask, x.lt(1.0)),
                     aten::floor(in[2]), aten::isnan(in[2]), aten::sum(s, std::vector<int64_t>{0}),
                     aten::argmax(s, 0), aten::softmax(s, 0),
                     aten::full({2}, int64_t{9007199254740993}, DType::Int64) + in[2]};
               },
               {{from_vector(std::vector<float>{1, -1, 0.3f, 2.5f, -0.7f, 7}, {6}),
                 randn({1, 1, 5, 5}, 47), from_vector(std::vector<int64_t>{3, -4}, {2})}}});
  // FFTs over several dims, each normalization, an inverse, a real result of odd length.
  c.push_back({"spectral",
               [](auto& in) {
                 const Tensor spectrum = aten::_fft_r2c(in[0], {1, 2}, 2, true);
                 const Tensor full = aten::_fft_r2c(in[0], {2}, 0, false);
                 const Tensor back = aten::_fft_c2c(full, {1, 2}, 1, false);
                 const Tensor odd = aten::_fft_c2r(aten::_fft_r2c(in[1], {1}, 0, true), {1}, 2, 7);
                 return std::vector{spectrum, aten::view_as_real(back), odd,
                                    aten::_fft_c2r(spectrum, {1, 2}, 0, 6)};
               },
               {{randn({2, 4, 6}, 48), randn({3, 7}, 49)},
                {randn({5, 4, 6}, 50), randn({3, 7}, 51)}},
               {{{0, batch}}, {}}});
  c.push_back({"views_and_copies",
               [](auto& in) {
                 const Tensor& x = in[0];
                 return std::vector{aten::flip(x, {0, 2}), aten::repeat(x, {2, 1, 1, 2}),
                                    aten::constant_pad_nd(x, {1, -1, 2, 0}, 0.5),
                                    aten::cumsum(x, 1), aten::argmax(x, std::nullopt, false),
                                    aten::any(x.gt(1.0), 1, true)};
               },
               {{randn({2, 3, 4}, 35)}, {randn({5, 3, 4}, 36)}},
               {{{0, batch}}}});
  // Gradients: of a grouped, strided convolution and a dilated one (every output_mask entry),
  // max and average pooling (ceil_mode, count_include_pad off, divisor_override), adaptive
  // pooling to sizes that do not divide the input's, an embedding with a padding row and
  // scale_grad_by_freq; and the forward ops' matrix forms.
  c.push_back({"gradients",
               [](auto& in) {
                 const Tensor& x = in[0];
                 const Tensor y = aten::convolution(x, in[1], std::nullopt, {2, 2}, {1, 1},
                                                    {1, 1}, false, {0, 0}, 2);
                 auto [dx, dw, db] = aten::convolution_backward(
                     y, x, in[1], std::vector<SymInt>{6}, {2, 2}, {1, 1}, {1, 1}, false, {0, 0},
                     2, {true, true, true});
                 const Tensor z = aten::convolution(x, in[2], std::nullopt, {1, 1}, {2, 0},
                                                    {2, 1}, false, {0, 0}, 1);
                 auto [dx2, dw2, db2] = aten::convolution_backward(
                     z, x, in[2], std::nullopt, {1, 1}, {2, 0}, {2, 1}, false, {0, 0}, 1,
                     {true, true, false});
                 auto [pooled, where] = aten::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1});
                 const Tensor dmax = aten::max_pool2d_with_indices_backward(
                     pooled, x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, where);
                 const Tensor avg = aten::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, true, false);
                 const Tensor davg = aten::avg_pool2d_backward(avg, x, {3, 3}, {2, 2}, {1, 1},
                                                               true, false, std::nullopt);
                 const Tensor over = aten::avg_pool2d(x, {2, 2}, {2, 2}, {1, 0}, false, true, 3);
                 const Tensor dover =
                     aten::avg_pool2d_backward(over, x, {2, 2}, {2, 2}, {1, 0}, false, true, 3);
                 const Tensor adaptive = aten::_adaptive_avg_pool2d(x, {3, 4});
                 const Tensor dadaptive = aten::_adaptive_avg_pool2d_backward(adaptive, x);
                 const Tensor demb = aten::embedding_dense_backward(in[3], in[4], 10, 2, true);
                 return std::vector{dx,  dw,   db,  dx2,      dw2,       dmax,
                                    avg, davg, over, dover, adaptive, dadaptive, demb};
               },
               {{randn({2, 4, 7, 6}, 52), randn({6, 2, 3, 3}, 53), randn({3, 4, 2, 3}, 54),
                 randn({5, 3, 4}, 55), ints({5, 3}, 0, 10, 56)},
                {randn({3, 4, 7, 6}, 57), randn({6, 2, 3, 3}, 58), randn({3, 4, 2, 3}, 59),
                 randn({5, 3, 4}, 60), ints({5, 3}, 0, 10, 61)}},
               {{{0, batch}}, {}, {}, {}, {}}});
  // Bags of embeddings (sum with per-sample weights, mean with a padding row and an empty bag,
  // include_last_offset) and col2im (padding, stride, dilation; batched and not).
  c.push_back({"bags_and_folds",
               [](auto& in) {
                 const Tensor& w = in[0];
                 const Tensor sum = std::get<0>(aten::_embedding_bag(
                     w, in[1], in[2], false, 0, false, in[3], false, -1));
                 const Tensor mean = std::get<0>(aten::_embedding_bag(
                     w, in[1], in[2], false, 1, false, std::nullopt, false, 3));
                 const Tensor last = std::get<0>(aten::_embedding_bag(
                     w, in[1], in[2], false, 0, false, std::nullopt, true, -1));
                 const Tensor folded = aten::col2im(in[4], {5, 6}, {2, 3}, {1, 2}, {1, 1}, {2, 1});
                 const Tensor one = aten::col2im(in[4].select(0, 0), {5, 6}, {2, 3}, {1, 2},
                                                 {1, 1}, {2, 1});
                 return std::vector{sum, mean, last, folded, one};
               },
               {{randn({10, 4}, 62), from_vector(std::vector<int64_t>{1, 3, 3, 0, 9, 2, 3, 5}, {8}),
                 from_vector(std::vector<int64_t>{0, 3, 3, 6}, {4}), randn({8}, 63),
                 randn({2, 12, 12}, 64)}}});
  // Random values: what a run can check is their distribution and shape, so the outputs are
  // the checks (a uniform draw in [0, 1); a normal draw's mean and deviation; a permutation
  // sorted; dropout's kept share and its scale), each false with a chance below 1e-9.
  c.push_back({"random",
               [](auto& in) {
                 const Tensor& x = in[0];
                 const Tensor u = aten::rand({x.size(0), 4000});
                 const Tensor uniform = aten::all(aten::logical_and(u.ge(0.0), u.lt(1.0)));
                 const Tensor nd = aten::randn({4000, x.size(0)});
                 const Tensor centred = aten::mean(nd).abs().lt(0.1);
                 const Tensor spread = aten::std(nd).sub(1.0).abs().lt(0.1);
                 const Tensor order = std::get<0>(aten::sort(aten::randperm(x.size(1) * 3)));
                 auto [dropped, kept] = aten::native_dropout(x.mul(0.0).add(1.0), 0.5, true);
                 const Tensor scaled =
                     aten::all(aten::logical_or(dropped.eq(0.0), dropped.eq(2.0)));
                 const Tensor share =
                     aten::mean(kept.to(DType::Float32)).sub(0.5).abs().lt(0.05);
                 return std::vector{uniform, u.mul(0.0), centred, spread, order, scaled, share};
               },
               {{randn({2, 4000}, 65)}, {randn({3, 4000}, 66)}},
               {{{0, batch}}}});
  return c;
}

json leaf(const Tensor& t, const fs::path& root, const std::string& rel) {
  save_npy(t, (root / rel).string());
  json shape = json::array();
  for (int64_t d : t.int_sizes()) shape.push_back(d);
  return {{"npy", rel}, {"dtype", dtype_name(t.dtype())}, {"shape", shape}};
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::cerr << "usage: xport_write_onnx_op_cases OUT_DIR\n";
    return 2;
  }
  const fs::path root = argv[1];
  json manifest = json::array();
  for (const OpCase& c : cases()) {
    fs::create_directories(root / c.name);
    ExportOptions options;
    for (const auto& dims : c.dynamic) options.dynamic_shapes.push_back(dims);
    std::vector<Value> example(c.runs[0].begin(), c.runs[0].end());
    const ExportedProgram program = export_program(
        [&](const std::vector<Value>& in) {
          std::vector<Tensor> tensors;
          for (const Value& v : in) tensors.push_back(v.to_tensor());
          return c.fn(tensors);
        },
        example, options);
    save(program, (root / c.name / "model.pt2").string());
    json runs = json::array();
    for (size_t k = 0; k < c.runs.size(); ++k) {
      json inputs = json::array(), outputs = json::array();
      std::vector<Value> values;
      for (size_t i = 0; i < c.runs[k].size(); ++i) {
        values.emplace_back(c.runs[k][i]);
        inputs.push_back(leaf(c.runs[k][i], root,
                              c.name + "/run" + std::to_string(k) + "_in" + std::to_string(i) +
                                  ".npy"));
      }
      const std::vector<Tensor> outs = program.run(values);
      for (size_t j = 0; j < outs.size(); ++j) {
        outputs.push_back(leaf(outs[j], root,
                               c.name + "/run" + std::to_string(k) + "_out" + std::to_string(j) +
                                   ".npy"));
      }
      runs.push_back({{"inputs", inputs}, {"outputs", outputs}});
    }
    manifest.push_back({{"name", c.name}, {"pt2", c.name + "/model.pt2"}, {"runs", runs}});
  }
  std::ofstream(root / "manifest.json") << json{{"cases", manifest}}.dump(1) << "\n";
  std::cout << manifest.size() << " cases written to " << root.string() << "\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "xport_write_onnx_op_cases: " << e.what() << "\n";
  return 1;
}
