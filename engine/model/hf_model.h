// Loading a Hugging Face Llama / Mistral folder (config.json + safetensors + tokenizer.model).
#pragma once

#include <filesystem>

#include "engine/model/model.h"

namespace snapdoc {

Model load_hf_model(const std::filesystem::path& dir);

}  // namespace snapdoc
