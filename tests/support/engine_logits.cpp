#include "tests/support/engine_logits.h"

#include "engine/runtime/backend.h"
#include "engine/session/prefill.h"

namespace snapdoc::testing {

std::unique_ptr<Backend> exact_cpu_backend(const Model& m, BackendOptions o) {
    o.kv_f16 = false;
    return make_cpu_backend(m, o);
}

std::vector<float> engine_logits(const Model& m, const std::vector<int32_t>& ids, int threads, int chunk,
                                 int backend_chunk, int context,
                                 bool exact_prefill) {
    BackendOptions o;
    o.threads = threads;
    o.max_chunk_rows = backend_chunk;
    o.context_length = context;
    o.exact_prefill = exact_prefill;
    auto backend = exact_cpu_backend(m, o);
    auto kv = make_full_kv_cache(*backend, static_cast<int>(ids.size()));
    PrefillOptions p;
    p.chunk_rows = chunk;
    std::vector<float> logits;
    prefill(*backend, ids, 0, *kv, p, &logits);
    return logits;
}

}  // namespace snapdoc::testing
