// The on-disk K/V cache for CLI subcommands that prefill a document (ask): --cache-dir DIR (default
// $XDG_CACHE_HOME/snapdoc/kv, else ~/.cache/snapdoc/kv — the folder the app uses), --no-cache,
// --cache-cap-mb N (LRU cap, default 4096), and the stderr line saying what the cache did.
#pragma once

#include <memory>
#include <vector>

#include "app/common/args.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/session/document_chat.h"

namespace snapdoc::cli {

std::vector<FlagSpec> kv_cache_flags();

// The cache the flags ask for, attached to `chat`; nullptr (and nothing attached) with --no-cache.
// `model_path` is -m's value, `run_context_length` --ctx's.
std::unique_ptr<KvStoreCache> attach_kv_cache(const Args& args, DocumentChat& chat,
                                              const std::filesystem::path& model_path,
                                              int run_context_length);

// One stderr line after the document load: "served from the K/V cache (...)" or what was written,
// and the warning when the cache could not be used. Nothing when the cache is off.
void report_kv_cache(const DocumentChat& chat);

}  // namespace snapdoc::cli
