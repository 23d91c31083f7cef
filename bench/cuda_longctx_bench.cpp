// The issue-13 benchmark table on one GPU (scripts/gpu-check.sh runs it): random weights of a real
// shape made in memory (bench/random_model.h), then, through the engine's public API as the app
// uses it:
//   prefill   the document + question prefill at --context tokens (DocumentSession: layer-major,
//             the document's full K/V kept for re-snap), stopped after --prefill-seconds;
//   decode    greedy tok/s at that depth on a SnapKV-compressed cache (--budget) and on the full one;
//   resnap    time to the first token of a second question (re-snap over the stored document K/V),
//             with the backend's default store: the document's full K/V kept on the GPU when they
//             fit (an H200 at 100K), so a re-snap uploads none;
//   peak      device memory at most in use over those, in that store mode (the store's describe()
//             line goes to the log);
//   staged    the peak again with the model re-loaded under keep_full_kv_on_device = false: the
//             full K/V staged a layer at a time through pinned host memory, the plan a 24 GB card
//             gets (a prefill + re-snap, stopped after --staged-seconds);
//   fit       the longest prompt that fits (bench/longctx_memory_plan.h, one-question path), checked
//             by one real prefill of that length, stopped after --fit-seconds (its allocations and
//             first chunks are what can fail).
// Every row is printed and appended to --results as soon as it is measured, so a run cut short by
// a time limit still leaves what it got.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "app/common/args.h"
#include "bench/bench_util.h"
#include "bench/benches.h"
#include "bench/device_memory_sampler.h"
#include "bench/longctx_memory_plan.h"
#include "bench/random_model.h"
#include "engine/common/error.h"
#include "engine/common/memory_stats.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/backend_full_kv.h"
#include "engine/session/compressed_prefill.h"
#include "engine/session/document_session.h"

#ifdef SNAPDOC_HAVE_CUDA  // set for this file by bench/CMakeLists.txt when the backend is built
#include "engine/runtime/cuda/cuda_backend.h"
#endif

namespace snapdoc::bench {

namespace {

std::string utc_now(const char* format) {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[64];
    std::strftime(b, sizeof b, format, &tm);
    return b;
}

template <typename... A>
std::string fmt(const char* f, A... a) {
    char buf[512];
    std::snprintf(buf, sizeof buf, f, a...);
    return buf;
}

// Rows to stdout and, appended and flushed one by one, to the results file.
class ResultsTable {
public:
    ResultsTable(const std::string& path, std::string shape) : shape_(std::move(shape)) {
        if (!path.empty()) {
            file_ = std::fopen(path.c_str(), "a");
            if (!file_) throw Error("cannot open --results file " + path);
        }
    }
    ~ResultsTable() {
        if (file_) std::fclose(file_);
    }
    void line(const std::string& text) {
        for (std::FILE* f : {stdout, file_}) {
            if (!f) continue;
            std::fprintf(f, "%s\n", text.c_str());
            std::fflush(f);
        }
    }
    void row(const std::string& what, const std::string& value, const std::string& target = "") {
        char b[1024];
        std::snprintf(b, sizeof b, "%-17s | %-44s | %-62s | %s", shape_.c_str(), what.c_str(), value.c_str(), target.c_str());
        line(b);
    }

private:
    std::string shape_;
    std::FILE* file_ = nullptr;
};

// Sets `flag` after `seconds` unless finished first (the engine's cancel points then stop the work).
class Deadline {
public:
    Deadline(std::atomic<bool>& flag, double seconds)
        : thread_([this, &flag, seconds] {
              std::unique_lock lock(mu_);
              if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) flag = true;
          }) {}
    ~Deadline() {
        {
            std::lock_guard lock(mu_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

std::set<std::string> parse_measures(const std::string& text) {
    static const std::set<std::string> known = {"prefill", "decode", "resnap", "staged", "fit"};
    std::set<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        if (item.empty()) continue;
        if (!known.count(item))
            throw Error("--measure: unknown item '" + item + "' (prefill, decode, resnap, staged, fit)");
        out.insert(item);
    }
    return out;
}

std::string default_results_path(const std::string& device, const std::string& shape, int context) {
    return utc_now("%Y-%m-%d") + "-" + device + "-longctx-" + shape + "-" + std::to_string(context / 1000) + "k.txt";
}

// The backend on `device`; on a CUDA device `keep_kv_on_device` = false makes a document session
// stage its full K/V through host memory even when they would fit (the peak of a smaller card).
std::unique_ptr<Backend> make_bench_backend(const Model& model, const BackendOptions& opts, const std::string& device,
                                            bool keep_kv_on_device) {
#ifdef SNAPDOC_HAVE_CUDA
    if (resolve_device(device) == "cuda" && cuda_device_count() > 0) {
        CudaBackendOptions cuda;
        cuda.keep_full_kv_on_device = keep_kv_on_device;
        return make_cuda_backend(model, opts, cuda);
    }
#endif
    (void)keep_kv_on_device;
    return make_backend(model, opts, device);
}

// Where the session keeps the document's full K/V, for row labels.
std::string store_mode(const DocumentSession& s) {
    if (!s.backend_kv_store()) return "K/V store on host";
    return s.backend_kv_store()->resident() ? "K/V store on GPU" : "K/V store staged";
}

void log_store(ResultsTable& table, const std::string& pass, const DocumentSession& s) {
    table.line("# " + pass + ": document K/V store: " +
               (s.backend_kv_store() ? s.backend_kv_store()->describe() : std::string("the session's host store (no backend store)")));
}

}  // namespace

int bench_cuda_longctx(int argc, char** argv) {
    const cli::Args args({{{"--shape"}},
                          {{"--context"}},
                          {{"--budget"}},
                          {{"--window"}},
                          {{"--question"}},
                          {{"--gen-tokens"}},
                          {{"--device"}},
                          {{"--layers"}},
                          {{"--chunk"}},
                          {{"--measure"}},
                          {{"--prefill-seconds"}},
                          {{"--staged-seconds"}},
                          {{"--fit-seconds"}},
                          {{"--fit-max-tokens"}},
                          {{"--results"}}},
                         argc, argv, 2);
    const RandomModelShape& shape = find_random_model_shape(args.str("shape", "mistral-7b-bf16"));
    const int context = args.integer("context", 100000);
    const int question = args.integer("question", 24);
    const int gen = args.integer("gen-tokens", 32);
    const int chunk = args.integer("chunk", 512);
    const std::string device = args.str("device", "cuda");
    const auto measures = parse_measures(args.str("measure", "prefill,decode,resnap,staged,fit"));
    const double prefill_limit = args.real("prefill-seconds", 300.f);
    const double staged_limit = args.real("staged-seconds", static_cast<float>(prefill_limit));
    const double fit_limit = args.real("fit-seconds", 20.f);
    const int64_t fit_max = args.integer64("fit-max-tokens", 0);
    SnapKvConfig snap;
    snap.budget = args.integer("budget", 2048);
    snap.window = args.integer("window", 32);
    snap.validate();
    SnapKvConfig full = snap;
    full.enabled = false;
    if (question < 1 || question > context / 2) throw Error("--question must be in 1..context/2");
    if (context <= snap.budget + question) throw Error("--context must exceed --budget + --question");
    if (gen < 2) throw Error("--gen-tokens must be at least 2");

    ResultsTable table(args.str("results", default_results_path(device, shape.name, context)), shape.name);
    table.line("");
    table.line("# " + utc_now("%Y-%m-%dT%H:%MZ") + " snapdoc-bench cuda-longctx --shape " + shape.name + " --context " +
               std::to_string(context) + " --budget " + std::to_string(snap.budget) + " --window " +
               std::to_string(snap.window) + " (device " + device + ")");
    table.line("# " + shape.description + "; random weights made in memory, every layer's views on one set of "
               "values (speed does not depend on them; the device holds each layer)");

    // --- the model on the device ---------------------------------------------------------------
    const auto t_gen = Clock::now();
    auto model = make_random_model(shape, args.integer("layers", 0));
    const double gen_s = seconds_since(t_gen);
    const ModelConfig& cfg = model->config;
    BackendOptions opts;
    opts.max_chunk_rows = chunk;
    const DeviceMemoryUse before = cuda_memory_use();
    const auto t_up = Clock::now();
    const bool wants_session = measures.count("prefill") || measures.count("decode") || measures.count("resnap");
    // Without the resident pass the first backend already runs the staged plan (fit uses no store).
    auto backend = make_bench_backend(*model, opts, device, wants_session || !measures.count("staged"));
    const double upload_s = seconds_since(t_up);
    DeviceMemoryUse loaded = cuda_memory_use();
    DeviceMemorySampler sampler;
    table.row("model", bytes_text(random_model_weight_bytes(*model)) + " of weights (" + random_model_type_mix(*model) +
                           "), made in " + fmt("%.1f s", gen_s) + ", loaded in " + fmt("%.1f s", upload_s),
              "device " + bytes_text(loaded.used) + " in use of " + bytes_text(loaded.total) + " (before the model: " + bytes_text(before.used) + ")");

    // --- prefill, decode, re-snap, peak ----------------------------------------------------------
    double prefill_s = 0;
    bool prefilled = false;
    DocumentSessionOptions so;
    so.chunk_rows = chunk;
    // The app's default spills the host store to a file above 8 GiB; the benchmark keeps it in RAM
    // when the machine has it, so a disk does not set the numbers.
    so.kv_ram_cap_bytes = std::max<int64_t>(so.kv_ram_cap_bytes, physical_memory_bytes() * 6 / 10);
    if (wants_session) {
        auto session = std::make_unique<DocumentSession>(*backend, so);
        const auto ids = random_ids(context, cfg.vocab_size, 42);
        std::atomic<bool> cancel{false};
        double fraction = 0;
        sampler.reset_peak();
        const auto t0 = Clock::now();
        auto progress = [&](const PrefillProgress& p) {
            fraction = p.fraction;
            if (seconds_since(t0) > prefill_limit) cancel = true;
        };
        const std::string what = "prefill " + std::to_string(context) + " tokens (document + question)";
        try {
            session->prefill_document(std::span(ids).first(context - question), progress, &cancel);
            session->set_question(std::span(ids).last(question), snap.window);
            prefill_s = seconds_since(t0);
            prefilled = true;
            log_store(table, "default store mode", *session);
            table.row(what, fmt("%.2f s (%.0f tok/s)", prefill_s, context / prefill_s), "<= 6 s (floor ~4 s)");
        } catch (const Cancelled&) {
            const double s = seconds_since(t0);
            log_store(table, "default store mode", *session);
            table.row(what,
                      fmt("stopped after %.0f s at %.1f%% of the work (~%.0f s in all)", s, 100 * fraction,
                          fraction > 0 ? s / fraction : 0),
                      "<= 6 s (floor ~4 s)");
        }
        if (prefilled && measures.count("decode")) {
            const auto sel = session->select(snap);
            table.row("decode @" + std::to_string(context) + ", SnapKV-" + std::to_string(snap.budget),
                      fmt("%.1f tok/s (%d tokens)", decode_tps(*session, *sel, gen), gen), ">= 300 tok/s (floor ~331)");
        }
        if (prefilled && measures.count("resnap")) {
            const auto q2 = random_ids(question, cfg.vocab_size, 43);
            const auto t1 = Clock::now();
            session->set_question(q2, snap.window);
            const auto sel = session->select(snap);
            GenerationRequest r;
            r.max_new_tokens = 1;
            r.sampling.temperature = 0;
            r.stop_at_eos = false;
            session->answer(*sel, r);
            const double ttft = seconds_since(t1);
            table.row("re-snap: 2nd question TTFT @" + std::to_string(context),
                      fmt("%.3f s (%.1f%% of the prefill; ", ttft, 100 * ttft / prefill_s) + store_mode(*session) + ")",
                      "<= 5% of the prefill");
        }
        if (prefilled && measures.count("decode")) {
            const auto sel = session->select(full);
            table.row("decode @" + std::to_string(context) + ", full KV",
                      fmt("%.1f tok/s (%d tokens)", decode_tps(*session, *sel, gen), gen));
        }
        const int64_t peak = sampler.peak();
        const LongPromptPlan plan = long_prompt_plan(cfg, 0);
        const int64_t weights = loaded.used - before.used;
        // With the store on the GPU this is not the 24 GB-card figure (the "staged" row is).
        const bool on_gpu = session->backend_kv_store() && session->backend_kv_store()->resident();
        table.row("peak device memory @" + std::to_string(context) + ", " + store_mode(*session),
                  bytes_text(peak) + " in use (" + bytes_text(peak - loaded.used) + " above the loaded model; document K/V store " +
                      bytes_text(session->full_store_bytes()) + (session->store_file_backed() ? ", spilled to a file)" : ")"),
                  on_gpu ? "none (store kept on the GPU: fast re-snap)" : "<= 22 GB (a 24 GB card)");
        table.row("plan for a 24 GB card @" + std::to_string(context),
                  bytes_text(weights + plan.bytes_for(context) + plan.reserve) + " = model " + bytes_text(weights) + " + prompt " +
                      bytes_text(plan.bytes_for(context)) + " + reserve " + bytes_text(plan.reserve) + " (full K/V store " +
                      bytes_text(plan.store_per_token * context) + " in host memory)",
                  "<= 22 GB");
    }

    // --- the staged plan's peak (keep_full_kv_on_device = false) ---------------------------------
    if (measures.count("staged") && sampler.total() == 0) {
        table.row("peak device memory @" + std::to_string(context) + ", staged plan",
                  "not measured (no CUDA device in this run)", "<= 22 GB (a 24 GB card)");
    } else if (measures.count("staged")) {
        if (wants_session) {  // the first backend kept the store on the GPU: load the model again
            backend.reset();
            const auto t_re = Clock::now();
            backend = make_bench_backend(*model, opts, device, false);
            loaded = cuda_memory_use();
            table.line(fmt("# staged plan: model loaded again with keep_full_kv_on_device = false in %.1f s",
                           seconds_since(t_re)));
        }
        DocumentSession session(*backend, so);
        const auto ids = random_ids(context, cfg.vocab_size, 42);
        std::atomic<bool> cancel{false};
        double fraction = 0;
        std::string covered;
        sampler.reset_peak();
        const auto t0 = Clock::now();
        try {
            Deadline deadline(cancel, staged_limit);
            session.prefill_document(std::span(ids).first(context - question),
                                     [&](const PrefillProgress& p) { fraction = p.fraction; }, &cancel);
            session.set_question(std::span(ids).last(question), snap.window);
            // A second question's re-snap streams every layer through the staging slots.
            session.set_question(random_ids(question, cfg.vocab_size, 43), snap.window);
            const auto sel = session.select(snap);
            GenerationRequest r;
            r.max_new_tokens = 1;
            r.sampling.temperature = 0;
            r.stop_at_eos = false;
            session.answer(*sel, r);
            covered = fmt("prefill + re-snap, %.1f s", seconds_since(t0));
        } catch (const Cancelled&) {
            covered = fmt("prefill stopped after %.0f s at %.1f%% of the work", seconds_since(t0), 100 * fraction);
        }
        log_store(table, "staged plan", session);
        const BackendFullKv* store = session.backend_kv_store();
        table.row("peak device memory @" + std::to_string(context) + ", staged plan",
                  bytes_text(sampler.peak()) + " in use (" + bytes_text(sampler.peak() - loaded.used) +
                      " above the loaded model, staging " + bytes_text(store ? store->device_bytes() : 0) + "; " + covered + ")",
                  "<= 22 GB (a 24 GB card)");
    }

    // --- the longest prompt that fits ------------------------------------------------------------
    if (measures.count("fit") && sampler.total() == 0) {
        table.row("longest prompt that fits", "not measured (no CUDA device in this run)");
    } else if (measures.count("fit")) {
        const DeviceMemoryUse now = cuda_memory_use();
        const int64_t free = now.total - now.used;
        const LongPromptPlan plan = long_prompt_plan(cfg, free);
        int64_t tokens = plan.longest_prompt(free);
        // Prompt lengths and cache capacities are ints; the host keeps 2 x tokens x head_dim floats.
        tokens = std::min<int64_t>(tokens, (int64_t{1} << 31) - (int64_t{1} << 20));
        if (fit_max > 0) tokens = std::min(tokens, fit_max);
        table.row("longest prompt that fits (predicted)",
                  std::to_string(tokens) + " tokens: " + bytes_text(free) + " free after the model, " +
                      std::to_string(plan.per_token()) + " B/token + " + bytes_text(plan.slack + plan.reserve) + " kept",
                  ">= 1M tokens (SnapKV paper: 380K, A100 80 GB)");
        const int64_t host = physical_memory_bytes();
        if (host > 0 && plan.store_per_token > 0)
            table.row("  re-snap store bound (host RAM)",
                      std::to_string(host / plan.store_per_token) + " tokens of f16 full K/V in " + bytes_text(host) +
                          " of host memory (the document session keeps it; larger spills to disk)");
        for (int attempt = 0; attempt < 2 && tokens > snap.budget + question; ++attempt) {
            const auto ids = random_ids(static_cast<int>(tokens), cfg.vocab_size, 44);
            std::atomic<bool> cancel{false};
            sampler.reset_peak();
            const auto t0 = Clock::now();
            std::string outcome;
            bool refused = false;
            try {
                Deadline deadline(cancel, fit_limit);
                prefill_compressed(*backend, ids, snap, gen, chunk, &cancel);
                outcome = fmt("completed in %.1f s", seconds_since(t0));
            } catch (const Cancelled&) {
                outcome = fmt("allocated and ran %.1f s, then stopped", seconds_since(t0));
            } catch (const Error& e) {
                outcome = std::string("refused: ") + e.what();
                refused = true;
            }
            table.row("longest prompt that fits (checked)",
                      std::to_string(tokens) + " tokens " + outcome + "; device peak " + bytes_text(sampler.peak()) + " of " +
                          bytes_text(now.total) + " (plan " + bytes_text(now.used + plan.bytes_for(tokens)) + ")");
            if (!refused) break;
            tokens = tokens * 9 / 10;  // one more try, 10% shorter
        }
    }
    return 0;
}

}  // namespace snapdoc::bench
