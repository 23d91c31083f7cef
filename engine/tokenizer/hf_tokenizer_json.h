// Hugging Face tokenizer.json (the "fast" tokenizer file that folders of Llama 3, Qwen and newer
// Mistral models ship, sometimes instead of tokenizer.model), mapped onto snapdoc's tokenizers:
//  - a BPE model with a ByteLevel pre-tokenizer (Llama 3, Qwen, Mistral-Nemo) becomes a BpeVocab:
//    the Split regexes of the pre-tokenizer sequence (and ByteLevel's own GPT-2 regex when
//    use_regex is true), merges in rank order, ignore_merges, added tokens ("special": true ->
//    control, else user-defined);
//  - a SentencePiece-style BPE model ("▁" for spaces via Metaspace or Prepend/Replace
//    normalizers, byte_fallback; Llama 2, Mistral v0.x) becomes a SentencePiece ModelProto whose
//    piece scores follow the merge ranks (the first merge producing a piece gives its score), so
//    libsentencepiece merges in the same order. Exact for files converted from a SentencePiece
//    model (HF's converter lists every two-piece split of every piece as a merge); a file whose
//    merges leave out a split of a piece would let libsentencepiece form that piece anyway.
// Qwen's NFC normalizer is not applied (llama.cpp does not either): text already in NFC, which
// is nearly all text, tokenizes the same; decomposed accents may differ from HF.
// The file is parsed once with nlohmann-json. Anything else (WordPiece, Unigram, other
// normalizers, a Split that is not "Isolated") is a FormatError naming what is not supported.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/tokenizer/bpe_vocab.h"

namespace snapdoc {

struct HfTokenizerJson {
    std::shared_ptr<const BpeVocab> bpe;  // byte-level BPE, or null
    std::string spm_proto;                // SentencePiece-style model, or empty
    std::optional<bool> add_bos;          // from the post-processor / tokenizer_config.json
    std::optional<bool> add_eos;
};

// `tokenizer_json`: the file's text; `tokenizer_config_json`: tokenizer_config.json's text, or ""
// (it names bos/eos tokens and add_bos_token/add_eos_token). Throws FormatError.
HfTokenizerJson parse_hf_tokenizer_json(std::string_view tokenizer_json,
                                        std::string_view tokenizer_config_json = {});

}  // namespace snapdoc
