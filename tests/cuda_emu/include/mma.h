// CUDA emulation (tests/cuda_emu): the WMMA fragment API (nvcuda::wmma) for tensor-core kernels.
// On a GPU the tile of a fragment is spread over the 32 lanes in an unspecified layout; here every
// lane holds the whole tile (num_elements = rows x cols), which is a valid layout for what portable
// code may do: load/store/fill/mma_sync, and element-wise operations applied to every x[i]. Each
// call is warp-collective, as on the device: the lanes of the warp meet at a __syncwarp first, so a
// fragment op reached by part of a warp fails the launch like any other divergent warp op.
// Products accumulate in f32 in k order (a GPU's tensor cores round differently: results agree to
// f32 accumulation error, not bit for bit).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda_emu/executor.h"

namespace nvcuda::wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace detail {
template <typename Use, int M, int N, int K>
struct tile_shape;
template <int M, int N, int K>
struct tile_shape<matrix_a, M, N, K> {
    static constexpr int rows = M, cols = K;
};
template <int M, int N, int K>
struct tile_shape<matrix_b, M, N, K> {
    static constexpr int rows = K, cols = N;
};
template <int M, int N, int K>
struct tile_shape<accumulator, M, N, K> {
    static constexpr int rows = M, cols = N;
};
inline void converge(const char* what) { ::cuda_emu::detail::warp_exchange(::cuda_emu::detail::WarpOp::Sync, 0xffffffffu, 0, 0, 32, what, 0); }
// What the CUDA programming guide requires of a load/store operand, and a GPU does not check (the
// result is undefined): a 256-bit aligned pointer and a leading dimension that is a multiple of 16
// bytes (8 halves, 4 floats). Here a violation fails the launch, naming the call.
template <typename T>
inline void check_operand(const T* p, unsigned ldm, const char* what) {
    if (reinterpret_cast<uintptr_t>(p) % 32 != 0)
        ::cuda_emu::detail::device_fault(std::string(what) + ": pointer not 256-bit aligned");
    if ((ldm * sizeof(T)) % 16 != 0)
        ::cuda_emu::detail::device_fault(std::string(what) + ": ldm " + std::to_string(ldm) + " is not a multiple of 16 bytes");
}
}  // namespace detail

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
class fragment {
public:
    static_assert((M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) || (M == 8 && N == 32 && K == 16),
                  "WMMA shapes: m16n16k16, m32n8k16, m8n32k16");
    static constexpr int rows = detail::tile_shape<Use, M, N, K>::rows, cols = detail::tile_shape<Use, M, N, K>::cols;
    static constexpr int num_elements = rows * cols;
    using element_type = T;
    using storage_element_type = T;
    using layout = Layout;
    T x[num_elements];  // row-major tile
};

template <typename Use, int M, int N, int K, typename T, typename L>
inline void fill_fragment(fragment<Use, M, N, K, T, L>& f, const T& v) {
    detail::converge("wmma::fill_fragment");
    for (int i = 0; i < f.num_elements; ++i) f.x[i] = v;
}

// matrix_a / matrix_b: the layout is the fragment's; ldm in elements.
template <typename Use, int M, int N, int K, typename T, typename L>
inline void load_matrix_sync(fragment<Use, M, N, K, T, L>& f, const T* p, unsigned ldm) {
    static_assert(!std::is_same_v<Use, accumulator>, "an accumulator load needs the memory layout");
    detail::converge("wmma::load_matrix_sync");
    detail::check_operand(p, ldm, "wmma::load_matrix_sync");
    using F = fragment<Use, M, N, K, T, L>;
    for (int r = 0; r < F::rows; ++r)
        for (int c = 0; c < F::cols; ++c)
            f.x[r * F::cols + c] = std::is_same_v<L, row_major> ? p[r * ldm + c] : p[c * ldm + r];
}

template <int M, int N, int K, typename T>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T, void>& f, const T* p, unsigned ldm, layout_t layout) {
    detail::converge("wmma::load_matrix_sync");
    detail::check_operand(p, ldm, "wmma::load_matrix_sync");
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) f.x[r * N + c] = layout == mem_row_major ? p[r * ldm + c] : p[c * ldm + r];
}

template <int M, int N, int K, typename T>
inline void store_matrix_sync(T* p, const fragment<accumulator, M, N, K, T, void>& f, unsigned ldm, layout_t layout) {
    detail::converge("wmma::store_matrix_sync");
    detail::check_operand(p, ldm, "wmma::store_matrix_sync");
    if (::cuda_emu::detail::lane_id() != 0) return;  // one copy of the tile is written
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) (layout == mem_row_major ? p[r * ldm + c] : p[c * ldm + r]) = f.x[r * N + c];
}

// d = a·b + c with f32 (or half) accumulation.
template <int M, int N, int K, typename TA, typename LA, typename LB, typename TC>
inline void mma_sync(fragment<accumulator, M, N, K, TC, void>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
                     const fragment<matrix_b, M, N, K, TA, LB>& b, const fragment<accumulator, M, N, K, TC, void>& c) {
    detail::converge("wmma::mma_sync");
    float out[M * N];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = static_cast<float>(c.x[i * N + j]);
            for (int k = 0; k < K; ++k) s += static_cast<float>(a.x[i * K + k]) * static_cast<float>(b.x[k * N + j]);
            out[i * N + j] = s;
        }
    for (int i = 0; i < M * N; ++i) d.x[i] = static_cast<TC>(out[i]);
}

}  // namespace nvcuda::wmma
