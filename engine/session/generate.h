// Plain text generation over a full KV cache: prefill the prompt, then sample token by token until
// an end-of-generation token, the token limit or cancellation. Streaming happens through the on_token
// callback.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/runtime/backend.h"
#include "engine/session/sampler.h"

namespace snapdoc {

enum class StopReason { EndOfSequence, TokenLimit, Cancelled };

struct GenerationRequest {
    std::vector<int32_t> prompt;  // must not be empty (callers add BOS)
    int max_new_tokens = 256;
    SamplingParams sampling;
    // Stop on the model's EOS and every other end-of-generation id it names (EOT, EOM: see
    // special_tokens.h), as llama.cpp does; false generates through them (--ignore-eos).
    bool stop_at_eos = true;
    std::vector<int32_t> stop_tokens;  // further tokens that end the answer (e.g. <|im_end|>)
    int prefill_chunk = 512;
    const std::atomic<bool>* cancel = nullptr;    // checked per token and per prefill chunk
    std::function<void(int32_t token)> on_token;  // called for each generated token (not for EOS)
    std::function<void(std::span<const float> logits)> on_logits;  // each step's logits, before sampling
};

struct GenerationResult {
    std::vector<int32_t> tokens;  // generated tokens (EOS not included)
    StopReason stop = StopReason::TokenLimit;
    int prompt_tokens = 0;
    double prefill_seconds = 0;
    double decode_seconds = 0;
    std::size_t kv_bytes = 0;  // reserved KV cache bytes
};

GenerationResult generate(Backend& backend, const GenerationRequest& request);

// The sampling loop shared by every path: starting from the logits of the prompt's last token,
// samples, streams and decodes tokens at positions next_pos, next_pos + 1, ... on `kv` until a stop
// condition. `history` is the prompt (for the repetition penalty). Fills tokens/stop/decode_seconds.
void decode_loop(Backend& backend, KvCache& kv, std::vector<float> logits, int next_pos,
                 std::vector<int32_t> history, const GenerationRequest& request, GenerationResult& result);

const char* stop_reason_name(StopReason r);

}  // namespace snapdoc
