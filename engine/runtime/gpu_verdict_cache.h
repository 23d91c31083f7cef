// The remembered outcome of the GPU self-check (engine/runtime/gpu_self_check.h): one small JSON file
// in the user's cache folder, so the check runs once per device, driver, snapdoc version and weight
// type, not at every start. A missing, unreadable or corrupt file is never an error: it is ignored
// (with a warning for the corrupt case) and the check simply runs again.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace snapdoc {

// What a verdict is keyed by. Any change in one of these re-runs the check: a new driver or a new
// snapdoc build can fix or break a kernel, and the weight type decides which kernels run.
struct GpuIdentity {
    std::string device_name;         // "NVIDIA H200"
    std::string compute_capability;  // "9.0"
    std::string driver_version;      // "550.54.15 (CUDA 12.4)"
    std::string snapdoc_version;     // the build's version
    std::string weight_type;         // "bf16", "f16", "f32", "blocks:Q4_K" ... (what the kernels compute in)

    // "NVIDIA H200 (compute 9.0, driver 550.54.15 (CUDA 12.4))": how messages name the device.
    std::string device_text() const;
    bool operator==(const GpuIdentity&) const = default;
};

// This build's version (the project version CMake knows), part of every identity.
std::string snapdoc_engine_version();

struct GpuVerdict {
    bool passed = false;
    std::string message;     // the whole user-facing sentence (names the device and the failing step)
    std::string step;        // the failing step ("layer 3 of the prefill"), "" when passed
    std::string model;       // the model the check ran (for the person reading the file)
    double worst_nmse = 0;   // the largest per-position logits NMSE seen (0 when an error stopped it)
    double tolerance = 0;    // the NMSE allowed for this weight type
    std::string checked_at;  // UTC, ISO 8601
};

class GpuVerdictCache {
public:
    explicit GpuVerdictCache(std::filesystem::path file);

    // $SNAPDOC_GPU_VERDICT_FILE when set (tests, scripts), else $XDG_CACHE_HOME/snapdoc/gpu-self-check.json,
    // else ~/.cache/snapdoc/gpu-self-check.json (the folder the K/V cache already uses).
    static std::filesystem::path default_file();

    // The verdict remembered for exactly this identity, if any. A corrupt file logs a warning that
    // names it and reads as empty.
    std::optional<GpuVerdict> find(const GpuIdentity& id) const;

    // Remembers `v` for `id` (replacing the entry with the same identity and dropping entries of the
    // same device under another driver or snapdoc version: they cannot be hit again). Written to a
    // temporary file and renamed over the old one, so a reader sees the old or the new file, never a
    // part. Throws Error when the folder or file cannot be written.
    void store(const GpuIdentity& id, const GpuVerdict& v) const;

    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

}  // namespace snapdoc
