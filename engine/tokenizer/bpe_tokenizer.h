// Byte-level BPE (GPT-2 style, as used by Llama 3.x, Qwen2/2.5/3, Mistral-Nemo), exact to llama.cpp
// and Hugging Face tokenizers:
//   1. user-defined added tokens (type UserDefined, e.g. Qwen's "<tool_call>") are cut out of the
//      text first and become their ids, longest first, as llama.cpp does with parse_special=false;
//      control tokens ("<|eot_id|>", "<|im_start|>") are never matched: text is text;
//   2. the pre-tokenizer splits each remaining run into words (pretokenizer.h);
//   3. each word's bytes start as one symbol per byte and the lowest-ranked adjacent merge is
//      applied until none applies (leftmost first among equal ranks), with a heap over a linked list
//      of symbols; with ignore_merges a word that is itself a token is that token.
// Decoding is context-free: a token's bytes are its byte-level text mapped back (normal tokens),
// its text (user-defined), or nothing (control, unused, unknown, byte types), as llama.cpp's
// token_to_piece without special tokens.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/tokenizer/bpe_vocab.h"
#include "engine/tokenizer/pretokenizer.h"

namespace snapdoc {

class BpeTokenizer {
public:
    // Checks the vocabulary: sizes agree, ids in range, tokens non-empty and distinct where it
    // matters, every merge names two tokens whose join is a token, the pre-tokenizer is known.
    // Throws FormatError naming the problem.
    explicit BpeTokenizer(BpeVocab vocab);

    // `text` must be well-formed UTF-8 (Tokenizer sanitizes). No BOS/EOS. Long texts use up to
    // `max_threads` threads. Thread-safe.
    std::vector<int32_t> encode(std::string_view text, unsigned max_threads = 8) const;
    // The bytes `id` stands for in decoded text (see the file comment); id must be in range.
    const std::string& token_bytes(int32_t id) const { return bytes_[static_cast<std::size_t>(id)]; }

    int vocab_size() const { return static_cast<int>(tokens_.size()); }
    int32_t bos_id() const { return bos_id_; }
    int32_t eos_id() const { return eos_id_; }
    int32_t unk_id() const { return unk_id_; }
    bool add_bos() const { return add_bos_; }
    bool add_eos() const { return add_eos_; }
    bool ignore_merges() const { return ignore_merges_; }
    bool is_control(int32_t id) const;
    const std::string& raw_piece(int32_t id) const { return tokens_[static_cast<std::size_t>(id)]; }
    int32_t piece_to_id(std::string_view stored_text) const;  // -1 if absent
    const Pretokenizer& pretokenizer() const { return pretok_; }
    // The vocabulary's `pre` (GGUF tokenizer.ggml.pre, "tokenizer.json" for HF files).
    const std::string& pre() const { return pre_; }

    // Threads pay off only for long texts (one thread encodes ~40 MB/s of English); below this
    // many bytes encode stays on one thread.
    static constexpr std::size_t kParallelBytes = 1024 * 1024;

private:
    struct Merge {
        int32_t rank;
        int32_t result;
    };
    struct Added {
        std::string text;
        int32_t id;
    };
    using WordCache = std::unordered_map<std::string_view, std::pair<uint32_t, uint32_t>>;

    static uint64_t pair_key(int32_t a, int32_t b) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    }
    void encode_words(std::string_view text, const std::vector<Pretokenizer::Span>& words, std::size_t first,
                      std::size_t last, std::vector<int32_t>& out) const;
    void merge_word(std::string_view word, std::vector<int32_t>& out) const;
    void encode_run(std::string_view text, unsigned max_threads, std::vector<int32_t>& out) const;

    Pretokenizer pretok_;
    std::vector<std::string> tokens_;
    std::vector<uint8_t> types_;
    std::vector<std::string> bytes_;
    std::unordered_map<std::string_view, int32_t> text_to_id_;  // views into tokens_
    std::unordered_map<std::string_view, int32_t> word_to_id_;  // decoded bytes of normal tokens
    std::array<int32_t, 256> byte_id_{};
    std::unordered_map<uint64_t, Merge> merges_;
    std::vector<Added> added_;  // user-defined tokens matched in text, longest first
    int32_t bos_id_ = -1, eos_id_ = -1, unk_id_ = -1;
    bool add_bos_ = false, add_eos_ = false, ignore_merges_ = false;
    std::string pre_;
};

}  // namespace snapdoc
