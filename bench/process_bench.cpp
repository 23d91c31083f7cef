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
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/model/gguf_file.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cpu/hardware_probe.h"
#include "engine/session/prefill.h"

namespace snapdoc::bench {

namespace {

using Clock = std::chrono::steady_clock;

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
    const cli::Args args({{{"-m", "--model"}}, {{"--ids"}}, {{"--ids-file"}}, {{"-n"}}, {{"-t", "--threads"}}, {{"--device"}},
                           {{"--exact-prefill"}, false}},
                         argc, argv, 2);
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
    const cli::Args args({{{"-m", "--model"}}, {{"-t", "--threads"}}, {{"--context"}}, {{"--seconds"}}}, argc, argv, 2);
    const GgufFile f = GgufFile::open(args.required("model"));
    const int threads = thread_count(args);
    const double context = args.real("context", 0.0f);

    // Tensor sizes from the data offsets (the next tensor's start, or the end of the file), so
    // types this build cannot compute with are counted too; alignment padding is < 32 bytes each.
    std::vector<std::pair<uint64_t, const GgufFile::TensorInfo*>> by_offset;
    for (const auto& t : f.tensors()) by_offset.emplace_back(t.offset, &t);
    std::sort(by_offset.begin(), by_offset.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const uint64_t data_size = f.mapping()->size() - f.data_offset();
    uint64_t total = 0, embedding = 0;
    bool has_output = false;
    for (std::size_t i = 0; i < by_offset.size(); ++i) {
        const auto* t = by_offset[i].second;
        const uint64_t end = i + 1 < by_offset.size() ? by_offset[i + 1].first : data_size;
        const uint64_t bytes = t->nbytes.value_or(end - t->offset);
        total += bytes;
        if (t->name == "token_embd.weight") embedding = bytes;
        if (t->name == "output.weight") has_output = true;
    }
    // A decoded token reads one row of the embedding table, and all of it only when the output
    // projection is tied to it.
    const uint64_t weights_per_token = has_output ? total - embedding : total;

    // K and V (f32, as both engines are run here) of every layer for `context` positions.
    const std::string arch = f.get_string("general.architecture");
    const int64_t layers = f.get_int(arch + ".block_count");
    const int64_t dim = f.get_int(arch + ".embedding_length");
    const int64_t heads = f.get_int(arch + ".attention.head_count");
    const int64_t kv_heads = f.get_int_opt(arch + ".attention.head_count_kv").value_or(heads);
    const int64_t key_len = f.get_int_opt(arch + ".attention.key_length").value_or(dim / heads);
    const int64_t value_len = f.get_int_opt(arch + ".attention.value_length").value_or(dim / heads);
    const double kv_per_position = static_cast<double>(layers * kv_heads * (key_len + value_len) * 4);
    const double bytes_per_token = static_cast<double>(weights_per_token) + kv_per_position * context;

    const double bw = cpu::measure_read_bandwidth_gbs(threads, args.real("seconds", 1.0f));
    std::printf("threads %d\nread_bandwidth_gbs %.2f\nweight_bytes_per_token %llu\nkv_bytes_per_position %.0f\n"
                "context %.1f\nbytes_per_token %.0f\nroofline_tok_s %.2f\n",
                threads, bw, static_cast<unsigned long long>(weights_per_token), kv_per_position, context,
                bytes_per_token, bw * 1e9 / bytes_per_token);
    return 0;
}

}  // namespace snapdoc::bench
