#include "tools/xport/sentence_program.h"

#include "xport/xport.h"

namespace xport::tools {

ExportedProgram export_sentence_encoder(models::SentenceEncoder& model, int64_t max_batch) {
  const Dim batch("batch", 1, max_batch);
  const Dim tokens("tokens", 1, model.max_seq_length());
  ExportOptions options;
  options.dynamic_shapes = {{{0, batch}, {1, tokens}}, {{0, batch}, {1, tokens}}};
  options.input_names = {"ids", "attention_mask"};
  // Any example traces the same graph; this one has padding in its second row.
  const Tensor ids = from_vector<int64_t>({1, 2, 3, 1, 1, 2, 1, 0}, {2, 4});
  const Tensor mask = from_vector<int64_t>({1, 1, 1, 1, 1, 1, 1, 0}, {2, 4});
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
