// Every modelzoo GGUF (../shared/fixtures/modelzoo, see its README) against its oracles: logits at
// every stored position of the short prompt and of the 1024-token `long` sequence (up to position
// 1023, where rope scaling shows), the teacher-forced greedy argmax, using the ids stored in the
// oracle files (no tokenizer involved). Where an exact float64 reference exists (ref-*.json,
// ref-logits*-Q8_0.f32) snapdoc must match it to 1e-3; everywhere it is also compared with
// llama.cpp's own logits at the README's measured tolerances (llama.cpp rounds activations).
// Prints the max |snapdoc - exact| and |snapdoc - llama.cpp| per file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>

#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/cpu/kernel_level.h"
#include "engine/session/prefill.h"
#include "engine/session/run_context.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using nlohmann::json;

constexpr double kExactTolerance = 1e-3;

struct ZooCase {
    const char* folder;          // under modelzoo/
    const char* variant;         // Q8_0, F16, ...
    const char* oracle;          // oracle-<...>.json: llama.cpp's data (n_ctx inside)
    bool has_exact;              // ref-<variant>.json exists
    double llama_cpp_tolerance;  // README: ~0.05 F16, ~0.6 quantized
};

std::string gguf_path(const ZooCase& c) {
    return std::string("modelzoo/") + c.folder + "/" + c.folder + "-" + c.variant + ".gguf";
}
std::string file_in(const ZooCase& c, const std::string& name) {
    return std::string("modelzoo/") + c.folder + "/" + name;
}

json read_json(const std::string& rel) {
    return json::parse(read_text_file(fixture_path(rel)));
}

std::vector<float> read_f32_file(const std::filesystem::path& path) {
    const std::string bytes = read_text_file(path);
    std::vector<float> out(bytes.size() / 4);
    std::memcpy(out.data(), bytes.data(), out.size() * 4);
    return out;
}
std::vector<float> read_f32(const std::string& rel) {
    return read_f32_file(fixture_path(rel));
}

// What a run changes from the product's defaults (one activation plane, the f16 attention cache).
struct RunVariant {
    bool exact_prefill = false;
    bool kv_f32 = false;  // --kv-f32: the exact f32 attention cache
    bool precise = false;  // --precise-activations
};

// Runs `ids` at positions 0..n-1 in one pass and returns the logits rows at `positions`.
std::map<int, std::vector<float>> logits_at(const Model& m, const std::vector<int32_t>& ids,
                                            const std::vector<int>& positions, int context_length,
                                            RunVariant variant = {}) {
    BackendOptions o;
    o.threads = 2;
    o.context_length = context_length;
    o.exact_prefill = variant.exact_prefill;
    if (variant.kv_f32) o.kv_f16 = false;
    o.precise_activations = variant.precise;
    auto backend = make_cpu_backend(m, o);
    const int n = static_cast<int>(ids.size());
    auto kv = make_full_kv_cache(*backend, n);
    auto act = backend->create_activations(n);
    std::vector<int32_t> pos(n);
    std::iota(pos.begin(), pos.end(), 0);
    backend->embed(ids.data(), n, *act, 0);
    for (int l = 0; l < m.config.n_layers; ++l) backend->run_layer(l, *act, 0, n, pos.data(), *kv, nullptr);
    std::map<int, std::vector<float>> out;
    for (int p : positions) {
        std::vector<float> row(m.config.vocab_size);
        backend->logits(*act, p, row.data());
        out[p] = std::move(row);
    }
    return out;
}

// The same model with every weight widened to f32 (dequantization is exact). The engine's
// batch-1 path for quantized weights rounds the activations to 8 bits, as llama.cpp does; on
// this copy every product is f32, so it must match the float64 reference to 1e-3.
Model widened_to_f32(const Model& m) {
    Model out = m;
    std::map<const void*, TensorView> done;
    const auto widen = [&](TensorView& v) {
        if (!v.valid() || v.dtype == DType::F32) return;
        if (auto it = done.find(v.data); it != done.end() && it->second.shape == v.shape) {
            v = it->second;
            return;
        }
        auto buf = std::make_shared<std::vector<uint8_t>>(static_cast<std::size_t>(v.numel()) * 4);
        auto* f = reinterpret_cast<float*>(buf->data());
        for (int64_t r = 0; r < v.rows(); ++r)
            dequantize_row(v.dtype, v.row_ptr(r), f + r * v.cols(), v.cols());
        const void* key = v.data;
        v.dtype = DType::F32;
        v.data = buf->data();
        v.nbytes = buf->size();
        out.owned_buffers.push_back(std::move(buf));
        done[key] = v;
    };
    widen(out.weights.tok_embeddings);
    for (LayerWeights& l : out.weights.layers)
        for (const TensorView* v : l.views()) widen(const_cast<TensorView&>(*v));
    widen(out.weights.out_norm);
    widen(out.weights.output);
    return out;
}

// Max |ours[id] - logit| over a stored top-10 list [[id, logit], ...].
double top10_error(const std::vector<float>& ours, const json& top10) {
    double e = 0;
    for (const json& entry : top10)
        e = std::max(e, std::fabs(ours.at(entry[0].get<int>()) - entry[1].get<double>()));
    return e;
}

double row_error(const std::vector<float>& ours, const float* theirs) {
    double e = 0;
    for (std::size_t i = 0; i < ours.size(); ++i)
        e = std::max(e, std::fabs(static_cast<double>(ours[i]) - theirs[i]));
    return e;
}

int argmax(const std::vector<float>& v) {
    return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

// One stored sequence (the short prompt or the long one) and its oracle data.
struct Sequence {
    std::vector<int32_t> ids;
    std::vector<int> positions;  // where top-10 lists are stored
};

// tests/CMakeLists.txt runs these tests once per kernel level (SNAPDOC_CPU_KERNELS=<level>): empty
// when the forced level can run here (or none is forced), else why the run is skipped.
std::string forced_level_missing() {
    const char* name = std::getenv("SNAPDOC_CPU_KERNELS");
    if (!name || !*name) return "";
    const std::optional<cpu::KernelLevel> level = cpu::parse_kernel_level(name);
    if (!level || cpu::kernel_level_available(*level)) return "";  // an unknown name fails in the engine
    return std::string("SNAPDOC_CPU_KERNELS=") + name + ": this CPU or build lacks the level";
}

// The level the integer GEMM runs at, for the printed figures.
const char* level_name() {
    return cpu::kernel_level_name(cpu::active_kernel_level());
}

class ModelZooLogits : public ::testing::TestWithParam<ZooCase> {
protected:
    void SetUp() override {
        if (const std::string why = forced_level_missing(); !why.empty()) GTEST_SKIP() << why;
    }
};

TEST_P(ModelZooLogits, MatchesTheOraclesAtEveryStoredPosition) {
    const ZooCase c = GetParam();
    SNAPDOC_REQUIRE_FIXTURE(gguf_path(c));
    const json oracle = read_json(file_in(c, c.oracle));
    const int n_ctx = oracle.at("llama_cpp").at("n_ctx").get<int>();
    const Model m = load_model(fixture_path(gguf_path(c)));
    const int vocab = m.config.vocab_size;
    json exact;
    std::optional<Model> wide;
    if (c.has_exact) {
        exact = read_json(file_in(c, std::string("ref-") + c.variant + ".json"));
        wide = widened_to_f32(m);
    }

    // max |snapdoc - exact| as loaded, and with f32-widened weights; max |snapdoc - llama.cpp|.
    double max_exact = 0, max_exact_wide = 0, max_llama = 0;
    for (const char* part : {"logits", "long"}) {
        const json& o = oracle.at(part);
        const bool is_long = std::string(part) == "long";
        Sequence s;
        s.ids = o.at(is_long ? "ids" : "prompt_ids").get<std::vector<int32_t>>();
        if (is_long) {
            s.positions = o.at("positions").get<std::vector<int>>();
        } else {
            s.positions.resize(s.ids.size());
            std::iota(s.positions.begin(), s.positions.end(), 0);
        }
        // Rows stored whole: all positions, or only the last (short), or file_positions (long).
        const auto stored_rows = [&](const json& j) {
            if (is_long) return j.at("file_positions").get<std::vector<int>>();
            if (j.at("positions") == "all") return s.positions;
            return std::vector<int>{static_cast<int>(s.ids.size()) - 1};
        };
        const std::vector<int> file_positions = stored_rows(o);
        std::vector<int> wanted = s.positions;
        wanted.insert(wanted.end(), file_positions.begin(), file_positions.end());
        const auto ours = logits_at(m, s.ids, wanted, n_ctx);

        // llama.cpp's top-10 and argmax at each stored position, and its full rows.
        const json& top10 = o.at("top10");
        for (std::size_t i = 0; i < s.positions.size(); ++i) {
            const int p = s.positions[i];
            const double e = top10_error(ours.at(p), top10[i]);
            max_llama = std::max(max_llama, e);
            EXPECT_LT(e, c.llama_cpp_tolerance) << part << " position " << p << " vs llama.cpp top-10";
            const double margin = top10[i][0][1].get<double>() - top10[i][1][1].get<double>();
            if (margin > 2 * c.llama_cpp_tolerance) {
                EXPECT_EQ(argmax(ours.at(p)), o.at("argmax")[i].get<int>()) << part << " position " << p;
            }
        }
        const std::vector<float> rows = read_f32(file_in(c, o.at("file").get<std::string>()));
        ASSERT_EQ(rows.size(), file_positions.size() * static_cast<std::size_t>(vocab)) << o.at("file");
        for (std::size_t i = 0; i < file_positions.size(); ++i) {
            const double e = row_error(ours.at(file_positions[i]), rows.data() + i * vocab);
            max_llama = std::max(max_llama, e);
            EXPECT_LT(e, c.llama_cpp_tolerance)
                << part << " position " << file_positions[i] << " vs " << o.at("file");
        }

        // The exact reference: its top-10 and argmax at every stored position, its full rows (Q8_0).
        if (!c.has_exact) continue;
        const json& r = exact.at(is_long ? "long" : "short");
        const json& rtop = r.at("top10");
        const std::vector<int> rpos = is_long ? r.at("positions").get<std::vector<int>>() : s.positions;
        // Only the Q8_0 files have full reference rows ("file" is null otherwise).
        const bool has_rows = r.contains("file") && r.at("file").is_string();
        const std::string ref_rows = has_rows ? file_in(c, r.at("file").get<std::string>()) : "";
        const std::vector<int> ref_positions = has_rows ? stored_rows(r) : std::vector<int>{};
        const std::vector<float> ref = has_rows ? read_f32(ref_rows) : std::vector<float>{};
        if (!ref.empty()) {
            ASSERT_EQ(ref.size(), ref_positions.size() * static_cast<std::size_t>(vocab)) << ref_rows;
        }
        std::vector<int> wanted_exact = rpos;
        wanted_exact.insert(wanted_exact.end(), ref_positions.begin(), ref_positions.end());
        // Every product in f32 and the f32 cache: the exact path, held to 1e-3 of the reference.
        const auto ours_wide = logits_at(*wide, s.ids, wanted_exact, n_ctx, {.kv_f32 = true});
        ASSERT_EQ(rtop.size(), rpos.size());
        // The README's contract for an engine that rounds activations: half of llama.cpp's own distance
        // from the exact reference at the same positions, at every kernel level, for
        // --precise-activations (two 8-bit planes, quant_activation_residual.h; at the AVX2 level the
        // GEMM's one 16-bit pass instead, quant_gemm_wide.h). The short prompt (9
        // rows) runs the decode dots, the long one (512-row chunks) the level's integer GEMM. The
        // default, one plane (llama.cpp's scheme, twice the speed), measured 0.44-0.73 of llama.cpp's
        // distance on the short prompt and 0.33-1.60 at the long sequence's last position over the
        // four levels, as their rounding flips fall (docs/RESULTS.md): it is held to 0.75 on the short
        // prompt and to twice llama.cpp's distance on the long one, a guard against a broken kernel
        // rather than an accuracy claim. Precise activations for only some matmul roles do not reach
        // 0.5 (every role contributes alike; RESULTS.md, activation precision per matmul role), so
        // the contract is --precise-activations'.
        // The f16 attention cache (the default, as llama.cpp's) adds one rounding of every K and V:
        // two planes with it measured 0.01 of llama.cpp's distance, as with the f32 cache (--kv-f32).
        const auto ours_precise = logits_at(m, s.ids, rpos, n_ctx, {.precise = true});
        const auto ours_exact_prefill = logits_at(m, s.ids, rpos, n_ctx, {.exact_prefill = true});
        const auto ours_kv_f32 = logits_at(m, s.ids, rpos, n_ctx, {.kv_f32 = true, .precise = true});
        const double one_plane_bound = is_long ? 2.0 : 0.75;
        double part_top10 = 0, part_top10_precise = 0, part_top10_exact_prefill = 0, part_top10_kv_f32 = 0;
        for (std::size_t i = 0; i < rpos.size(); ++i) {
            part_top10 = std::max(part_top10, top10_error(ours.at(rpos[i]), rtop[i]));
            part_top10_precise = std::max(part_top10_precise, top10_error(ours_precise.at(rpos[i]), rtop[i]));
            part_top10_exact_prefill =
                std::max(part_top10_exact_prefill, top10_error(ours_exact_prefill.at(rpos[i]), rtop[i]));
            part_top10_kv_f32 = std::max(part_top10_kv_f32, top10_error(ours_kv_f32.at(rpos[i]), rtop[i]));
            max_exact = std::max(max_exact, top10_error(ours.at(rpos[i]), rtop[i]));
            const double e = top10_error(ours_wide.at(rpos[i]), rtop[i]);
            max_exact_wide = std::max(max_exact_wide, e);
            EXPECT_LT(e, kExactTolerance) << part << " position " << rpos[i] << " vs the exact reference";
            EXPECT_EQ(argmax(ours_wide.at(rpos[i])), r.at("argmax")[i].get<int>())
                << part << " position " << rpos[i];
        }
        if (r.contains("max_abs_llama_cpp_minus_exact")) {
            const double llama_error = r.at("max_abs_llama_cpp_minus_exact").get<double>();
            EXPECT_LE(part_top10_exact_prefill, 0.5 * llama_error)
                << part << " (--exact-prefill): max |snapdoc - exact| over the top-10 lists vs llama.cpp's "
                << llama_error;
            EXPECT_LE(part_top10_precise, 0.5 * llama_error)
                << part << " (integer prefill, --precise-activations, " << level_name()
                << "): max |snapdoc - exact| over the top-10 lists vs llama.cpp's " << llama_error;
            EXPECT_LE(part_top10, one_plane_bound * llama_error)
                << part << " (integer prefill, one plane, " << level_name()
                << "): max |snapdoc - exact| over the top-10 lists vs llama.cpp's " << llama_error;
            EXPECT_LE(part_top10_kv_f32, 0.5 * llama_error)
                << part << " (integer prefill, --precise-activations --kv-f32): max |snapdoc - exact| over the "
                << "top-10 lists vs llama.cpp's " << llama_error;
            std::printf("[ modelzoo ] %s-%s %s (%s): |snapdoc - exact| / |llama.cpp - exact| = %.2f (one plane), "
                        "%.2f (two planes), %.2f (--exact-prefill), %.2f (two planes, --kv-f32)\n",
                        c.folder, c.variant, part, level_name(), part_top10 / llama_error,
                        part_top10_precise / llama_error, part_top10_exact_prefill / llama_error,
                        part_top10_kv_f32 / llama_error);
        }
        // The long sequence's last position, where llama.cpp's whole row is stored: the same contract
        // against llama.cpp's distance over the same top-10 ids. This is the prefill GEMM's part
        // (the short prompt never reaches it), so it is what differs between kernel levels.
        if (is_long) {
            const int last = static_cast<int>(s.ids.size()) - 1;
            const auto at_ref = std::find(rpos.begin(), rpos.end(), last);
            const auto at_llama = std::find(file_positions.begin(), file_positions.end(), last);
            ASSERT_TRUE(at_ref != rpos.end() && at_llama != file_positions.end()) << "no stored row at " << last;
            const json& top = rtop[at_ref - rpos.begin()];
            std::vector<float> llama_row(rows.begin() + (at_llama - file_positions.begin()) * vocab,
                                         rows.begin() + (at_llama - file_positions.begin() + 1) * vocab);
            const double llama_error = top10_error(llama_row, top), ours_error = top10_error(ours.at(last), top),
                         precise_error = top10_error(ours_precise.at(last), top);
            EXPECT_LE(precise_error, 0.5 * llama_error)
                << "long position " << last << " (integer prefill, --precise-activations, " << level_name()
                << "): max |snapdoc - exact| over the top-10 list vs llama.cpp's " << llama_error;
            EXPECT_LE(ours_error, one_plane_bound * llama_error)
                << "long position " << last << " (integer prefill, one plane, " << level_name()
                << "): max |snapdoc - exact| over the top-10 list vs llama.cpp's " << llama_error;
            std::printf("[ modelzoo ] %s-%s long position %d (%s): |snapdoc - exact| / |llama.cpp - exact| = %.2f "
                        "(one plane), %.2f (two planes)\n",
                        c.folder, c.variant, last, level_name(), ours_error / llama_error, precise_error / llama_error);
        }
        for (std::size_t i = 0; !ref.empty() && i < ref_positions.size(); ++i) {
            const float* row = ref.data() + i * vocab;
            if (ours.count(ref_positions[i]))
                max_exact = std::max(max_exact, row_error(ours.at(ref_positions[i]), row));
            const double e = row_error(ours_wide.at(ref_positions[i]), row);
            max_exact_wide = std::max(max_exact_wide, e);
            EXPECT_LT(e, kExactTolerance) << part << " position " << ref_positions[i] << " vs " << ref_rows;
        }
    }
    const auto num = [&](double v) { return c.has_exact ? std::to_string(v) : std::string("n/a"); };
    std::printf(
        "[ modelzoo ] %s-%s (%s, n_ctx %d): max |snapdoc - exact| %s (f32-widened weights %s), "
        "max |snapdoc - llama.cpp| %.4g\n",
        c.folder, c.variant, c.oracle, n_ctx, num(max_exact).c_str(), num(max_exact_wide).c_str(), max_llama);
    RecordProperty("max_abs_vs_exact", num(max_exact));
    RecordProperty("max_abs_vs_exact_f32_weights", num(max_exact_wide));
    RecordProperty("max_abs_vs_llama_cpp", std::to_string(max_llama));
}

// Teacher-forced greedy: after prompt + the first k generated ids, the argmax is llama.cpp's k-th
// token wherever its top-1/top-2 margin exceeds what llama.cpp itself is off by.
TEST_P(ModelZooLogits, TeacherForcedGreedyArgmax) {
    const ZooCase c = GetParam();
    SNAPDOC_REQUIRE_FIXTURE(gguf_path(c));
    const json oracle = read_json(file_in(c, c.oracle));
    const json& g = oracle.at("greedy");
    const auto prompt = g.at("prompt_ids").get<std::vector<int32_t>>();
    const auto gen = g.at("ids").get<std::vector<int32_t>>();
    const auto forced = g.at("teacher_forced_argmax").get<std::vector<int>>();
    const auto margins = g.at("top1_top2_margin").get<std::vector<double>>();
    std::vector<int32_t> ids = prompt;
    ids.insert(ids.end(), gen.begin(), gen.end() - 1);
    std::vector<int> positions;
    for (std::size_t k = 0; k < gen.size(); ++k) positions.push_back(static_cast<int>(prompt.size() + k) - 1);
    const Model m = load_model(fixture_path(gguf_path(c)));
    const auto ours = logits_at(m, ids, positions, oracle.at("llama_cpp").at("n_ctx").get<int>());
    int compared = 0;
    for (std::size_t k = 0; k < gen.size(); ++k) {
        if (margins[k] <= 2 * c.llama_cpp_tolerance) continue;
        ++compared;
        EXPECT_EQ(argmax(ours.at(positions[k])), forced[k])
            << "greedy step " << k << " (margin " << margins[k] << ")";
    }
    EXPECT_GT(compared, 0) << "no step has a margin above the tolerance";
}

// Llama 3.1's rope factors as a Hugging Face folder gets them (computed from config.json's
// rope_scaling) equal the rope_freqs.weight llama.cpp's converter stored in the GGUF.
TEST(ModelZooRope, Llama3FactorsFromConfigEqualTheGgufTensor) {
    const ZooCase c{"llama31-tiny", "Q8_0", "", true, 0.6};
    SNAPDOC_REQUIRE_FIXTURE(gguf_path(c));
    const ModelConfig cfg = load_model(fixture_path(gguf_path(c))).config;
    ASSERT_EQ(cfg.rope_scaling.kind, RopeScalingKind::Llama3);
    EXPECT_FLOAT_EQ(cfg.rope_theta, 500000.0f);
    const std::vector<float> computed = llama3_frequency_factors(cfg.head_dim, cfg.rope_theta, 8.0, 1.0, 4.0, 8192);
    ASSERT_EQ(computed.size(), cfg.rope_scaling.freq_factors.size());
    for (std::size_t i = 0; i < computed.size(); ++i)
        EXPECT_NEAR(computed[i], cfg.rope_scaling.freq_factors[i], 1e-6 * computed[i]) << "pair " << i;
}

// `snapdoc-cli eval --ctx N` picks Phi-3.5's rope factors by the context size as llama.cpp does:
// each context's logits match llama.cpp's for that context, and the two differ (so the flag acts).
TEST(ModelZooCli, EvalContextSizeSelectsLongRopeFactors) {
    const ZooCase c{"phi35-tiny", "F16", "", false, 0.05};
    SNAPDOC_REQUIRE_FIXTURE(gguf_path(c));
    testing::TempDir dir;
    std::vector<std::vector<float>> got;
    for (const auto& [ctx, suffix] : {std::pair{2048, ""}, std::pair{8192, "-ctx8192"}}) {
        const json o = read_json(file_in(c, std::string("oracle-F16") + suffix + ".json")).at("logits");
        std::string ids;
        for (const json& id : o.at("prompt_ids"))
            ids += (ids.empty() ? "" : " ") + std::to_string(id.get<int>());
        const auto out = dir / ("logits" + std::to_string(ctx) + ".f32");
        const std::string cmd = std::string(SNAPDOC_CLI_PATH) + " eval -m '" +
                                fixture_path(gguf_path(c)).string() + "' --ids '" + ids + "' --ctx " +
                                std::to_string(ctx) + " --logits-out '" + out.string() + "' 2>/dev/null";
        ASSERT_EQ(run_command(cmd).status, 0) << cmd;
        const std::vector<float> ours = read_f32_file(out);
        const std::vector<float> theirs = read_f32(file_in(c, o.at("file").get<std::string>()));
        ASSERT_EQ(ours.size(), theirs.size());
        EXPECT_LT(row_error(ours, theirs.data()), c.llama_cpp_tolerance) << "--ctx " << ctx;
        got.push_back(ours);
    }
    EXPECT_GT(row_error(got[0], got[1].data()), 10 * c.llama_cpp_tolerance)
        << "short and long factors give the same logits";
}

// Issue 24: a document chat that fits Phi-3.5's original 4096 tokens runs at that context
// (document_run_context, what `ask` and the app use), so a 1024-token prompt gets the short
// factors and matches llama.cpp at n_ctx 2048. At the declared 131,072 it got the long factors:
// up to 10 logits off llama.cpp's n_ctx-2048 run (and equal to its n_ctx-8192 one).
TEST(ModelZooPhi35, AThousandTokenDocumentChatMatchesLlamaCppAtNctx2048) {
    const ZooCase c{"phi35-tiny", "F16", "", false, 0.05};
    SNAPDOC_REQUIRE_FIXTURE(gguf_path(c));
    const Model m = load_model(fixture_path(gguf_path(c)));
    const json seq = read_json(file_in(c, "oracle-F16.json")).at("long");
    ASSERT_EQ(seq.at("file_positions"), json::array({1023}));
    const auto ids = seq.at("ids").get<std::vector<int32_t>>();
    const int chat_context = document_run_context(m.config.rope_scaling, static_cast<int64_t>(ids.size()) + 64);
    ASSERT_EQ(chat_context, 4096);
    const std::vector<float> at_2048 = read_f32(file_in(c, seq.at("file").get<std::string>()));
    const std::vector<float> chat = logits_at(m, ids, {1023}, chat_context).at(1023);
    const std::vector<float> declared = logits_at(m, ids, {1023}, 0).at(1023);
    ASSERT_EQ(chat.size(), at_2048.size());
    const double chat_error = row_error(chat, at_2048.data()), declared_error = row_error(declared, at_2048.data());
    std::printf("phi35 1024 tokens vs llama.cpp n_ctx 2048: chat context %d max |diff| %.4f, declared context %.4f\n",
                chat_context, chat_error, declared_error);
    EXPECT_LT(chat_error, c.llama_cpp_tolerance);
    EXPECT_GT(declared_error, 10 * c.llama_cpp_tolerance) << "the declared context should use the long factors";
}

INSTANTIATE_TEST_SUITE_P(
    Files, ModelZooLogits,
    ::testing::Values(ZooCase{"llama31-tiny", "Q8_0", "oracle-Q8_0.json", true, 0.6},
                      ZooCase{"llama31-tiny", "Q4_K_M", "oracle-Q4_K_M.json", true, 0.6},
                      ZooCase{"spm-llama-tiny", "Q8_0", "oracle-Q8_0.json", true, 0.6},
                      ZooCase{"spm-llama-tiny", "Q4_0", "oracle-Q4_0.json", true, 0.6},
                      ZooCase{"spm-llama-tiny", "Q4_K_M", "oracle-Q4_K_M.json", true, 0.6},
                      ZooCase{"qwen25-tiny", "F16", "oracle-F16.json", false, 0.05},
                      ZooCase{"qwen3-tiny", "F16", "oracle-F16.json", false, 0.05},
                      ZooCase{"phi35-tiny", "F16", "oracle-F16.json", false, 0.05},
                      ZooCase{"phi35-tiny", "F16", "oracle-F16-ctx8192.json", false, 0.05}),
    [](const auto& info) {
        std::string name = std::string(info.param.folder) + "_" + info.param.oracle;
        for (char& ch : name)
            if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return name;
    });

}  // namespace
}  // namespace snapdoc
