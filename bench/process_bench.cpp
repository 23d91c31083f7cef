// Whole-process benchmarks for comparing snapdoc with another engine on the same GGUF file:
//   greedy    — the same work as llama_oracle's `greedy` (prefill the ids with logits of the last
//               position only, then argmax decoding, one token per step), so the two can be timed
//               from outside by the same method: two runs that differ only in the token count,
//               whose time difference cancels loading and setup.
//   roofline  — the machine's read bandwidth next to the bytes a decoded token streams from a
//               GGUF file, read from its tensor table (works for any tensor type, loadable or not).
// Both print "key value" lines that scripts/bench-vs-llamacpp.sh parses.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/common/args.h"
#include "app/common/kv_type_flags.h"
#include "bench/bench_util.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cpu/hardware_probe.h"
#include "engine/session/prefill.h"

namespace snapdoc::bench {

namespace {

int thread_count(const cli::Args& args) {
    const int t = args.integer("threads", 0);
    return t > 0 ? t : static_cast<int>(std::thread::hardware_concurrency());
}

std::vector<int32_t> read_ids(const cli::Args& args) {
    std::string text;
    if (args.has("ids-file")) {
        std::ifstream in(args.str("ids-file"));
        if (!in) throw Error("cannot read " + args.str("ids-file"));
        std::ostringstream s;
        s << in.rdbuf();
        text = s.str();
        std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\t' || c == '\r'; }, ' ');
    } else {
        text = args.required("ids");
    }
    const std::vector<int> ids = cli::parse_int_list(text, "ids");
    if (ids.empty()) throw Error("no token ids given");
    return {ids.begin(), ids.end()};
}

}  // namespace

int bench_greedy(int argc, char** argv) {
    std::vector<cli::FlagSpec> flags = {{{"-m", "--model"}}, {{"--ids"}}, {{"--ids-file"}}, {{"-n"}},
                                        {{"-t", "--threads"}}, {{"--device"}}, {{"--exact-prefill"}, false}};
    for (auto& f : cli::kv_type_flags()) flags.push_back(std::move(f));
    const cli::Args args(flags, argc, argv, 2);
    const std::vector<int32_t> ids = read_ids(args);
    const int n_gen = args.integer("n", 16);
    if (n_gen < 1) throw Error("-n must be >= 1");

    const auto t_load = Clock::now();
    const Model model = load_model(args.required("model"));
    const ModelConfig& c = model.config;
    for (int32_t id : ids) {
        if (id < 0 || id >= c.vocab_size) throw Error("token id " + std::to_string(id) + " is outside the vocab");
    }
    BackendOptions opts;
    opts.threads = thread_count(args);
    opts.exact_prefill = args.has("exact-prefill");
    opts.kv_f16 = cli::kv_f16_from_flags(args);
    auto backend = make_backend(model, opts, args.str("device", "cpu"));
    const int n_prompt = static_cast<int>(ids.size());
    auto kv = make_full_kv_cache(*backend, n_prompt + n_gen);
    auto act = backend->create_activations(1);
    const double load_s = seconds_since(t_load);

    const auto t_prefill = Clock::now();
    std::vector<float> logits = prefill(*backend, ids, 0, *kv);
    const double prefill_s = seconds_since(t_prefill);

    std::vector<int32_t> gen;
    const auto t_decode = Clock::now();
    for (int s = 0; s < n_gen; ++s) {
        const int32_t tok = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        gen.push_back(tok);
        if (s == n_gen - 1) break;
        const int32_t pos = n_prompt + s;
        backend->embed(&tok, 1, *act, 0);
        for (int l = 0; l < c.n_layers; ++l) backend->run_layer(l, *act, 0, 1, &pos, *kv, nullptr);
        backend->logits(*act, 0, logits.data());
    }
    const double decode_s = seconds_since(t_decode);

    std::printf("gen:");
    for (int32_t t : gen) std::printf(" %d", t);
    std::printf("\n");
    // In-process timings (stderr, so stdout stays comparable with the other engine's).
    std::fprintf(stderr, "load_s %.4f\nprefill_s %.4f\nprefill_tokens %d\ndecode_s %.4f\ndecode_steps %d\n", load_s,
                 prefill_s, n_prompt, decode_s, n_gen - 1);
    return 0;
}

int bench_roofline(int argc, char** argv) {
    const cli::Args args({{{"-m", "--model"}}, {{"-t", "--threads"}}, {{"--context"}}, {{"--seconds"}}, {{"--kv-bytes"}}},
                         argc, argv, 2);
    const DecodeBytes bytes = decode_bytes(args.required("model"));
    const int threads = thread_count(args);
    const double context = args.real("context", 0.0f);
    // K and V of every layer for `context` positions, f16 by default (llama.cpp's default cache and
    // snapdoc's K/V store; snapdoc's CPU decode cache holds f32, so at long contexts it reads more
    // than this roofline counts).
    const int kv_bytes = args.integer("kv-bytes", 2);
    if (kv_bytes != 2 && kv_bytes != 4) throw Error("--kv-bytes must be 2 (f16) or 4 (f32)");
    const double bytes_per_token = bytes.per_token(context, kv_bytes);
    // Two bandwidth figures: the f32 dot over a fresh 256 MiB buffer (the figure earlier results
    // used), and a plain XOR stream over this model file's mapping, the pages decode reads. The
    // roofline uses the stream: it is the higher and steadier of the two here.
    const double seconds = args.real("seconds", 1.0f);
    const double dot_bw = cpu::measure_read_bandwidth_gbs(threads, seconds);
    const MappedFile& file = *bytes.file;
    const double bw = cpu::measure_stream_gbs(file.data(), file.size(), threads, seconds);
    std::printf("threads %d\nread_bandwidth_gbs %.2f\nstream_bandwidth_gbs %.2f\nweight_bytes_per_token %llu\n"
                "kv_bytes_per_position %lld\ncontext %.1f\nbytes_per_token %.0f\nroofline_tok_s %.2f\n",
                threads, dot_bw, bw, static_cast<unsigned long long>(bytes.weights),
                static_cast<long long>(bytes.kv_values_per_position * kv_bytes), context, bytes_per_token,
                bw * 1e9 / bytes_per_token);
    return 0;
}

}  // namespace snapdoc::bench
