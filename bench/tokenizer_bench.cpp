// Tokenizer speed on a long document: encode (the cost of opening a 100K-token document), decode
// and streaming decode (per generated token), for each --tokenizer given (a SentencePiece .model,
// a Hugging Face tokenizer.json, or a .gguf whose vocabulary is used: SentencePiece or byte-level
// BPE), so the kinds can be compared on the same text. Encode is timed on all threads and on one.
// Numbers only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/common/args.h"
#include "bench/bench_util.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_vocab.h"
#include "engine/model/model.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::bench {
namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open '" + path + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// End of the prefix nearest to `bytes` that does not split a UTF-8 character, preferring the end
// of a line so the prefix reads like a document.
std::size_t prefix_end(const std::string& text, std::size_t bytes) {
    if (bytes >= text.size()) return text.size();
    const std::size_t nl = text.rfind('\n', bytes);
    if (nl != std::string::npos && nl + 1 >= bytes / 2) return nl + 1;
    while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
    return bytes;
}

// The prefix of `text` with about `tokens` tokens: rescaled by the measured bytes per token.
std::string prefix_with_tokens(const Tokenizer& tok, const std::string& text, std::size_t tokens) {
    std::size_t bytes = std::min<std::size_t>(text.size(), 64 * 1024);
    std::string candidate;
    for (int round = 0; round < 3; ++round) {
        candidate = text.substr(0, prefix_end(text, bytes));
        const std::size_t got = std::max<std::size_t>(1, tok.encode(candidate).size());
        if (got == tokens || (candidate.size() == text.size() && got < tokens))
            break;  // exact, or text too short
        bytes = static_cast<std::size_t>(static_cast<double>(candidate.size()) * static_cast<double>(tokens) /
                                         static_cast<double>(got));
    }
    return candidate;
}

Tokenizer load_tokenizer(const std::string& path) {
    if (path.size() < 5 || path.compare(path.size() - 5, 5, ".gguf") != 0) return Tokenizer::from_file(path);
    const GgufFile g = GgufFile::open(path);
    GgufVocab v = read_gguf_vocab(g, 1 << 30);
    if (!v.error.empty()) throw Error(v.error);
    Model m;
    m.path = path;
    m.tokenizer_proto = std::move(v.proto);
    m.tokenizer_bpe = std::move(v.bpe);
    return Tokenizer::from_model(m);
}

double median_encode_seconds(const Tokenizer& tok, const std::string& text, int repeat,
                             std::vector<int32_t>& ids, std::vector<double>* all = nullptr) {
    std::vector<double> s;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = Clock::now();
        ids = tok.encode(text);
        s.push_back(seconds_since(t0));
    }
    if (all) *all = s;
    return median(s);
}

void bench_one(const std::string& tok_path, const std::string& text_path, const std::string& whole,
               int tokens_wanted, int repeat) {
    auto t0 = Clock::now();
    Tokenizer tok = load_tokenizer(tok_path);
    const double load_s = seconds_since(t0);
    const std::string text = prefix_with_tokens(tok, whole, static_cast<std::size_t>(tokens_wanted));

    std::vector<int32_t> ids;
    std::vector<double> encode_s, decode_s, stream_s;
    std::string decoded;
    for (int r = 0; r < repeat; ++r) {
        t0 = Clock::now();
        ids = tok.encode(text);
        encode_s.push_back(seconds_since(t0));

        t0 = Clock::now();
        decoded = tok.decode(ids);
        decode_s.push_back(seconds_since(t0));

        t0 = Clock::now();
        StreamDecoder stream(tok);
        std::size_t streamed = 0;
        for (int32_t id : ids) streamed += stream.push(id).size();
        streamed += stream.flush().size();
        stream_s.push_back(seconds_since(t0));
        if (streamed != decoded.size())
            std::fprintf(stderr, "warning: streamed %zu bytes, decode %zu\n", streamed, decoded.size());
    }
    std::vector<int32_t> one_thread_ids;
    tok.set_max_encode_threads(1);
    const double enc1 = median_encode_seconds(tok, text, repeat, one_thread_ids);
    if (one_thread_ids != ids)
        std::fprintf(stderr, "warning: one-thread encode differs from the threaded one\n");

    const double n = static_cast<double>(ids.size());
    const double mb = static_cast<double>(text.size()) / 1e6;
    const double enc = median(encode_s), dec = median(decode_s), str = median(stream_s);
    const char* kind = tok.kind() == TokenizerKind::ByteLevelBpe ? "byte-level BPE" : "SentencePiece";
    std::printf("tokenizer        %s (%s, %d pieces, load %.3f s, chunked encode %s)\n", tok_path.c_str(),
                kind, tok.vocab_size(), load_s, tok.encodes_in_chunks() ? "on" : "off");
    std::printf("text             %s: prefix of %zu bytes\n", text_path.c_str(), text.size());
    std::printf("tokens           %zu (%.2f bytes/token)\n", ids.size(),
                static_cast<double>(text.size()) / n);
    std::printf("repeat           %d (median)\n", repeat);
    std::printf("encode           %.4f s  %.0f tokens/s  %.2f MB/s  (min %.4f s)\n", enc, n / enc, mb / enc,
                *std::min_element(encode_s.begin(), encode_s.end()));
    std::printf("encode 1 thread  %.4f s  %.0f tokens/s  %.2f MB/s\n", enc1, n / enc1, mb / enc1);
    std::printf("decode           %.4f s  %.0f tokens/s  %.2f MB/s\n", dec, n / dec, mb / dec);
    std::printf("stream decode    %.4f s  %.0f tokens/s  %.2f us/token\n", str, n / str, 1e6 * str / n);
}

}  // namespace

int bench_tokenizer(int argc, char** argv) {
    const cli::Args args({{{"--tokenizer"}, true, true}, {{"--text"}}, {{"--tokens"}}, {{"--repeat"}}}, argc,
                         argv, 2);
    std::vector<std::string> tok_paths = args.all("tokenizer");
    if (tok_paths.empty()) throw Error("--tokenizer FILE is required");
    const std::string text_path = args.required("text");
    const int tokens_wanted = args.integer("tokens", 100000);
    const int repeat = std::max(1, args.integer("repeat", 5));
    if (tokens_wanted < 1) throw Error("--tokens must be >= 1");
    const std::string whole = read_file(text_path);
    for (std::size_t i = 0; i < tok_paths.size(); ++i) {
        if (i) std::printf("\n");
        bench_one(tok_paths[i], text_path, whole, tokens_wanted, repeat);
    }
    return 0;
}

}  // namespace snapdoc::bench
