// SentencePiece tokenizer (libsentencepiece does the work; nothing here re-implements BPE).
// Plain text (documents, questions) is always encoded as text: control pieces such as "</s>",
// "<s>" or "[INST]" inside it never become control-token ids. Special tokens are only ever added
// by id (piece_to_id, bos_id, eos_id; see the chat templates).
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
    // Bytes that are not well-formed UTF-8 are replaced by U+FFFD (one per byte) first. Long texts
    // are encoded in newline-separated pieces on several threads when the vocabulary makes that
    // exact (identity normalizer, BPE, no piece containing '\n'); the result is always identical
    // to encoding the whole text at once. Thread-safe (const).
    std::vector<int32_t> encode(std::string_view text) const;
    // Decodes ids to text. Control tokens decode to ""; the sequence-initial space of the first
    // piece is dropped (SentencePiece's rule). Throws Error for an id outside the vocabulary.
    std::string decode(const std::vector<int32_t>& ids) const;
    // The text of one token as it reads in the middle of a stream: U+2581 becomes a space (kept even
    // at the start), a byte piece <0xHH> is that single byte (possibly half a UTF-8 character),
    // control tokens are "". For display of single tokens; use a StreamDecoder to stream text.
    std::string piece(int32_t id) const;

    int vocab_size() const;
    int bos_id() const;  // -1 if the vocabulary has none
    int eos_id() const;  // -1 if the vocabulary has none
    int unk_id() const;
    bool is_control(int32_t id) const;  // false for ids outside the vocabulary
    // Id of a special piece such as "<s>", "[INST]" or "<|im_start|>", or -1 if the vocab lacks it.
    int32_t piece_to_id(std::string_view piece) const;
    // The raw piece string as stored in the vocabulary ("\u2581the", "<0x0A>", "</s>"); "" for ids
    // outside it.
    std::string raw_piece(int32_t id) const;
    // Whether encode() may split long texts (see encode); exposed for tests and benchmarks.
    bool encodes_in_chunks() const { return chunked_encode_; }

private:
    friend class StreamDecoder;
    Tokenizer();
    void init_after_load(const std::string& proto);
    std::vector<int32_t> encode_one(const sentencepiece::SentencePieceProcessor& sp, std::string_view text) const;
    // The byte of a byte-fallback piece "<0xHH>", or -1.
    int byte_value(int32_t id) const;
    // `ids` decoded as they read after earlier text: after_text=false gives plain decode(), true
    // keeps the leading space of the first piece (the library only drops it at sequence start).
    std::string decode_continuation(const int32_t* ids, std::size_t n, bool after_text) const;
    // Whether, starting a sequence, `ids` end SentencePiece's sequence-initial state (the state in
    // which a leading U+2581 is dropped): they produce text, or a piece whose space was dropped.
    bool ends_sequence_start(const int32_t* ids, std::size_t n, const std::string& text) const;

    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
    // The same model without the dummy prefix, for pieces of a long text after the first; null
    // when the model adds no dummy prefix (sp_ serves all pieces then).
    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_no_prefix_;
    bool chunked_encode_ = false;
    bool strips_leading_space_ = true;  // add_dummy_prefix || remove_extra_whitespaces
    std::vector<int16_t> byte_values_;  // per id, see byte_value()
    // A piece that decodes to non-empty text; prefixed to a decode to put it "after text".
    int32_t anchor_id_ = -1;
    std::size_t anchor_bytes_ = 0;
};

// Turns a stream of generated ids into complete UTF-8 text increments (a multi-byte character made
// of byte-fallback tokens is only emitted once it is complete; the sequence-initial space is dropped).
// `tok` must outlive the decoder. push(...) + ... + flush() == tok.decode(all ids), exactly.
class StreamDecoder {
public:
    explicit StreamDecoder(const Tokenizer& tok) : tok_(tok) {}
    // Returns the new text made available by `id` (possibly empty).
    std::string push(int32_t id);
    // Text still pending at the end (incomplete UTF-8 is emitted as U+FFFD).
    std::string flush();

private:
    // Only ids whose text is not final yet are kept: at most three byte-fallback pieces that start
    // a multi-byte character. Everything before them has been returned, so each push decodes a
    // handful of ids however long the stream is.
    const Tokenizer& tok_;
    std::vector<int32_t> ids_;
    bool after_text_ = false;  // the stream has left SentencePiece's sequence-initial state
};

}  // namespace snapdoc
