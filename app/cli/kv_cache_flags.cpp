#include "app/cli/kv_cache_flags.h"

#include <cstdio>
#include <string>

#include "engine/common/error.h"
#include "engine/model/model_summary.h"

namespace snapdoc::cli {

std::vector<FlagSpec> kv_cache_flags() {
    return {{{"--cache-dir"}}, {{"--no-cache"}, false}, {{"--cache-cap-mb"}}};
}

std::unique_ptr<KvStoreCache> attach_kv_cache(const Args& args, DocumentChat& chat,
                                              const std::filesystem::path& model_path,
                                              int run_context_length) {
    if (args.has("no-cache")) {
        if (args.has("cache-dir")) throw Error("--no-cache and --cache-dir contradict each other");
        return nullptr;
    }
    const long long cap_mb = args.integer64("cache-cap-mb", kDefaultKvCacheCapBytes >> 20);
    if (cap_mb < 0 || cap_mb > (int64_t{1} << 40)) throw Error("--cache-cap-mb must be in [0, 2^40]");
    const std::filesystem::path dir =
        args.has("cache-dir") ? std::filesystem::path(args.str("cache-dir")) : KvStoreCache::default_dir();
    auto cache = std::make_unique<KvStoreCache>(dir, static_cast<int64_t>(cap_mb) << 20);
    chat.set_kv_cache(cache.get(), cache->model_identity(model_path), run_context_length);
    return cache;
}

void report_kv_cache(const DocumentChat& chat) {
    const KvCacheReport& r = chat.cache_report();
    if (!r.enabled) return;
    if (!r.note.empty()) std::fprintf(stderr, "warning: %s\n", r.note.c_str());
    if (r.served)
        std::fprintf(stderr, "document served from the K/V cache (%s, %s, restored in %.3f s)\n",
                     r.file.string().c_str(), format_bytes(r.file_bytes).c_str(), r.load_seconds);
    else if (r.saved)
        std::fprintf(
            stderr, "K/V cache: saved %s (%s) in %.3f s; the next run over this document skips the prefill\n",
            r.file.string().c_str(), format_bytes(r.file_bytes).c_str(), r.save_seconds);
}

}  // namespace snapdoc::cli
