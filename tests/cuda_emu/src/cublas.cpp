// CUDA emulation: cuBLAS GEMMs on the CPU. Inputs are widened to f32 (exact for f16/bf16) and
// multiplied by OpenBLAS sgemm with f32 accumulation, which is what CUBLAS_COMPUTE_32F promises
// (the order of the sums differs, so results agree to f32 rounding, not bit for bit). Operand
// extents are checked against their device allocations.
#include <cblas.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda_emu/control.h"
#include "runtime_internal.h"

struct cublasContext {
    cudaStream_t stream = nullptr;
};

namespace {
cuda_emu::CublasStats g_cublas_stats;  // counted when a GEMM is issued (a captured one once)
}  // namespace

cuda_emu::CublasStats cuda_emu::cublas_stats() { return g_cublas_stats; }

namespace {

std::size_t type_size(cudaDataType_t t) {
    switch (t) {
        case CUDA_R_32F: return 4;
        case CUDA_R_16F:
        case CUDA_R_16BF: return 2;
        default: return 0;
    }
}

// Column-major `rows` x `cols` operand with leading dimension ld, widened to a dense f32 copy.
std::vector<float> widen(const void* p, cudaDataType_t t, int rows, int cols, int ld) {
    std::vector<float> out(static_cast<std::size_t>(rows) * cols);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) {
            const std::size_t at = static_cast<std::size_t>(j) * ld + i;
            float v = 0;
            if (t == CUDA_R_32F) v = static_cast<const float*>(p)[at];
            else if (t == CUDA_R_16F) v = __half2float(static_cast<const __half*>(p)[at]);
            else v = __bfloat162float(static_cast<const __nv_bfloat16*>(p)[at]);
            out[static_cast<std::size_t>(j) * rows + i] = v;
        }
    return out;
}

bool operand_ok(const void* p, cudaDataType_t t, int rows, int cols, int ld, const char* name) {
    if (rows == 0 || cols == 0) return true;
    const std::size_t bytes = (static_cast<std::size_t>(cols - 1) * ld + rows) * type_size(t);
    if (cuda_emu::runtime::device_range(p, bytes)) return true;
    std::fprintf(stderr, "cuda_emu: cublasGemmEx: operand %s (%d x %d, ld %d) is not inside one device allocation\n", name, rows,
                 cols, ld);
    return false;
}

}  // namespace

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    *handle = new cublasContext;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!cuda_emu::runtime::stream_valid(stream)) return CUBLAS_STATUS_INVALID_VALUE;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusName(cublasStatus_t s) {
    switch (s) {
        case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasGetStatusString(cublasStatus_t s) {
    switch (s) {
        case CUBLAS_STATUS_SUCCESS: return "success";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
        case CUBLAS_STATUS_INVALID_VALUE: return "an unsupported value or parameter was passed to the function";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported (by the CUDA emulator)";
        default: return "cuBLAS error";
    }
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType_t Atype, int lda, const void* B,
                            cudaDataType_t Btype, int ldb, const void* beta, void* C, cudaDataType_t Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0 || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
    if (transa == CUBLAS_OP_C || transb == CUBLAS_OP_C) return CUBLAS_STATUS_NOT_SUPPORTED;
    // The combinations snapdoc uses: equal input types, f32 output, f32 compute.
    if (Atype != Btype || type_size(Atype) == 0 || Ctype != CUDA_R_32F ||
        (computeType != CUBLAS_COMPUTE_32F && computeType != CUBLAS_COMPUTE_32F_FAST_TF32 &&
         computeType != CUBLAS_COMPUTE_32F_FAST_16BF))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    const int ar = transa == CUBLAS_OP_N ? m : k, ac = transa == CUBLAS_OP_N ? k : m;
    const int br = transb == CUBLAS_OP_N ? k : n, bc = transb == CUBLAS_OP_N ? n : k;
    if (lda < std::max(1, ar) || ldb < std::max(1, br) || ldc < std::max(1, m)) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (!operand_ok(A, Atype, ar, ac, lda, "A") || !operand_ok(B, Btype, br, bc, ldb, "B") ||
        !operand_ok(C, Ctype, m, n, ldc, "C"))
        return CUBLAS_STATUS_INVALID_VALUE;
    ++g_cublas_stats.gemms;
    if (Atype == CUDA_R_32F) ++g_cublas_stats.f32_inputs;
    else if (Atype == CUDA_R_16F) ++g_cublas_stats.f16_inputs;
    else ++g_cublas_stats.bf16_inputs;
    if (computeType == CUBLAS_COMPUTE_32F) ++g_cublas_stats.compute_32f;
    const float al = *static_cast<const float*>(alpha), be = *static_cast<const float*>(beta);
    // Captured into a graph: the operands are read when the graph runs (alpha/beta by value now).
    auto run = [=] {
        const std::vector<float> a = widen(A, Atype, ar, ac, lda), b = widen(B, Btype, br, bc, ldb);
            cblas_sgemm(CblasColMajor, transa == CUBLAS_OP_N ? CblasNoTrans : CblasTrans,
                transb == CUBLAS_OP_N ? CblasNoTrans : CblasTrans, m, n, k, al, a.data(), std::max(1, ar), b.data(),
                std::max(1, br), be, static_cast<float*>(C), ldc);
        return cudaSuccess;
    };
    (void)algo;
    if (!cuda_emu::runtime::record(handle->stream, run)) run();
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                           const float* alpha, const float* A, int lda, const float* B, int ldb, const float* beta,
                           float* C, int ldc) {
    return cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, beta, C, CUDA_R_32F,
                        ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
