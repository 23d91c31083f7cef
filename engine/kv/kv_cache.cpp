#include "engine/kv/kv_cache.h"

#include <algorithm>
#include <atomic>

#include "engine/common/error.h"

namespace snapdoc {

KvCacheSpec KvCacheSpec::uniform(int n_layers, int n_heads, int head_dim, int group, int max_tokens) {
    KvCacheSpec s;
    s.n_layers = n_layers;
    s.n_heads = n_heads;
    s.head_dim = head_dim;
    s.group = group;
    s.capacity.assign(static_cast<std::size_t>(n_layers) * n_heads, max_tokens);
    return s;
}

int64_t KvCacheSpec::total_capacity() const {
    int64_t total = 0;
    for (int c : capacity) total += c;
    return total;
}

namespace {
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};
int64_t spec_bytes(const KvCacheSpec& s, int value_bytes) { return s.total_capacity() * s.head_dim * 2 * value_bytes; }
}  // namespace

int64_t KvCache::live_bytes() { return g_live_bytes.load(); }
int64_t KvCache::peak_live_bytes() { return g_peak_bytes.load(); }
void KvCache::reset_peak_live_bytes() { g_peak_bytes.store(g_live_bytes.load()); }

KvCache::~KvCache() { g_live_bytes.fetch_sub(spec_bytes(spec_, value_bytes_)); }

KvCache::KvCache(KvCacheSpec spec, int value_bytes) : spec_(std::move(spec)), value_bytes_(value_bytes) {
    if (value_bytes_ != 2 && value_bytes_ != 4) throw Error("KV cache: a value takes 2 (f16) or 4 (f32) bytes");
    if (spec_.n_layers <= 0 || spec_.n_heads <= 0 || spec_.head_dim <= 0 || spec_.group <= 0)
        throw Error("KV cache: layers, heads, head_dim and group must be positive");
    if (spec_.capacity.size() != static_cast<std::size_t>(spec_.n_layers) * spec_.n_heads)
        throw Error("KV cache: capacity list does not match layers x heads");
    for (int c : spec_.capacity)
        if (c < 0) throw Error("KV cache: negative segment capacity");
    positions_.resize(spec_.capacity.size());
    for (std::size_t i = 0; i < positions_.size(); ++i) positions_[i].reserve(spec_.capacity[i]);
    const int64_t bytes = spec_bytes(spec_, value_bytes_);
    const int64_t now = g_live_bytes.fetch_add(bytes) + bytes;
    int64_t peak = g_peak_bytes.load();
    while (now > peak && !g_peak_bytes.compare_exchange_weak(peak, now)) {
    }
}

int64_t KvCache::total_entries() const {
    int64_t n = 0;
    for (const auto& p : positions_) n += static_cast<int64_t>(p.size());
    return n;
}

std::size_t KvCache::used_bytes() const {
    return static_cast<std::size_t>(total_entries()) * spec_.head_dim * 2 * static_cast<std::size_t>(value_bytes_);
}

void KvCache::clear() {
    for (auto& p : positions_) p.clear();
}

void KvCache::truncate(int32_t first_dropped_position) {
    for (auto& p : positions_) {
        auto it = std::lower_bound(p.begin(), p.end(), first_dropped_position);
        p.erase(it, p.end());
    }
}

void KvCache::record_append(int layer, int head, int32_t position) {
    auto& p = positions_[spec_.segment(layer, head)];
    if (static_cast<int>(p.size()) >= spec_.capacity[spec_.segment(layer, head)])
        throw Error("KV cache is full (layer " + std::to_string(layer) + ", head " + std::to_string(head) +
                    ", capacity " + std::to_string(spec_.capacity[spec_.segment(layer, head)]) + " entries)");
    if (!p.empty() && position <= p.back())
        throw Error("KV cache: positions must increase within a head (got " + std::to_string(position) +
                    " after " + std::to_string(p.back()) + ")");
    p.push_back(position);
}

}  // namespace snapdoc
