// Loading a GGUF file of a supported family (architecture.h) into a Model (weights stay in the mapping).
#pragma once

#include <filesystem>
#include <memory>

#include "engine/model/model.h"

namespace snapdoc {

Model load_gguf_model(const std::filesystem::path& file);
// Same, from an existing mapping (fuzzers and tests load in-memory files this way).
Model load_gguf_model(std::shared_ptr<const MappedFile> file);

}  // namespace snapdoc
