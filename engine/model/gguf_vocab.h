// The tokenizer stored in GGUF metadata (`tokenizer.ggml.*`): a SentencePiece ("llama")
// vocabulary as a serialized ModelProto, or a byte-level BPE ("gpt2") vocabulary with its merges
// and pre-tokenizer name. For anything else, or a broken vocabulary, the reason is returned
// instead, so the model still loads and the caller can say why it has no tokenizer.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/bpe_vocab.h"

namespace snapdoc {

class GgufFile;

struct GgufVocab {
    std::string proto;                        // serialized ModelProto ("llama"), else empty
    std::shared_ptr<const BpeTokenizer> bpe;  // byte-level BPE ("gpt2"), checked and built; else null
    std::optional<bool> add_bos;              // tokenizer.ggml.add_bos_token
    std::optional<bool> add_eos;              // tokenizer.ggml.add_eos_token
    std::string error;                        // why there is no tokenizer ("" when there is one)
};

// `vocab_size` is the model's embedding row count: a vocabulary with more pieces is refused.
GgufVocab read_gguf_vocab(const GgufFile& gguf, int vocab_size);
// The byte-level BPE data of a "gpt2" GGUF as stored, unchecked (tests change it and build their
// own). Throws FormatError for malformed metadata.
BpeVocab read_gguf_bpe_vocab(const GgufFile& gguf, int vocab_size);

}  // namespace snapdoc
