// libFuzzer target: arbitrary bytes as a GGUF model with block-quantized weights (seeded with tiny
// valid models in every block type: scripts/fuzz.sh's gguf_quant corpus). A model that loads is
// run: one forward pass over two tokens on the CPU backend (one thread, a 4-token context), so
// ASan/UBSan see every quantized dot product and dequantization on fuzzed blocks and scales.
// Loading must succeed or throw snapdoc::Error; a loaded model must compute finite-or-not logits
// without a crash (non-finite weights are the loader's business, finite_weights.h).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/gguf_model.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/prefill.h"

namespace {

using namespace snapdoc;

// Models beyond these sizes are skipped (not an error): they are only reachable with a large
// input, and their forward pass would dominate the run time.
bool small_enough(const ModelConfig& c) {
    return c.n_layers <= 4 && c.dim <= 1024 && c.ffn_dim <= 2048 && c.vocab_size <= 4096 && c.n_heads <= 64 &&
           c.head_dim <= 256;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto file =
        MappedFile::from_bytes("fuzz.gguf", std::string_view(reinterpret_cast<const char*>(data), size));
    try {
        const Model m = load_gguf_model(file);
        if (!small_enough(m.config) || m.config.vocab_size < 1) return 0;
        BackendOptions o;
        o.threads = 1;
        o.max_chunk_rows = 2;
        o.context_length = 4;
        auto backend = make_cpu_backend(m, o);
        auto kv = make_full_kv_cache(*backend, 4);
        const std::vector<int32_t> ids = {0, m.config.vocab_size - 1};
        std::vector<float> logits;
        prefill(*backend, ids, 0, *kv, PrefillOptions{}, &logits);
    } catch (const Error&) {
    }
    return 0;
}
