// The attention cache's number type on the command line, shared by snapdoc-cli, snapdoc-server and
// snapdoc-bench: f16 by default (BackendOptions::kv_f16, as llama.cpp's cache), --kv-f32 for the
// exact f32 cache. --kv-f16 is still accepted (it names the default) so older scripts keep working.
#pragma once

#include <vector>

#include "app/common/args.h"

namespace snapdoc::cli {

std::vector<FlagSpec> kv_type_flags();

// Throws Error when both flags are given: they contradict each other.
bool kv_f16_from_flags(const Args& args);

}  // namespace snapdoc::cli
