#include "engine/runtime/cpu/matmul.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "engine/common/error.h"

#include "engine/runtime/cpu/dot_kernels.h"
#include "engine/runtime/cpu/gemm_f32.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_activation_residual.h"
#include "engine/runtime/cpu/quant_dot.h"
#include "engine/runtime/cpu/quant_gemm.h"
#include "engine/runtime/cpu/quant_gemm_wide.h"

namespace snapdoc::cpu {

namespace {

// SNAPDOC_PRECISE_ROLES (an experiment knob, and an override for every backend of the process): a
// comma list of qkv, wo, gate_up, down, head, other, or all / none; a role listed runs precise.
unsigned roles_from_env(unsigned fallback) {
    const char* v = std::getenv("SNAPDOC_PRECISE_ROLES");
    if (!v) return fallback;
    static const std::pair<const char*, unsigned> kNames[] = {
        {"qkv", role_bit(MatMulRole::AttnQkv)},   {"wo", role_bit(MatMulRole::AttnOut)},
        {"gate_up", role_bit(MatMulRole::FfnGateUp)}, {"down", role_bit(MatMulRole::FfnDown)},
        {"head", role_bit(MatMulRole::Output)},   {"other", role_bit(MatMulRole::Other)},
        {"all", kAllMatMulRoles},                 {"none", 0u}};
    unsigned roles = 0;
    const std::string list = v;
    for (std::size_t b = 0; b <= list.size();) {
        const std::size_t e = std::min(list.find(',', b), list.size());
        const std::string name = list.substr(b, e - b);
        bool known = name.empty();
        for (const auto& [n, bits] : kNames)
            if (name == n) roles |= bits, known = true;
        if (!known) throw Error("SNAPDOC_PRECISE_ROLES: unknown role '" + name + "'");
        b = e + 1;
    }
    return roles;
}

// Every role precise where asked for (BackendOptions::precise_activations, or SNAPDOC_ACT_PLANES=2
// for every backend of the process); else kDefaultPreciseRoles.
unsigned initial_precise_roles(bool precise) {
    const char* v = std::getenv("SNAPDOC_ACT_PLANES");
    if (precise || (v && std::strcmp(v, "2") == 0)) return kAllMatMulRoles;
    return roles_from_env(kDefaultPreciseRoles);
}

// SNAPDOC_WIDE_ACT=1: the AVX2 level's 16-bit GEMM for the one-plane roles too; =0 never (the 8-bit
// plane(s) there, for comparisons: snapdoc-bench qgemm). Unset: for the precise roles, since one
// 16-bit pass is as precise as two 8-bit ones there and cheaper (docs/RESULTS.md, "Wide activations
// on AVX2").
int wide_override() {
    const char* v = std::getenv("SNAPDOC_WIDE_ACT");
    if (v && std::strcmp(v, "0") == 0) return 0;
    if (v && std::strcmp(v, "1") == 0) return 1;
    return -1;
}

}  // namespace

MatMul::MatMul(ThreadPool& pool, bool exact_prefill, bool precise_activations)
    : pool_(pool),
      exact_prefill_(exact_prefill),
      precise_roles_(initial_precise_roles(precise_activations)),
      wide_override_(wide_override()) {}

bool MatMul::streams(const TensorView& w, int n) const {
    const bool integer = !exact_prefill_ && quant_gemm_supports(w.dtype);
    return n <= kSmallBatchRows || (integer && n < kIntegerGemmMinRows);
}

void MatMul::operator()(const TensorView& w, const float* x, int n, float* y, MatMulRole role) {
    multiply(w, x, n, y, precise(role));
}

void MatMul::multiply(const TensorView& w, const float* x, int n, float* y, bool precise) {
    if (streams(w, n)) {
        const Product p{&w, y};
        stream(&p, 1, x, n, precise);
    } else if (!exact_prefill_ && quant_gemm_supports(w.dtype)) {
        integer_gemm(w, x, n, y, precise);
    } else {
        blas(w, x, n, y);
    }
}

void MatMul::same_input(std::initializer_list<Product> products, const float* x, int n, MatMulRole role) {
    // Fused only when one loop can serve every product: all streamed, all block-quantized (each
    // dotting the activation in its kernel's format) or all float, over the same input width.
    const TensorView& w0 = *products.begin()->w;
    const bool quantized = dtype_is_quantized(w0.dtype);
    bool fusable = true;
    for (const Product& p : products) {
        const TensorView& w = *p.w;
        fusable = fusable && streams(w, n) && w.cols() == w0.cols() && dtype_is_quantized(w.dtype) == quantized;
    }
    if (fusable) {
        stream(products.begin(), products.size(), x, n, precise(role));
        return;
    }
    for (const Product& p : products) multiply(*p.w, x, n, p.y, precise(role));
}

void MatMul::stream(const Product* products, std::size_t count, const float* x, int n, bool precise) {
    const TensorView& w0 = *products[0].w;
    const int64_t in = w0.cols();
    // Each activation row is quantized once per format the products' kernels read and reused for
    // every weight row; the weight blocks are read once, straight from the mapping, and never
    // widened to f32.
    const bool quantized = dtype_is_quantized(w0.dtype);
    std::vector<DecodeDot> dots(count);
    std::vector<QuantizedRows> acts(count);
    if (quantized)
        for (std::size_t k = 0; k < count; ++k) {
            dots[k] = decode_dot(products[k].w->dtype);
            std::size_t same = 0;
            while (same < k && dots[same].act != dots[k].act) ++same;
            acts[k] = same < k ? acts[same] : quantize_rows(dots[k].act, x, n, in, precise ? 2 : 1);
        }
    // The products' rows as one range: product k owns [first[k], first[k + 1]).
    std::vector<int64_t> first(count + 1, 0);
    for (std::size_t k = 0; k < count; ++k) first[k + 1] = first[k] + products[k].w->rows();
    // Each thread streams its own contiguous share of the rows, the last pieces balanced between
    // the threads (ThreadPool::parallel_for_stream; the shared chunk counter's 4 chunks per thread
    // left one thread idle for up to a chunk at the end of each loop, and more chunks restarted the
    // hardware prefetcher's streams at every chunk).
    const auto rows = [&](int64_t r0, int64_t r1, int) {
        for (std::size_t k = 0; k < count; ++k) {
            const int64_t b = std::max(r0, first[k]) - first[k], e = std::min(r1, first[k + 1]) - first[k];
            if (b >= e) continue;
            const TensorView& w = *products[k].w;
            float* y = products[k].y;
            const int64_t out = w.rows();
            if (quantized) {
                const QuantDotFn dot = dots[k].dot;
                const QuantizedRows act = acts[k];
                const std::size_t row_bytes = dtype_row_bytes(w.dtype, in);
                const auto* base = static_cast<const uint8_t*>(w.data);
                for (int64_t r = b; r < e; ++r) {
                    const uint8_t* row = base + static_cast<std::size_t>(r) * row_bytes;
                    for (int i = 0; i < n; ++i) {
                        const std::size_t at = i * act.stride;
                        // The second plane's dot reads the weight row again from L1.
                        y[i * out + r] = act.residual ? dot(row, act.data + at, in) + dot(row, act.residual + at, in)
                                                      : dot(row, act.data + at, in);
                    }
                }
            } else {
                for (int64_t r = b; r < e; ++r) {
                    const void* row = w.row_ptr(r);
                    for (int i = 0; i < n; ++i) y[i * out + r] = dot_row(w.dtype, row, x + i * in, in);
                }
            }
        }
    };
    if (schedule_ == RowSchedule::OwnedShares)
        pool_.parallel_for_stream(first[count], 16, rows);
    else
        pool_.parallel_for(first[count], 16, rows);
}

MatMul::QuantizedRows MatMul::quantize_rows(ActFormat format, const float* x, int n, int64_t in, int planes) {
    const std::size_t stride = act_row_bytes(format, in);
    std::vector<Line>& buffer = act_[static_cast<int>(format)];
    const std::size_t plane_bytes = stride * static_cast<std::size_t>(n);
    buffer.resize((plane_bytes * static_cast<std::size_t>(planes) + sizeof(Line) - 1) / sizeof(Line));
    auto* act = reinterpret_cast<uint8_t*>(buffer.data());
    uint8_t* residual = planes == 2 ? act + plane_bytes : nullptr;
    const auto rows = [&](int64_t i0, int64_t i1) {
        thread_local std::vector<float> r;
        if (residual) r.resize(static_cast<std::size_t>(in));
        for (int64_t i = i0; i < i1; ++i) {
            quantize_activation(format, x + i * in, act + i * stride, in);
            if (!residual) continue;
            activation_residual(format, x + i * in, act + i * stride, r.data(), in);
            quantize_activation(format, r.data(), residual + i * stride, in);
        }
    };
    if (n <= kSmallBatchRows)
        rows(0, n);
    else
        pool_.parallel_for(n, 8, [&](int64_t i0, int64_t i1, int) { rows(i0, i1); });
    return {act, stride, residual};
}

void MatMul::wide_gemm(const TensorView& w, const float* x, int n, float* y) {
    const int64_t out = w.rows(), in = w.cols();
    const WideFormat format = wide_format(w.dtype);
    const std::size_t stride = wide_act_row_bytes(format, in);
    wide_act_.resize((stride * static_cast<std::size_t>(n) + sizeof(Line) - 1) / sizeof(Line));
    auto* act = reinterpret_cast<uint8_t*>(wide_act_.data());
    pool_.parallel_for(n, 8, [&](int64_t i0, int64_t i1, int) {
        for (int64_t i = i0; i < i1; ++i) quantize_activation_wide(format, x + i * in, act + i * stride, in);
    });
    const std::size_t row_bytes = dtype_row_bytes(w.dtype, in);
    const auto* base = static_cast<const uint8_t*>(w.data);
    pool_.parallel_for(out, 32, [&](int64_t r0, int64_t r1, int) {
        quant_gemm_wide(KernelLevel::Avx2, w.dtype, base + static_cast<std::size_t>(r0) * row_bytes, row_bytes, r1 - r0,
                        in, act, n, y + r0, out);
    });
}

void MatMul::integer_gemm(const TensorView& w, const float* x, int n, float* y, bool precise) {
    const int64_t out = w.rows(), in = w.cols();
    // At the AVX2 level one 16-bit pass can replace the 8-bit plane(s): as precise as two, at
    // 0.65-0.8 of one plane's speed there (docs/RESULTS.md, "Wide activations on AVX2").
    const bool wide = wide_override_ == 1 || (wide_override_ == -1 && precise);
    if (wide && active_kernel_level() == KernelLevel::Avx2 && quant_gemm_wide_available(KernelLevel::Avx2)) {
        wide_gemm(w, x, n, y);
        return;
    }
    // The activation rows are quantized once; each thread then runs the tiled integer GEMM on its
    // slice of weight rows.
    // With two planes each thread runs its weight slice on the first plane's rows straight into y,
    // then on the residual rows into scratch, and adds. Two calls of n rows rather than one of 2n:
    // each keeps the activation block of one plane (as much as one plane alone) hot while the
    // weight chunks pass, where 2n rows in one call ran 2.3-4.8x one plane's time (RESULTS.md).
    const QuantizedRows act = quantize_rows(act_format(w.dtype), x, n, in, precise ? 2 : 1);
    float* lo = nullptr;
    if (act.residual) {
        gemm_out_.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(out));
        lo = gemm_out_.data();
    }
    const KernelLevel level = active_kernel_level();
    const std::size_t row_bytes = dtype_row_bytes(w.dtype, in);
    const auto* base = static_cast<const uint8_t*>(w.data);
    pool_.parallel_for(out, 32, [&](int64_t r0, int64_t r1, int) {
        const uint8_t* slice = base + static_cast<std::size_t>(r0) * row_bytes;
        quant_gemm(level, w.dtype, slice, row_bytes, r1 - r0, in, act.data, n, y + r0, out);
        if (!lo) return;
        quant_gemm(level, w.dtype, slice, row_bytes, r1 - r0, in, act.residual, n, lo + r0, out);
        for (int64_t i = 0; i < n; ++i)
            for (int64_t r = r0; r < r1; ++r) y[i * out + r] += lo[i * out + r];
    });
}

void MatMul::blas(const TensorView& w, const float* x, int n, float* y) {
    const int64_t out = w.rows(), in = w.cols();
    // Our pool splits the output features; each thread runs a single-threaded GEMM on its slice
    // (OpenBLAS's own threads are off: two thread systems spinning on two cores starve each other).
    // Non-f32 weights are dequantized slice by slice into per-thread scratch, so the weights stay
    // compact in memory and the conversion runs in parallel too.
    // Our AVX-512 GEMM where the CPU has it (about 1.9x OpenBLAS's Haswell kernels, which is what the
    // environment's OPENBLAS_CORETYPE pins; gemm_f32.h), OpenBLAS elsewhere.
    const bool use_own_gemm = gemm_f32_use_avx512();
    const int64_t block_rows = std::max<int64_t>(16, std::min<int64_t>(256, (int64_t{1} << 18) / std::max<int64_t>(1, in)));
    scratch_.resize(pool_.size());
    pool_.parallel_for(out, block_rows, [&](int64_t r0, int64_t r1, int thread) {
        for (int64_t b0 = r0; b0 < r1; b0 += block_rows) {
            const int64_t nb = std::min(block_rows, r1 - b0);
            const float* wb;
            if (w.dtype == DType::F32) {
                wb = static_cast<const float*>(w.data) + b0 * in;
            } else {
                auto& buf = scratch_[thread];
                buf.resize(static_cast<std::size_t>(nb * in));
                for (int64_t r = 0; r < nb; ++r) dequantize_row(w.dtype, w.row_ptr(b0 + r), buf.data() + r * in, in);
                wb = buf.data();
            }
            if (use_own_gemm)
                gemm_f32_nt(n, nb, in, x, in, wb, in, y + b0, out, GemmIsa::Avx512);
            else
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, static_cast<int>(nb), static_cast<int>(in), 1.0f,
                            x, static_cast<int>(in), wb, static_cast<int>(in), 0.0f, y + b0, static_cast<int>(out));
        }
    });
}

}  // namespace snapdoc::cpu
