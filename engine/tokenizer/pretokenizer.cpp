#include "engine/tokenizer/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>

#include "engine/common/error.h"

namespace snapdoc {
namespace {

// llama.cpp spells the contractions out instead of "(?i:'s|...)": with UCP, PCRE2's caseless 's'
// would also match U+017F (long s).
constexpr const char* kContractions = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";
constexpr const char* kGpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";

std::string llama3_style(const char* digits) {
    return std::string(kContractions) + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|" + digits +
           "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
}

struct NamedPreset {
    PretokenizerPreset preset;
    std::vector<std::string_view> aliases;
};

const std::vector<NamedPreset>& presets() {
    static const std::vector<NamedPreset> all = [] {
        std::vector<NamedPreset> v;
        v.push_back({{"llama-bpe", {llama3_style("\\p{N}{1,3}")}, true, true},
                     {"llama3", "llama-v3", "smaug-bpe", "falcon3", "pixtral"}});
        v.push_back({{"qwen2", {llama3_style("\\p{N}")}, false, false}, {"deepseek-r1-qwen"}});
        v.push_back({{"gpt-2", {kGpt2}, false, false}, {"gpt2"}});
        v.push_back(
            {{"default", {"[\\p{P}\\$\\+<=>\\^~\\|]+", kGpt2, "\\p{N}+", "[0-9][0-9][0-9]"}, false, false},
             {}});
        v.push_back(
            {{"tekken",
              {"[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|"
               "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|"
               "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
              true,
              true},
             {}});
        return v;
    }();
    return all;
}

std::string pcre2_message(int code) {
    std::array<PCRE2_UCHAR, 256> buf{};
    pcre2_get_error_message(code, buf.data(), buf.size());
    return reinterpret_cast<const char*>(buf.data());
}

// Backtracking over long whitespace or letter runs needs more than PCRE2's 32 KB default JIT stack.
constexpr std::size_t kJitStackMax = 8u << 20;

}  // namespace

struct Pretokenizer::Compiled {
    pcre2_code* code = nullptr;
    bool jit = false;
    ~Compiled() { pcre2_code_free(code); }
};

Pretokenizer::Pretokenizer(std::vector<std::string> regexes) : regexes_(std::move(regexes)) {
    for (const std::string& re : regexes_) {
        int err = 0;
        PCRE2_SIZE at = 0;
        auto c = std::make_unique<Compiled>();
        c->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re.data()), re.size(), PCRE2_UTF | PCRE2_UCP,
                                &err, &at, nullptr);
        if (!c->code) {
            throw FormatError("pre-tokenizer regex '" + re + "' does not compile at offset " +
                              std::to_string(at) + ": " + pcre2_message(err));
        }
        c->jit = pcre2_jit_compile(c->code, PCRE2_JIT_COMPLETE) == 0;
        compiled_.push_back(std::move(c));
    }
}

Pretokenizer::Pretokenizer(Pretokenizer&&) noexcept = default;
Pretokenizer& Pretokenizer::operator=(Pretokenizer&&) noexcept = default;
Pretokenizer::~Pretokenizer() = default;

void Pretokenizer::split(std::string_view text, std::vector<Span>& out, std::size_t base) const {
    if (text.empty()) return;
    std::vector<Span> pieces{{0, text.size()}}, next;
    if (compiled_.empty()) {
        out.push_back({base, base + text.size()});
        return;
    }
    pcre2_jit_stack* stack = pcre2_jit_stack_create(32 * 1024, kJitStackMax, nullptr);
    pcre2_match_context* mctx = pcre2_match_context_create(nullptr);
    if (stack && mctx) pcre2_jit_stack_assign(mctx, nullptr, stack);
    struct Cleanup {
        pcre2_jit_stack* s;
        pcre2_match_context* m;
        pcre2_match_data* d = nullptr;
        ~Cleanup() {
            pcre2_match_data_free(d);
            pcre2_match_context_free(m);
            pcre2_jit_stack_free(s);
        }
    } cleanup{stack, mctx};

    const auto* subject_all = reinterpret_cast<PCRE2_SPTR>(text.data());
    for (const auto& c : compiled_) {
        pcre2_match_data_free(cleanup.d);
        cleanup.d = pcre2_match_data_create_from_pattern(c->code, nullptr);
        if (!cleanup.d) throw Error("out of memory in the pre-tokenizer");
        next.clear();
        next.reserve(pieces.size() + text.size() / 4);
        for (const Span piece : pieces) {
            // Each piece is its own subject: anchors and lookaheads stop at its ends, as in llama.cpp.
            const PCRE2_SPTR subject = subject_all + piece.begin;
            const std::size_t len = piece.end - piece.begin;
            std::size_t pos = 0, gap = 0;
            while (pos < len) {
                const int rc =
                    c->jit ? pcre2_jit_match(c->code, subject, len, pos, 0, cleanup.d, mctx)
                           : pcre2_match(c->code, subject, len, pos, PCRE2_NO_UTF_CHECK, cleanup.d, mctx);
                if (rc == PCRE2_ERROR_NOMATCH) break;
                if (rc < 0) throw Error("pre-tokenizer regex failed: " + pcre2_message(rc));
                const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(cleanup.d);
                std::size_t mb = ov[0], me = ov[1];
                if (me == mb) {  // an empty match splits nothing: step over one character
                    pos = mb + 1;
                    while (pos < len && (subject[pos] & 0xC0) == 0x80) ++pos;
                    continue;
                }
                if (mb > gap) next.push_back({piece.begin + gap, piece.begin + mb});
                next.push_back({piece.begin + mb, piece.begin + me});
                pos = gap = me;
            }
            if (gap < len) next.push_back({piece.begin + gap, piece.end});
        }
        pieces.swap(next);
    }
    for (const Span s : pieces) out.push_back({base + s.begin, base + s.end});
}

std::vector<std::string> Pretokenizer::split(std::string_view text) const {
    std::vector<Span> spans;
    split(text, spans);
    std::vector<std::string> out;
    for (const Span s : spans) out.emplace_back(text.substr(s.begin, s.end - s.begin));
    return out;
}

const PretokenizerPreset& pretokenizer_preset(std::string_view pre) {
    if (pre.empty()) pre = "default";
    for (const NamedPreset& p : presets()) {
        if (p.preset.name == pre) return p.preset;
        for (std::string_view a : p.aliases)
            if (a == pre) return p.preset;
    }
    throw FormatError("unknown pre-tokenizer '" + std::string(pre) +
                      "' (tokenizer.ggml.pre); snapdoc supports " + supported_pretokenizers());
}

std::string supported_pretokenizers() {
    std::string s;
    for (const NamedPreset& p : presets()) {
        if (!s.empty()) s += ", ";
        s += p.preset.name;
        if (!p.aliases.empty()) {
            s += " (";
            for (std::size_t i = 0; i < p.aliases.size(); ++i)
                s += (i ? ", " : "") + std::string(p.aliases[i]);
            s += ")";
        }
    }
    return s;
}

}  // namespace snapdoc
