// The compute backend interface. It is deliberately coarse: one call runs a whole transformer layer
// over a chunk of tokens, so a GPU backend can fuse normalisation, projections, RoPE, attention and
// the FFN as it sees fit. Callers (sessions, the CLI, benches) only ever talk to this interface.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "engine/kv/kv_cache.h"
#include "engine/kv/selection.h"
#include "engine/runtime/backend_full_kv.h"
#include "engine/model/model_config.h"

namespace snapdoc {

struct Model;
class FullKvStore;
class Sampler;

// Hidden states [rows, dim] held wherever the backend computes (host memory for the CPU backend).
class Activations {
public:
    virtual ~Activations() = default;
    virtual int max_rows() const = 0;
};

struct BackendOptions {
    int threads = 0;  // 0 = all available cores
    // Rows per internal prefill block (bounds scratch memory); callers may pass longer chunks.
    int max_chunk_rows = 512;
    // The context size the model runs with, as llama.cpp's n_ctx; 0 = the model's declared
    // context_length (llama.cpp's default). It is a run-time choice, not part of the model, because
    // it changes the computation only for LongRoPE (Phi-3.5: long factors when it exceeds the
    // original training context) — so it lives with the backend that computes, not in the loader.
    int context_length = 0;
    // CPU: prefill matmuls of block-quantized weights in exact f32 (dequantized weights, f32 GEMM)
    // instead of the integer GEMM on 8-bit activations (llama.cpp's rounding; faster). Decode's
    // batch-1 dots quantize activations either way. The CUDA backend ignores it.
    bool exact_prefill = false;
    // CPU: every block-quantized product on two 8-bit activation planes (the row, then its rounding
    // residual: about 15 bits) instead of llama.cpp's one: logits within a hundredth of llama.cpp's
    // distance from the exact ones, for 0.5-0.6 of the prefill speed and 0.6-0.75 of decode's
    // (docs/RESULTS.md). Off by default: speed first, llama.cpp's rounding. SNAPDOC_ACT_PLANES=2 turns
    // it on for every backend of the process (the app and the server read only the variable).
    bool precise_activations = false;
    // CPU: the attention cache keeps K and V as f16, the default as llama.cpp's cache type is (the
    // full K/V store and its files hold f16 too): half the cache's memory and half of what decode
    // reads from it per token, for one rounding of each stored value (relative 2^-11), which the
    // modelzoo contract absorbs (docs/RESULTS.md). Off (--kv-f32): f32, exact, for the tests and
    // comparisons that need it.
    bool kv_f16 = true;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    virtual const ModelConfig& config() const = 0;

    virtual std::unique_ptr<KvCache> create_kv_cache(const KvCacheSpec& spec) = 0;
    // Bytes of one K or V number in the caches this backend creates (2: f16, 4: the CPU's --kv-f32),
    // so the sizes a session reports are the ones it holds.
    virtual int kv_value_bytes() const { return static_cast<int>(kKvCacheValueBytes); }
    virtual std::unique_ptr<Activations> create_activations(int max_rows) = 0;

    // Writes the embeddings of `n` tokens into rows [row0, row0 + n).
    virtual void embed(const int32_t* tokens, int n, Activations& act, int row0) = 0;

    // Runs transformer layer `layer` in place on rows [row0, row0 + n) whose token positions are
    // `positions[0..n)`. The rows' keys/values (keys after RoPE) are appended to every head segment
    // of `kv` for this layer, then each row attends over the entries whose position is <= its own.
    // If `q_capture` is non-null it receives the rows' post-RoPE queries, [n, n_heads * head_dim],
    // in host memory (used by SnapKV's observation window).
    virtual void run_layer(int layer, Activations& act, int row0, int n, const int32_t* positions,
                           KvCache& kv, float* q_capture) = 0;

    // Final norm + output projection of one row; writes vocab_size floats to host memory `out`.
    virtual void logits(const Activations& act, int row, float* out) = 0;

    // One batch-1 decode step: `token` at position `pos` through embed, every layer (its keys and
    // values appended to `kv`) and the logits, then the next token picked by `sampler` (`history`:
    // the tokens so far, `token` included, for its penalties); returns that token. `act` lends its
    // row 0. When `logits_out` is not empty (vocab_size floats) it receives the step's logits before
    // sampling. The default (backend_decode.cpp) composes embed / run_layer / logits and samples on
    // the host; a backend may run the whole step its own way (CUDA: one captured graph, sampling on
    // the device), picking the default's token for greedy sampling, and falls back to the default
    // for what it cannot do there.
    virtual int32_t decode_next(int32_t token, int32_t pos, KvCache& kv, Activations& act, Sampler& sampler,
                                std::span<const int32_t> history, std::span<float> logits_out = {});

    // SnapKV scoring of one layer. `kv` is an uncompressed cache (cache heads = KV heads) holding
    // the prompt's keys for `layer`; `q_window` [n_window, n_heads * head_dim] are the post-RoPE
    // queries of the window rows at `q_positions`. For every query head h and prefix entry
    // j < n_prefix: out[h * n_prefix + j] = Σ_i softmax_i(j), the softmax of window query i running
    // over all entries visible to it (position <= its own).
    virtual void window_scores(const KvCache& kv, int layer, const float* q_window, const int32_t* q_positions,
                               int n_window, int n_prefix, float* out) = 0;

    // Copies entries [first, first + n) of one segment to host arrays k and v ([n, head_dim] each).
    virtual void read_kv(const KvCache& kv, int layer, int head, int first, int n, float* k, float* v) = 0;
    // Appends n entries from host arrays to one segment (positions ascending, after the segment's last).
    virtual void append_kv(KvCache& kv, int layer, int head, const int32_t* positions, int n, const float* k,
                           const float* v) = 0;

    // Optional: the backend's own keeping of a document's full K/V (`host`, which must outlive the
    // result) — engine/runtime/backend_full_kv.h. nullptr (the default): the session copies rows
    // with read_kv / append_kv.
    virtual std::unique_ptr<BackendFullKv> attach_full_kv(FullKvStore& host) {
        (void)host;
        return nullptr;
    }

    // SnapKV's selection of one layer from host window scores (pooling, per-head top-k or AdaKV's
    // split) into selection.layers[layer]. The default is engine/kv/selection's select_layer on the
    // host; a GPU backend may run it on the device but must keep exactly the same positions and
    // pooled scores (ties to the lowest positions).
    virtual void snapkv_select_layer(const WindowScores& scores, int layer, Selection& selection) {
        select_layer(scores, layer, selection);
    }
};

std::unique_ptr<Backend> make_cpu_backend(const Model& model, const BackendOptions& options = {});

}  // namespace snapdoc
