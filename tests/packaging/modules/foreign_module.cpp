// A CUDA module "from another build": the right entry point with another build id, which the
// loader must refuse before calling anything in it (test_cuda_module_loader).
#include "engine/runtime/cuda_module.h"

extern "C" const snapdoc::CudaModuleApi* snapdoc_cuda_module_v1() {
    static const snapdoc::CudaModuleApi api = [] {
        snapdoc::CudaModuleApi a;
        a.build_id = "0.0.0 elsewhere";
        return a;
    }();
    return &api;
}
