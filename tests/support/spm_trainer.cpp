#include "tests/support/spm_trainer.h"

#include <sentencepiece_trainer.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <unordered_map>
#include <string_view>

#include "engine/common/error.h"

namespace snapdoc {
namespace {

// A fixed linear congruential generator: std::mt19937 would do too, but distributions are not
// specified bit-exactly across standard libraries, and the corpus must never change.
struct Lcg {
    uint64_t state;
    uint32_t next(uint32_t bound) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<uint32_t>((state >> 33) % bound);
    }
};

template <std::size_t N>
std::string_view pick(Lcg& rng, const std::array<std::string_view, N>& words) {
    return words[rng.next(static_cast<uint32_t>(N))];
}

// The character set is kept small on purpose (lower-case letters, a few capitals, space and four
// punctuation marks): with byte fallback, 259 of a 320-piece vocabulary are specials and bytes,
// and every character of the corpus needs a piece of its own before BPE can merge anything.
constexpr std::array<std::string_view, 12> kSubjects = {
    "the cat",       "a little girl", "the old man", "my brother", "the small dog",  "a tired farmer",
    "the teacher",   "our neighbour", "the bird",    "a young boy", "the queen",     "the sailor"};
constexpr std::array<std::string_view, 12> kVerbs = {
    "found",  "wanted", "looked at", "carried", "painted", "lost",
    "opened", "liked",  "watched",   "cleaned", "hid",     "shared"};
constexpr std::array<std::string_view, 12> kObjects = {
    "a red ball",      "the green door",  "some warm bread", "an old letter", "the blue boat",  "a shiny key",
    "the broken clock", "a box of apples", "the garden gate", "a paper kite", "the long road", "her favourite book"};
constexpr std::array<std::string_view, 10> kTails = {
    "in the morning",     "after school",        "near the river",   "on a rainy day",  "before dinner",
    "under the big tree", "with a happy smile",  "at the market",    "in the dark",     "when the sun was high"};
constexpr std::array<std::string_view, 6> kOpeners = {"Then", "One day", "Soon", "At last", "Suddenly", "Later"};
constexpr std::array<std::string_view, 4> kEnds = {".", ".", "!", "?"};

std::string capitalised(std::string_view s) {
    std::string out(s);
    if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
    return out;
}

}  // namespace

std::string tiny_training_corpus() {
    Lcg rng{20240611};
    std::string corpus;
    for (int line = 0; line < 400; ++line) {
        std::string s;
        if (rng.next(3) == 0) {
            s += pick(rng, kOpeners);
            s += ", ";
            s += pick(rng, kSubjects);
        } else {
            s += capitalised(pick(rng, kSubjects));
        }
        s += ' ';
        s += pick(rng, kVerbs);
        s += ' ';
        s += pick(rng, kObjects);
        if (rng.next(2) == 0) {
            s += ' ';
            s += pick(rng, kTails);
        }
        if (rng.next(4) == 0) {
            s += " and it wasn't ";
            s += rng.next(2) == 0 ? "easy" : "there";
        }
        s += pick(rng, kEnds);
        corpus += s;
        corpus += '\n';
    }
    return corpus;
}

std::filesystem::path train_tiny_sentencepiece(const std::filesystem::path& dir, int vocab_size, bool byte_fallback,
                                               const std::vector<std::string>& control_symbols) {
    std::filesystem::create_directories(dir);
    const std::filesystem::path corpus_path = dir / "tiny_corpus.txt";
    {
        std::ofstream out(corpus_path, std::ios::binary | std::ios::trunc);
        out << tiny_training_corpus();
        if (!out) throw Error("cannot write " + corpus_path.string());
    }
    std::string name = "tiny_spm_" + std::to_string(vocab_size) + (byte_fallback ? "_bf" : "");
    if (!control_symbols.empty()) name += "_c" + std::to_string(control_symbols.size());
    const std::filesystem::path prefix = dir / name;

    std::string controls;
    for (const std::string& c : control_symbols) controls += (controls.empty() ? "" : ",") + c;

    std::unordered_map<std::string, std::string> args = {
        {"input", corpus_path.string()},
        {"model_prefix", prefix.string()},
        {"model_type", "bpe"},
        {"vocab_size", std::to_string(vocab_size)},
        {"character_coverage", "1.0"},
        {"byte_fallback", byte_fallback ? "true" : "false"},
        {"normalization_rule_name", "identity"},
        {"add_dummy_prefix", "true"},
        {"remove_extra_whitespaces", "false"},
        {"split_digits", "true"},
        {"unk_id", "0"},
        {"bos_id", "1"},
        {"eos_id", "2"},
        {"pad_id", "-1"},
        {"num_threads", "1"},       // one thread: the same model bytes on every machine
        {"hard_vocab_limit", "true"},  // exactly vocab_size pieces, or an error
        {"minloglevel", "2"},       // errors only: tests should not print training logs
    };
    if (!controls.empty()) args["control_symbols"] = controls;
    const auto status = sentencepiece::SentencePieceTrainer::Train(args);
    if (!status.ok())
        throw Error("training the tiny SentencePiece model (vocab " + std::to_string(vocab_size) +
                    ") failed: " + status.ToString());
    return prefix.string() + ".model";
}

}  // namespace snapdoc
