// Splitting text into pre-tokens ("words") before byte-level BPE, as Hugging Face's Split
// pre-tokenizer (behaviour "Isolated") and llama.cpp's regex_exprs do: each regex of a list is
// applied in turn to every piece the previous one produced, and both its matches and the text
// between them become pieces. The regexes run on PCRE2 with JIT, UTF and UCP, so \p{L}, \p{N} and
// \s are Unicode classes.
//
// The presets are the pre-tokenizers GGUF files name in `tokenizer.ggml.pre`, with the regexes of
// the models' own tokenizer.json files (HF tokenizers) and llama.cpp's llama-vocab.cpp:
//   llama-bpe (Llama 3.x; also llama3, llama-v3, smaug-bpe, falcon3, pixtral): contractions, letters
//              with one leading non-letter, digits in groups of 1-3, punctuation with trailing
//              newlines, whitespace runs; merges are skipped for words in the vocabulary;
//   qwen2     (Qwen2/2.5/3; also deepseek-r1-qwen): the same with single digits;
//   gpt-2     (GPT-2; also gpt2): the original GPT-2 pattern (" ?\p{L}+", " ?\p{N}+", ...);
//   default   (files without a `pre`, as llama.cpp does): llama.cpp's fallback list
//              (punctuation runs, the GPT-2 pattern, digit runs, 3-digit groups);
//   tekken    (Mistral-Nemo): cased-word split, single digits, '/' after punctuation; merges are
//              skipped for words in the vocabulary. The regex is tokenizer.json's; llama.cpp
//              rewrites it without \p{Lu}/\p{Ll} classes, which differs only for non-ASCII letters.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace snapdoc {

class Pretokenizer {
public:
    // Throws FormatError naming the pattern if a regex does not compile.
    explicit Pretokenizer(std::vector<std::string> regexes);
    Pretokenizer(Pretokenizer&&) noexcept;
    Pretokenizer& operator=(Pretokenizer&&) noexcept;
    ~Pretokenizer();

    struct Span {
        std::size_t begin = 0;
        std::size_t end = 0;
    };
    // Appends the pieces of `text` (well-formed UTF-8; the caller sanitizes) to `out` as byte
    // ranges, in order and covering the text exactly. `base` is added to every offset. Thread-safe.
    void split(std::string_view text, std::vector<Span>& out, std::size_t base = 0) const;
    std::vector<std::string> split(std::string_view text) const;  // the pieces as strings (tests)

    const std::vector<std::string>& regexes() const { return regexes_; }

private:
    struct Compiled;
    std::vector<std::string> regexes_;
    std::vector<std::unique_ptr<Compiled>> compiled_;
};

struct PretokenizerPreset {
    std::string name;
    std::vector<std::string> regexes;
    bool ignore_merges = false;  // a word that is a vocabulary token is that token, merges skipped
    bool add_bos = false;        // llama.cpp's default for prompts when the file does not say
};

// The preset for a `tokenizer.ggml.pre` value ("" means "default", as in llama.cpp). Throws
// FormatError naming the value and listing the supported ones.
const PretokenizerPreset& pretokenizer_preset(std::string_view pre);
// "llama-bpe, qwen2, gpt-2, default, tekken" (aliases in parentheses).
std::string supported_pretokenizers();

}  // namespace snapdoc
