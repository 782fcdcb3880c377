#pragma once
/// \file Text to token ids for BERT-family models: WordPiece as Hugging Face's BertTokenizer does
/// it (BertNormalizer, BertPreTokenizer, WordPiece model, [CLS] ... [SEP] template).

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::text {

struct WordPieceOptions {
  /// Lower-cases every character (uncased models).
  bool lowercase = true;
  /// Removes accents (NFD, then drops nonspacing marks); unset: follows `lowercase`.
  std::optional<bool> strip_accents;
  /// Puts spaces around CJK ideographs, so each becomes its own word.
  bool tokenize_chinese_chars = true;
  /// A word longer than this (in characters) becomes the unknown token.
  int64_t max_input_chars_per_word = 100;
  std::string unk_token = "[UNK]", cls_token = "[CLS]", sep_token = "[SEP]",
              pad_token = "[PAD]", mask_token = "[MASK]";
  /// Longest sequence the model takes, special tokens included (tokenizer_config.json's
  /// model_max_length).
  int64_t model_max_length = 512;
};

/// A padded batch: ids and attention_mask are int64 [N, T], T the longest encoding; the mask is
/// 1 for tokens and 0 for padding (which holds the pad token's id).
struct Batch {
  Tensor ids;
  Tensor attention_mask;
};

/// Hugging Face's BertTokenizer in C++: cleans the text (drops control characters, maps every
/// Unicode space to ' '), spaces out CJK ideographs, strips accents and lower-cases (uncased
/// models), splits on whitespace and punctuation, then cuts each word into the longest
/// vocabulary pieces from the left ("##" marks a piece inside a word); a word with no such
/// split becomes [UNK]. Special tokens written in the text ("[SEP]", "[MASK]") stay whole.
class WordPiece {
 public:
  /// Reads a vocabulary (one token per line; a token's id is its line number).
  static WordPiece load(const std::string& vocab_txt, WordPieceOptions options = {});
  /// Reads DIR/vocab.txt and the options in DIR/tokenizer_config.json (do_lower_case,
  /// strip_accents, tokenize_chinese_chars, the special tokens, model_max_length), as
  /// BertTokenizer.from_pretrained(DIR) does.
  static WordPiece from_pretrained(const std::string& dir);

  /// [CLS] pieces... [SEP] as ids, the pieces cut so that at most max_len ids remain (2 or more).
  std::vector<int64_t> encode(const std::string& text, int64_t max_len = 512) const;
  /// The pieces of `text` as strings, without [CLS] and [SEP].
  std::vector<std::string> tokenize(const std::string& text) const;
  /// Encodes each text and pads them into one batch (see Batch).
  Batch encode_batch(const std::vector<std::string>& texts, int64_t max_len = 512) const;

  /// The id of `token`; InvalidInput when the vocabulary has no such token.
  int64_t token_id(const std::string& token) const;
  const std::string& token(int64_t id) const;
  int64_t vocab_size() const { return static_cast<int64_t>(tokens_.size()); }
  const WordPieceOptions& options() const { return options_; }

 private:
  WordPiece(std::vector<std::string> tokens, WordPieceOptions options);
  // Appends the ids of the pieces of `text`.
  void encode_pieces(const std::string& text, std::vector<int64_t>& ids) const;
  // Appends the ids of one stretch of text that holds no special token.
  void encode_plain(const std::string& text, std::vector<int64_t>& ids) const;
  void cut_word(const std::u32string& word, std::vector<int64_t>& ids) const;

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int64_t> ids_;
  WordPieceOptions options_;
  int64_t unk_ = 0, cls_ = 0, sep_ = 0, pad_ = 0;
  std::vector<std::string> special_;  // special tokens kept whole when written in the text
};

}  // namespace xport::text
