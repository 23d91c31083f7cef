// Loading a GGUF file of a supported family (architecture.h) into a Model (weights stay in the mapping).
#pragma once

#include <filesystem>
#include <memory>

#include "engine/model/gguf_file.h"
#include "engine/model/model.h"

namespace snapdoc {

Model load_gguf_model(const std::filesystem::path& file);
// Same, from an existing mapping (fuzzers and tests load in-memory files this way).
Model load_gguf_model(std::shared_ptr<const MappedFile> file);

// The model's shape (architecture, layers, sizes, heads, context, vocabulary) from its metadata
// alone, e.g. a header fetched before a download (GgufFile::parse_header) to estimate the fit.
// Rope scaling is left at none: its factors may be tensors. FormatError as load_gguf_model.
ModelConfig read_gguf_shape(const GgufFile& header);

}  // namespace snapdoc
