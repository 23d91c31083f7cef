// The tokenizer stored in GGUF metadata (`tokenizer.ggml.*`) as a serialized SentencePiece
// ModelProto. Only SentencePiece ("llama") vocabularies are supported; for anything else the
// reason is returned instead, so the model still loads and the caller can say why it has no
// tokenizer.
#pragma once

#include <string>

namespace snapdoc {

class GgufFile;

struct GgufVocab {
    std::string proto;  // serialized ModelProto, empty when unavailable
    std::string error;  // why `proto` is empty ("" when it is not)
};

// `vocab_size` is the model's embedding row count: a vocabulary with more pieces is refused.
GgufVocab read_gguf_vocab(const GgufFile& gguf, int vocab_size);

}  // namespace snapdoc
