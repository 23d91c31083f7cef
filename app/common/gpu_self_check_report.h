// How the apps word and serialise the GPU self-check's report (engine/runtime/gpu_self_check.h):
// one line for the CLI's and the server's stderr, a JSON object for the server's /props.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/runtime/gpu_self_check.h"

namespace snapdoc {

// The report's message, or why nothing was checked ("not run: ..."), for a backend named `backend`.
std::string gpu_self_check_line(const GpuSelfCheckReport& r, const std::string& backend);

// {"outcome": "passed"|"failed"|"not run", "remembered", "fell_back", "device", "step", "message",
//  "verdict_file"}; "message" is gpu_self_check_line's (also when nothing ran).
nlohmann::json gpu_self_check_json(const GpuSelfCheckReport& r, const std::string& backend);

}  // namespace snapdoc
