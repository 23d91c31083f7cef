// snapdoc-cli built without the model hub (-DSNAPDOC_BUILD_HUB=OFF: no libcurl/OpenSSL, e.g. the GPU
// machine's build in scripts/gpu-check.sh). Local models work as usual; everything that would reach
// the Hugging Face hub (-m hf://..., --hf-repo, `pull`, `models`) says in words that this build left
// it out, instead of an unknown-flag or unknown-command error. Replaces hub_model.cpp, cmd_pull.cpp,
// cmd_models.cpp and catalogue_table.cpp in that build (app/CMakeLists.txt).
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/hub_model.h"
#include "app/cli/remote_commands.h"
#include "app/common/args.h"
#include "engine/common/error.h"

namespace snapdoc::cli {

namespace {
[[noreturn]] void no_hub(const std::string& what) {
    throw Error(what + " needs the model hub, which this snapdoc-cli was built without (-DSNAPDOC_BUILD_HUB=OFF); "
                       "download the model elsewhere and pass its local path with -m");
}
}  // namespace

// The same flags as the hub build, so using them gets the sentence above.
std::vector<FlagSpec> hub_flags() {
    return {{{"--hf-repo", "-hf"}}, {{"--hf-file", "-hff"}}, {{"--hf-token", "-hft"}}, {{"--hf-endpoint"}}};
}

std::filesystem::path model_path_from_args(const Args& args) {
    if (args.has("hf-repo")) no_hub("--hf-repo");
    const std::string m = args.required("model");
    if (m.rfind("hf://", 0) == 0) no_hub("-m " + m);
    return m;
}

int cmd_pull(int, char**) { no_hub("`pull`"); }

// --remote needs libcurl as the hub does.
bool has_remote_flag(int argc, char** argv) {
    for (int i = 2; i < argc; ++i)
        if (std::string(argv[i]) == "--remote") return true;
    return false;
}
int cmd_ask_remote(int, char**) {
    throw Error("ask --remote needs libcurl, which this snapdoc-cli was built without (-DSNAPDOC_BUILD_HUB=OFF)");
}
int cmd_models_remote(int, char**) {
    throw Error("models --remote needs libcurl, which this snapdoc-cli was built without (-DSNAPDOC_BUILD_HUB=OFF)");
}
int cmd_models(int, char**) { no_hub("`models`"); }

}  // namespace snapdoc::cli
