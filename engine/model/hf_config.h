// Hugging Face `config.json` of a checkpoint of a supported family (architecture.h) -> ModelConfig.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "engine/model/model_config.h"

namespace snapdoc {

struct Architecture;

struct HfConfig {
    ModelConfig config;       // rope_style is RotateHalf; weight_dtype is left for the loader to set
    const Architecture* arch = nullptr;  // the family (never null after a successful parse)
    std::string torch_dtype;  // "float32", "bfloat16", ... or "" when absent
};

// Parses config.json text. `source` names the file in messages. Throws FormatError naming the key
// for a missing required key, a wrong JSON type, an unsupported architecture / rope scaling, or
// contradictory values.
HfConfig parse_hf_config(std::string_view json_text, const std::string& source = "config.json");

// Reads and parses a config.json file.
HfConfig load_hf_config(const std::filesystem::path& config_json);

}  // namespace snapdoc
