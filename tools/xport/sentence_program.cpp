#include "tools/xport/sentence_program.h"

#include <algorithm>

#include "xport/xport.h"

namespace xport::tools {

ExportedProgram export_sentence_encoder(models::SentenceEncoder& model, int64_t max_batch) {
  const Dim batch("batch", 1, max_batch);
  const Dim tokens("tokens", 1, model.max_seq_length());
  ExportOptions options;
  options.dynamic_shapes = {{{0, batch}, {1, tokens}}, {{0, batch}, {1, tokens}}};
  options.input_names = {"ids", "attention_mask"};
  // Any example in the contract traces the same graph; this one pads its second row.
  const int64_t rows = std::min<int64_t>(2, max_batch);
  const Tensor ids = from_vector<int64_t>({1, 2, 3, 1, 1, 2, 1, 0}, {2, 4}).slice(0, 0, rows);
  const Tensor mask = from_vector<int64_t>({1, 1, 1, 1, 1, 1, 1, 0}, {2, 4}).slice(0, 0, rows);
  return export_program(
      model,
      [&](const std::vector<Value>& in) {
        return std::vector<Tensor>{model.forward(in[0].to_tensor(), in[1].to_tensor())};
      },
      {ids, mask}, options);
}

std::vector<double> row_cosines(const Tensor& a, const Tensor& b) {
  XPORT_CHECK(a.dim() == 2 && a.int_sizes() == b.int_sizes(), InvalidInput,
              "row_cosines: expected two [N, D] tensors of one shape, got ", a.dim(), "-D and ",
              b.dim(), "-D");
  const Tensor x = a.to(DType::Float64), y = b.to(DType::Float64);
  const std::vector<int64_t> rows = {1};
  const Tensor cos = (x * y).sum(rows) / ((x * x).sum(rows) * (y * y).sum(rows)).sqrt();
  return cos.to_vector<double>();
}

}  // namespace xport::tools
