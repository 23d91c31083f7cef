// A backend's own handling of a document session's full K/V (engine/kv/full_kv_store.h, the f16
// host store that re-snap selects from). Without one (Backend::attach_full_kv returns nullptr, the
// CPU backend) the session moves rows itself: read_kv after each prefill layer, append_kv of the
// whole document for every layer of every new question. A GPU backend can do better: keep the whole
// store in device memory when it fits next to the model (a new question then uploads no K/V), or
// else copy each layer to pinned host memory asynchronously while the next layer computes.
//
// The host store stays complete in both cases once finish() returns (cache files, host reads).
#pragma once

#include <cstdint>
#include <string>

namespace snapdoc {

class KvCache;

class BackendFullKv {
public:
    virtual ~BackendFullKv() = default;

    // True when the whole store is also held in device memory.
    virtual bool resident() const = 0;
    // Device memory it holds (the store when resident, staging otherwise).
    virtual int64_t device_bytes() const = 0;
    // One line for logs and the UI: where the K/V live and why.
    virtual std::string describe() const = 0;

    // Takes layer `layer`'s K/V from `cache`, an uncompressed layer cache (cache heads = KV heads)
    // holding the document's tokens() rows at positions 0.. in every KV-head segment of the layer.
    // The copy to the host store may still be running when it returns; `cache` may be freed.
    virtual void store_layer(const KvCache& cache, int layer) = 0;
    // Waits until every stored layer has reached the host store.
    virtual void finish() = 0;
    // The host store already holds every layer (restored from a cache file, possibly a read-only
    // mapping): take them from there instead (a resident store uploads them once, now).
    virtual void adopt_host() = 0;
    // Appends the document's rows (positions 0..tokens()-1) of `layer` to every KV-head segment of
    // `cache` (uncompressed; the segments must be empty for the layer).
    virtual void load_layer(KvCache& cache, int layer) = 0;
    // Keeps the rows after the document that `cache` (a layer cache filled by load_layer, then the
    // prompt's tail: the question) holds for `layer` — positions tokens() .. tokens() + n - 1 — so
    // gather can serve them too; replaces the layer's earlier tail. May keep nothing (then gather
    // leaves those positions to the caller). clear_tail forgets every layer's tail (the prompt changed).
    virtual void store_tail(const KvCache& cache, int layer, int n) = 0;
    virtual void clear_tail() = 0;
    // Appends the rows it holds at `positions[0..k)` of KV head `kv_head` to segment (layer,
    // cache_head) of `cache` (after its last entry) and returns k: positions ascend, and it takes
    // every one below tokens() plus those of the kept tail; the caller appends the rest.
    virtual int gather(KvCache& cache, int layer, int cache_head, int kv_head, const int32_t* positions, int n) = 0;
};

}  // namespace snapdoc
