// Reopening a document from the on-disk K/V cache vs prefilling it, at several document lengths:
// a first load (layer-major prefill + writing the cache file), then a reopen by a fresh DocumentChat
// (as after switching documents or a restart) that maps the file, and one that reads it into RAM,
// plus the first question after each to show the reopened session is ready. The document is the
// demo report repeated to length (real text, so the tokenizer and template run as in the app).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/common/args.h"
#include "bench/bench_util.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/kv/f16_rows.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/model/model.h"
#include "engine/model/model_summary.h"
#include "engine/runtime/backend_factory.h"
#include "engine/session/document_chat.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::bench {

int bench_kv_cache(int argc, char** argv) {
    const cli::Args args({{{"-m", "--model"}},
                          {{"--text"}},
                          {{"--tokens"}},
                          {{"--cache-dir"}},
                          {{"-t", "--threads"}},
                          {{"--device"}},
                          {{"--template"}}},
                         argc, argv, 2);
    if (!args.has("model") || !args.has("text") || !args.has("cache-dir"))
        throw Error(
            "usage: snapdoc-bench kvcache -m MODEL --text FILE --cache-dir DIR [--tokens 8192,32768,100000]");
    const auto lengths = cli::parse_int_list(args.str("tokens", "8192,32768,100000"), "--tokens");
    std::ifstream in(args.str("text"));
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string unit = ss.str();
    if (unit.empty()) throw Error("--text " + args.str("text") + " is empty or unreadable");

    const Model model = load_model(args.str("model"));
    const Tokenizer tok = Tokenizer::from_model(model);
    BackendOptions opts;
    opts.threads = args.integer("threads", 0);
    for (int n : lengths) opts.context_length = std::max(opts.context_length, n + 512);
    auto backend = make_backend(model, opts, args.str("device", "cpu"));
    const ChatTemplateKind kind = choose_chat_template(model.chat_template, args.str("template"));
    KvStoreCache cache(args.str("cache-dir"), int64_t{1} << 40);
    const ModelIdentity identity = model_identity(args.str("model"));
    std::printf("model %s, %s backend, %d threads, f16 row codec %s\n", args.str("model").c_str(),
                backend->name().c_str(),
                opts.threads ? opts.threads : static_cast<int>(std::thread::hardware_concurrency()),
                f16_row_kernels_name());
    std::printf("%8s %10s %10s %9s %9s %10s %10s %9s\n", "tokens", "file", "prefill_s", "save_s", "map_s",
                "read_s", "speedup", "ask_s");
    const std::string question = "What is the access code for the north gate?";
    AskOptions ask;
    ask.max_new_tokens = 8;
    ask.snapkv.budget = 1024;
    for (int n : lengths) {
        const int per_unit = std::max<int>(1, static_cast<int>(tok.encode(unit).size()));
        std::string text;
        std::vector<int32_t> part;
        for (int reps = n / per_unit + 2; static_cast<int>(part.size()) < n; reps *= 2) {
            text.clear();
            for (int r = 0; r < reps; ++r) text += unit;
            part = build_document_part(kind, tok, "", text);
        }
        part.resize(n);
        cache.clear();
        DocumentChat first(*backend, tok, kind, {});
        first.set_kv_cache(&cache, identity, opts.context_length);
        first.load_document_tokens(part);
        const KvCacheReport a = first.cache_report();
        if (!a.saved) throw Error("the cache file was not written: " + a.note);

        // Reopen: a fresh chat maps the file (what the app and CLI do).
        DocumentChat mapped(*backend, tok, kind, {});
        mapped.set_kv_cache(&cache, identity, opts.context_length);
        mapped.load_document_tokens(part);
        const KvCacheReport b = mapped.cache_report();
        if (!b.served) throw Error("the reopen was not served from the cache: " + b.note);
        const auto t_ask = Clock::now();
        mapped.ask(question, ask);
        const double ask_s = seconds_since(t_ask);

        // The alternative: read the file into a RAM store.
        DocumentSession read(*backend);
        const KvCacheKey key =
            make_kv_cache_key(identity, tokenizer_identity(tok),
                              compute_identity(backend->config(), opts.context_length), kind, "", part);
        const auto t_read = Clock::now();
        read.restore_document_cache(a.file, key, part, KvFileLoad::Read);
        const double read_s = seconds_since(t_read);
        std::printf("%8d %10s %10.2f %9.3f %9.3f %10.3f %9.0fx %9.2f\n", n,
                    format_bytes(a.file_bytes).c_str(), a.prefill_seconds, a.save_seconds, b.load_seconds,
                    read_s, a.prefill_seconds / b.load_seconds, ask_s);
        std::fflush(stdout);
    }
    cache.clear();
    return 0;
}

}  // namespace snapdoc::bench
