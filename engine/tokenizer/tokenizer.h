// SentencePiece tokenizer (libsentencepiece does the work; nothing here re-implements BPE).
// Plain text (documents, questions) is always encoded as text: control pieces such as "</s>",
// "<s>" or "[INST]" inside it never become control-token ids. Special tokens are only ever added
// by id (see special_id / chat templates).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace snapdoc {

struct Model;

class Tokenizer {
public:
    // From a serialized SentencePiece ModelProto (e.g. Model::tokenizer_proto or a .model file's bytes).
    static Tokenizer from_serialized_proto(const std::string& proto);
    static Tokenizer from_file(const std::string& path);
    // The model's own tokenizer; throws FormatError if the model has none.
    static Tokenizer from_model(const Model& model);

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    // Encodes text as plain text (no BOS/EOS added). `add_dummy_prefix` follows the model's normalizer.
    std::vector<int32_t> encode(std::string_view text) const;
    // Decodes ids to text. Control tokens decode to "".
    std::string decode(const std::vector<int32_t>& ids) const;
    // The text one token adds when it follows `prev` in a stream (handles the leading-space rule and
    // byte-fallback pieces that form a UTF-8 character only together). Use a StreamDecoder for streaming.
    std::string piece(int32_t id) const;

    int vocab_size() const;
    int bos_id() const;
    int eos_id() const;
    int unk_id() const;
    bool is_control(int32_t id) const;
    // Id of a special piece such as "<s>", "[INST]" or "<|im_start|>", or -1 if the vocab lacks it.
    int32_t piece_to_id(std::string_view piece) const;

private:
    Tokenizer();
    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

// Turns a stream of generated ids into complete UTF-8 text increments (a multi-byte character made
// of byte-fallback tokens is only emitted once it is complete; the sequence-initial space is dropped).
class StreamDecoder {
public:
    explicit StreamDecoder(const Tokenizer& tok) : tok_(tok) {}
    // Returns the new text made available by `id` (possibly empty).
    std::string push(int32_t id);
    // Text still pending at the end (incomplete UTF-8 is emitted as U+FFFD).
    std::string flush();

private:
    const Tokenizer& tok_;
    std::vector<int32_t> ids_;
    std::size_t emitted_bytes_ = 0;
};

}  // namespace snapdoc
