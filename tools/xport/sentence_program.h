#pragma once
// A sentence-transformers model as one exported program: what `xport demo`, the pretrained-model
// tests, the sentence benchmark and the archive writer for PyTorch share.

#include <cstdint>
#include <vector>

#include "xport/nn/models.h"
#include "xport/program/exported_program.h"

namespace xport::tools {

/// Exports `model.forward(ids, attention_mask)` with both inputs int64 [batch, tokens],
/// batch = Dim("batch", 1, max_batch) and tokens = Dim("tokens", 1, model.max_seq_length()):
/// one program for one sentence or many, short or long.
ExportedProgram export_sentence_encoder(models::SentenceEncoder& model, int64_t max_batch = 256);

/// The cosine of each row of `a` with the same row of `b` ([N, D] each), in double precision.
std::vector<double> row_cosines(const Tensor& a, const Tensor& b);

}  // namespace xport::tools
