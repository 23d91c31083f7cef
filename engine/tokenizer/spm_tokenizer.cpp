#include "engine/tokenizer/spm_tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <type_traits>

#include "engine/common/error.h"
#include "engine/tokenizer/spm_proto.h"
#include "engine/tokenizer/text_chunks.h"

namespace snapdoc {
namespace {

using Processor = sentencepiece::SentencePieceProcessor;
// The library's ids are `int`; the engine's are int32_t. They are the same type on every platform
// we build for, which lets ids move between the two without copies.
static_assert(std::is_same_v<int, int32_t>);

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // U+2581, SentencePiece's space
// Piece size for long texts. Measured with the Llama 2 tokenizer on 300 KB of tinyshakespeare,
// one thread: 2-8 KB pieces encode at ~1.0M tokens/s, 32 KB at 0.86M, the whole 300 KB at 0.58M.
constexpr std::size_t kChunkBytes = 8 * 1024;
// Threads only pay off for texts of several pieces per thread.
constexpr std::size_t kBytesPerThread = 64 * 1024;

std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

std::unique_ptr<Processor> load_processor(const std::string& proto) {
    auto sp = std::make_unique<Processor>();
    const auto status = sp->LoadFromSerializedProto(proto);
    if (!status.ok()) throw FormatError("invalid SentencePiece tokenizer: " + one_line(status.ToString()));
    return sp;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

}  // namespace

SpmTokenizer::SpmTokenizer(const std::string& proto) {
    if (proto.empty()) throw FormatError("invalid SentencePiece tokenizer: no data");
    std::string safe;
    try {
        safe = protect_special_markers(proto);
    } catch (const FormatError& e) {
        throw FormatError(std::string("invalid SentencePiece tokenizer: ") + e.what());
    }
    sp_ = load_processor(safe);
    init_after_load(safe);
}

SpmTokenizer::~SpmTokenizer() = default;

void SpmTokenizer::init_after_load(const std::string& proto) {
    const SentencePieceProtoInfo info = inspect_sentencepiece_proto(proto);
    strips_leading_space_ = info.add_dummy_prefix || info.remove_extra_whitespaces;
    add_dummy_prefix_ = info.add_dummy_prefix;

    const int n = sp_->GetPieceSize();
    byte_values_.assign(n, -1);
    bool newline_piece = false, byte_pieces = false;
    std::size_t longest_piece = 0;
    for (int id = 0; id < n; ++id) {
        const std::string& p = sp_->IdToPiece(id);
        longest_piece = std::max(longest_piece, p.size());
        byte_pieces = byte_pieces || sp_->IsByte(id);
        if (sp_->IsByte(id)) {
            if (p.size() == 6 && hex_digit(p[3]) >= 0 && hex_digit(p[4]) >= 0)
                byte_values_[id] = static_cast<int16_t>(hex_digit(p[3]) * 16 + hex_digit(p[4]));
        } else if (!sp_->IsControl(id) && !sp_->IsUnknown(id)) {
            newline_piece = newline_piece || p.find('\n') != std::string::npos;
        }
    }

    // A piece consumes at most its own length of normalized text, and with no character map and
    // no whitespace collapsing the normalized text is never shorter than the input (' ' becomes
    // the 3-byte U+2581). Byte fallback turns an unknown character into one piece per byte; without
    // it a run of unknown characters is one <unk> of any length, and a normalizer may drop
    // characters: no bound then (0).
    if (info.precompiled_charsmap.empty() && !info.remove_extra_whitespaces && byte_pieces)
        max_input_bytes_per_token_ = static_cast<int>(std::min<std::size_t>(longest_piece, 1 << 20));

    // Any piece that decodes to text will do as the "earlier text" for decode_continuation.
    for (int id = 0; id < n && anchor_id_ < 0; ++id) {
        if (sp_->IsControl(id) || sp_->IsByte(id) || sp_->IsUnused(id)) continue;
        std::string text;
        if (sp_->Decode(std::vector<int>{id}, &text).ok() && !text.empty()) {
            anchor_id_ = id;
            anchor_bytes_ = text.size();
        }
    }

    // Encoding newline-terminated pieces separately equals encoding the whole text when no piece
    // can span a newline (BPE merges stay inside pieces of the vocabulary), normalization is the
    // identity (an empty charsmap), whitespace is not collapsed across the cut, and the dummy
    // prefix, added once at the very start, is left out for the later pieces. Unigram's Viterbi
    // search would split too, but its tie-breaking is not guaranteed to be local, so it stays whole.
    chunked_encode_ = info.model_type == 2 && !info.treat_whitespace_as_suffix &&
                      info.precompiled_charsmap.empty() && !info.remove_extra_whitespaces && !newline_piece;
    if (chunked_encode_ && info.add_dummy_prefix)
        sp_no_prefix_ = load_processor(with_add_dummy_prefix(proto, false));
}

std::vector<int32_t> SpmTokenizer::encode_one(const Processor& sp, std::string_view text) const {
    std::vector<int> ids;
    const auto status = sp.Encode(text, &ids);
    if (!status.ok()) throw Error("tokenizer could not encode the text: " + one_line(status.ToString()));
    return ids;
}

std::vector<int32_t> SpmTokenizer::encode(std::string_view text) const {
    if (text.empty()) return {};
    if (!chunked_encode_ || text.size() < 2 * kChunkBytes) return encode_one(*sp_, text);
    const std::vector<std::string_view> chunks = split_after_newlines(text, kChunkBytes);
    if (chunks.size() == 1) return encode_one(*sp_, text);

    const Processor& rest = sp_no_prefix_ ? *sp_no_prefix_ : *sp_;
    std::vector<std::vector<int32_t>> parts(chunks.size());
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    auto worker = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < chunks.size() && !failed.load();) {
            try {
                parts[i] = encode_one(i == 0 ? *sp_ : rest, chunks[i]);
            } catch (...) {
                if (!failed.exchange(true)) failure = std::current_exception();
            }
        }
    };
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const auto n_threads = static_cast<unsigned>(std::min<std::size_t>(
        {hw, max_threads_, chunks.size(), std::max<std::size_t>(1, text.size() / kBytesPerThread)}));
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < n_threads; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);

    std::size_t total = 0;
    for (const auto& p : parts) total += p.size();
    std::vector<int32_t> ids;
    ids.reserve(total);
    for (const auto& p : parts) ids.insert(ids.end(), p.begin(), p.end());
    return ids;
}

std::string SpmTokenizer::decode(const std::vector<int32_t>& ids) const {
    std::string text;
    const auto status = sp_->Decode(ids, &text);
    if (!status.ok()) throw Error("cannot decode token ids: " + one_line(status.ToString()));
    return text;
}

std::string SpmTokenizer::decode_continuation(const int32_t* ids, std::size_t n, bool after_text) const {
    if (!after_text || !strips_leading_space_ || anchor_id_ < 0)
        return decode(std::vector<int32_t>(ids, ids + n));
    std::vector<int32_t> with_anchor;
    with_anchor.reserve(n + 1);
    with_anchor.push_back(anchor_id_);
    with_anchor.insert(with_anchor.end(), ids, ids + n);
    // The anchor is not a byte piece, so it cannot join a byte run that follows; its text is a
    // fixed prefix of the result.
    return decode(with_anchor).substr(anchor_bytes_);
}

bool SpmTokenizer::ends_sequence_start(const int32_t* ids, std::size_t n, const std::string& text) const {
    if (!text.empty()) return true;
    // Nothing visible: the state still ends if a piece had its leading U+2581 dropped (a lone "▁").
    for (std::size_t i = 0; i < n; ++i) {
        const int32_t id = ids[i];
        if (sp_->IsControl(id) || sp_->IsUnknown(id) || byte_value(id) >= 0) continue;
        if (sp_->IdToPiece(id).starts_with(kSpaceSymbol)) return true;
    }
    return false;
}

std::string SpmTokenizer::piece(int32_t id) const {
    if (id < 0 || id >= vocab_size())
        throw Error("token id " + std::to_string(id) + " is outside the " + std::to_string(vocab_size()) +
                    "-piece vocabulary");
    if (sp_->IsControl(id)) return {};
    if (const int b = byte_value(id); b >= 0) return std::string(1, static_cast<char>(b));
    return decode_continuation(&id, 1, true);
}

std::string SpmTokenizer::raw_piece(int32_t id) const {
    if (id < 0 || id >= vocab_size()) return {};
    return sp_->IdToPiece(id);
}

int SpmTokenizer::byte_value(int32_t id) const {
    return id >= 0 && static_cast<std::size_t>(id) < byte_values_.size() ? byte_values_[id] : -1;
}

int SpmTokenizer::vocab_size() const {
    return sp_->GetPieceSize();
}
int SpmTokenizer::bos_id() const {
    return sp_->bos_id();
}
int SpmTokenizer::eos_id() const {
    return sp_->eos_id();
}
int SpmTokenizer::unk_id() const {
    return sp_->unk_id();
}

bool SpmTokenizer::is_control(int32_t id) const {
    return id >= 0 && id < vocab_size() && sp_->IsControl(id);
}

int32_t SpmTokenizer::piece_to_id(std::string_view piece) const {
    const int id = sp_->PieceToId(piece);
    // The library answers unk_id for pieces it does not have.
    if (id < 0 || id >= vocab_size() || sp_->IdToPiece(id) != piece) return -1;
    return id;
}

}  // namespace snapdoc
