#include "app/common/kv_type_flags.h"

#include "engine/common/error.h"

namespace snapdoc::cli {

std::vector<FlagSpec> kv_type_flags() {
    return {{{"--kv-f32"}, false}, {{"--kv-f16"}, false}};
}

bool kv_f16_from_flags(const Args& args) {
    if (args.has("kv-f32") && args.has("kv-f16")) throw Error("--kv-f32 and --kv-f16 contradict each other; give one");
    return !args.has("kv-f32");
}

}  // namespace snapdoc::cli
