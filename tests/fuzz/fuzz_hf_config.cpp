// libFuzzer target: arbitrary text as a Hugging Face config.json. It parses to a valid config or
// throws snapdoc::Error; nothing else (no nlohmann exception, no UB, no crash) may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/common/error.h"
#include "engine/model/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const snapdoc::HfConfig h =
            snapdoc::parse_hf_config(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz/config.json");
        h.config.validate();  // a returned config is always valid
        (void)h.config.q_dim();
        (void)h.config.kv_dim();
    } catch (const snapdoc::Error&) {
    }
    return 0;
}
