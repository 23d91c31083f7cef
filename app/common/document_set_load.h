// Loading several documents' document part (document_set.h) with the K/V cache of a leading
// subset: asking about [A, B, C] after [A, B] restores [A, B]'s cache file and prefills only C
// (and writes [A, B, C]'s file). Shared by snapdoc-cli ask and anything else that keeps document
// sets in the on-disk K/V cache; Qt-free.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include "app/common/document_set.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/session/document_chat.h"

namespace snapdoc {

struct DocumentSetLoad {
    int reused_rows = 0;          // rows taken over from a leading subset's cache file (0: none)
    std::size_t from_documents = 0;  // how many leading documents that file held
    double restore_seconds = 0;   // restoring it
    std::filesystem::path file;   // which file
};

// Loads `part` into `chat`, whose K/V cache (set_kv_cache) is `cache` for `model` at
// `run_context_length` (nullptr: no cache, a plain load). When the part has a cache file of its
// own it is restored; else, with three or more documents, the longest leading subset of two or more
// with a cache file gives its rows (DocumentChat::load_document_tokens_from) and only the rest is
// prefilled; else it is prefilled. A subset's file that is unusable is dropped (and rebuilt
// later), and the whole part is prefilled.
DocumentSetLoad load_document_set(DocumentChat& chat, Backend& backend, const Tokenizer& tok, ChatTemplateKind kind,
                                  KvStoreCache* cache, const ModelIdentity& model, int run_context_length,
                                  const DocumentSetPart& part, const std::string& system_prompt,
                                  const std::atomic<bool>* cancel = nullptr);

}  // namespace snapdoc
