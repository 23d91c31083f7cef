#include "app/common/selection_json.h"

namespace snapdoc {

nlohmann::json selection_json(const Selection& sel, int64_t kv_bytes_full, int64_t kv_bytes_compressed) {
    const SnapKvConfig& c = sel.config;
    nlohmann::json j = {{"prompt_tokens", sel.prompt_len},
                        {"window", sel.window},
                        {"budget", c.budget},
                        {"gqa", gqa_mode_name(c.gqa)},
                        {"kernel", c.kernel},
                        {"pool", pooling_name(c.pooling)},
                        {"policy", budget_policy_name(c.policy)},
                        {"compressed", sel.compressed},
                        {"kv_bytes_full", kv_bytes_full},
                        {"kv_bytes_compressed", kv_bytes_compressed},
                        {"layers", nlohmann::json::array()}};
    for (std::size_t l = 0; l < sel.layers.size(); ++l) {
        nlohmann::json heads = nlohmann::json::array();
        for (std::size_t h = 0; h < sel.layers[l].size(); ++h)
            heads.push_back({{"head", h}, {"kept", sel.layers[l][h].kept}, {"pooled", sel.layers[l][h].pooled}});
        j["layers"].push_back({{"layer", l}, {"heads", std::move(heads)}});
    }
    return j;
}

}  // namespace snapdoc
