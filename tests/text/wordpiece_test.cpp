// text::WordPiece on a small vocabulary: each step of BertTokenizer's pipeline on its own.
// (Parity with Hugging Face's tokenizer on the real vocabulary: tests/models/pretrained_test.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "expect_error.h"
#include "xport/text/text.h"

namespace xport::text {
namespace {

using test_support::expect_error;

const std::vector<std::string> kVocab = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "un",  "##aff", "##able",
    ",",     "!",     "cafe",  "de",    "##ja",   "vu",    "我",    "爱", "i",     "##stanbul",
    "a",     "##b",   "ab",    "x",     "Hello",  "é",     "$",     "10", "##x",   "straße",
    "[",     "]"};

class WordPieceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("xport_wordpiece_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream out(dir_ / "vocab.txt");
    for (const std::string& t : kVocab) out << t << "\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string vocab() const { return (dir_ / "vocab.txt").string(); }
  WordPiece uncased() const { return WordPiece::load(vocab()); }

  std::filesystem::path dir_;
};

using Pieces = std::vector<std::string>;

TEST_F(WordPieceTest, CutsWordsIntoTheLongestPiecesFromTheLeft) {
  EXPECT_EQ(uncased().tokenize("unaffable"), (Pieces{"un", "##aff", "##able"}));
  // "ab" is one piece although "a" + "##b" would also do.
  EXPECT_EQ(uncased().tokenize("ab"), (Pieces{"ab"}));
  EXPECT_EQ(uncased().tokenize("abb"), (Pieces{"ab", "##b"}));
}

TEST_F(WordPieceTest, AWordWithNoSplitIntoKnownPiecesIsUnknownAsAWhole) {
  // "un" + "##aff" match, then "z" has no piece: the whole word becomes one [UNK].
  EXPECT_EQ(uncased().tokenize("hello unaffz world"), (Pieces{"hello", "[UNK]", "world"}));
}

TEST_F(WordPieceTest, AWordOverTheCharacterLimitIsUnknown) {
  WordPieceOptions options;
  options.max_input_chars_per_word = 4;
  const WordPiece wp = WordPiece::load(vocab(), options);
  EXPECT_EQ(wp.tokenize("abbb abbbb"), (Pieces{"ab", "##b", "##b", "[UNK]"}));
}

TEST_F(WordPieceTest, SplitsAtWhitespaceAndAroundEveryPunctuationCharacter) {
  EXPECT_EQ(uncased().tokenize("hello,world!!"), (Pieces{"hello", ",", "world", "!", "!"}));
  // $ is a symbol to Unicode but punctuation to BERT (all of ASCII's punctuation is).
  EXPECT_EQ(uncased().tokenize("$10x"), (Pieces{"$", "10", "##x"}));
}

TEST_F(WordPieceTest, LowerCasesAndStripsAccentsForUncasedModels) {
  EXPECT_EQ(uncased().tokenize("HeLLo CAFÉ Déjà"), (Pieces{"hello", "cafe", "de", "##ja"}));
  // A decomposed accent (e + U+0301) goes the same way.
  EXPECT_EQ(uncased().tokenize("cafe\u0301"), (Pieces{"cafe"}));
  // İ lower-cases to i + a combining dot, which accent stripping removes.
  EXPECT_EQ(uncased().tokenize("İstanbul"), (Pieces{"i", "##stanbul"}));
  // ß has no decomposition and no single-character lower case to change.
  EXPECT_EQ(uncased().tokenize("Straße"), (Pieces{"straße"}));
}

TEST_F(WordPieceTest, CasedModelsKeepCaseAndAccents) {
  WordPieceOptions options;
  options.lowercase = false;
  const WordPiece wp = WordPiece::load(vocab(), options);
  EXPECT_EQ(wp.tokenize("Hello é hello"), (Pieces{"Hello", "é", "hello"}));
  options.strip_accents = true;
  EXPECT_EQ(WordPiece::load(vocab(), options).tokenize("é"), (Pieces{"[UNK]"}));
}

TEST_F(WordPieceTest, DropsControlCharactersAndTreatsUnicodeSpacesAsSpaces) {
  // NUL, BEL, zero-width space, BOM and U+FFFD vanish; NBSP, em space, ideographic space and
  // tab/newline separate words.
  using namespace std::string_literals;
  EXPECT_EQ(uncased().tokenize("hel\0lo\a\u200b\ufeff\ufffd"s), (Pieces{"hello"}));
  EXPECT_EQ(uncased().tokenize("hello\u00a0world\u2003x\u3000ab\tx\ny"),
            (Pieces{"hello", "world", "x", "ab", "x", "[UNK]"}));
}

TEST_F(WordPieceTest, EveryCjkIdeographIsAWordOfItsOwn) {
  EXPECT_EQ(uncased().tokenize("我爱x"), (Pieces{"我", "爱", "x"}));
  WordPieceOptions options;
  options.tokenize_chinese_chars = false;
  EXPECT_EQ(WordPiece::load(vocab(), options).tokenize("我爱"), (Pieces{"[UNK]"}));
}

TEST_F(WordPieceTest, SpecialTokensWrittenInTheTextStayWhole) {
  EXPECT_EQ(uncased().tokenize("hello [SEP] world[MASK]!"),
            (Pieces{"hello", "[SEP]", "world", "[MASK]", "!"}));
  // Only as written: lower case is text like any other.
  EXPECT_EQ(uncased().tokenize("[sep]"), (Pieces{"[", "[UNK]", "]"}));
}

TEST_F(WordPieceTest, EncodeAddsClsAndSepAndTruncatesThePieces) {
  const WordPiece wp = uncased();
  EXPECT_EQ(wp.encode("hello world"), (std::vector<int64_t>{2, 5, 6, 3}));
  EXPECT_EQ(wp.encode(""), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(wp.encode("hello world hello", 4), (std::vector<int64_t>{2, 5, 6, 3}));
  EXPECT_EQ(wp.encode("hello", 2), (std::vector<int64_t>{2, 3}));
  expect_error([&] { wp.encode("hello", 1); }, ErrorKind::InvalidInput, {"max_len 1"});
}

TEST_F(WordPieceTest, EncodeBatchPadsToTheLongestAndMasksThePadding) {
  const Batch batch = uncased().encode_batch({"hello world", "x"});
  EXPECT_EQ(batch.ids.to_vector<int64_t>(), (std::vector<int64_t>{2, 5, 6, 3, 2, 23, 3, 0}));
  EXPECT_EQ(batch.attention_mask.to_vector<int64_t>(),
            (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(batch.ids.int_sizes(), (std::vector<int64_t>{2, 4}));
}

TEST_F(WordPieceTest, RefusesTextThatIsNotUtf8) {
  expect_error([&] { uncased().encode("ok \xff\xfe"); }, ErrorKind::InvalidInput,
               {"not valid UTF-8 at byte 3"});
}

TEST_F(WordPieceTest, FromPretrainedReadsTheTokenizerConfig) {
  std::ofstream(dir_ / "tokenizer_config.json")
      << R"({"do_lower_case": false, "unk_token": "x", "model_max_length": 128})";
  const WordPiece wp = WordPiece::from_pretrained(dir_.string());
  EXPECT_FALSE(wp.options().lowercase);
  EXPECT_EQ(wp.options().model_max_length, 128);
  EXPECT_EQ(wp.tokenize("Hello zzz"), (Pieces{"Hello", "x"}));
  expect_error([&] { WordPiece::from_pretrained((dir_ / "missing").string()); },
               ErrorKind::InvalidInput, {"cannot read the vocabulary"});
}

TEST_F(WordPieceTest, NamesAMissingSpecialToken) {
  WordPieceOptions options;
  options.cls_token = "<s>";
  expect_error([&] { WordPiece::load(vocab(), options); }, ErrorKind::InvalidInput,
               {"no token '<s>'"});
}

}  // namespace
}  // namespace xport::text
