// Synthetic long documents with facts at chosen depths, and questions about them: the C++ port of
// tools/demo_model/haystack.py (the demo model's training data), for the needle-in-a-haystack and
// multi-question evaluations. Same templates and word lists (haystack_lists.inc is generated from
// tools/demo_model/wordlists.py); its own seeded random stream, identical on every platform.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace snapdoc::eval {

// SplitMix64: small, seedable, and the same numbers everywhere (std:: distributions are not).
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next();
    int uniform(int n);                // [0, n)
    int range(int lo, int hi);         // [lo, hi]
    double real();                     // [0, 1)
    template <class C>
    const auto& pick(const C& items) { return items[static_cast<std::size_t>(uniform(static_cast<int>(items.size())))]; }

private:
    uint64_t state_;
};

// A seed for one cell of an evaluation grid (any number of parts), stable across runs.
uint64_t mix_seed(std::initializer_list<uint64_t> parts);

struct Fact {
    std::string attribute, modifier, place, value;  // value: a 4-digit number from the value pool
    std::string sentence() const;  // "The access code for the north gate is 7391."
    std::string question() const;  // "What is the access code for the north gate?"
    std::string answer() const { return sentence(); }  // what the demo model is trained to say
    bool same_entity(const Fact& o) const { return modifier == o.modifier && place == o.place; }
};

struct Document {
    std::string text;
    std::vector<Fact> facts;      // in document order
    std::vector<double> depths;   // per fact in `facts`, its requested depth in [0, 1]
    int estimated_tokens = 0;     // the sum of per-sentence counts
};

using TokenCounter = std::function<int(std::string_view)>;

std::string filler_sentence(Rng& rng);
// `n` facts about distinct entities (modifier + place) with distinct values; about `distractor_rate`
// of them name an entity like an earlier one's (same place with another modifier, or same modifier
// with another place); attributes are drawn freely, so the entity is what tells facts apart.
std::vector<Fact> make_facts(Rng& rng, int n, double distractor_rate);
// A document of about `target_tokens` (counted with `count`) holding `facts[i]` at `depths[i]` (the
// fraction of sentences before it); filler sentences in paragraphs of 3 to 8 under a title line.
Document build_document(Rng& rng, int target_tokens, const TokenCounter& count, const std::vector<Fact>& facts,
                        const std::vector<double>& depths);

struct Needle {
    Document document;
    Fact needle;
};
// A needle at `depth` and round(target_tokens * facts_per_1k / 1000) - 1 (at least 1) distractor
// facts at random depths, about 60% of them look-alikes.
Needle needle_document(Rng& rng, int target_tokens, const TokenCounter& count, double depth, int facts_per_1k = 10);

// Exact match, trimmed of surrounding whitespace: the answer restates the fact exactly ("The access
// code for the north gate is 7391.", the demo model's style) or is the bare value ("7391", "7391.").
bool answer_matches(std::string_view answer, const Fact& fact);

}  // namespace snapdoc::eval
