#include "app/common/gpu_self_check_report.h"

#include "engine/runtime/backend_factory.h"

namespace snapdoc {

std::string gpu_self_check_line(const GpuSelfCheckReport& r, const std::string& backend) {
    if (r.outcome != GpuSelfCheckReport::Outcome::NotRun) return r.message;
    if (!cuda_backend_built()) return "GPU self-check: not run (this build has no CUDA backend; using the " + backend + ")";
    if (!cuda_backend_usable()) return "GPU self-check: not run (no usable CUDA device; using the " + backend + ")";
    return "GPU self-check: not run (the " + backend + " backend was chosen)";
}

nlohmann::json gpu_self_check_json(const GpuSelfCheckReport& r, const std::string& backend) {
    return {{"outcome", outcome_name(r.outcome)},
            {"remembered", r.remembered},
            {"fell_back", r.fell_back},
            {"device", r.device},
            {"step", r.step},
            {"message", gpu_self_check_line(r, backend)},
            {"verdict_file", r.verdict_file}};
}

}  // namespace snapdoc
