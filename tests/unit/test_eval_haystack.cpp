// The needle/haystack generator of the evaluations (app/eval/haystack.h): determinism, fact
// placement by depth, distinct keys and values, the training data's sentence style, exact match.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "app/eval/haystack.h"

namespace snapdoc::eval {
namespace {

int words(std::string_view s) {
    std::istringstream in{std::string(s)};
    std::string w;
    int n = 0;
    while (in >> w) ++n;
    return n;
}

TEST(EvalRng, DeterministicAndInRange) {
    Rng a(42), b(42), c(43);
    for (int i = 0; i < 100; ++i) {
        const uint64_t x = a.next();
        EXPECT_EQ(x, b.next());
        (void)c.next();
    }
    EXPECT_NE(Rng(42).next(), Rng(43).next());
    Rng r(7);
    std::set<int> seen;
    for (int i = 0; i < 2000; ++i) {
        const int u = r.uniform(10);
        ASSERT_GE(u, 0);
        ASSERT_LT(u, 10);
        seen.insert(u);
        const int v = r.range(1000, 9999);
        ASSERT_GE(v, 1000);
        ASSERT_LE(v, 9999);
        const double d = r.real();
        ASSERT_GE(d, 0.0);
        ASSERT_LT(d, 1.0);
    }
    EXPECT_EQ(seen.size(), 10u);
    // The stream is fixed by the algorithm (SplitMix64), not by the standard library.
    EXPECT_EQ(Rng(0).next(), 0xE220A8397B1DCDAFull);
    EXPECT_EQ(mix_seed({1, 2, 3}), mix_seed({1, 2, 3}));
    EXPECT_NE(mix_seed({1, 2, 3}), mix_seed({1, 3, 2}));
}

TEST(EvalHaystack, FactAndQuestionMatchTheTrainingStyle) {
    const Fact f{"access code", "north", "gate", "7391"};
    EXPECT_EQ(f.sentence(), "The access code for the north gate is 7391.");
    EXPECT_EQ(f.question(), "What is the access code for the north gate?");
}

TEST(EvalHaystack, FactsHaveDistinctEntitiesAndFourDigitValues) {
    Rng rng(3);
    const auto facts = make_facts(rng, 40, 0.8);
    ASSERT_EQ(facts.size(), 40u);
    std::set<std::string> entities, values;
    int lookalikes = 0;
    for (std::size_t i = 0; i < facts.size(); ++i) {
        const Fact& f = facts[i];
        entities.insert(f.modifier + "|" + f.place);
        values.insert(f.value);
        EXPECT_TRUE(std::regex_match(f.value, std::regex("[1-9][0-9]{3}"))) << f.value;
        for (std::size_t j = 0; j < i; ++j) lookalikes += facts[j].place == f.place || facts[j].modifier == f.modifier;
    }
    EXPECT_EQ(entities.size(), 40u);
    EXPECT_EQ(values.size(), 40u);
    EXPECT_GT(lookalikes, 20);  // distractors that share half of the entity
}

TEST(EvalHaystack, ValuesComeFromTheTrainingPool) {
    // The pool (tools/demo_model/wordlists.py VALUE_POOL): 2000 distinct sorted 4-digit numbers, each
    // one token of the demo model's vocabulary.
    Rng rng(1);
    std::set<std::string> seen;
    for (int i = 0; i < 10000; ++i)
        for (const Fact& f : make_facts(rng, 2, 0.0)) seen.insert(f.value);
    EXPECT_GT(seen.size(), 1900u);
    EXPECT_LE(seen.size(), 2000u);
    EXPECT_EQ(*seen.begin(), "1000");  // the pool's smallest value (random.Random(2024) sample)
}

TEST(EvalHaystack, EnoughDistinctFactsFor128kTokens) {
    // eval-niah's default density (10 facts per 1000 tokens) at 131072 tokens: 1311 facts about
    // distinct entities with distinct values (the 480 entities / 1000 values before ran out at 64K).
    Rng rng(5);
    const std::vector<Fact> facts = make_facts(rng, 1311, 0.6);
    ASSERT_EQ(facts.size(), 1311u);
    std::set<std::string> entities, values;
    for (const Fact& f : facts) {
        entities.insert(f.modifier + " " + f.place);
        values.insert(f.value);
    }
    EXPECT_EQ(entities.size(), 1311u);
    EXPECT_EQ(values.size(), 1311u);
}

TEST(EvalHaystack, FillerHasNoFactsAndNoPlaceholders) {
    Rng rng(11);
    const std::regex four_digits("[0-9]{4}");
    for (int i = 0; i < 500; ++i) {
        const std::string s = filler_sentence(rng);
        EXPECT_EQ(s.find('{'), std::string::npos) << s;
        EXPECT_FALSE(std::regex_search(s, four_digits)) << s;
        EXPECT_TRUE(s.back() == '.') << s;
        EXPECT_TRUE(s[0] >= 'A' && s[0] <= 'Z') << s;
    }
}

TEST(EvalHaystack, DocumentPlacesFactsByDepthAndReachesTheLength) {
    Rng rng(5);
    const auto facts = make_facts(rng, 3, 0.0);
    const Document doc = build_document(rng, 600, words, facts, {1.0, 0.0, 0.5});
    // Ordered by depth in the document: depth 0 first, then 0.5, then 1.0.
    ASSERT_EQ(doc.facts.size(), 3u);
    EXPECT_EQ(doc.facts[0].value, facts[1].value);
    EXPECT_EQ(doc.facts[1].value, facts[2].value);
    EXPECT_EQ(doc.facts[2].value, facts[0].value);
    const auto p0 = doc.text.find(facts[1].sentence());
    const auto p1 = doc.text.find(facts[2].sentence());
    const auto p2 = doc.text.find(facts[0].sentence());
    ASSERT_NE(p0, std::string::npos);
    ASSERT_NE(p1, std::string::npos);
    ASSERT_NE(p2, std::string::npos);
    EXPECT_LT(p0, p1);
    EXPECT_LT(p1, p2);
    // Depth 0: the first sentence after the title; depth 1: the last sentence.
    EXPECT_EQ(doc.text.find("\n\n") + 2, p0);
    EXPECT_EQ(p2 + facts[0].sentence().size(), doc.text.size());
    const double mid = static_cast<double>(p1) / static_cast<double>(doc.text.size());
    EXPECT_GT(mid, 0.35);
    EXPECT_LT(mid, 0.65);
    const int n = words(doc.text);
    EXPECT_GE(n, 600 - 2);
    EXPECT_LT(n, 600 + 40);
}

TEST(EvalHaystack, NeedleDocumentsAreSeeded) {
    auto make = [](uint64_t seed) {
        Rng rng(seed);
        return needle_document(rng, 400, words, 0.3);
    };
    const Needle a = make(9), b = make(9), c = make(10);
    EXPECT_EQ(a.document.text, b.document.text);
    EXPECT_EQ(a.needle.value, b.needle.value);
    EXPECT_NE(a.document.text, c.document.text);
    // The needle is in the document exactly once, and so is every other fact.
    for (const Fact& f : a.document.facts) {
        const auto first = a.document.text.find(f.sentence());
        ASSERT_NE(first, std::string::npos);
        EXPECT_EQ(a.document.text.find(f.sentence(), first + 1), std::string::npos);
    }
    EXPECT_EQ(a.document.facts.size(), 4u);  // 10 per 1000 tokens of 400
    EXPECT_NE(a.document.text.find(a.needle.sentence()), std::string::npos);
}

TEST(EvalHaystack, AnswerMatching) {
    const Fact f{"access code", "north", "gate", "7391"};
    EXPECT_EQ(f.answer(), "The access code for the north gate is 7391.");
    EXPECT_TRUE(answer_matches("The access code for the north gate is 7391.", f));
    EXPECT_TRUE(answer_matches(" The access code for the north gate is 7391.\n", f));
    EXPECT_TRUE(answer_matches("7391", f));
    EXPECT_TRUE(answer_matches(" 7391.\n", f));
    EXPECT_FALSE(answer_matches("The access code for the south gate is 7391.", f));
    EXPECT_FALSE(answer_matches("The access code for the north gate is 7390.", f));
    EXPECT_FALSE(answer_matches("73910", f));
    EXPECT_FALSE(answer_matches("7391 is the code", f));
    EXPECT_FALSE(answer_matches("", f));
}

}  // namespace
}  // namespace snapdoc::eval
