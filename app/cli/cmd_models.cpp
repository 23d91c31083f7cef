// snapdoc-cli models [--catalogue [--doc FILE | --tokens N]]: the models folder's contents, and
// the catalogue's fit table for this machine (catalogue_table.h).
#include <cstdio>
#include <string>

#include "app/cli/catalogue_table.h"
#include "app/cli/commands.h"
#include "app/cli/remote_commands.h"
#include "app/common/args.h"
#include "app/hub/model_store.h"
#include "engine/model/model_summary.h"

namespace snapdoc::cli {

namespace {

// " (+2 shards)"; for a set whose other shards are not all here: " (incomplete shard set: ...)".
std::string shard_note(const hub::LocalModel& m) {
    if (!m.complete) return " (incomplete shard set: " + std::to_string(m.files.size()) + " files here)";
    return m.files.size() > 1 ? " (+" + std::to_string(m.files.size() - 1) + " shards)" : "";
}

}  // namespace

int cmd_models(int argc, char** argv) {
    if (has_remote_flag(argc, argv)) return cmd_models_remote(argc, argv);
    std::vector<FlagSpec> flags = {{{"--catalogue"}, false}, {{"--doc"}}, {{"--tokens"}}, {{"--log-level"}}};
    for (auto& f : catalogue_flags()) flags.push_back(std::move(f));
    const Args args(flags, argc, argv, 2);
    if (args.has("catalogue")) return print_catalogue_table(args);
    const hub::ModelStore store;
    const auto models = store.list();
    std::printf("models folder: %s\n", store.dir().c_str());
    if (models.empty()) {
        std::printf(
            "(no models yet: snapdoc-cli pull REPO[:QUANT], e.g. pull "
            "Qwen/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M)\n");
        return 0;
    }
    std::printf("%-44s %-8s %10s  %s\n", "REPO", "QUANT", "SIZE", "FILE");
    int64_t total = 0;
    for (const auto& m : models) {
        std::printf("%-44s %-8s %10s  %s%s\n", m.repo.c_str(), m.quant.empty() ? "-" : m.quant.c_str(),
                    format_bytes(m.size_bytes).c_str(), m.file_name().c_str(), shard_note(m).c_str());
        total += m.size_bytes;
    }
    std::printf("%zu model%s, %s", models.size(), models.size() == 1 ? "" : "s", format_bytes(total).c_str());
    if (const int64_t partial = store.partial_bytes(); partial > 0)
        std::printf(" (+ %s in unfinished downloads)", format_bytes(partial).c_str());
    std::printf("\n");
    return 0;
}

}  // namespace snapdoc::cli
