// snapdoc-cli pull REPO[:QUANT] | pull REPO FILE: download a model into the models folder.
#include <cstdio>
#include <cstring>

#include "app/cli/commands.h"
#include "app/cli/hub_model.h"
#include "app/hub/model_ref.h"
#include "engine/common/error.h"
#include "engine/common/logging.h"
#include "engine/model/model_summary.h"

namespace snapdoc::cli {

int cmd_pull(int argc, char** argv) {
    // Positionals first (REPO[:QUANT] [FILE]), then flags.
    int first_flag = 2;
    while (first_flag < argc && argv[first_flag][0] != '-') ++first_flag;
    const int positionals = first_flag - 2;
    if (positionals < 1 || positionals > 2)
        throw Error(
            "usage: snapdoc-cli pull REPO[:QUANT] | pull REPO FILE  [--hf-token T] [--hf-endpoint URL]");
    auto flags = hub_flags();
    flags.push_back({{"--log-level"}});
    const Args args(flags, argc, argv, first_flag);
    init_logging(args.str("log-level"));
    const hub::ModelRef ref =
        positionals == 2 ? hub::parse_model_ref(argv[2], argv[3]) : hub::parse_model_ref(argv[2]);
    std::vector<hub::FileCheck> checks;
    const auto files = pull_model(args, ref, &checks);
    int64_t bytes = 0;
    for (const auto& f : files) bytes += static_cast<int64_t>(std::filesystem::file_size(f));
    // stdout: the path to load (so `snapdoc-cli ask -m "$(snapdoc-cli pull ...)"` works).
    std::printf("%s\n", files.front().c_str());
    // "verified" only when every sha256 was checked; a file the hub listed without one was checked
    // by size only, and says so. A copy already here was checked when it was downloaded.
    const char* how = checks.empty() ? "already downloaded" : hub::check_words(checks);
    std::fprintf(stderr, "%s: %zu file%s, %s, %s\n", ref.to_string().c_str(), files.size(),
                 files.size() == 1 ? "" : "s", format_bytes(bytes).c_str(), how);
    return 0;
}

}  // namespace snapdoc::cli
