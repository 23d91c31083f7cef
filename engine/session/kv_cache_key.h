// Builds the on-disk K/V cache key (engine/kv/kv_store_file.h) for a document part: the model
// file's identity, the tokenizer, the model config as the backend runs it, the token ids, the chat
// template and the system prompt.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "engine/kv/kv_store_file.h"
#include "engine/model/model_config.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc {

// Hash of the vocabulary (every raw piece, kind, special ids).
uint64_t tokenizer_identity(const Tokenizer& tokenizer);

// Hash of what shapes the K/V beyond the weights: dimensions, norms, RoPE (theta, style, scaling and
// its factors) and the context size the backend runs with (0 = the model's; LongRoPE depends on it).
uint64_t compute_identity(const ModelConfig& config, int run_context_length);

// What happened with the K/V cache on the last document load (DocumentChat::cache_report).
struct KvCacheReport {
    bool enabled = false;        // a cache was set
    bool served = false;         // restored from a cache file (no prefill)
    bool saved = false;          // a new cache file was written after the prefill
    double load_seconds = 0;     // verifying + restoring the file (also when it was rejected)
    double prefill_seconds = 0;  // 0 when served
    double save_seconds = 0;     // writing the file (temporary + rename)
    int64_t file_bytes = 0;      // the file used or written
    std::filesystem::path file;
    std::string note;  // why a file was rejected or not written ("" when all went well)
};

KvCacheKey make_kv_cache_key(const ModelIdentity& model, uint64_t tokenizer_hash, uint64_t compute_hash,
                             ChatTemplateKind kind, std::string_view system_prompt,
                             std::span<const int32_t> document_tokens);

}  // namespace snapdoc
