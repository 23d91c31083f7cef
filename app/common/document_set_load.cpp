#include "app/common/document_set_load.h"

#include "engine/common/error.h"

namespace snapdoc {

DocumentSetLoad load_document_set(DocumentChat& chat, Backend& backend, const Tokenizer& tok, ChatTemplateKind kind,
                                  KvStoreCache* cache, const ModelIdentity& model, int run_context_length,
                                  const DocumentSetPart& part, const std::string& system_prompt,
                                  const std::atomic<bool>* cancel) {
    DocumentSetLoad out;
    const std::span<const int32_t> ids(part.ids);
    // A one-document subset is laid out without a title, so it is no prefix: two documents at least.
    if (cache && part.starts.size() > 2 && !chat.kv_cache_has(ids, system_prompt)) {
        for (std::size_t k = part.starts.size() - 1; k >= 2; --k) {
            const std::span<const int32_t> prefix = ids.first(static_cast<std::size_t>(part.starts[k]));
            if (!chat.kv_cache_has(prefix, system_prompt)) continue;
            DocumentChat base(backend, tok, kind);
            base.set_kv_cache(cache, model, run_context_length);
            base.load_document_tokens(prefix, {}, cancel, system_prompt);
            if (cancel && cancel->load()) throw Cancelled();
            if (!base.served_from_cache()) break;  // not usable (removed): the whole part is prefilled
            out.reused_rows = chat.load_document_tokens_from(base, ids, cancel, system_prompt);
            out.from_documents = k;
            out.restore_seconds = base.cache_report().load_seconds;
            out.file = base.cache_report().file;
            return out;
        }
    }
    chat.load_document_tokens(ids, {}, cancel, system_prompt);
    return out;
}

}  // namespace snapdoc
