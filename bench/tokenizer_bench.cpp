// Tokenizer speed on a long document: encode (the cost of opening a 100K-token document), decode
// and streaming decode (per generated token). Numbers only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/common/args.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

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
        if (got == tokens || (candidate.size() == text.size() && got < tokens)) break;  // exact, or text too short
        bytes = static_cast<std::size_t>(static_cast<double>(candidate.size()) * static_cast<double>(tokens) /
                                         static_cast<double>(got));
    }
    return candidate;
}

}  // namespace

int bench_tokenizer(int argc, char** argv) {
    const cli::Args args({{{"--tokenizer"}}, {{"--text"}}, {{"--tokens"}}, {{"--repeat"}}}, argc, argv, 2);
    const std::string tok_path = args.required("tokenizer");
    const std::string text_path = args.required("text");
    const int tokens_wanted = args.integer("tokens", 100000);
    const int repeat = std::max(1, args.integer("repeat", 5));
    if (tokens_wanted < 1) throw Error("--tokens must be >= 1");

    auto t0 = Clock::now();
    const Tokenizer tok = Tokenizer::from_file(tok_path);
    const double load_s = seconds_since(t0);
    const std::string text = prefix_with_tokens(tok, read_file(text_path), static_cast<std::size_t>(tokens_wanted));

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
        if (streamed != decoded.size()) std::fprintf(stderr, "warning: streamed %zu bytes, decode %zu\n", streamed, decoded.size());
    }

    const double n = static_cast<double>(ids.size());
    const double mb = static_cast<double>(text.size()) / 1e6;
    const double enc = median(encode_s), dec = median(decode_s), str = median(stream_s);
    std::printf("tokenizer        %s (%d pieces, load %.3f s, chunked encode %s)\n", tok_path.c_str(), tok.vocab_size(),
                load_s, tok.encodes_in_chunks() ? "on" : "off");
    std::printf("text             %s: prefix of %zu bytes\n", text_path.c_str(), text.size());
    std::printf("tokens           %zu (%.2f bytes/token)\n", ids.size(), static_cast<double>(text.size()) / n);
    std::printf("repeat           %d (median)\n", repeat);
    std::printf("encode           %.4f s  %.0f tokens/s  %.2f MB/s  (min %.4f s)\n", enc, n / enc, mb / enc,
                *std::min_element(encode_s.begin(), encode_s.end()));
    std::printf("decode           %.4f s  %.0f tokens/s  %.2f MB/s\n", dec, n / dec, mb / dec);
    std::printf("stream decode    %.4f s  %.0f tokens/s  %.2f us/token\n", str, n / str, 1e6 * str / n);
    return 0;
}

}  // namespace snapdoc::bench
