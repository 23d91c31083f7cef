#include "engine/tokenizer/bpe_tokenizer.h"

#include <algorithm>
#include <exception>
#include <thread>

#include "engine/common/error.h"
#include "engine/tokenizer/bpe_byte_map.h"
#include "engine/tokenizer/spm_proto.h"

namespace snapdoc {
namespace {

constexpr int32_t kDead = INT32_MIN;  // a symbol merged into its left neighbour

uint8_t type_of(const BpeVocab& v, std::size_t i) {
    if (v.types.empty()) return static_cast<uint8_t>(GgufTokenType::Normal);
    const int32_t t = v.types[i];
    return t == 0 ? static_cast<uint8_t>(GgufTokenType::Normal) : static_cast<uint8_t>(t);  // 0: undefined
}

bool is_type(uint8_t t, GgufTokenType want) {
    return t == static_cast<uint8_t>(want);
}

struct Symbol {
    int32_t id;
    int32_t prev;
    int32_t next;
};
struct Candidate {
    int32_t rank;
    int32_t pos;
    int32_t left;
    int32_t right;
    // std heap is a max-heap: "less" means popped later (higher rank, or same rank further right).
    bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

BpeTokenizer::BpeTokenizer(BpeVocab v)
    : pretok_(v.regexes.empty() ? pretokenizer_preset(v.pre).regexes : v.regexes) {
    const std::size_t n = v.tokens.size();  // v.tokens moves into tokens_ below
    if (n == 0) throw FormatError("byte-level BPE vocabulary has no tokens");
    if (n > static_cast<std::size_t>(INT32_MAX / 2))
        throw FormatError("byte-level BPE vocabulary is too large");
    if (!v.types.empty() && v.types.size() != n) {
        throw FormatError("byte-level BPE vocabulary has " + std::to_string(v.types.size()) +
                          " token types for " + std::to_string(n) + " tokens");
    }
    for (const auto& [name, id] :
         {std::pair<const char*, int32_t>{"bos", v.bos_id}, {"eos", v.eos_id}, {"unknown", v.unk_id}}) {
        if (id < -1 || id >= static_cast<int32_t>(n)) {
            throw FormatError(std::string("byte-level BPE vocabulary: ") + name + " token id " +
                              std::to_string(id) + " is outside the " + std::to_string(n) + " tokens");
        }
    }
    const PretokenizerPreset* preset = v.regexes.empty() ? &pretokenizer_preset(v.pre) : nullptr;
    ignore_merges_ = v.ignore_merges.value_or(preset && preset->ignore_merges);
    add_bos_ = v.add_bos.value_or(preset && preset->add_bos);
    add_eos_ = v.add_eos.value_or(false);
    pre_ = v.regexes.empty() ? preset->name : v.pre;
    bos_id_ = v.bos_id;
    eos_id_ = v.eos_id;
    unk_id_ = v.unk_id;
    if (add_bos_ && bos_id_ < 0)
        throw FormatError("byte-level BPE vocabulary adds a BOS token but has no bos id");

    tokens_ = std::move(v.tokens);
    types_.resize(n);
    bytes_.resize(n);
    text_to_id_.reserve(n);
    word_to_id_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string& t = tokens_[i];
        const uint8_t type = type_of(v, i);
        if (type > static_cast<uint8_t>(GgufTokenType::Byte)) {
            throw FormatError("byte-level BPE vocabulary: token " + std::to_string(i) +
                              " has an unknown type " + std::to_string(type));
        }
        if (t.empty())
            throw FormatError("byte-level BPE vocabulary: token " + std::to_string(i) + " is empty");
        types_[i] = type;
        text_to_id_.insert_or_assign(std::string_view(t),
                                     static_cast<int32_t>(i));  // duplicates: the last wins, as in llama.cpp
        if (is_type(type, GgufTokenType::Normal)) {
            // A normal token that is not byte-level text (no such token in real vocabularies) reads as
            // itself.
            bytes_[i] = byte_level::decode(t).value_or(t);
        } else if (is_type(type, GgufTokenType::UserDefined)) {
            bytes_[i] = t;
            added_.push_back({t, static_cast<int32_t>(i)});
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (is_type(types_[i], GgufTokenType::Normal) &&
            text_to_id_.at(std::string_view(tokens_[i])) == static_cast<int32_t>(i))
            word_to_id_.emplace(bytes_[i], static_cast<int32_t>(i));
    }
    for (int b = 0; b < 256; ++b) {
        const std::string text = byte_level::encode(std::string(1, static_cast<char>(b)));
        const auto it = text_to_id_.find(std::string_view(text));
        byte_id_[b] = it == text_to_id_.end() ? -1 : it->second;
    }
    // Longest first, so that a token containing another wins (llama.cpp sorts its special-token
    // cache by length); equal lengths keep id order.
    std::stable_sort(added_.begin(), added_.end(),
                     [](const Added& a, const Added& b) { return a.text.size() > b.text.size(); });

    merges_.reserve(v.merges.size());
    std::string joined;
    for (std::size_t r = 0; r < v.merges.size(); ++r) {
        const auto& [a, b] = v.merges[r];
        const auto ia = text_to_id_.find(std::string_view(a)), ib = text_to_id_.find(std::string_view(b));
        joined.assign(a).append(b);
        const auto ij = text_to_id_.find(std::string_view(joined));
        const char* missing = ia == text_to_id_.end()   ? "its left side"
                              : ib == text_to_id_.end() ? "its right side"
                              : ij == text_to_id_.end() ? "its result"
                                                        : nullptr;
        if (missing) {
            throw FormatError("byte-level BPE merge " + std::to_string(r) + " '" + a + " " + b +
                              "': " + missing + " is not in the vocabulary");
        }
        // A repeated pair keeps its first (lowest) rank, as llama.cpp's bpe_ranks.emplace does.
        merges_.emplace(pair_key(ia->second, ib->second), Merge{static_cast<int32_t>(r), ij->second});
    }
}

bool BpeTokenizer::is_control(int32_t id) const {
    return id >= 0 && id < vocab_size() &&
           is_type(types_[static_cast<std::size_t>(id)], GgufTokenType::Control);
}

int32_t BpeTokenizer::piece_to_id(std::string_view stored_text) const {
    const auto it = text_to_id_.find(stored_text);
    return it == text_to_id_.end() ? -1 : it->second;
}

void BpeTokenizer::merge_word(std::string_view word, std::vector<int32_t>& out) const {
    thread_local std::vector<Symbol> syms;
    thread_local std::vector<Candidate> heap;
    const auto n = static_cast<int32_t>(word.size());
    syms.resize(static_cast<std::size_t>(n));
    heap.clear();
    for (int32_t i = 0; i < n; ++i)
        syms[i] = {byte_id_[static_cast<uint8_t>(word[i])], i - 1, i + 1 < n ? i + 1 : -1};

    auto consider = [&](int32_t left) {
        if (left < 0) return;
        const int32_t right = syms[left].next;
        if (right < 0 || syms[left].id < 0 || syms[right].id < 0) return;
        const auto it = merges_.find(pair_key(syms[left].id, syms[right].id));
        if (it == merges_.end()) return;
        heap.push_back({it->second.rank, left, syms[left].id, syms[right].id});
        std::push_heap(heap.begin(), heap.end());
    };
    for (int32_t i = 0; i + 1 < n; ++i) consider(i);

    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end());
        const Candidate c = heap.back();
        heap.pop_back();
        Symbol& left = syms[c.pos];
        // Stale entries: either side has changed since the pair was queued. Ids identify the
        // spans (a merge always makes a longer token), so equal ids mean the same pair.
        if (left.id != c.left || left.next < 0 || syms[left.next].id != c.right) continue;
        Symbol& right = syms[left.next];
        left.id = merges_.at(pair_key(c.left, c.right)).result;
        right.id = kDead;
        left.next = right.next;
        if (left.next >= 0) syms[left.next].prev = c.pos;
        consider(left.prev);
        consider(c.pos);
    }

    for (int32_t i = 0; i >= 0; i = syms[i].next) {
        int32_t id = syms[i].id;
        if (id < 0) {
            if (unk_id_ < 0) {
                throw Error("the byte-level vocabulary has no token for byte 0x" +
                            std::string(1, "0123456789ABCDEF"[static_cast<uint8_t>(word[i]) >> 4]) +
                            "0123456789ABCDEF"[static_cast<uint8_t>(word[i]) & 15] + " and no unknown token");
            }
            id = unk_id_;
        }
        out.push_back(id);
    }
}

void BpeTokenizer::encode_words(std::string_view text, const std::vector<Pretokenizer::Span>& words,
                                std::size_t first, std::size_t last, std::vector<int32_t>& out) const {
    // Documents repeat their words: each distinct word is merged once per call.
    WordCache cache;
    std::vector<int32_t> cached;
    for (std::size_t w = first; w < last; ++w) {
        const std::string_view word = text.substr(words[w].begin, words[w].end - words[w].begin);
        if (word.size() == 1 && byte_id_[static_cast<uint8_t>(word[0])] >= 0) {
            out.push_back(byte_id_[static_cast<uint8_t>(word[0])]);
            continue;
        }
        if (ignore_merges_) {
            if (const auto it = word_to_id_.find(word); it != word_to_id_.end()) {
                out.push_back(it->second);
                continue;
            }
        }
        if (const auto it = cache.find(word); it != cache.end()) {
            out.insert(out.end(), cached.begin() + it->second.first,
                       cached.begin() + it->second.first + it->second.second);
            continue;
        }
        const std::size_t start = out.size();
        merge_word(word, out);
        const auto at = static_cast<uint32_t>(cached.size());
        cached.insert(cached.end(), out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
        cache.emplace(word, std::pair<uint32_t, uint32_t>{at, static_cast<uint32_t>(out.size() - start)});
    }
}

void BpeTokenizer::encode_run(std::string_view text, unsigned max_threads, std::vector<int32_t>& out) const {
    std::vector<Pretokenizer::Span> words;
    words.reserve(text.size() / 4 + 1);
    pretok_.split(text, words);

    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const unsigned n_threads = text.size() < kParallelBytes
                                   ? 1u
                                   : std::min({hw, std::max(1u, max_threads),
                                               static_cast<unsigned>(text.size() / (kParallelBytes / 2))});
    if (n_threads <= 1) {
        encode_words(text, words, 0, words.size(), out);
        return;
    }
    // Each word's merges depend on that word alone, so encoding contiguous ranges of words on
    // separate threads and concatenating is the one-thread result exactly (the split into words
    // stays one sequential pass).
    std::vector<std::vector<int32_t>> parts(n_threads);
    std::vector<std::exception_ptr> errors(n_threads);
    std::vector<std::thread> threads;
    const std::size_t per = (words.size() + n_threads - 1) / n_threads;
    for (unsigned t = 0; t < n_threads; ++t) {
        const std::size_t a = std::min(words.size(), t * per), b = std::min(words.size(), a + per);
        auto job = [&, t, a, b] {
            try {
                parts[t].reserve((b - a) * 3 / 2);
                encode_words(text, words, a, b, parts[t]);
            } catch (...) {
                errors[t] = std::current_exception();
            }
        };
        if (t + 1 == n_threads) {
            job();
        } else {
            threads.emplace_back(job);
        }
    }
    for (auto& th : threads) th.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text, unsigned max_threads) const {
    std::vector<int32_t> out;
    out.reserve(text.size() / 3 + 4);
    if (added_.empty()) {
        encode_run(text, max_threads, out);
        return out;
    }
    // Cut out the user-defined tokens (one token at a time over all remaining text pieces, longest
    // token first: llama.cpp's tokenizer_st_partition).
    struct Fragment {
        std::size_t begin, end;
        int32_t id;  // -1: text
    };
    std::vector<Fragment> frags{{0, text.size(), -1}}, next;
    for (const Added& a : added_) {
        next.clear();
        for (const Fragment& f : frags) {
            if (f.id >= 0) {
                next.push_back(f);
                continue;
            }
            std::size_t pos = f.begin;
            while (true) {
                const std::size_t hit = text.substr(0, f.end).find(a.text, pos);
                if (hit == std::string_view::npos) break;
                if (hit > pos) next.push_back({pos, hit, -1});
                next.push_back({hit, hit + a.text.size(), a.id});
                pos = hit + a.text.size();
            }
            if (pos < f.end) next.push_back({pos, f.end, -1});
        }
        frags.swap(next);
    }
    for (const Fragment& f : frags) {
        if (f.id >= 0) {
            out.push_back(f.id);
        } else {
            encode_run(text.substr(f.begin, f.end - f.begin), max_threads, out);
        }
    }
    return out;
}

}  // namespace snapdoc
