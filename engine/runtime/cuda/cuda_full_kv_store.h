// The CUDA backend's keeping of a document's full K/V (engine/runtime/backend_full_kv.h).
//
// Resident (the whole f16 store fits in device memory next to the model, the working caches and
// the runtime's reserve — the H200 case): every layer's K/V stay in one device allocation, laid out
// like the host store. A new question's layer caches are filled device-to-device and the answer's
// ragged cache is gathered on the device (kernels/snapkv.h), so a re-snap uploads no K/V.
//
// Offloaded (it does not fit): two device staging slots of one layer each. After each prefill
// layer its K/V go to a slot (device copy) and from there to the host store on a second stream
// (events order the slot's reuse), overlapped with the next layer's compute; a re-snap uploads
// layer ℓ+1 into the other slot while layer ℓ computes. (Resident mode downloads the same way, so
// the host store is complete too.) A layer's download is issued when the next layer is handed
// over, i.e. behind that layer's queued compute: the session frees each layer's working cache, and
// cudaFree waits for the whole device. The host store is page-locked
// (cudaHostRegister) when it is plain RAM, so these copies are true DMA; otherwise they still run
// but the driver stages them.
//
// In both modes the host store is complete after finish(): cache files and host reads work as before.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/runtime/backend_full_kv.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "kernels/types.h"

namespace snapdoc {
class FullKvStore;
}

namespace snapdoc::cuda {

class CudaKvCache;

// Device memory the two modes need for `tokens` rows of a model shaped `cfg` (the store or the
// staging, the device copy of the positions, and room for the working caches of a prefill or a
// question of up to kQuestionReserveTokens tokens), without the runtime's reserve.
struct FullKvNeeds {
    int64_t resident = 0, offload = 0;
};
inline constexpr int kQuestionReserveTokens = 4096;
FullKvNeeds full_kv_needs(const ModelConfig& cfg, int tokens);

class CudaFullKvStore : public BackendFullKv {
public:
    // Chooses the mode from the device's free memory (cudaMemGetInfo; offloaded whatever fits when
    // `allow_resident` is false); throws Error with the numbers when not even the offload staging
    // fits. `compute` is the backend's stream.
    CudaFullKvStore(FullKvStore& host, const ModelConfig& cfg, int device, cudaStream_t compute,
                    bool allow_resident = true);
    ~CudaFullKvStore() override;
    CudaFullKvStore(const CudaFullKvStore&) = delete;
    CudaFullKvStore& operator=(const CudaFullKvStore&) = delete;

    bool resident() const override { return resident_; }
    int64_t device_bytes() const override;
    std::string describe() const override;
    void store_layer(const KvCache& cache, int layer) override;
    void finish() override;
    void adopt_host() override;
    void load_layer(KvCache& cache, int layer) override;
    void store_tail(const KvCache& cache, int layer, int n) override;
    void clear_tail() override;
    int gather(KvCache& cache, int layer, int cache_head, int kv_head, const int32_t* positions, int n) override;

    // Whether the host store could be page-locked (copies to and from it are then DMA).
    bool host_pinned() const { return pinned_; }

private:
    __half* device_layer(int layer) const;      // the resident copy of a layer
    uint16_t* host_layer(int layer) const;      // the host store's layer block
    int slot_for(int layer) const { return layer % 2; }
    void prefetch(int layer);                   // offload: host -> slot on the copy stream
    void download_pending();                    // the last stored layer -> host, on the copy stream
    // Appends rows [i0, i1) of `positions` from one source segment (entry = position - first).
    void gather_device(CudaKvCache& cache, int layer, int cache_head, const __half* k, const __half* v,
                       const int32_t* pos, int first, int length, const int32_t* positions, int n);

    FullKvStore& host_;
    int device_;
    int n_layers_, n_kv_heads_, head_dim_, tokens_;
    int64_t layer_halves_;                      // halves per layer: kv heads x (K, V) x tokens x head_dim
    bool resident_ = false, pinned_ = false, allow_resident_ = true;
    FullKvNeeds needs_;
    int64_t free_at_attach_ = 0;
    cudaStream_t compute_ = nullptr, copy_ = nullptr;
    DeviceBuffer data_;                         // resident: all layers
    DeviceBuffer slots_[2];                     // offload: one layer each
    int slot_layer_[2] = {-1, -1};              // the layer a slot holds (valid once its event completes)
    int pending_ = -1;                          // stored layer whose download is not issued yet
    cudaEvent_t to_copy_ = nullptr;             // compute -> copy hand-off
    cudaEvent_t slot_copied_[2] = {nullptr, nullptr};  // copy stream done with a slot (upload or download)
    cudaEvent_t slot_read_[2] = {nullptr, nullptr};    // compute stream done with a slot
    DeviceBuffer positions_;                    // 0 .. tokens-1 (int32), uploaded once
    DeviceBuffer kept_;                         // gather: kept positions (indices only)
    // Resident: the prompt's tail after the document per layer (the question's rows), laid out
    // like a layer of the store ([kv head][K, V][rows][head_dim]) with its positions.
    struct Tail {
        DeviceBuffer kv, pos;
        int rows = 0;
    };
    std::vector<Tail> tails_;
    std::vector<int32_t> iota_;
    std::vector<uint16_t> gather_k_, gather_v_; // offload gather: the kept rows in f16
    std::vector<int32_t> gather_entries_;
};

}  // namespace snapdoc::cuda
