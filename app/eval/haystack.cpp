#include "app/eval/haystack.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <set>
#include <string_view>

#include "engine/common/error.h"

namespace snapdoc::eval {
namespace lists {
#include "app/eval/haystack_lists.inc"
}  // namespace lists

uint64_t Rng::next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int Rng::uniform(int n) {
    if (n <= 0) throw Error("Rng::uniform: n must be positive");
    return static_cast<int>((static_cast<unsigned __int128>(next()) * static_cast<uint64_t>(n)) >> 64);
}

int Rng::range(int lo, int hi) { return lo + uniform(hi - lo + 1); }

double Rng::real() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

uint64_t mix_seed(std::initializer_list<uint64_t> parts) {
    uint64_t h = 0x243F6A8885A308D3ull;
    for (uint64_t p : parts) {
        Rng r(h ^ p);
        h = r.next();
    }
    return h;
}

namespace {

// Replaces every "{name}" in `tmpl` with field(name).
template <class F>
std::string format(std::string_view tmpl, F&& field) {
    std::string out;
    std::size_t i = 0;
    while (i < tmpl.size()) {
        const std::size_t open = tmpl.find('{', i);
        if (open == std::string_view::npos) {
            out.append(tmpl.substr(i));
            break;
        }
        const std::size_t close = tmpl.find('}', open);
        if (close == std::string_view::npos) throw Error("haystack template has an unclosed '{': " + std::string(tmpl));
        out.append(tmpl.substr(i, open - i));
        out += field(tmpl.substr(open + 1, close - open - 1));
        i = close + 1;
    }
    return out;
}

std::string cap(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
}

}  // namespace

std::string Fact::sentence() const {
    return format(lists::kFactTemplate, [&](std::string_view f) -> std::string {
        if (f == "attribute") return attribute;
        if (f == "modifier") return modifier;
        if (f == "place") return place;
        if (f == "value") return value;
        throw Error("unknown fact field " + std::string(f));
    });
}

std::string Fact::question() const {
    return format(lists::kQuestionTemplate, [&](std::string_view f) -> std::string {
        if (f == "attribute") return attribute;
        if (f == "modifier") return modifier;
        if (f == "place") return place;
        throw Error("unknown question field " + std::string(f));
    });
}

std::string filler_sentence(Rng& rng) {
    // Draw every field first (as the Python generator does), then fill the template.
    const std::string name(rng.pick(lists::kNames));
    const std::string name2(rng.pick(lists::kNames)), verb(rng.pick(lists::kVerbs)), verb2(rng.pick(lists::kVerbs));
    const std::string noun(rng.pick(lists::kNouns)), noun2(rng.pick(lists::kNouns)), plural(rng.pick(lists::kPlurals));
    const std::string adj(rng.pick(lists::kAdjectives)), time(rng.pick(lists::kTimes)), event(rng.pick(lists::kEvents));
    const std::string town(rng.pick(lists::kTowns)), small = std::to_string(rng.range(2, 99));
    const std::string place(rng.pick(lists::kPlaces)), modifier(rng.pick(lists::kModifiers));
    const std::string_view tmpl = rng.pick(lists::kFillerTemplates);
    return cap(format(tmpl, [&](std::string_view f) -> std::string {
        if (f == "name") return name;
        if (f == "Name") return cap(name);
        if (f == "name2") return name2;
        if (f == "verb") return verb;
        if (f == "verb2") return verb2;
        if (f == "noun") return noun;
        if (f == "noun2") return noun2;
        if (f == "plural") return plural;
        if (f == "adj") return adj;
        if (f == "time") return time;
        if (f == "event") return event;
        if (f == "town") return town;
        if (f == "small") return small;
        if (f == "place") return place;
        if (f == "modifier") return modifier;
        throw Error("unknown filler field " + std::string(f));
    }));
}

std::vector<Fact> make_facts(Rng& rng, int n, double distractor_rate) {
    std::vector<Fact> facts;
    std::set<std::string> values;
    int attempts = 0;
    while (static_cast<int>(facts.size()) < n) {
        if (++attempts > 1000 * (n + 1)) throw Error("make_facts: cannot find " + std::to_string(n) + " distinct facts");
        Fact f;
        if (!facts.empty() && rng.real() < distractor_rate) {
            const Fact& base = facts[static_cast<std::size_t>(rng.uniform(static_cast<int>(facts.size())))];
            if (rng.real() < 0.5) {
                f.modifier = rng.pick(lists::kModifiers);
                f.place = base.place;
            } else {
                f.modifier = base.modifier;
                f.place = rng.pick(lists::kPlaces);
            }
        } else {
            f.modifier = rng.pick(lists::kModifiers);
            f.place = rng.pick(lists::kPlaces);
        }
        if (std::any_of(facts.begin(), facts.end(), [&](const Fact& o) { return o.same_entity(f); })) continue;
        f.attribute = rng.pick(lists::kAttributes);
        f.value = std::string(rng.pick(lists::kValuePool));
        if (!values.insert(f.value).second) continue;
        facts.push_back(std::move(f));
    }
    return facts;
}

Document build_document(Rng& rng, int target_tokens, const TokenCounter& count, const std::vector<Fact>& facts,
                        const std::vector<double>& depths) {
    if (depths.size() != facts.size()) throw Error("build_document: one depth per fact");
    const std::string title = cap(format(rng.pick(lists::kTitleTemplates), [&](std::string_view) {
        return std::string(rng.pick(lists::kTowns));
    }));
    int used = count(title) + 2;
    std::vector<std::string> fact_sentences;
    for (const Fact& f : facts) {
        fact_sentences.push_back(f.sentence());
        used += count(fact_sentences.back());
    }
    std::vector<std::string> filler;
    while (used < target_tokens) {
        filler.push_back(filler_sentence(rng));
        used += count(filler.back());
    }
    const auto n_filler = static_cast<double>(filler.size());
    auto slot_of = [&](std::size_t i) { return static_cast<long>(std::nearbyint(depths[i] * n_filler)); };
    std::vector<std::size_t> order(facts.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return slot_of(a) < slot_of(b); });

    Document doc;
    std::vector<std::string> sentences;
    std::size_t k = 0;
    for (std::size_t slot = 0; slot <= filler.size(); ++slot) {
        while (k < order.size() && slot_of(order[k]) == static_cast<long>(slot)) {
            sentences.push_back(fact_sentences[order[k]]);
            doc.facts.push_back(facts[order[k]]);
            doc.depths.push_back(depths[order[k]]);
            ++k;
        }
        if (slot < filler.size()) sentences.push_back(std::move(filler[slot]));
    }
    doc.text = title + "\n\n";
    for (std::size_t i = 0; i < sentences.size();) {
        const std::size_t n = static_cast<std::size_t>(rng.range(3, 8));
        if (i > 0) doc.text += '\n';
        for (std::size_t j = i; j < std::min(sentences.size(), i + n); ++j) {
            if (j > i) doc.text += ' ';
            doc.text += sentences[j];
        }
        i += n;
    }
    doc.estimated_tokens = used;
    return doc;
}

Needle needle_document(Rng& rng, int target_tokens, const TokenCounter& count, double depth, int facts_per_1k) {
    const int n = std::max(2, static_cast<int>(std::lround(target_tokens * facts_per_1k / 1000.0)));
    std::vector<Fact> facts = make_facts(rng, n, 0.6);
    std::vector<double> depths{depth};
    for (std::size_t i = 1; i < facts.size(); ++i) depths.push_back(rng.real());
    Needle out;
    out.needle = facts[0];
    out.document = build_document(rng, target_tokens, count, facts, depths);
    return out;
}

bool answer_matches(std::string_view answer, const Fact& fact) {
    constexpr std::string_view ws = " \t\r\n";
    const auto first = answer.find_first_not_of(ws);
    if (first == std::string_view::npos) return false;
    answer = answer.substr(first, answer.find_last_not_of(ws) - first + 1);
    if (answer == fact.sentence()) return true;
    if (answer.back() == '.') answer.remove_suffix(1);
    return answer == fact.value;
}

}  // namespace snapdoc::eval
