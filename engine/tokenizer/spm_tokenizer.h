// The SentencePiece side of Tokenizer: libsentencepiece does the work (nothing here re-implements
// its BPE or Unigram). Adds what the library lacks for snapdoc: control markers declared
// user-defined are retyped control (plain text never becomes a control id), exact chunked
// multi-threaded encode of long texts, and the pieces of context streaming decode needs.
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

class SpmTokenizer {
public:
    // From a serialized ModelProto; throws FormatError if the library cannot load it.
    explicit SpmTokenizer(const std::string& proto);
    SpmTokenizer(const SpmTokenizer&) = delete;
    SpmTokenizer& operator=(const SpmTokenizer&) = delete;
    ~SpmTokenizer();

    // `text` must be well-formed UTF-8 (Tokenizer sanitizes). See Tokenizer::encode.
    std::vector<int32_t> encode(std::string_view text) const;
    std::string decode(const std::vector<int32_t>& ids) const;
    std::string piece(int32_t id) const;
    std::string raw_piece(int32_t id) const;
    int vocab_size() const;
    int bos_id() const;
    int eos_id() const;
    int unk_id() const;
    bool is_control(int32_t id) const;
    int32_t piece_to_id(std::string_view piece) const;
    bool encodes_in_chunks() const { return chunked_encode_; }
    bool adds_dummy_prefix() const { return add_dummy_prefix_; }
    void set_max_threads(unsigned n) { max_threads_ = n == 0 ? 1 : n; }
    // See Tokenizer::max_input_bytes_per_token.
    int max_input_bytes_per_token() const { return max_input_bytes_per_token_; }

    // For StreamDecoder. The byte of a byte-fallback piece "<0xHH>", or -1.
    int byte_value(int32_t id) const;
    // `ids` decoded as they read after earlier text: after_text=false gives plain decode(), true
    // keeps the leading space of the first piece (the library only drops it at sequence start).
    std::string decode_continuation(const int32_t* ids, std::size_t n, bool after_text) const;
    // Whether, starting a sequence, `ids` end SentencePiece's sequence-initial state (the state in
    // which a leading U+2581 is dropped): they produce text, or a piece whose space was dropped.
    bool ends_sequence_start(const int32_t* ids, std::size_t n, const std::string& text) const;

private:
    void init_after_load(const std::string& proto);
    std::vector<int32_t> encode_one(const sentencepiece::SentencePieceProcessor& sp,
                                    std::string_view text) const;

    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
    // The same model without the dummy prefix, for pieces of a long text after the first; null
    // when the model adds no dummy prefix (sp_ serves all pieces then).
    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_no_prefix_;
    bool chunked_encode_ = false;
    unsigned max_threads_ = 8;
    bool add_dummy_prefix_ = true;
    int max_input_bytes_per_token_ = 0;
    bool strips_leading_space_ = true;  // add_dummy_prefix || remove_extra_whitespaces
    std::vector<int16_t> byte_values_;  // per id, see byte_value()
    // A piece that decodes to non-empty text; prefixed to a decode to put it "after text".
    int32_t anchor_id_ = -1;
    std::size_t anchor_bytes_ = 0;
};

}  // namespace snapdoc
