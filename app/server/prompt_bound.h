// Refusing a prompt that cannot fit the context before it is tokenized (issue 39, item 7): a 57 MB
// chat body was tokenized whole (64 s on an HTTP thread, 3.8 GiB) only to fail the context check.
// A token stands for at most `bytes_per_token` input bytes (Tokenizer::max_input_bytes_per_token,
// the vocabulary's longest piece, or --prompt-bytes-per-token), so a text of B bytes is at least
// ceil(B / bytes_per_token) tokens: more than the context means refused at once, untokenized.
#pragma once

#include <cstddef>
#include <cstdint>

namespace snapdoc::server {

struct PromptByteBound {
    int bytes_per_token = 0;  // 0: no bound known, texts are tokenized whole (body cap only)
    // The fewest tokens `bytes` of text can encode to (0 without a bound).
    int64_t min_tokens(std::size_t bytes) const {
        if (bytes_per_token <= 0) return 0;
        return static_cast<int64_t>((bytes + static_cast<std::size_t>(bytes_per_token) - 1) /
                                    static_cast<std::size_t>(bytes_per_token));
    }
};

}  // namespace snapdoc::server
