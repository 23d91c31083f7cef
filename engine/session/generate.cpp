#include "engine/session/generate.h"

#include <algorithm>
#include <chrono>

#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/model/special_tokens.h"
#include "engine/session/context_check.h"
#include "engine/session/prefill.h"

namespace snapdoc {

const char* stop_reason_name(StopReason r) {
    switch (r) {
        case StopReason::EndOfSequence:
            return "eos";
        case StopReason::TokenLimit:
            return "limit";
        case StopReason::Cancelled:
            return "cancelled";
    }
    return "?";
}

GenerationResult generate(Backend& backend, const GenerationRequest& request) {
    if (request.prompt.empty()) throw Error("generate: the prompt is empty (add BOS)");
    if (request.max_new_tokens < 0) throw Error("generate: negative token limit");
    request.sampling.validate();

    GenerationResult result;
    result.prompt_tokens = static_cast<int>(request.prompt.size());
    // 64-bit sum: -n near 2^31 used to wrap negative here and slip past every check.
    const int capacity = checked_token_count(int64_t{result.prompt_tokens} + request.max_new_tokens,
                                             "generate: the prompt + the token limit");
    auto kv = make_full_kv_cache(backend, capacity);
    result.kv_bytes = kv->reserved_bytes();

    auto t0 = std::chrono::steady_clock::now();
    PrefillOptions popts;
    popts.chunk_rows = request.prefill_chunk;
    popts.cancel = request.cancel;
    std::vector<float> logits;
    try {
        logits = prefill(backend, request.prompt, 0, *kv, popts);
    } catch (const Cancelled&) {
        result.stop = StopReason::Cancelled;
        result.prefill_seconds = seconds_since(t0);
        return result;
    }
    result.prefill_seconds = seconds_since(t0);

    decode_loop(backend, *kv, std::move(logits), result.prompt_tokens, request.prompt, request, result);
    return result;
}

void decode_loop(Backend& backend, KvCache& kv, std::vector<float> logits, int next_pos,
                 std::vector<int32_t> history, const GenerationRequest& request, GenerationResult& result) {
    const ModelConfig& cfg = backend.config();
    Sampler sampler(request.sampling);
    auto act = backend.create_activations(1);
    const auto t0 = std::chrono::steady_clock::now();
    result.stop = StopReason::TokenLimit;
    // The first token is sampled from the prompt's logits here; each later one by the backend's
    // whole decode step (Backend::decode_next: on CUDA a captured graph sampling on the device),
    // which also hands back the step's logits when on_logits wants them.
    int32_t next = -1;
    for (int i = 0; i < request.max_new_tokens; ++i) {
        if (request.cancel && request.cancel->load()) {
            result.stop = StopReason::Cancelled;
            break;
        }
        if (request.on_logits) request.on_logits(logits);
        const int32_t token = i == 0 ? sampler.sample(logits, history) : next;
        const bool is_stop = (request.stop_at_eos && ends_generation(cfg, token)) ||
                             std::find(request.stop_tokens.begin(), request.stop_tokens.end(), token) !=
                                 request.stop_tokens.end();
        if (is_stop) {
            result.stop = StopReason::EndOfSequence;
            break;
        }
        result.tokens.push_back(token);
        history.push_back(token);
        if (request.on_token) request.on_token(token);
        if (i + 1 == request.max_new_tokens) break;  // the last token's logits are never needed
        next = backend.decode_next(token, next_pos + i, kv, *act, sampler, history,
                                   request.on_logits ? std::span<float>(logits) : std::span<float>());
    }
    result.decode_seconds = seconds_since(t0);
}

}  // namespace snapdoc
