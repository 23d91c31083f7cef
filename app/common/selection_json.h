// What every head kept, as JSON: the format `snapdoc-cli inspect --json` writes and the app's
// "Export selection…" writes too, so one reader serves both (one object: the prompt length, the
// settings, the KV bytes, then per layer and cache head the kept prefix positions and pooled scores).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "engine/kv/selection.h"

namespace snapdoc {

nlohmann::json selection_json(const Selection& selection, int64_t kv_bytes_full, int64_t kv_bytes_compressed);

}  // namespace snapdoc
