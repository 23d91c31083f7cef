#include "engine/runtime/gpu_self_check.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "engine/session/sampler.h"

namespace snapdoc {

namespace {

std::mutex g_mutex;
GpuSelfCheckSettings g_settings;
GpuSelfCheckReport g_report;
std::set<std::string> g_forced;  // identities --gpu-self-check already re-ran in this process

// A failure on one side of the comparison, with the step it happened in.
struct StepError : std::runtime_error {
    StepError(std::string step_, const std::string& what) : std::runtime_error(what), step(std::move(step_)) {}
    std::string step;
};

std::string key_of(const GpuIdentity& id) {
    return id.device_name + '\n' + id.compute_capability + '\n' + id.driver_version + '\n' + id.snapdoc_version + '\n' +
           id.weight_type;
}

std::string sci(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2g", v);
    return buf;
}

std::string utc_now() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// Normalised squared error of one row against the reference; +inf when `got` holds NaN or Inf
// (a broken kernel often shows as NaN, which every comparison with NaN would let through).
double row_nmse(std::span<const float> got, std::span<const float> want) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (!std::isfinite(got[i])) return INFINITY;
        const double d = static_cast<double>(got[i]) - want[i];
        num += d * d;
        den += static_cast<double>(want[i]) * want[i];
    }
    return den > 0 ? num / den : num;
}

// The model's own token ids, spread over its vocabulary by a fixed generator (the same every run,
// so a verdict is reproducible; spread so that many embedding rows and output columns are read).
std::vector<int32_t> check_tokens(int vocab, int n) {
    std::vector<int32_t> ids(static_cast<std::size_t>(n));
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (auto& id : ids) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        id = static_cast<int32_t>((x >> 33) % static_cast<uint64_t>(vocab));
    }
    return ids;
}

// One backend's run of the check: the prefill's logits for every position, those of row `probe_row`
// after the embedding and after each layer (when asked: only to find where a mismatch begins), and
// the logits of each decode step. Failures come out as StepError naming the step.
struct Forward {
    std::vector<float> prefill;                 // [positions, vocab]
    std::vector<std::vector<float>> per_layer;  // [1 + n_layers][vocab], when probed
    std::vector<std::vector<float>> decode;     // [decode_steps][vocab]; empty rows for steps run without logits
    std::vector<int32_t> picked;                // each decode step's greedy token
};

// Decode steps from `tokens_only_from` on run without asking for logits: that is the path a user's
// generation takes (the CUDA backend's captured decode graph, sampling on the device), which a
// request for logits bypasses. Its steps are checked by the token they pick.
Forward run_forward(Backend& b, const std::vector<int32_t>& tokens, int positions, int decode_steps, int probe_row,
                    int tokens_only_from) {
    const ModelConfig& cfg = b.config();
    const int vocab = cfg.vocab_size;
    std::string step = "creating the KV cache and activations";
    Forward f;
    try {
        auto kv = b.create_kv_cache(
            KvCacheSpec::uniform(cfg.n_layers, cfg.n_kv_heads, cfg.head_dim, cfg.group_size(), positions + decode_steps));
        auto act = b.create_activations(positions);
        std::vector<int32_t> pos(static_cast<std::size_t>(positions));
        for (int i = 0; i < positions; ++i) pos[i] = i;
        auto probe = [&] {
            if (probe_row < 0) return;
            f.per_layer.emplace_back(vocab);
            b.logits(*act, probe_row, f.per_layer.back().data());
        };
        step = "the embedding lookup";
        b.embed(tokens.data(), positions, *act, 0);
        probe();
        for (int l = 0; l < cfg.n_layers; ++l) {
            step = "layer " + std::to_string(l) + " of the prefill";
            b.run_layer(l, *act, 0, positions, pos.data(), *kv, nullptr);
            probe();
        }
        step = "the output projection (logits) of the prefill";
        f.prefill.resize(static_cast<std::size_t>(positions) * vocab);
        for (int r = 0; r < positions; ++r) b.logits(*act, r, f.prefill.data() + static_cast<std::size_t>(r) * vocab);

        SamplingParams greedy;
        greedy.temperature = 0;
        Sampler sampler(greedy);
        for (int s = 0; s < decode_steps; ++s) {
            const int p = positions + s;
            step = "decode step " + std::to_string(s + 1) + " (position " + std::to_string(p) + ")";
            f.decode.emplace_back(s < tokens_only_from ? vocab : 0);
            // The fed token is fixed (not the sampled one), so both backends see the same sequence
            // even where a near tie makes their greedy picks differ.
            f.picked.push_back(b.decode_next(tokens[p], p, *kv, *act, sampler,
                                             std::span<const int32_t>(tokens.data(), p + 1),
                                             std::span<float>(f.decode.back())));
        }
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        throw StepError(step, e.what());
    }
    return f;
}

std::string tolerance_text(double nmse, double tol) { return "NMSE " + sci(nmse) + " > tolerance " + sci(tol); }

void set_report(const GpuSelfCheckReport& r) {
    std::lock_guard lock(g_mutex);
    const uint64_t serial = g_report.serial + 1;
    g_report = r;
    g_report.serial = serial;
}

}  // namespace

void set_gpu_self_check_settings(const GpuSelfCheckSettings& s) {
    std::lock_guard lock(g_mutex);
    // The same settings again (a CLI command building a second backend) keep what --gpu-self-check
    // already re-ran; new ones start afresh.
    if (s.enabled != g_settings.enabled || s.force != g_settings.force || s.verdict_file != g_settings.verdict_file)
        g_forced.clear();
    g_settings = s;
}

GpuSelfCheckSettings gpu_self_check_settings() {
    std::lock_guard lock(g_mutex);
    return g_settings;
}

GpuSelfCheckReport last_gpu_self_check() {
    std::lock_guard lock(g_mutex);
    return g_report;
}

std::string outcome_name(GpuSelfCheckReport::Outcome o) {
    switch (o) {
        case GpuSelfCheckReport::Outcome::Passed: return "passed";
        case GpuSelfCheckReport::Outcome::Failed: return "failed";
        case GpuSelfCheckReport::Outcome::NotRun: break;
    }
    return "not run";
}

// How the tolerances were chosen. The CPU reference runs in f32 (exact prefill: block weights
// dequantized to f32), so the difference is the device's own rounding, and a real fault is far above
// it: logits of an unrelated computation have NMSE ~1-2, and one corrupted layer of a deep model
// still ~1e-1 or more. Each tolerance sits about 10-20x above the rounding expected at that dtype on
// a deep model and 5x or more below a fault:
//   f32 weights (kept f32 on the device): only the f16 KV cache and summation order differ — NMSE
//     ~1e-7 per rounding, ~1e-6..1e-5 over a model (tests/cuda see <= 1e-5)        -> 1e-4
//   f16 (and F16 GEMM inputs): 2^-11 relative rounding of every GEMM input          -> 2e-3
//   bf16: 2^-8 relative rounding, 64x the f16 error's square                         -> 2e-2
//   blocks (Q4_K, Q8_0, ...): prefill as f16 tiles, decode on 8-bit activations on
//     both sides but with different block scales and sums                           -> 2e-2
double self_check_tolerance(DType compute_dtype, bool blocks) {
    if (blocks) return 2e-2;
    switch (compute_dtype) {
        case DType::F32: return 1e-4;
        case DType::F16: return 2e-3;
        default: return 2e-2;
    }
}

SelfCheckOutcome compare_gpu_with_cpu(const Model& model, Backend& gpu, Backend& cpu, const SelfCheckPlan& plan) {
    (void)model;
    const ModelConfig& cfg = cpu.config();
    const int vocab = cfg.vocab_size;
    const int n = std::max(1, std::min(plan.positions, cfg.context_length > 1 ? cfg.context_length - plan.decode_steps : plan.positions));
    const int steps = std::max(0, plan.decode_steps);
    const auto tokens = check_tokens(vocab, n + steps);

    const int tokens_only_from = steps / 2;  // half the decode steps by logits, half by the token picked

    SelfCheckOutcome out;
    auto gpu_forward = [&](int probe_row, Forward& into) -> bool {
        try {
            into = run_forward(gpu, tokens, n, steps, probe_row, tokens_only_from);
            return true;
        } catch (const StepError& e) {
            out.passed = false;
            out.step = e.step;
            out.detail = e.what();
            return false;
        }
    };
    auto cpu_forward = [&](int probe_row) {
        try {
            return run_forward(cpu, tokens, n, steps, probe_row, steps);
        } catch (const StepError& e) {  // the reference itself failed: not the device's fault
            throw Error("GPU self-check: the CPU reference failed at " + e.step + ": " + e.what());
        }
    };

    Forward g;
    if (!gpu_forward(-1, g)) return out;
    const Forward c = cpu_forward(-1);

    int worst_row = 0;
    for (int r = 0; r < n; ++r) {
        const auto off = static_cast<std::size_t>(r) * vocab;
        const double e = row_nmse({g.prefill.data() + off, static_cast<std::size_t>(vocab)},
                                  {c.prefill.data() + off, static_cast<std::size_t>(vocab)});
        if (e > out.worst_nmse || std::isinf(e)) {
            out.worst_nmse = e;
            worst_row = r;
        }
    }
    if (!(out.worst_nmse <= plan.tolerance)) {
        // Where does it begin? Run again, comparing the worst row after the embedding and each layer.
        out.step = "the output projection (logits) of the prefill";
        Forward gp;
        if (!gpu_forward(worst_row, gp)) return out;
        const Forward cp = cpu_forward(worst_row);
        for (std::size_t i = 0; i < cp.per_layer.size() && i < gp.per_layer.size(); ++i) {
            if (!(row_nmse(gp.per_layer[i], cp.per_layer[i]) <= plan.tolerance)) {
                out.step = i == 0 ? "the embedding lookup" : "layer " + std::to_string(i - 1) + " of the prefill";
                break;
            }
        }
        out.detail = "logits differ from the CPU backend's at position " + std::to_string(worst_row) + " (" +
                     (std::isinf(out.worst_nmse) ? std::string("NaN or Inf in the device's logits")
                                                 : tolerance_text(out.worst_nmse, plan.tolerance)) +
                     ")";
        return out;
    }
    for (int s = 0; s < steps; ++s) {
        if (s >= tokens_only_from) {
            // The device's pick must be the CPU's top token unless the two are closer than the
            // logits' allowed error: 4x the RMS difference the tolerance permits.
            const std::vector<float>& ref = c.decode[s];
            const int32_t want = c.picked[s], got = g.picked[s];
            double sq = 0;
            for (float v : ref) sq += static_cast<double>(v) * v;
            const double allowed = 4 * std::sqrt(plan.tolerance * sq / static_cast<double>(ref.size()));
            const bool in_range = got >= 0 && got < vocab;
            if (!in_range || (got != want && ref[want] - ref[got] > allowed)) {
                out.step = "decode step " + std::to_string(s + 1) + " (position " + std::to_string(n + s) + ")";
                out.detail = "the device's decode picked token " + std::to_string(got) + " where the CPU backend's top token is " +
                             std::to_string(want) +
                             (in_range ? " by a lead of " + sci(ref[want] - ref[got]) + " logits (allowed " + sci(allowed) + ")"
                                       : std::string(" (outside the vocabulary)"));
                return out;
            }
            continue;
        }
        const double e = row_nmse(g.decode[s], c.decode[s]);
        if (!(e <= plan.tolerance)) {
            out.worst_nmse = e;
            out.step = "decode step " + std::to_string(s + 1) + " (position " + std::to_string(n + s) + ")";
            out.detail = "logits differ from the CPU backend's (" +
                         (std::isinf(e) ? std::string("NaN or Inf in the device's logits") : tolerance_text(e, plan.tolerance)) + ")";
            return out;
        }
        out.worst_nmse = std::max(out.worst_nmse, e);
    }
    out.passed = true;
    return out;
}

std::unique_ptr<Backend> gate_gpu_backend(const Model& model, const BackendOptions& options,
                                          const GpuCandidate& candidate, bool may_fall_back) {
    const GpuSelfCheckSettings settings = gpu_self_check_settings();
    const GpuVerdictCache cache(settings.verdict_file.empty() ? GpuVerdictCache::default_file() : settings.verdict_file);
    const GpuIdentity& id = candidate.identity;
    bool forced = false;
    if (settings.force) {
        std::lock_guard lock(g_mutex);
        forced = g_forced.insert(key_of(id)).second;  // once per identity and process, not per backend
    }

    GpuSelfCheckReport report;
    report.device = id.device_text();
    report.verdict_file = cache.file().string();
    std::unique_ptr<Backend> gpu;
    std::optional<GpuVerdict> verdict = forced ? std::nullopt : cache.find(id);
    if (verdict) {
        report.remembered = true;
        if (verdict->passed) gpu = candidate.make();
    } else {
        gpu = candidate.make();  // a load error (e.g. out of memory) propagates: not a verdict
        BackendOptions ref = options;
        ref.exact_prefill = true;  // the f32 reference: only the device's rounding differs
        auto cpu = make_cpu_backend(model, ref);
        SelfCheckPlan plan;
        plan.tolerance = self_check_tolerance(candidate.compute_dtype, candidate.blocks);
        spdlog::info("GPU self-check on {}: {} positions and {} decode steps of {} vs the CPU (tolerance {})",
                     report.device, plan.positions, plan.decode_steps, model.config.name, sci(plan.tolerance));
        const SelfCheckOutcome o = compare_gpu_with_cpu(model, *gpu, *cpu, plan);
        GpuVerdict v;
        v.passed = o.passed;
        v.step = o.step;
        v.model = model.config.name.empty() ? model.path.filename().string() : model.config.name;
        v.worst_nmse = std::isfinite(o.worst_nmse) ? o.worst_nmse : 1e300;
        v.tolerance = plan.tolerance;
        v.checked_at = utc_now();
        v.message = o.passed ? "GPU self-check passed on " + report.device + " (worst logits NMSE " + sci(o.worst_nmse) +
                                   " vs the CPU, tolerance " + sci(plan.tolerance) + " for " + id.weight_type + " weights)"
                             : "GPU self-check failed on " + report.device + ": " + o.step + ": " + o.detail;
        if (!o.passed) gpu.reset();  // a failed launch may leave the context unusable: nothing more runs there
        try {
            cache.store(id, v);
        } catch (const std::exception& e) {
            spdlog::warn("could not remember the GPU self-check verdict ({}); it will run again next time", e.what());
        }
        verdict = std::move(v);
    }

    report.outcome = verdict->passed ? GpuSelfCheckReport::Outcome::Passed : GpuSelfCheckReport::Outcome::Failed;
    report.step = verdict->step;
    report.message = verdict->message;
    if (report.remembered) {
        report.message += verdict->passed ? " (remembered from " + verdict->checked_at + ")"
                                          : " (remembered from " + verdict->checked_at + "; --gpu-self-check runs it again)";
    }
    if (verdict->passed) {
        spdlog::info("{}", report.message);
        set_report(report);
        return gpu;
    }
    if (!may_fall_back) {
        set_report(report);
        throw Error(report.message + ". --device cuda does not fall back; use --device auto or cpu");
    }
    report.fell_back = true;
    report.message += "; using the CPU instead";
    spdlog::warn("{}", report.message);
    set_report(report);
    return make_cpu_backend(model, options);
}

}  // namespace snapdoc
