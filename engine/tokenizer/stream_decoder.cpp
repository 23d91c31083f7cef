// Streaming detokenization. Byte-level BPE decode is a concatenation of the tokens' bytes, so only
// a trailing, still completable multi-byte start (at most 3 bytes) is held back; what comes
// before it cannot change (a sequence starting earlier cannot reach past a lead byte).
// SentencePiece's decode is context-free except in two places, and the
// decoder keeps exactly that context instead of re-decoding the whole output:
//  1. the sequence-initial state, in which a piece's leading U+2581 is dropped — kept as
//     `after_text_` and reproduced with Tokenizer::decode_continuation;
//  2. runs of byte-fallback pieces, decoded together as UTF-8 (each byte that is not part of a
//     well-formed character becomes U+FFFD) — only a trailing, still completable multi-byte start
//     (at most 3 bytes) is held back. Nothing earlier in a run can change: a sequence starting
//     before the held bytes cannot reach past them.
#include "engine/common/error.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/spm_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"

namespace snapdoc {

namespace {

std::string well_formed(std::string bytes) {
    return utf8::is_valid(bytes) ? bytes : utf8::sanitize(bytes);
}

}  // namespace

std::string StreamDecoder::push(int32_t id) {
    if (id < 0 || id >= tok_.vocab_size())
        throw Error("token id " + std::to_string(id) + " is outside the " +
                    std::to_string(tok_.vocab_size()) + "-piece vocabulary");
    return tok_.bpe_ ? push_bpe(id) : push_spm(id);
}

std::string StreamDecoder::push_bpe(int32_t id) {
    pending_ += tok_.bpe_->token_bytes(id);
    const std::size_t held = utf8::incomplete_tail(pending_);
    if (held == pending_.size()) return {};
    std::string text = well_formed(pending_.substr(0, pending_.size() - held));
    pending_.erase(0, pending_.size() - held);
    return text;
}

std::string StreamDecoder::push_spm(int32_t id) {
    const SpmTokenizer& tok = *tok_.spm_;
    ids_.push_back(id);

    std::size_t held = 0;
    if (tok.byte_value(id) >= 0) {
        std::string tail;  // the last bytes of the trailing byte run, in order
        for (std::size_t i = ids_.size(); i-- > 0 && tail.size() < 3;) {
            const int b = tok.byte_value(ids_[i]);
            if (b < 0) break;
            tail.insert(tail.begin(), static_cast<char>(b));
        }
        held = utf8::incomplete_tail(tail);
    }

    const std::size_t final_ids = ids_.size() - held;
    if (final_ids == 0) return {};
    std::string text = tok.decode_continuation(ids_.data(), final_ids, after_text_);
    if (!after_text_) after_text_ = tok.ends_sequence_start(ids_.data(), final_ids, text);
    ids_.erase(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(final_ids));
    return text;
}

std::string StreamDecoder::flush() {
    if (tok_.bpe_) {
        std::string text = well_formed(std::move(pending_));
        pending_.clear();
        return text;
    }
    if (ids_.empty()) return {};
    const SpmTokenizer& tok = *tok_.spm_;
    std::string text = tok.decode_continuation(ids_.data(), ids_.size(), after_text_);
    if (!after_text_) after_text_ = tok.ends_sequence_start(ids_.data(), ids_.size(), text);
    ids_.clear();
    return text;
}

}  // namespace snapdoc
