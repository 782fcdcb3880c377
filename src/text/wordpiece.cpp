// WordPiece as Hugging Face's BertTokenizer does it; Unicode facts (categories, canonical
// decomposition, case mapping) come from utf8proc.
#include <utf8proc.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/json_file.h"
#include "xport/core/error.h"
#include "xport/ops/functions.h"
#include "xport/text/text.h"

namespace xport::text {
namespace {

std::u32string decode_utf8(const std::string& text) {
  std::u32string out;
  out.reserve(text.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  auto left = static_cast<utf8proc_ssize_t>(text.size());
  size_t at = 0;
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(bytes + at, left, &cp);
    XPORT_CHECK(n > 0, InvalidInput, "text::WordPiece: the text is not valid UTF-8 at byte ", at,
                " (", utf8proc_errmsg(n), ")");
    out.push_back(static_cast<char32_t>(cp));
    at += static_cast<size_t>(n);
    left -= n;
  }
  return out;
}

std::string encode_utf8(std::u32string_view chars) {
  std::string out;
  out.reserve(chars.size());
  utf8proc_uint8_t buf[4];
  for (char32_t c : chars) {
    const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buf);
    out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
  }
  return out;
}

utf8proc_category_t category(char32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

// Python's unicodedata.category(c).startswith("C"), except the three whitespace controls.
bool is_control(char32_t c) {
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  switch (category(c)) {
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
      return true;
    default:
      return false;
  }
}

// Unicode's White_Space property, less the controls is_control already removed.
bool is_whitespace(char32_t c) {
  if (c == U' ' || c == U'\t' || c == U'\n' || c == U'\r') return true;
  const utf8proc_category_t k = category(c);
  return k == UTF8PROC_CATEGORY_ZS || k == UTF8PROC_CATEGORY_ZL || k == UTF8PROC_CATEGORY_ZP;
}

// ASCII punctuation (which includes $ + < = > ^ ` | ~, symbols to Unicode) or any P* category.
bool is_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126)) {
    return true;
  }
  const utf8proc_category_t k = category(c);
  return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}

// The CJK Unified Ideographs blocks BERT treats as words of their own.
bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// BertNormalizer: clean, space out CJK, strip accents, lower-case, in that order.
std::u32string normalize(const std::u32string& text, const WordPieceOptions& options) {
  std::u32string cleaned;
  cleaned.reserve(text.size());
  for (char32_t c : text) {
    if (c == 0 || c == 0xFFFD || is_control(c)) continue;
    if (is_whitespace(c)) {
      cleaned.push_back(U' ');
    } else if (options.tokenize_chinese_chars && is_cjk(c)) {
      cleaned += {U' ', c, U' '};
    } else {
      cleaned.push_back(c);
    }
  }
  std::u32string out;
  out.reserve(cleaned.size());
  const bool strip = options.strip_accents.value_or(options.lowercase);
  for (char32_t c : cleaned) {
    utf8proc_int32_t parts[8];
    utf8proc_ssize_t n = 1;
    parts[0] = static_cast<utf8proc_int32_t>(c);
    if (strip) {
      // Canonical decomposition (NFD), then the nonspacing marks (the accents) are dropped.
      int boundclass = 0;
      n = utf8proc_decompose_char(parts[0], parts, 8, UTF8PROC_DECOMPOSE, &boundclass);
      XPORT_CHECK(n > 0 && n <= 8, Internal, "text::WordPiece: cannot decompose code point ",
                  static_cast<uint32_t>(c));
    }
    for (utf8proc_ssize_t i = 0; i < n; ++i) {
      const auto p = static_cast<char32_t>(parts[i]);
      if (strip && category(p) == UTF8PROC_CATEGORY_MN) continue;
      if (!options.lowercase) {
        out.push_back(p);
      } else if (p == 0x130) {
        out += U"i\u0307";  // İ: the one unconditional lower-case mapping to two characters
      } else {
        out.push_back(static_cast<char32_t>(utf8proc_tolower(parts[i])));
      }
    }
  }
  return out;
}

// BertPreTokenizer: words split at whitespace, each punctuation character a word of its own.
std::vector<std::u32string> split_words(const std::u32string& text) {
  std::vector<std::u32string> words;
  std::u32string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (char32_t c : text) {
    if (is_whitespace(c)) {
      flush();
    } else if (is_punctuation(c)) {
      flush();
      words.push_back(std::u32string(1, c));
    } else {
      word.push_back(c);
    }
  }
  flush();
  return words;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  XPORT_CHECK(in.good(), InvalidInput, "text::WordPiece: cannot read the vocabulary ", path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

}  // namespace

WordPiece::WordPiece(std::vector<std::string> tokens, WordPieceOptions options)
    : tokens_(std::move(tokens)), options_(std::move(options)) {
  ids_.reserve(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) {
    ids_.emplace(tokens_[i], static_cast<int64_t>(i));  // the first of duplicate lines wins
  }
  unk_ = token_id(options_.unk_token);
  cls_ = token_id(options_.cls_token);
  sep_ = token_id(options_.sep_token);
  pad_ = token_id(options_.pad_token);
  for (const std::string* s : {&options_.unk_token, &options_.cls_token, &options_.sep_token,
                               &options_.pad_token, &options_.mask_token}) {
    if (ids_.contains(*s)) special_.push_back(*s);
  }
}

WordPiece WordPiece::load(const std::string& vocab_txt, WordPieceOptions options) {
  std::vector<std::string> tokens = read_lines(vocab_txt);
  XPORT_CHECK(!tokens.empty(), InvalidInput, "text::WordPiece: the vocabulary ", vocab_txt,
              " is empty");
  return WordPiece(std::move(tokens), std::move(options));
}

WordPiece WordPiece::from_pretrained(const std::string& dir) {
  const std::filesystem::path folder(dir);
  WordPieceOptions options;
  const std::filesystem::path config_path = folder / "tokenizer_config.json";
  if (std::filesystem::exists(config_path)) {
    const nlohmann::json config = read_json_file(config_path.string(), "text::WordPiece");
    auto text = [&](const char* key, std::string& field) {
      if (config.contains(key) && config[key].is_string()) field = config[key];
    };
    if (config.contains("do_lower_case")) options.lowercase = config["do_lower_case"];
    if (config.contains("strip_accents") && config["strip_accents"].is_boolean()) {
      options.strip_accents = config["strip_accents"].get<bool>();
    }
    if (config.contains("tokenize_chinese_chars")) {
      options.tokenize_chinese_chars = config["tokenize_chinese_chars"];
    }
    if (config.contains("model_max_length") && config["model_max_length"].is_number_integer()) {
      options.model_max_length = config["model_max_length"];
    }
    text("unk_token", options.unk_token);
    text("cls_token", options.cls_token);
    text("sep_token", options.sep_token);
    text("pad_token", options.pad_token);
    text("mask_token", options.mask_token);
  }
  return load((folder / "vocab.txt").string(), std::move(options));
}

int64_t WordPiece::token_id(const std::string& token) const {
  const auto it = ids_.find(token);
  XPORT_CHECK(it != ids_.end(), InvalidInput, "text::WordPiece: the vocabulary has no token '",
              token, "'");
  return it->second;
}

const std::string& WordPiece::token(int64_t id) const {
  XPORT_CHECK(id >= 0 && id < vocab_size(), InvalidInput, "text::WordPiece: token id ", id,
              " is outside the vocabulary [0, ", vocab_size(), ")");
  return tokens_[static_cast<size_t>(id)];
}

void WordPiece::cut_word(const std::u32string& word, std::vector<int64_t>& ids) const {
  if (static_cast<int64_t>(word.size()) > options_.max_input_chars_per_word) {
    ids.push_back(unk_);
    return;
  }
  const size_t first = ids.size();
  size_t start = 0;
  while (start < word.size()) {
    int64_t found = -1;
    size_t end = word.size();
    for (; end > start; --end) {
      std::string piece = encode_utf8(std::u32string_view(word).substr(start, end - start));
      if (start > 0) piece.insert(0, "##");
      if (const auto it = ids_.find(piece); it != ids_.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {  // no split into known pieces: the whole word is unknown
      ids.resize(first);
      ids.push_back(unk_);
      return;
    }
    ids.push_back(found);
    start = end;
  }
}

void WordPiece::encode_plain(const std::string& text, std::vector<int64_t>& ids) const {
  for (const std::u32string& word : split_words(normalize(decode_utf8(text), options_))) {
    cut_word(word, ids);
  }
}

void WordPiece::encode_pieces(const std::string& text, std::vector<int64_t>& ids) const {
  // Special tokens written in the text are matched before normalisation, case and all.
  size_t at = 0;
  while (at < text.size()) {
    size_t next = std::string::npos;
    const std::string* special = nullptr;
    for (const std::string& s : special_) {
      const size_t p = text.find(s, at);
      if (p < next || (p == next && special != nullptr && s.size() > special->size())) {
        next = p;
        special = &s;
      }
    }
    encode_plain(text.substr(at, next == std::string::npos ? std::string::npos : next - at), ids);
    if (special == nullptr) break;
    ids.push_back(ids_.at(*special));
    at = next + special->size();
  }
}

std::vector<std::string> WordPiece::tokenize(const std::string& text) const {
  std::vector<int64_t> ids;
  encode_pieces(text, ids);
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (int64_t id : ids) pieces.push_back(tokens_[static_cast<size_t>(id)]);
  return pieces;
}

std::vector<int64_t> WordPiece::encode(const std::string& text, int64_t max_len) const {
  XPORT_CHECK(max_len >= 2, InvalidInput, "text::WordPiece::encode: max_len ", max_len,
              " leaves no room for [CLS] and [SEP]; give 2 or more");
  std::vector<int64_t> ids = {cls_};
  encode_pieces(text, ids);
  ids.resize(std::min(ids.size(), static_cast<size_t>(max_len - 1)));
  ids.push_back(sep_);
  return ids;
}

Batch WordPiece::encode_batch(const std::vector<std::string>& texts, int64_t max_len) const {
  XPORT_CHECK(!texts.empty(), InvalidInput, "text::WordPiece::encode_batch: no texts");
  std::vector<std::vector<int64_t>> encoded;
  encoded.reserve(texts.size());
  size_t longest = 0;
  for (const std::string& t : texts) {
    encoded.push_back(encode(t, max_len));
    longest = std::max(longest, encoded.back().size());
  }
  std::vector<int64_t> ids(texts.size() * longest, pad_), mask(texts.size() * longest, 0);
  for (size_t i = 0; i < encoded.size(); ++i) {
    std::copy(encoded[i].begin(), encoded[i].end(), ids.begin() + i * longest);
    std::fill_n(mask.begin() + i * longest, encoded[i].size(), 1);
  }
  const SymIntList shape = {static_cast<int64_t>(texts.size()), static_cast<int64_t>(longest)};
  return {from_vector(ids, shape), from_vector(mask, shape)};
}

}  // namespace xport::text
