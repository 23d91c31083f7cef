// CUDA emulation: the runtime API on the CPU. Device memory is host memory tracked per allocation,
// so every copy and memset is checked against the allocation it touches (a copy past the end of a
// device buffer fails with cudaErrorInvalidValue and a message on stderr, where a GPU would corrupt
// memory silently). New allocations are filled with 0xFF bytes (NaN as f32, f16 and bf16), so a
// kernel that reads memory nobody wrote produces NaN instead of a lucky zero.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cuda_emu/control.h"
#include "runtime_internal.h"

struct CUstream_st {
    unsigned flags = 0;
    bool capturing = false, invalidated = false;
    std::vector<std::function<cudaError_t()>> ops;  // recorded while capturing
};
struct CUgraph_st {
    std::vector<std::function<cudaError_t()>> ops;
};
struct CUgraphExec_st {
    std::vector<std::function<cudaError_t()>> ops;
};
struct CUevent_st {
    std::chrono::steady_clock::time_point at{};
    bool recorded = false;
};

namespace cuda_emu {
namespace {

int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : fallback;
}

struct State {
    std::mutex mu;
    DeviceConfig config;
    std::map<uintptr_t, std::size_t> allocations;  // base -> bytes
    std::set<void*> host_pinned;
    std::map<uintptr_t, std::size_t> pinned_ranges;  // cudaMallocHost and cudaHostRegister: base -> bytes
    CopyStats copies;
    std::set<cudaStream_t> streams;
    std::set<cudaEvent_t> events;
    MemoryStats mem;
    SyncStats syncs;
    cudaError_t last_error = cudaSuccess;
    int device = 0;

    State() {
        config.devices = env_int("SNAPDOC_CUDA_EMU_DEVICES", 1);
        config.memory_bytes = int64_t{env_int("SNAPDOC_CUDA_EMU_MEMORY_MIB", 4096)} << 20;
        config.sm_count = env_int("SNAPDOC_CUDA_EMU_SMS", 16);
    }
};

State& st() {
    static State* s = new State;  // never destroyed: backends may free memory during static destruction
    return *s;
}

cudaError_t fail(cudaError_t e, const std::string& why) {
    std::fprintf(stderr, "cuda_emu: %s\n", why.c_str());
    st().last_error = e;
    return e;
}

void count_sync() {
    std::lock_guard<std::mutex> lock(st().mu);
    ++st().syncs.host_syncs;
}

cudaError_t record(cudaError_t e) {
    if (e != cudaSuccess) st().last_error = e;
    return e;
}

bool in_device(const void* p) {
    State& s = st();
    const auto a = reinterpret_cast<uintptr_t>(p);
    auto it = s.allocations.upper_bound(a);
    if (it == s.allocations.begin()) return false;
    --it;
    return a < it->first + it->second;
}

// "" when [p, p + bytes) is inside one allocation; else why not.
std::string check_device(const void* p, std::size_t bytes, const char* what) {
    State& s = st();
    const auto a = reinterpret_cast<uintptr_t>(p);
    auto it = s.allocations.upper_bound(a);
    if (it == s.allocations.begin() || a >= std::prev(it)->first + std::prev(it)->second) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s %p is not device memory", what, p);
        return buf;
    }
    --it;
    if (a + bytes > it->first + it->second) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s range [%p, +%zu) runs %zu bytes past its allocation of %zu bytes", what, p, bytes,
                      static_cast<std::size_t>(a + bytes - (it->first + it->second)), it->second);
        return buf;
    }
    return "";
}

std::string check_host(const void* p, const char* what) {
    if (!in_device(p)) return "";
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %p is device memory but the copy kind says host", what, p);
    return buf;
}

cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* api) {
    if (bytes == 0) return cudaSuccess;
    if (!dst || !src) return fail(cudaErrorInvalidValue, std::string(api) + ": null pointer");
    std::lock_guard<std::mutex> lock(st().mu);
    if (kind == cudaMemcpyDefault)
        kind = in_device(dst) ? (in_device(src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                              : (in_device(src) ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    std::string err;
    switch (kind) {
        case cudaMemcpyHostToDevice: err = check_device(dst, bytes, "destination"); if (err.empty()) err = check_host(src, "source"); break;
        case cudaMemcpyDeviceToHost: err = check_device(src, bytes, "source"); if (err.empty()) err = check_host(dst, "destination"); break;
        case cudaMemcpyDeviceToDevice: err = check_device(dst, bytes, "destination"); if (err.empty()) err = check_device(src, bytes, "source"); break;
        case cudaMemcpyHostToHost: break;
        default: return fail(cudaErrorInvalidMemcpyDirection, std::string(api) + ": invalid copy kind");
    }
    if (!err.empty()) return fail(cudaErrorInvalidValue, std::string(api) + ": " + err);
    std::memmove(dst, src, bytes);
    CopyStats& c = st().copies;
    if (kind == cudaMemcpyHostToDevice) c.h2d += static_cast<int64_t>(bytes);
    if (kind == cudaMemcpyDeviceToHost) c.d2h += static_cast<int64_t>(bytes);
    if (kind == cudaMemcpyDeviceToDevice) c.d2d += static_cast<int64_t>(bytes);
    return cudaSuccess;
}

// Whether [p, p + bytes) lies in one pinned host range (caller holds the lock).
bool pinned_host(const void* p, std::size_t bytes) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    auto it = st().pinned_ranges.upper_bound(a);
    if (it == st().pinned_ranges.begin()) return false;
    --it;
    return a + bytes <= it->first + it->second;
}

// Counts an async host<->device copy on a non-default stream whose host side is pinned.
void count_pinned_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
    if (!stream || bytes == 0) return;
    std::lock_guard<std::mutex> lock(st().mu);
    const bool d = in_device(dst), s = in_device(src);
    if (d != s && pinned_host(d ? src : dst, bytes)) st().copies.pinned_async += static_cast<int64_t>(bytes);
}

// A synchronising call while a stream captures a graph: refused, and the capture is invalidated
// (as the driver does in the default global capture mode).
cudaError_t refuse_during_capture(const char* api) {
    State& s = st();
    bool any = false;
    {
        std::lock_guard<std::mutex> lock(s.mu);
        for (cudaStream_t x : s.streams)
            if (x->capturing) {
                x->invalidated = true;
                any = true;
            }
    }
    return any ? fail(cudaErrorStreamCaptureUnsupported, std::string(api) + " while a stream is capturing a graph")
               : cudaSuccess;
}

cudaError_t copy2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                   std::size_t height, cudaMemcpyKind kind) {
    if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue, "cudaMemcpy2D: width exceeds a pitch");
    for (std::size_t r = 0; r < height; ++r) {
        const cudaError_t e = copy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width,
                                   kind, "cudaMemcpy2D");
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

cudaError_t set(void* ptr, int value, std::size_t bytes) {
    if (bytes == 0) return cudaSuccess;
    {
        std::lock_guard<std::mutex> lock(st().mu);
        const std::string err = check_device(ptr, bytes, "cudaMemset: destination");
        if (!err.empty()) {
            st().last_error = cudaErrorInvalidValue;
            std::fprintf(stderr, "cuda_emu: %s\n", err.c_str());
            return cudaErrorInvalidValue;
        }
    }
    std::memset(ptr, value, bytes);
    return cudaSuccess;
}

}  // namespace

namespace runtime {
bool record(cudaStream_t s, std::function<cudaError_t()> op) {
    std::lock_guard<std::mutex> lock(st().mu);
    if (!s || !st().streams.count(s) || !s->capturing) return false;
    s->ops.push_back(std::move(op));
    return true;
}
void set_last_error(cudaError_t e) { st().last_error = e; }
bool stream_valid(cudaStream_t s) {
    std::lock_guard<std::mutex> lock(st().mu);
    return s == nullptr || st().streams.count(s) > 0;
}
bool device_range(const void* p, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(st().mu);
    return check_device(p, bytes, "").empty();
}
}  // namespace runtime

DeviceConfig device_config() {
    std::lock_guard<std::mutex> lock(st().mu);
    return st().config;
}
bool set_device_config(const DeviceConfig& c) {
    std::lock_guard<std::mutex> lock(st().mu);
    if (c.memory_bytes < st().mem.allocated) return false;
    st().config = c;
    return true;
}
MemoryStats memory_stats() {
    std::lock_guard<std::mutex> lock(st().mu);
    return st().mem;
}
void reset_peak_memory() {
    std::lock_guard<std::mutex> lock(st().mu);
    st().mem.peak = st().mem.allocated;
}
SyncStats sync_stats() {
    std::lock_guard<std::mutex> lock(st().mu);
    return st().syncs;
}
CopyStats copy_stats() {
    std::lock_guard<std::mutex> lock(st().mu);
    return st().copies;
}
void reset_copy_stats() {
    std::lock_guard<std::mutex> lock(st().mu);
    st().copies = {};
}

}  // namespace cuda_emu

using cuda_emu::fail;
using cuda_emu::record;
using cuda_emu::st;

const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "cudaSuccess";
        case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
        case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
        case cudaErrorInitializationError: return "cudaErrorInitializationError";
        case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
        case cudaErrorInvalidPitchValue: return "cudaErrorInvalidPitchValue";
        case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
        case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
        case cudaErrorNoDevice: return "cudaErrorNoDevice";
        case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
        case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
        case cudaErrorNotReady: return "cudaErrorNotReady";
        case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
        case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
        case cudaErrorUnknown: return "cudaErrorUnknown";
    }
    return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidValue: return "invalid argument";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorInitializationError: return "initialization error";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument";
        case cudaErrorInvalidPitchValue: return "invalid pitch argument";
        case cudaErrorInvalidDevicePointer: return "invalid device pointer";
        case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
        case cudaErrorNoDevice: return "no CUDA-capable device is detected (CUDA emulator configured without devices)";
        case cudaErrorInvalidDevice: return "invalid device ordinal";
        case cudaErrorInvalidResourceHandle: return "invalid resource handle";
        case cudaErrorNotReady: return "device not ready";
        case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
        case cudaErrorLaunchFailure: return "unspecified launch failure (see the cuda_emu diagnostic on stderr)";
        case cudaErrorUnknown: return "unknown error";
    }
    return "unknown error";
}

cudaError_t cudaGetLastError() {
    const cudaError_t e = st().last_error;
    st().last_error = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError() { return st().last_error; }

cudaError_t cudaGetDeviceCount(int* count) {
    if (!count) return record(cudaErrorInvalidValue);
    *count = cuda_emu::device_config().devices;
    return *count > 0 ? cudaSuccess : record(cudaErrorNoDevice);
}

cudaError_t cudaDriverGetVersion(int* version) {
    if (!version) return record(cudaErrorInvalidValue);
    // SNAPDOC_CUDA_EMU_DRIVER_VERSION lets a test play a driver upgrade (the GPU self-check's verdict
    // is keyed by it); default 12040 (CUDA 12.4).
    const char* env = std::getenv("SNAPDOC_CUDA_EMU_DRIVER_VERSION");
    *version = env && *env ? std::atoi(env) : 12040;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    if (device < 0 || device >= cuda_emu::device_config().devices) return record(cudaErrorInvalidDevice);
    st().device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
    if (!device) return record(cudaErrorInvalidValue);
    if (cuda_emu::device_config().devices == 0) return record(cudaErrorNoDevice);
    *device = st().device;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
    const auto c = cuda_emu::device_config();
    if (!p) return record(cudaErrorInvalidValue);
    if (device < 0 || device >= c.devices) return record(cudaErrorInvalidDevice);
    *p = cudaDeviceProp{};
    std::snprintf(p->name, sizeof p->name, "snapdoc CUDA emulator (CPU)");
    p->totalGlobalMem = static_cast<std::size_t>(c.memory_bytes);
    p->sharedMemPerBlock = 48 << 10;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->multiProcessorCount = c.sm_count;
    p->major = 9;
    p->minor = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    cudaDeviceProp p;
    if (const cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return e;
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; return cudaSuccess;
        case cudaDevAttrWarpSize: *value = p.warpSize; return cudaSuccess;
        case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; return cudaSuccess;
        case cudaDevAttrComputeCapabilityMajor: *value = p.major; return cudaSuccess;
        case cudaDevAttrComputeCapabilityMinor: *value = p.minor; return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceSynchronize() {  // all done already
    cuda_emu::count_sync();
    return cuda_emu::refuse_during_capture("cudaDeviceSynchronize");
}
cudaError_t cudaDeviceReset() { return cudaSuccess; }

cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
    if (!free || !total) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(st().mu);
    *total = static_cast<std::size_t>(st().config.memory_bytes);
    *free = static_cast<std::size_t>(st().config.memory_bytes - st().mem.allocated);
    return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
    if (!ptr) return record(cudaErrorInvalidValue);
    if (const cudaError_t e = cuda_emu::refuse_during_capture("cudaMalloc"); e != cudaSuccess) return e;
    *ptr = nullptr;
    if (bytes == 0) return cudaSuccess;
    const std::size_t rounded = (bytes + 255) / 256 * 256;
    {
        std::lock_guard<std::mutex> lock(st().mu);
        if (static_cast<int64_t>(rounded) > st().config.memory_bytes - st().mem.allocated) {
            st().last_error = cudaErrorMemoryAllocation;
            return cudaErrorMemoryAllocation;
        }
    }
    // Exactly `bytes` (256-byte aligned like cudaMalloc): under AddressSanitizer a kernel's access past
    // the end of a device buffer is then reported at once.
    void* p = nullptr;
    if (posix_memalign(&p, 256, bytes) != 0 || !p) return record(cudaErrorMemoryAllocation);
    std::memset(p, 0xFF, bytes);
    std::lock_guard<std::mutex> lock(st().mu);
    st().allocations[reinterpret_cast<uintptr_t>(p)] = bytes;  // exact size: a copy past `bytes` is an error
    st().mem.allocated += static_cast<int64_t>(rounded);
    st().mem.peak = std::max(st().mem.peak, st().mem.allocated);
    ++st().mem.allocations;
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
    if (!ptr) return cudaSuccess;
    if (const cudaError_t e = cuda_emu::refuse_during_capture("cudaFree"); e != cudaSuccess) return e;
    {
        std::lock_guard<std::mutex> lock(st().mu);
        auto it = st().allocations.find(reinterpret_cast<uintptr_t>(ptr));
        if (it == st().allocations.end()) {
            st().last_error = cudaErrorInvalidValue;
            std::fprintf(stderr, "cuda_emu: cudaFree(%p): not the start of a device allocation\n", ptr);
            return cudaErrorInvalidValue;
        }
        st().mem.allocated -= static_cast<int64_t>((it->second + 255) / 256 * 256);
        st().allocations.erase(it);
    }
    std::free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
    if (!ptr) return record(cudaErrorInvalidValue);
    *ptr = std::malloc(bytes ? bytes : 1);
    if (!*ptr) return record(cudaErrorMemoryAllocation);
    std::lock_guard<std::mutex> lock(st().mu);
    st().host_pinned.insert(*ptr);
    st().pinned_ranges[reinterpret_cast<uintptr_t>(*ptr)] = bytes;
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
    if (!ptr) return cudaSuccess;
    {
        std::lock_guard<std::mutex> lock(st().mu);
        if (!st().host_pinned.erase(ptr)) return record(cudaErrorInvalidValue);
        st().pinned_ranges.erase(reinterpret_cast<uintptr_t>(ptr));
    }
    std::free(ptr);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void* ptr, std::size_t bytes, unsigned int flags) {
    (void)flags;
    if (!ptr || bytes == 0) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(st().mu);
    if (cuda_emu::in_device(ptr) || cuda_emu::pinned_host(ptr, 1)) return record(cudaErrorInvalidValue);
    st().pinned_ranges[reinterpret_cast<uintptr_t>(ptr)] = bytes;
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
    std::lock_guard<std::mutex> lock(st().mu);
    if (st().host_pinned.count(ptr) || !st().pinned_ranges.erase(reinterpret_cast<uintptr_t>(ptr)))
        return record(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    if (const cudaError_t e = cuda_emu::refuse_during_capture("cudaMemcpy"); e != cudaSuccess) return e;
    cuda_emu::count_sync();
    return cuda_emu::copy(dst, src, bytes, kind, "cudaMemcpy");
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
    if (!cuda_emu::runtime::stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cuda_emu::runtime::record(stream, [=] {
            cuda_emu::count_pinned_async(dst, src, bytes, stream);
            return cuda_emu::copy(dst, src, bytes, kind, "cudaMemcpyAsync (graph)");
        }))
        return cudaSuccess;
    cuda_emu::count_pinned_async(dst, src, bytes, stream);
    return cuda_emu::copy(dst, src, bytes, kind, "cudaMemcpyAsync");
}

cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind kind) {
    if (const cudaError_t e = cuda_emu::refuse_during_capture("cudaMemcpy2D"); e != cudaSuccess) return e;
    cuda_emu::count_sync();
    return cuda_emu::copy2d(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
    if (!cuda_emu::runtime::stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cuda_emu::runtime::record(stream, [=] { return cuda_emu::copy2d(dst, dpitch, src, spitch, width, height, kind); }))
        return cudaSuccess;
    return cuda_emu::copy2d(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes) {
    if (const cudaError_t e = cuda_emu::refuse_during_capture("cudaMemset"); e != cudaSuccess) return e;
    return cuda_emu::set(ptr, value, bytes);
}

cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t stream) {
    if (!cuda_emu::runtime::stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cuda_emu::runtime::record(stream, [=] { return cuda_emu::set(ptr, value, bytes); })) return cudaSuccess;
    return cuda_emu::set(ptr, value, bytes);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    if (!stream) return record(cudaErrorInvalidValue);
    *stream = new CUstream_st{flags};
    std::lock_guard<std::mutex> lock(st().mu);
    st().streams.insert(*stream);
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    {
        std::lock_guard<std::mutex> lock(st().mu);
        if (!stream || !st().streams.erase(stream)) return record(cudaErrorInvalidResourceHandle);
    }
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (!cuda_emu::runtime::stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
    cuda_emu::count_sync();
    return cuda_emu::refuse_during_capture("cudaStreamSynchronize");
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
    if (!event) return record(cudaErrorInvalidValue);
    *event = new CUevent_st;
    std::lock_guard<std::mutex> lock(st().mu);
    st().events.insert(*event);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    {
        std::lock_guard<std::mutex> lock(st().mu);
        if (!event || !st().events.erase(event)) return record(cudaErrorInvalidResourceHandle);
    }
    delete event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (!event || !cuda_emu::runtime::stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
    event->at = std::chrono::steady_clock::now();
    event->recorded = true;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    cuda_emu::count_sync();
    return event ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}

// Work runs when it is issued here, so every recorded event is complete.
cudaError_t cudaEventQuery(cudaEvent_t event) { return event ? cudaSuccess : record(cudaErrorInvalidResourceHandle); }

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    (void)flags;
    if (!event || !cuda_emu::runtime::stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cuda_emu::runtime::record(stream, [] { return cudaSuccess; })) return cudaSuccess;
    std::lock_guard<std::mutex> lock(st().mu);
    ++st().copies.stream_waits;
    return cudaSuccess;
}

// Host time between the records: the emulator's speed, nothing a GPU would show.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (!ms || !start || !end) return record(cudaErrorInvalidValue);
    if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
    *ms = std::chrono::duration<float, std::milli>(end->at - start->at).count();
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
    (void)mode;
    std::lock_guard<std::mutex> lock(st().mu);
    if (!stream) return fail(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture: the legacy default stream cannot capture");
    if (!st().streams.count(stream)) return record(cudaErrorInvalidResourceHandle);
    if (stream->capturing) return record(cudaErrorInvalidValue);
    stream->capturing = true;
    stream->invalidated = false;
    stream->ops.clear();
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
    if (!graph) return record(cudaErrorInvalidValue);
    *graph = nullptr;
    std::lock_guard<std::mutex> lock(st().mu);
    if (!stream || !st().streams.count(stream) || !stream->capturing) return record(cudaErrorInvalidValue);
    stream->capturing = false;
    auto ops = std::move(stream->ops);
    stream->ops.clear();
    if (stream->invalidated) return record(cudaErrorStreamCaptureInvalidated);
    *graph = new CUgraph_st{std::move(ops)};
    ++st().syncs.graph_captures;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
    if (!status) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(st().mu);
    *status = stream && st().streams.count(stream) && stream->capturing
                  ? (stream->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive)
                  : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
    (void)flags;
    if (!exec || !graph) return record(cudaErrorInvalidValue);
    *exec = new CUgraphExec_st{graph->ops};
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
    if (!exec) return record(cudaErrorInvalidValue);
    if (!cuda_emu::runtime::stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
    {
        std::lock_guard<std::mutex> lock(st().mu);
        ++st().syncs.graph_launches;
    }
    auto run = [ops = exec->ops] {
        for (const auto& op : ops)
            if (const cudaError_t e = op(); e != cudaSuccess) return e;
        return cudaSuccess;
    };
    if (cuda_emu::runtime::record(stream, run)) return cudaSuccess;
    return record(run());
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    delete exec;
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    delete graph;
    return cudaSuccess;
}
