// y[n, out] = x[n, in] · Wᵀ for a weight W [out, in] of any supported dtype.
// Small batches (decode, and block-quantized weights below kIntegerGemmMinRows rows) stream each
// weight row once through the dot kernels, in parallel over output rows; block-quantized weights
// are dotted in integers with the activation rows quantized once per call (quant_dot.h).
// Larger batches (prefill) of block-quantized weights run the integer GEMM (quant_gemm.h): the
// activation rows quantized once, the weight blocks multiplied in integers, in parallel over slices
// of W.
// Both quantize an activation row to 8 bits (llama.cpp's Q8_0 / Q8_K blocks). With
// precise_activations (or SNAPDOC_ACT_PLANES=2) they also quantize its rounding residual in the same
// format (quant_activation_residual.h), run every product on both planes and add the results: about
// 15 bits per activation, where one plane (llama.cpp's scheme, the default) puts the logits about
// as far from the exact ones as llama.cpp's; the cost is measured in docs/RESULTS.md. At the AVX2
// level, with two planes (or SNAPDOC_WIDE_ACT=1), the integer GEMM quantizes to 16 bits instead
// (quant_gemm_wide.h): one pass as precise as the two planes. With exact_prefill (and for F32/F16/BF16 and IQ4_XS weights) they run a
// single-threaded f32 GEMM on slices of W instead (our AVX-512 kernel, gemm_f32.h, where the CPU
// has it; OpenBLAS sgemm elsewhere), dequantizing each slice into scratch when W is not f32 (exact;
// weights stay compact in memory).
// The precision is chosen per role of the product in the forward pass (MatMulRole): a precise role
// takes two planes (16 bits in the AVX2 GEMM), the others one. --precise-activations makes every
// role precise; the default none (kDefaultPreciseRoles); SNAPDOC_PRECISE_ROLES (qkv, wo, gate_up,
// down, head, other, all, none) picks a mix for experiments and `snapdoc-bench model
// --precise-roles`. Measured on the modelzoo files (docs/RESULTS.md, "Activation precision per
// matmul role"): the one-plane error is spread over all roles, none dominates (random weights carry
// no outlier channel), and every mix that leaves one role on one plane still measured up to
// 0.54-1.29 of llama.cpp's distance; only all of them reach 0.5, at --precise-activations' cost.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "engine/model/tensor.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::cpu {

// Which product of the forward pass a matmul is: the precision of its activations is chosen per role
// (MatMul's precise roles, below).
enum class MatMulRole { AttnQkv, AttnOut, FfnGateUp, FfnDown, Output, Other };
inline constexpr int kMatMulRoleCount = 6;
constexpr unsigned role_bit(MatMulRole r) { return 1u << static_cast<int>(r); }
inline constexpr unsigned kAllMatMulRoles = (1u << kMatMulRoleCount) - 1;
// The roles precise by default (without precise_activations).
inline constexpr unsigned kDefaultPreciseRoles = 0;

class MatMul {
public:
    // exact_prefill: batches above kSmallBatchRows run in f32 even for block-quantized weights.
    // precise_activations: two activation planes (above).
    explicit MatMul(ThreadPool& pool, bool exact_prefill = false, bool precise_activations = false);
    void operator()(const TensorView& w, const float* x, int n, float* y, MatMulRole role = MatMulRole::Other);

    // y = x · Wᵀ for several weights that share the input x (q/k/v; gate/up). In decode (batches
    // the dot kernels stream) block-quantized weights, or float ones, share one parallel loop over
    // all their rows, the input quantized once per activation format their kernels read: one
    // hand-off between the threads instead of one per weight, and a single tail where a thread
    // waits for the other. The results are bit for bit those of separate calls. Other batches run
    // the products one by one.
    struct Product {
        const TensorView* w;
        float* y;
    };
    void same_input(std::initializer_list<Product> products, const float* x, int n,
                    MatMulRole role = MatMulRole::Other);
    // The roles whose activations are precise (role_bit set), for the experiments and benches.
    unsigned precise_roles() const { return precise_roles_; }
    void set_precise_roles(unsigned roles) { precise_roles_ = roles; }

    // How the decode loops split weight rows over the threads: owned shares (the default,
    // ThreadPool::parallel_for_stream) or the shared chunk counter of parallel_for, kept so
    // `snapdoc-bench decode-matmuls` can compare the two in one process.
    enum class RowSchedule { OwnedShares, SharedChunks };
    void set_row_schedule(RowSchedule s) { schedule_ = s; }

private:
    // The decode path: every weight row read once through the dot kernels (block types against the
    // activation rows quantized once; float types against x), all products' rows in one loop.
    void stream(const Product* products, std::size_t count, const float* x, int n, bool precise);
    bool streams(const TensorView& w, int n) const;
    void integer_gemm(const TensorView& w, const float* x, int n, float* y, bool precise);
    void multiply(const TensorView& w, const float* x, int n, float* y, bool precise);
    bool precise(MatMulRole role) const { return (precise_roles_ & role_bit(role)) != 0; }
    // Quantizes n activation rows in `format` into its buffer (in parallel for large batches): rows
    // [0, n) the first plane, with two planes rows [n, 2n) the residual of row i - n.
    struct QuantizedRows {
        const uint8_t* data;
        std::size_t stride;  // bytes per row
        const uint8_t* residual;  // the second plane's rows (data + n·stride), or null with one plane
    };
    QuantizedRows quantize_rows(ActFormat format, const float* x, int n, int64_t in, int planes);
    // The AVX2 level's GEMM on 16-bit activation rows (quant_gemm_wide.h).
    void wide_gemm(const TensorView& w, const float* x, int n, float* y);
    void blas(const TensorView& w, const float* x, int n, float* y);

    ThreadPool& pool_;
    bool exact_prefill_;
    unsigned precise_roles_;  // role_bit()s of the roles with precise activations (matmul.cpp)
    int wide_override_;  // SNAPDOC_WIDE_ACT: -1 unset, 0 never wide, 1 wide even for one plane
    std::vector<float> gemm_out_;  // the integer GEMM's [n, out] results on the residual plane
    RowSchedule schedule_ = RowSchedule::OwnedShares;
    std::vector<std::vector<float>> scratch_;  // per thread: dequantized weight rows for the sgemm path
    // The activation rows quantized to 8 bits, one buffer per ActFormat (the products of one input
    // may dot with two formats); in 64-byte lines, so rows of 64-byte blocks stay aligned.
    struct alignas(64) Line {
        uint8_t bytes[64];
    };
    std::vector<Line> act_[kActFormatCount];
    std::vector<Line> wide_act_;  // the 16-bit activation rows of wide_gemm
};

// Rows handled by the streaming kernel rather than sgemm.
inline constexpr int kSmallBatchRows = 4;
// Block-quantized weights take the integer GEMM from this many rows on; fewer rows (a short
// question, a chat turn) run the decode dots, which read the weight blocks as stored: the GEMM
// unpacks or interleaves every weight row once per call, which at 8 rows cost 5× the GEMM itself
// (Llama-3.1-8B shape, AVX-512), while it is amortised over a 512-row prefill chunk.
inline constexpr int kIntegerGemmMinRows = 16;

}  // namespace snapdoc::cpu
