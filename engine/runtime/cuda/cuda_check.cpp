#include "engine/runtime/cuda/cuda_check.h"

#include <cstdio>
#include <utility>

#include "engine/common/error.h"
#include "engine/runtime/cuda/cuda_fault_injection.h"

namespace snapdoc::cuda {

namespace {
// Left free for the CUDA context, cuBLAS workspaces and the allocator's granularity.
constexpr int64_t kReserveBytes = int64_t{256} << 20;

std::string device_name() {
    int dev = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return "the GPU";
    return std::string(prop.name) + " (device " + std::to_string(dev) + ")";
}
}  // namespace

void check(cudaError_t e, const char* what) {
    e = fault::on_check(e, what);  // a no-op outside the emulated tests (cuda_fault_injection.h)
    if (e == cudaSuccess) return;
    cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
    throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

void check(cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return;
    throw Error(std::string("cuBLAS ") + what + ": " + cublasGetStatusName(s) + ": " + cublasGetStatusString(s));
}

std::string mib(int64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return buf;
}

MemoryInfo memory_info() {
    std::size_t free = 0, total = 0;
    check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return {static_cast<int64_t>(free), static_cast<int64_t>(total)};
}

void require_free(int64_t bytes, const std::string& what) {
    const MemoryInfo m = memory_info();
    if (bytes + kReserveBytes <= m.free) return;
    throw Error("out of GPU memory: " + what + " needs " + mib(bytes) + " (plus " + mib(kReserveBytes) +
                " reserve), but " + device_name() + " has " + mib(m.free) + " free of " + mib(m.total));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, const std::string& what) { ensure(bytes, what); }

DeviceBuffer::~DeviceBuffer() {
    if (p_) cudaFree(p_);  // errors here cannot be reported (destructor); the context may be gone
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
        if (p_) cudaFree(p_);
        p_ = std::exchange(o.p_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

void DeviceBuffer::ensure(std::size_t bytes, const std::string& what) {
    if (bytes <= bytes_) return;
    if (p_) {
        // Work queued on the backend's stream may still read the old buffer; growth is rare, so
        // wait for the device rather than rely on cudaFree's implicit synchronisation.
        check(cudaDeviceSynchronize(), "synchronise before reallocating");
        cudaFree(p_);
        p_ = nullptr;
        bytes_ = 0;
    }
    const cudaError_t e = cudaMalloc(&p_, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        p_ = nullptr;
        const MemoryInfo m = memory_info();
        throw Error("out of GPU memory: " + what + " needs " + mib(static_cast<int64_t>(bytes)) + ", " +
                    device_name() + " has " + mib(m.free) + " free of " + mib(m.total));
    }
    if (e != cudaSuccess) p_ = nullptr;
    check(e, ("cudaMalloc for " + what).c_str());
    bytes_ = bytes;
}

}  // namespace snapdoc::cuda
