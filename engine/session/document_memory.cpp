#include "engine/session/document_memory.h"

#include <algorithm>

#include "engine/model/model_summary.h"
#include "engine/session/document_session.h"

namespace snapdoc {

DocumentMemory plan_document_memory(const ModelConfig& c, int64_t weight_bytes, int64_t tokens, int snapkv_budget,
                                    int chunk_rows) {
    tokens = std::max<int64_t>(tokens, 0);
    DocumentMemory m;
    m.weights = weight_bytes;
    m.full_kv_store = kv_store_bytes_per_token(c) * tokens;
    m.hidden_states = int64_t{4} * c.dim * tokens;
    m.layer_kv = kv_bytes_per_token(c) / std::max(1, c.n_layers) * tokens;
    m.compressed_kv = kv_bytes_per_token(c) * std::min<int64_t>(std::max(snapkv_budget, 0), tokens);
    // The last rows' queries of every layer stay, so a later window can reach into the document
    // (DocumentSession keeps kDefaultMaxWindow of them).
    const int64_t tail_rows = std::min<int64_t>(tokens, kDefaultMaxWindow);
    const int chunk = static_cast<int>(std::clamp<int64_t>(tokens, 1, std::max(chunk_rows, 1)));
    m.scratch = prefill_scratch_bytes(c, chunk) + int64_t{4} * c.n_layers * c.q_dim() * tail_rows;
    return m;
}

}  // namespace snapdoc
