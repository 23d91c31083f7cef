#include "engine/runtime/cuda/cuda_full_kv_store.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "engine/common/error.h"
#include "engine/kv/full_kv_store.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "kernels/snapkv.h"

namespace snapdoc::cuda {

namespace {

// What require_free leaves for the CUDA context and cuBLAS (engine/runtime/cuda/cuda_check.cpp).
constexpr int64_t kRuntimeReserveBytes = int64_t{256} << 20;

const CudaKvCache& as_cuda(const KvCache& kv) {
    auto* c = dynamic_cast<const CudaKvCache*>(&kv);
    if (!c) throw Error("KV cache was not created by the CUDA backend");
    return *c;
}

void copy_async(void* dst, const void* src, int64_t bytes, cudaMemcpyKind kind, cudaStream_t s, const char* what) {
    if (bytes > 0) check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(bytes), kind, s), what);
}

// Plain byte counts for small stores (a test model's K/V is a few KiB), MiB otherwise.
std::string amount(int64_t bytes) { return bytes < (int64_t{1} << 20) ? std::to_string(bytes) + " bytes" : mib(bytes); }

}  // namespace

FullKvNeeds full_kv_needs(const ModelConfig& cfg, int tokens) {
    const int64_t T = tokens, kvh = cfg.n_kv_heads, hd = cfg.head_dim;
    const int64_t layer_f16 = kvh * 2 * T * hd * 2;
    // Working memory beside the store: one layer cache of document + question rows (f16 K/V and
    // positions; the prefill's or a question's), one more standing in for the answer's compressed
    // cache and the decode scratch, and the window-score buffers (scores and pooled copies).
    const int64_t rows = T + kQuestionReserveTokens;
    const int64_t layer_cache = kvh * rows * (hd * 2 * 2 + 4);
    const int64_t scores = int64_t{cfg.n_heads} * rows * 4 * 2;
    const int64_t working = 2 * layer_cache + scores;
    FullKvNeeds n;
    n.resident = layer_f16 * cfg.n_layers + T * 4 + working;
    n.offload = 2 * layer_f16 + T * 4 + working;
    return n;
}

CudaFullKvStore::CudaFullKvStore(FullKvStore& host, const ModelConfig& cfg, int device, cudaStream_t compute,
                                 bool allow_resident)
    : host_(host),
      device_(device),
      n_layers_(host.n_layers()),
      n_kv_heads_(host.n_kv_heads()),
      head_dim_(host.head_dim()),
      tokens_(host.tokens()),
      layer_halves_(int64_t{host.n_kv_heads()} * 2 * host.tokens() * host.head_dim()),
      compute_(compute) {
    if (n_layers_ != cfg.n_layers || n_kv_heads_ != cfg.n_kv_heads || head_dim_ != cfg.head_dim)
        throw Error("the full K/V store does not match the model's shape");
    if (tokens_ < 1) throw Error("the full K/V store holds no tokens");
    check(cudaSetDevice(device_), "cudaSetDevice");
    needs_ = full_kv_needs(cfg, tokens_);
    free_at_attach_ = memory_info().free;
    const int64_t usable = free_at_attach_ - kRuntimeReserveBytes;
    allow_resident_ = allow_resident;
    resident_ = allow_resident && needs_.resident <= usable;
    if (!resident_ && needs_.offload > usable)
        throw Error("out of GPU memory: the document's K/V (" + std::to_string(tokens_) + " tokens, " +
                    amount(host_.bytes()) + " in f16) need " + amount(needs_.resident) +
                    " of device memory to stay on the GPU or " + amount(needs_.offload) +
                    " to be staged through it layer by layer (with the working caches), but only " +
                    amount(std::max<int64_t>(0, usable)) + " are usable (" + amount(free_at_attach_) + " free less " +
                    amount(kRuntimeReserveBytes) + " reserve); use a shorter document or the CPU backend");

    const auto layer_bytes = static_cast<std::size_t>(layer_halves_) * 2;
    if (resident_) {
        data_.ensure(layer_bytes * n_layers_, "the document's full K/V (device-resident)");
    } else {
        slots_[0].ensure(layer_bytes, "full K/V staging");
        slots_[1].ensure(layer_bytes, "full K/V staging");
    }
    iota_.resize(tokens_);
    std::iota(iota_.begin(), iota_.end(), 0);
    positions_.ensure(static_cast<std::size_t>(tokens_) * 4, "full K/V positions");
    check(cudaMemcpy(positions_.get(), iota_.data(), iota_.size() * 4, cudaMemcpyHostToDevice), "position upload");

    check(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking), "cudaStreamCreate (K/V copies)");
    check(cudaEventCreate(&to_copy_), "cudaEventCreate");
    for (int s = 0; s < 2; ++s) {
        check(cudaEventCreate(&slot_copied_[s]), "cudaEventCreate");
        check(cudaEventCreate(&slot_read_[s]), "cudaEventCreate");
    }
    // Page-lock the host store when it is plain RAM: async copies to/from it are then DMA that
    // overlaps compute. A spill-file mapping may refuse; the copies still work (staged by the driver).
    if (!host_.file_backed() && host_.mutable_data()) {
        pinned_ = cudaHostRegister(host_.mutable_data(), static_cast<std::size_t>(host_.bytes()), cudaHostRegisterDefault) ==
                  cudaSuccess;
        if (!pinned_) cudaGetLastError();
    }
}

CudaFullKvStore::~CudaFullKvStore() {
    cudaSetDevice(device_);
    if (copy_) cudaStreamSynchronize(copy_);
    if (compute_) cudaStreamSynchronize(compute_);
    if (pinned_) cudaHostUnregister(host_.mutable_data());
    for (cudaEvent_t e : {to_copy_, slot_copied_[0], slot_copied_[1], slot_read_[0], slot_read_[1]})
        if (e) cudaEventDestroy(e);
    if (copy_) cudaStreamDestroy(copy_);
}

int64_t CudaFullKvStore::device_bytes() const {
    return static_cast<int64_t>(data_.bytes() + slots_[0].bytes() + slots_[1].bytes() + positions_.bytes());
}

std::string CudaFullKvStore::describe() const {
    if (resident_)
        return "full K/V on the GPU (" + amount(host_.bytes()) + " f16; " + amount(free_at_attach_) + " were free)";
    const std::string why = allow_resident_ ? " f16 need " + amount(needs_.resident) + " on the GPU, " +
                                                  amount(free_at_attach_) + " free"
                                            : " f16; kept off the GPU by keep_full_kv_on_device = false";
    return "full K/V in " + std::string(pinned_ ? "pinned" : "pageable") + " host memory (" + amount(host_.bytes()) + why +
           "); staged a layer at a time";
}

__half* CudaFullKvStore::device_layer(int layer) const { return data_.as<__half>() + layer * layer_halves_; }

uint16_t* CudaFullKvStore::host_layer(int layer) const {
    // A store mapped from a cache file is only read (prefetch, gather, adopt_host); store_layer refuses it.
    return const_cast<uint16_t*>(static_cast<const uint16_t*>(host_.data())) + layer * layer_halves_;
}

void CudaFullKvStore::store_layer(const KvCache& kv, int layer) {
    check(cudaSetDevice(device_), "cudaSetDevice");  // the session may run on any thread
    const CudaKvCache& cache = as_cuda(kv);
    if (host_.mapped_from_cache()) throw Error("store_layer: the K/V store is a read-only cache-file mapping");
    if (layer < 0 || layer >= n_layers_) throw Error("store_layer: layer out of range");
    if (cache.spec().n_heads != n_kv_heads_) throw Error("store_layer needs an uncompressed cache");
    for (int h = 0; h < n_kv_heads_; ++h)
        if (cache.length(layer, h) != tokens_)
            throw Error("store_layer: the layer cache holds " + std::to_string(cache.length(layer, h)) + " rows, not " +
                        std::to_string(tokens_));
    // The previous layer's download goes first: issued now, with this layer's compute already
    // queued, it runs beside that compute. (Issued after this layer's copies it would not: the
    // session frees each layer's cache right after this call, and cudaFree waits for the device.)
    download_pending();
    const int s = slot_for(layer);
    __half* dst = resident_ ? device_layer(layer) : slots_[s].as<__half>();
    // Offload: the slot's previous download (two layers ago) must be done before it is overwritten.
    if (!resident_) check(cudaStreamWaitEvent(compute_, slot_copied_[s], 0), "cudaStreamWaitEvent");
    const int64_t seg = int64_t{tokens_} * head_dim_, bytes = seg * 2;
    for (int h = 0; h < n_kv_heads_; ++h) {
        const int64_t at = cache.offset(layer, h) * head_dim_;
        copy_async(dst + (2 * h) * seg, cache.k() + at, bytes, cudaMemcpyDeviceToDevice, compute_, "store_layer K");
        copy_async(dst + (2 * h + 1) * seg, cache.v() + at, bytes, cudaMemcpyDeviceToDevice, compute_, "store_layer V");
    }
    check(cudaEventRecord(to_copy_, compute_), "cudaEventRecord");
    pending_ = layer;
    if (!resident_) slot_layer_[s] = layer;  // the slot keeps the layer's rows: a re-snap can start from them
}

void CudaFullKvStore::download_pending() {
    if (pending_ < 0) return;
    const int layer = pending_, s = slot_for(layer);
    pending_ = -1;
    const __half* src = resident_ ? device_layer(layer) : slots_[s].as<__half>();
    // On the copy stream, after the layer's device copies (the event).
    check(cudaStreamWaitEvent(copy_, to_copy_, 0), "cudaStreamWaitEvent");
    copy_async(host_layer(layer), src, layer_halves_ * 2, cudaMemcpyDeviceToHost, copy_, "K/V download");
    if (!resident_) check(cudaEventRecord(slot_copied_[s], copy_), "cudaEventRecord");
}

void CudaFullKvStore::finish() {
    check(cudaSetDevice(device_), "cudaSetDevice");
    download_pending();
    check(cudaStreamSynchronize(copy_), "K/V download");
}

void CudaFullKvStore::adopt_host() {
    check(cudaSetDevice(device_), "cudaSetDevice");
    if (!resident_) return;  // offloaded: layers come up per question anyway
    // One upload of the whole store (a restored document), after which re-snaps upload nothing.
    for (int l = 0; l < n_layers_; ++l)
        copy_async(device_layer(l), host_layer(l), layer_halves_ * 2, cudaMemcpyHostToDevice, copy_, "K/V upload");
    check(cudaStreamSynchronize(copy_), "K/V upload");
}

void CudaFullKvStore::prefetch(int layer) {
    const int s = slot_for(layer);
    if (slot_layer_[s] == layer) return;
    // After the compute stream's last read of the slot.
    check(cudaStreamWaitEvent(copy_, slot_read_[s], 0), "cudaStreamWaitEvent");
    copy_async(slots_[s].get(), host_layer(layer), layer_halves_ * 2, cudaMemcpyHostToDevice, copy_, "K/V upload");
    check(cudaEventRecord(slot_copied_[s], copy_), "cudaEventRecord");
    slot_layer_[s] = layer;
}

void CudaFullKvStore::load_layer(KvCache& kv, int layer) {
    check(cudaSetDevice(device_), "cudaSetDevice");  // the session may run on any thread
    CudaKvCache& cache = const_cast<CudaKvCache&>(as_cuda(kv));
    if (layer < 0 || layer >= n_layers_) throw Error("load_layer: layer out of range");
    if (cache.spec().n_heads != n_kv_heads_) throw Error("load_layer needs an uncompressed cache");
    for (int h = 0; h < n_kv_heads_; ++h) {
        if (cache.length(layer, h) != 0) throw Error("load_layer: the layer cache is not empty");
        cache.check_append(layer, h, iota_.data(), tokens_);
    }
    const int s = slot_for(layer);
    const __half* src = resident_ ? device_layer(layer) : slots_[s].as<__half>();
    if (!resident_) {
        prefetch(layer);  // no-op when the previous layer's call (or the prefill) left it there
        check(cudaStreamWaitEvent(compute_, slot_copied_[s], 0), "cudaStreamWaitEvent");
    }
    const int64_t seg = int64_t{tokens_} * head_dim_, bytes = seg * 2;
    for (int h = 0; h < n_kv_heads_; ++h) {
        const int64_t at = cache.offset(layer, h);
        copy_async(cache.k() + at * head_dim_, src + (2 * h) * seg, bytes, cudaMemcpyDeviceToDevice, compute_, "load_layer K");
        copy_async(cache.v() + at * head_dim_, src + (2 * h + 1) * seg, bytes, cudaMemcpyDeviceToDevice, compute_,
                   "load_layer V");
        copy_async(cache.pos() + at, positions_.get(), int64_t{tokens_} * 4, cudaMemcpyDeviceToDevice, compute_,
                   "load_layer positions");
        cache.commit_append(layer, h, iota_.data(), tokens_);
    }
    if (!resident_) {
        check(cudaEventRecord(slot_read_[s], compute_), "cudaEventRecord");
        // The next layer comes up while this one computes.
        if (layer + 1 < n_layers_) prefetch(layer + 1);
    }
}

void CudaFullKvStore::store_tail(const KvCache& kv, int layer, int n) {
    check(cudaSetDevice(device_), "cudaSetDevice");
    if (layer < 0 || layer >= n_layers_ || n < 0) throw Error("store_tail: out of range");
    if (!resident_) return;  // offloaded: the caller keeps the question's rows on the host
    const CudaKvCache& cache = as_cuda(kv);
    if (cache.spec().n_heads != n_kv_heads_) throw Error("store_tail needs an uncompressed cache");
    if (tails_.empty()) tails_.resize(n_layers_);
    Tail& t = tails_[layer];
    t.rows = 0;
    if (n == 0) return;
    for (int h = 0; h < n_kv_heads_; ++h)
        if (cache.length(layer, h) < tokens_ + n) throw Error("store_tail: the cache holds fewer rows");
    t.kv.ensure(static_cast<std::size_t>(n_kv_heads_) * 2 * n * head_dim_ * 2, "the question's K/V");
    t.pos.ensure(static_cast<std::size_t>(n) * 4, "the question's positions");
    const int64_t seg = int64_t{n} * head_dim_, bytes = seg * 2;
    __half* dst = t.kv.as<__half>();
    for (int h = 0; h < n_kv_heads_; ++h) {
        const int64_t at = cache.offset(layer, h) + tokens_;
        copy_async(dst + (2 * h) * seg, cache.k() + at * head_dim_, bytes, cudaMemcpyDeviceToDevice, compute_, "tail K");
        copy_async(dst + (2 * h + 1) * seg, cache.v() + at * head_dim_, bytes, cudaMemcpyDeviceToDevice, compute_, "tail V");
        if (h == 0)
            copy_async(t.pos.get(), cache.pos() + at, int64_t{n} * 4, cudaMemcpyDeviceToDevice, compute_, "tail positions");
    }
    t.rows = n;
}

void CudaFullKvStore::clear_tail() {
    for (Tail& t : tails_) t.rows = 0;
}

void CudaFullKvStore::gather_device(CudaKvCache& cache, int layer, int cache_head, const __half* k, const __half* v,
                                    const int32_t* pos, int first, int length, const int32_t* positions, int n) {
    if (n == 0) return;
    // Only the indices go up (entries relative to the source segment); the rows move on the device.
    std::vector<int32_t>& entries = gather_entries_;
    entries.resize(n);
    for (int i = 0; i < n; ++i) entries[i] = positions[i] - first;
    kept_.ensure(static_cast<std::size_t>(n) * 4, "kept positions");
    copy_async(kept_.get(), entries.data(), int64_t{n} * 4, cudaMemcpyHostToDevice, compute_, "kept position upload");
    kernels::SnapGatherArgs a;
    a.src.k = const_cast<__half*>(k);
    a.src.v = const_cast<__half*>(v);
    a.src.pos = const_cast<int32_t*>(pos);
    a.src.n_heads = 1;
    a.src.head_dim = head_dim_;
    a.src.seg.offset[0] = 0;
    a.src.seg.length[0] = length;
    a.dst.k = cache.k();
    a.dst.v = cache.v();
    a.dst.pos = cache.pos();
    a.dst.n_heads = 1;
    a.dst.head_dim = head_dim_;
    a.dst.seg.offset[0] = cache.offset(layer, cache_head);
    a.dst.seg.length[0] = cache.length(layer, cache_head);
    a.kept = kept_.as<int32_t>();
    a.k = n;
    check(kernels::snapkv_gather(a, compute_), "snapkv_gather kernel");
    // kept_ and `entries` are reused by the next call: wait for the upload and kernel (a few
    // hundred indices; the answer's cache is built once per question).
    check(cudaStreamSynchronize(compute_), "gather");
    cache.commit_append(layer, cache_head, positions, n);
}

int CudaFullKvStore::gather(KvCache& kv, int layer, int cache_head, int kv_head, const int32_t* positions, int n) {
    check(cudaSetDevice(device_), "cudaSetDevice");  // the session may run on any thread
    CudaKvCache& cache = const_cast<CudaKvCache&>(as_cuda(kv));
    if (layer < 0 || layer >= n_layers_ || kv_head < 0 || kv_head >= n_kv_heads_) throw Error("gather: head out of range");
    cache.check_append(layer, cache_head, positions, n);
    if (n > 0 && positions[0] < 0) throw Error("gather: negative position");
    // The document's part, then (resident, when kept) the tail's.
    const int n_doc = static_cast<int>(std::lower_bound(positions, positions + n, tokens_) - positions);
    const int tail_rows = resident_ && !tails_.empty() ? tails_[layer].rows : 0;
    const int n_tail = static_cast<int>(std::lower_bound(positions + n_doc, positions + n, tokens_ + tail_rows) -
                                        (positions + n_doc));
    const int64_t seg = int64_t{tokens_} * head_dim_;
    if (resident_) {
        gather_device(cache, layer, cache_head, device_layer(layer) + (2 * kv_head) * seg,
                      device_layer(layer) + (2 * kv_head + 1) * seg, positions_.as<int32_t>(), 0, tokens_, positions, n_doc);
        if (n_tail > 0) {
            const Tail& t = tails_[layer];
            const int64_t tseg = int64_t{t.rows} * head_dim_;
            gather_device(cache, layer, cache_head, t.kv.as<__half>() + (2 * kv_head) * tseg,
                          t.kv.as<__half>() + (2 * kv_head + 1) * tseg, t.pos.as<int32_t>(), tokens_, t.rows,
                          positions + n_doc, n_tail);
        }
        return n_doc + n_tail;
    }
    if (n_doc == 0) return 0;
    // Offloaded: the kept rows (not the layer) go up in f16, straight into the cache.
    const int64_t to = cache.offset(layer, cache_head) + cache.length(layer, cache_head);
    const uint16_t* hk = host_layer(layer) + (2 * kv_head) * seg;
    const uint16_t* hv = host_layer(layer) + (2 * kv_head + 1) * seg;
    gather_k_.resize(static_cast<std::size_t>(n_doc) * head_dim_);
    gather_v_.resize(gather_k_.size());
    for (int i = 0; i < n_doc; ++i) {
        std::memcpy(gather_k_.data() + static_cast<std::size_t>(i) * head_dim_, hk + int64_t{positions[i]} * head_dim_,
                    static_cast<std::size_t>(head_dim_) * 2);
        std::memcpy(gather_v_.data() + static_cast<std::size_t>(i) * head_dim_, hv + int64_t{positions[i]} * head_dim_,
                    static_cast<std::size_t>(head_dim_) * 2);
    }
    const int64_t bytes = int64_t{n_doc} * head_dim_ * 2;
    copy_async(cache.k() + to * head_dim_, gather_k_.data(), bytes, cudaMemcpyHostToDevice, compute_, "kept K upload");
    copy_async(cache.v() + to * head_dim_, gather_v_.data(), bytes, cudaMemcpyHostToDevice, compute_, "kept V upload");
    copy_async(cache.pos() + to, positions, int64_t{n_doc} * 4, cudaMemcpyHostToDevice, compute_, "kept position upload");
    check(cudaStreamSynchronize(compute_), "gather");  // the host buffers are reused by the next call
    cache.commit_append(layer, cache_head, positions, n_doc);
    return n_doc;
}

}  // namespace snapdoc::cuda
