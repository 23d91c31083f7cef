// Backend::decode_next's default: the step composed of the coarse calls, sampled on the host.
#include <algorithm>
#include <vector>

#include "engine/common/error.h"
#include "engine/runtime/backend.h"
#include "engine/session/sampler.h"

namespace snapdoc {

int32_t Backend::decode_next(int32_t token, int32_t pos, KvCache& kv, Activations& act, Sampler& sampler,
                             std::span<const int32_t> history, std::span<float> logits_out) {
    const ModelConfig& cfg = config();
    if (!logits_out.empty() && logits_out.size() != static_cast<std::size_t>(cfg.vocab_size))
        throw Error("decode_next: the logits buffer must hold vocab_size floats");
    embed(&token, 1, act, 0);
    for (int l = 0; l < cfg.n_layers; ++l) run_layer(l, act, 0, 1, &pos, kv, nullptr);
    std::vector<float> logits(static_cast<std::size_t>(cfg.vocab_size));
    this->logits(act, 0, logits.data());
    // The sampler may change the row it is given (penalties, scaling); the caller's copy stays raw.
    if (!logits_out.empty()) std::copy(logits.begin(), logits.end(), logits_out.begin());
    return sampler.sample(logits, history);
}

}  // namespace snapdoc
