// The GPU self-check: before a CUDA device is trusted with a user's model, a short forward of that
// model runs on the device and on the CPU backend and their logits are compared. A mismatch, an
// error or a failed kernel launch makes "auto" fall back to the CPU with a message naming the device
// and the failing step (and an explicit "cuda" refuse with the same message). The verdict is
// remembered per device, compute capability, driver, snapdoc version and weight type
// (gpu_verdict_cache.h), so later starts skip the check. docs/gpu-self-check.md has the whole story.
//
// This file is CUDA-free: the CUDA side hands in the device's identity and a way to build the GPU
// backend (backend_factory.cpp), so the check works the same whether that backend is linked in, emulated
// in the tests, or loaded as a module.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "engine/model/dtype.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/gpu_verdict_cache.h"

namespace snapdoc {

// Process-wide switch, set once at start by the apps (CLI, server, GUI). Off by default, so library
// users that build backends directly (tests, benches) are not checked unless they ask.
struct GpuSelfCheckSettings {
    bool enabled = false;
    bool force = false;                  // --gpu-self-check: run even when a verdict is remembered (once per process)
    std::filesystem::path verdict_file;  // empty: GpuVerdictCache::default_file()
};
void set_gpu_self_check_settings(const GpuSelfCheckSettings& s);
GpuSelfCheckSettings gpu_self_check_settings();

// What happened the last time a CUDA backend was chosen in this process, for the apps to show
// (status bar, Settings, /props, stderr).
struct GpuSelfCheckReport {
    enum class Outcome { NotRun, Passed, Failed };
    Outcome outcome = Outcome::NotRun;
    bool remembered = false;  // the verdict came from the verdict file, nothing ran now
    bool fell_back = false;   // the CPU backend is used instead of the device
    std::string device;       // GpuIdentity::device_text()
    std::string step;         // the failing step, "" unless failed
    std::string message;      // one sentence for the user ("" when not run)
    std::string verdict_file;
    uint64_t serial = 0;  // counts the gates run in this process: a caller tells a fresh report from an old one
};
GpuSelfCheckReport last_gpu_self_check();
std::string outcome_name(GpuSelfCheckReport::Outcome o);  // "not run", "passed", "failed"

// Allowed per-position logits NMSE between the device and the CPU, by the dtype the device computes
// in (`blocks`: block-quantized weights kept in their blocks). See the .cpp for how they were chosen.
double self_check_tolerance(DType compute_dtype, bool blocks);

// The comparison itself, on two ready backends of the same model. Never throws for a failure on
// `gpu` (it becomes passed = false with the step); an error of the CPU reference is rethrown.
struct SelfCheckOutcome {
    bool passed = false;
    std::string step;    // "layer 3 of the prefill", "decode step 2 (position 33)", ...
    std::string detail;  // "logits differ from the CPU: NMSE 0.8 > 0.01 at position 7" or the error text
    double worst_nmse = 0;
};
struct SelfCheckPlan {
    int positions = 32;    // prompt positions prefilled (a few dozen: every kernel of the prefill runs)
    // Then batch-1 decode steps (the decode kernels differ from the prefill's): the first half compared
    // by their logits, the rest run as generation runs them (no logits asked: the CUDA decode graph)
    // and compared by the token they pick.
    int decode_steps = 4;
    double tolerance = 1e-2;
};
SelfCheckOutcome compare_gpu_with_cpu(const Model& model, Backend& gpu, Backend& cpu, const SelfCheckPlan& plan);

// What backend_factory hands in for a CUDA device.
struct GpuCandidate {
    GpuIdentity identity;
    DType compute_dtype = DType::F32;
    bool blocks = false;
    std::function<std::unique_ptr<Backend>()> make;  // builds the device backend (errors propagate)
};

// The gate: the remembered verdict or a fresh check (stored), then the device backend when it passed,
// else the CPU backend (`may_fall_back`, "auto") or an Error with the message (explicit "cuda").
// An error while building the device backend (e.g. the model does not fit) propagates unchanged and
// is not remembered: it says nothing about the device's correctness.
std::unique_ptr<Backend> gate_gpu_backend(const Model& model, const BackendOptions& options,
                                          const GpuCandidate& candidate, bool may_fall_back);

}  // namespace snapdoc
