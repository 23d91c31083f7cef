#include "engine/runtime/cuda/cuda_gpu_identity.h"

#include <cuda_runtime_api.h>

#include <fstream>
#include <regex>
#include <string>

#include "engine/model/model.h"
#include "engine/runtime/cuda/cuda_backend.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "engine/runtime/cuda/device_weights.h"

namespace snapdoc {

namespace {

// "550.54.15" from "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ..." (Linux);
// "" where the file is absent (containers without it, the emulator).
std::string kernel_module_version() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string line;
    if (!in || !std::getline(in, line)) return "";
    std::smatch m;
    static const std::regex version(R"((\d+\.\d+(\.\d+)?))");
    const auto at = line.find("Kernel Module");
    const std::string tail = at == std::string::npos ? line : line.substr(at);
    return std::regex_search(tail, m, version) ? m.str(1) : "";
}

}  // namespace

GpuIdentity cuda_gpu_identity(const Model& model, int device) {
    cudaDeviceProp p{};
    cuda::check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
    int driver = 0;
    cuda::check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    const std::string cuda_version =
        "CUDA " + std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10);
    const std::string module = kernel_module_version();

    GpuIdentity id;
    id.device_name = p.name;
    id.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
    id.driver_version = module.empty() ? cuda_version : module + " (" + cuda_version + ")";
    id.snapdoc_version = snapdoc_engine_version();
    const DType compute = cuda_weight_dtype(model);
    id.weight_type = cuda::device_weights_have_blocks(model, true)
                         ? "blocks:" + std::string(dtype_name(model.config.weight_dtype))
                         : std::string(dtype_name(compute));
    return id;
}

GpuCandidate cuda_self_check_candidate(const Model& model, const BackendOptions& options) {
    GpuCandidate c;
    c.identity = cuda_gpu_identity(model);
    c.compute_dtype = cuda_weight_dtype(model);
    c.blocks = cuda::device_weights_have_blocks(model, true);
    c.make = [&model, options] { return make_cuda_backend(model, options); };
    return c;
}

}  // namespace snapdoc
