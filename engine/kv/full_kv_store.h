// The document's full (uncompressed) K/V for every layer, kept on the host so a new question can be
// answered by re-selecting from it instead of re-reading the document ("re-snap"). When it would
// exceed the RAM cap it lives in an unlinked temporary file mapped into memory, so the kernel can
// page it out and nothing is left on disk if the process dies.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

namespace snapdoc {

class FullKvStore {
public:
    // Room for `tokens` entries per (layer, KV head). Throws Error when neither RAM (within the cap)
    // nor the spill directory can hold it.
    FullKvStore(int n_layers, int n_kv_heads, int head_dim, int tokens, int64_t ram_cap_bytes,
                const std::filesystem::path& spill_dir);
    ~FullKvStore();
    FullKvStore(const FullKvStore&) = delete;
    FullKvStore& operator=(const FullKvStore&) = delete;

    float* k(int layer, int head) { return base(layer, head, 0); }
    float* v(int layer, int head) { return base(layer, head, 1); }
    const float* k(int layer, int head) const { return const_cast<FullKvStore*>(this)->base(layer, head, 0); }
    const float* v(int layer, int head) const { return const_cast<FullKvStore*>(this)->base(layer, head, 1); }

    int tokens() const { return tokens_; }
    int64_t bytes() const { return bytes_; }
    bool file_backed() const { return file_backed_; }

private:
    float* base(int layer, int head, int which);

    int n_layers_, n_kv_heads_, head_dim_, tokens_;
    int64_t bytes_ = 0;
    bool file_backed_ = false;
    float* data_ = nullptr;
};

}  // namespace snapdoc
