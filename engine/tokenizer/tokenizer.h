// The model's tokenizer, one interface over two implementations:
//  - SentencePiece (Llama 2, Mistral v0.x, Phi-3.5; GGUF `tokenizer.ggml.model = "llama"`, HF
//    tokenizer.model): libsentencepiece (spm_tokenizer.h);
//  - byte-level BPE (Llama 3.x, Qwen2/2.5/3, Mistral-Nemo; GGUF "gpt2", HF tokenizer.json):
//    snapdoc's own, on PCRE2 (bpe_tokenizer.h).
// Plain text (documents, questions) is always encoded as text: control pieces such as "</s>",
// "<|eot_id|>" or "<|im_start|>" inside it never become control-token ids. Special tokens are only
// ever added by id (piece_to_id, bos_id, eos_id; see the chat templates).
//
// What differs between the kinds, for callers that lay out prompts (chat templates):
//  - SentencePiece adds a dummy prefix: encode("Hi") gives "▁Hi", as if the text followed a space,
//    at the start of every encode() call when adds_dummy_prefix(); byte-level BPE never does:
//    encode("Hi") is "Hi" and encode(" Hi") is " Hi", so template text must carry its own spaces
//    and newlines exactly as the model's chat template writes them.
//  - piece(id): SentencePiece gives the piece with U+2581 as a space; BPE gives the token's
//    decoded bytes (possibly part of a UTF-8 character).
//  - add_bos()/add_eos(): whether the model's files say a prompt starts with BOS / ends with EOS
//    (llama.cpp's add_special): GGUF tokenizer.ggml.add_bos_token, tokenizer.json's post-processor,
//    else the kind's default (SentencePiece: BOS; llama-bpe and tekken: BOS; qwen2: none).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace snapdoc {

struct Model;
struct BpeVocab;
class SpmTokenizer;
class BpeTokenizer;

enum class TokenizerKind { SentencePiece, ByteLevelBpe };

class Tokenizer {
public:
    // From a serialized SentencePiece ModelProto (e.g. Model::tokenizer_proto or a .model file's bytes).
    static Tokenizer from_serialized_proto(const std::string& proto);
    // A byte-level BPE vocabulary; throws FormatError if it is inconsistent.
    static Tokenizer from_bpe_vocab(const BpeVocab& vocab);
    // An already built one (Model::tokenizer_bpe), shared: nothing is rebuilt.
    static Tokenizer from_bpe(std::shared_ptr<const BpeTokenizer> bpe);
    // A SentencePiece .model file, or a Hugging Face tokenizer.json (by the ".json" extension; a
    // tokenizer_config.json in the same folder is read too, for BOS/EOS).
    static Tokenizer from_file(const std::string& path);
    // The model's own tokenizer; throws FormatError if the model has none.
    static Tokenizer from_model(const Model& model);

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    TokenizerKind kind() const { return bpe_ ? TokenizerKind::ByteLevelBpe : TokenizerKind::SentencePiece; }
    // Whether encode() puts the model's space marker before the text (SentencePiece with the
    // normalizer's add_dummy_prefix; never for byte-level BPE).
    bool adds_dummy_prefix() const;
    bool add_bos() const { return add_bos_; }
    bool add_eos() const { return add_eos_; }

    // Encodes text as plain text (no BOS/EOS added). Bytes that are not well-formed UTF-8 are
    // replaced by U+FFFD (one per byte) first. SentencePiece: `add_dummy_prefix` follows the
    // model's normalizer. Long texts are encoded on several threads where that is provably the
    // one-piece result (SentencePiece: newline-separated pieces when the vocabulary allows it;
    // BPE: the merges of the pre-tokenized words). Thread-safe (const).
    std::vector<int32_t> encode(std::string_view text) const;
    // Decodes ids to text. Control tokens decode to "". SentencePiece drops the sequence-initial
    // space of the first piece; BPE concatenates the tokens' bytes. Bytes that do not form UTF-8
    // come out as U+FFFD, one per byte. Throws Error for an id outside the vocabulary.
    std::string decode(const std::vector<int32_t>& ids) const;
    // The text of one token as it reads in the middle of a stream. SentencePiece: U+2581 becomes a
    // space (kept even at the start), a byte piece <0xHH> is that single byte. BPE: the token's
    // bytes. Control tokens are "". Possibly half a UTF-8 character: use a StreamDecoder to stream.
    std::string piece(int32_t id) const;

    int vocab_size() const;
    int bos_id() const;                 // -1 if the vocabulary has none
    int eos_id() const;                 // -1 if the vocabulary has none
    int unk_id() const;                 // -1 if the vocabulary has none (byte-level BPE usually)
    bool is_control(int32_t id) const;  // false for ids outside the vocabulary
    // Id of a special piece such as "<s>", "[INST]", "<|im_start|>" or "<|eot_id|>" (its text as
    // stored in the vocabulary), or -1 if the vocab lacks it.
    int32_t piece_to_id(std::string_view piece) const;
    // The raw piece string as stored in the vocabulary ("\u2581the", "<0x0A>", "</s>"; BPE: "Ġthe",
    // "Ċ"); "" for ids outside it.
    std::string raw_piece(int32_t id) const;
    // An upper bound on the input bytes one token of encode() stands for, derived from the
    // vocabulary's longest piece in bytes, so `text.size() / bound` tokens at least (rounded up)
    // is what any text encodes to: lets a caller refuse a text too long for a context before
    // encoding it. 0 when no bound holds (a SentencePiece normalizer that may drop characters, or
    // no byte fallback, where a run of unknown characters is one <unk>).
    int max_input_bytes_per_token() const;
    // Whether encode() may split long texts (see encode); exposed for tests and benchmarks.
    bool encodes_in_chunks() const;
    // At most this many threads per encode() call (default 8; 1 = the calling thread only). Not
    // thread-safe: set it before the tokenizer is shared.
    void set_max_encode_threads(unsigned n);

private:
    friend class StreamDecoder;
    Tokenizer();

    std::unique_ptr<SpmTokenizer> spm_;
    std::shared_ptr<const BpeTokenizer> bpe_;  // immutable, so copies of a model's tokenizer share it
    unsigned max_threads_ = 8;
    bool add_bos_ = false;
    bool add_eos_ = false;
};

// Turns a stream of generated ids into complete UTF-8 text increments (a multi-byte character
// split over several tokens is only emitted once it is complete; SentencePiece's sequence-initial
// space is dropped). `tok` must outlive the decoder. push(...) + ... + flush() == tok.decode(all ids).
class StreamDecoder {
public:
    explicit StreamDecoder(const Tokenizer& tok) : tok_(tok) {}
    // Returns the new text made available by `id` (possibly empty).
    std::string push(int32_t id);
    // Text still pending at the end (incomplete UTF-8 is emitted as U+FFFD).
    std::string flush();

private:
    std::string push_bpe(int32_t id);
    std::string push_spm(int32_t id);

    const Tokenizer& tok_;
    // SentencePiece: only ids whose text is not final yet are kept: at most three byte-fallback
    // pieces that start a multi-byte character. Everything before them has been returned, so each
    // push decodes a handful of ids however long the stream is.
    std::vector<int32_t> ids_;
    bool after_text_ = false;  // the stream has left SentencePiece's sequence-initial state
    // BPE: the bytes of an unfinished multi-byte character at the end of the stream (0-3 bytes).
    std::string pending_;
};

}  // namespace snapdoc
