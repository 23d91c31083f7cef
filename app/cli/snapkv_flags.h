// The compression flags shared by `ask`, `inspect` and the evaluations.
#pragma once

#include <vector>

#include "app/common/args.h"
#include "engine/kv/snapkv_config.h"

namespace snapdoc::cli {

// --budget --window --kernel --pool --gqa --policy --full
std::vector<FlagSpec> snapkv_flags();
SnapKvConfig snapkv_config_from(const Args& args);  // validated

}  // namespace snapdoc::cli
