// Types shared by the CUDA kernels and their host-side callers (engine/runtime/cuda, tests/cuda).
// Kernels know nothing of models, sessions or files: they see device pointers, shapes and the
// small tables below. This header is plain C++ (no device code), so g++ can include it.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace snapdoc::kernels {

// Element types on the device. Q8_0 (GGML blocks: f16 scale + 32 int8) appears only as the source
// of a weight conversion; kernels compute in f32 and store activations/weights as F32/F16/BF16.
enum class Dt : uint8_t { F32, F16, BF16, Q8_0 };

inline std::size_t dt_size(Dt t) { return t == Dt::F32 ? 4 : 2; }  // not meaningful for Q8_0

// Cache heads one launch can address. Passed by value in kernel parameters (about 1.5 KB), so a
// layer's segment table needs no device copy per call. 128 covers query-head mode for models up to
// 128 query heads.
inline constexpr int kMaxCacheHeads = 128;

// Where one layer's segments live inside a KV cache's device arrays: segment `h` holds `length[h]`
// entries starting at entry `offset[h]` (entries are head_dim values; positions are one int each).
struct SegmentTable {
    int64_t offset[kMaxCacheHeads];
    int32_t length[kMaxCacheHeads];
};

// One layer of a ragged KV cache in device memory: K and V in f16 (half the bytes of f32 for the
// bandwidth-bound decode; keys after RoPE are far inside f16 range), and each entry's true token
// position, ascending within a segment.
struct KvLayerView {
    __half* k = nullptr;
    __half* v = nullptr;
    int32_t* pos = nullptr;
    int n_heads = 0;   // cache heads (KV heads, or query heads in SnapKV query-head mode)
    int head_dim = 0;
    SegmentTable seg{};
};

enum class RopeConvention : uint8_t { AdjacentPairs, RotateHalf };

}  // namespace snapdoc::kernels
