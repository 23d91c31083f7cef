// A hub model's shape before it is downloaded: the first bytes of its GGUF file (HTTP range
// requests, growing until the header ends) give the architecture, layers, heads and context, so
// Get models can estimate whether any repository's files fit, as it does for the catalogue's.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "app/hub/hub_endpoint.h"
#include "engine/model/model.h"

namespace snapdoc::hub {

// Headers larger than this are not fetched (the largest vocabularies' metadata are ~10 MiB).
inline constexpr int64_t kMaxGgufHeaderBytes = int64_t{64} << 20;

// The shape of `file` (a .gguf of `file_size` bytes, or a split set's first shard) in `repo` at
// `revision`. Fetches 2 MiB, then 4x more each time the header goes on, up to kMaxGgufHeaderBytes.
// Throws Error in words: the hub's refusal (http_status_message), a corrupt or unsupported file
// (the reader's FormatError), a header over the limit; Cancelled when `cancel` is set.
ModelConfig fetch_gguf_shape(const HubEndpoint& ep, const std::string& repo, const std::string& revision,
                             const std::string& file, int64_t file_size, const std::atomic<bool>* cancel);

}  // namespace snapdoc::hub
