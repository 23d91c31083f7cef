// Multi-turn conversations in DocumentChat: a follow-up equals a fresh chat (and a token-major
// prefill) of the same full prompt, only the tokens not already stored run through the layers, an
// edited earlier turn is recomputed from the first difference, the history budget keeps recent
// turns whole, and bad input is refused before any forward pass. A tiny random model with a real
// (tiny, trained) SentencePiece tokenizer in ChatML.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/conversation.h"
#include "engine/session/document_chat.h"
#include "engine/session/prefill.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/error_text.h"
#include "tests/support/spm_trainer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

struct AskRun {
    AskResult result;
    std::vector<std::vector<float>> logits;  // every decode step's logits
};

class ConversationTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir("snapdoc-conversation");
        tok_ = new Tokenizer(Tokenizer::from_file(
            train_tiny_sentencepiece(dir_->path() / "tok", 400, true, {"<|im_start|>", "<|im_end|>"}).string()));
        TinyModelSpec spec;
        spec.n_layers = 3;
        spec.n_heads = 4;
        spec.n_kv_heads = 2;
        spec.vocab_size = tok_->vocab_size();
        spec.context_length = 1024;
        spec.seed = 7;
        write_tiny_gguf(dir_->path() / "m.gguf", make_tiny_weights(spec), DType::F32);
        model_ = new Model(load_model(dir_->path() / "m.gguf"));
        backend_ = make_cpu_backend(*model_).release();
        // ~300 tokens of the tokenizer's own corpus: real words, real merges.
        const std::string corpus = tiny_training_corpus();
        doc_ = corpus.substr(0, 1200);
    }
    static void TearDownTestSuite() {
        delete backend_;
        delete model_;
        delete tok_;
        delete dir_;
    }

    std::unique_ptr<DocumentChat> chat() const {
        auto c = std::make_unique<DocumentChat>(*backend_, *tok_, ChatTemplateKind::ChatML);
        c->load_document(doc_);
        return c;
    }
    static AskOptions options(bool compress) {
        AskOptions o;
        o.snapkv.enabled = compress;
        o.snapkv.budget = 48;
        o.snapkv.window = 8;
        o.snapkv.kernel = 5;
        o.max_new_tokens = 6;
        o.citations = false;
        return o;
    }
    static AskRun ask(DocumentChat& c, const std::string& q, AskOptions o) {
        AskRun run;
        o.on_logits = [&](std::span<const float> l) { run.logits.emplace_back(l.begin(), l.end()); };
        run.result = c.ask(q, o);
        return run;
    }
    static void expect_same_run(const AskRun& a, const AskRun& b, float tol) {
        EXPECT_EQ(a.result.generation.tokens, b.result.generation.tokens);
        ASSERT_EQ(a.logits.size(), b.logits.size());
        for (std::size_t s = 0; s < a.logits.size(); ++s)
            for (std::size_t i = 0; i < a.logits[s].size(); ++i)
                ASSERT_NEAR(a.logits[s][i], b.logits[s][i], tol) << "step " << s << " logit " << i;
    }
    static int common_prefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
        int n = 0;
        while (n < static_cast<int>(std::min(a.size(), b.size())) && a[n] == b[n]) ++n;
        return n;
    }

    static inline TempDir* dir_ = nullptr;
    static inline Tokenizer* tok_ = nullptr;
    static inline Model* model_ = nullptr;
    static inline Backend* backend_ = nullptr;
    static inline std::string doc_;
    const std::string q1_ = "Who found the ball?";
    const std::string q2_ = "Where did the cat hide the key?";
    const std::string q3_ = "And after that?";
};

// The follow-up's logits (first step from the prompt, later steps on the cache) equal a fresh chat
// asked the same conversation, and the first step equals a token-major prefill of the whole prompt.
TEST_F(ConversationTest, FollowUpEqualsAFreshChatUnderFullKv) {
    auto a = chat();
    const AskRun r1 = ask(*a, q1_, options(false));
    AskOptions o = options(false);
    o.history = {{q1_, r1.result.answer}};
    const AskRun r2 = ask(*a, q2_, o);
    EXPECT_GT(r2.result.reused_tokens, 0);
    EXPECT_EQ(r2.result.history_tokens + r2.result.question_tokens,
              r2.result.reused_tokens + r2.result.forwarded_tokens);

    auto b = chat();
    const AskRun fresh = ask(*b, q2_, o);
    EXPECT_EQ(fresh.result.reused_tokens, 0);
    expect_same_run(r2, fresh, 1e-4f);

    // Token-major reference: document part + turns + question in one prefill, all in f32 (the session's
    // document K/V are rounded to f16 in the host store, the turns' are f32: a looser tolerance).
    std::vector<int32_t> prompt = build_document_part(ChatTemplateKind::ChatML, *tok_, "", doc_);
    const ConversationPart part = conversation_part(ChatTemplateKind::ChatML, *tok_, o.history, q2_);
    prompt.insert(prompt.end(), part.ids.begin(), part.ids.end());
    auto kv = make_full_kv_cache(*backend_, static_cast<int>(prompt.size()));
    const std::vector<float> ref = prefill(*backend_, prompt, 0, *kv);
    ASSERT_FALSE(r2.logits.empty());
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(r2.logits[0][i], ref[i], 2e-3f);
    EXPECT_EQ(r2.result.generation.prompt_tokens, static_cast<int>(prompt.size()));
}

// Under SnapKV with the history kept whole (the default budget fits it), the follow-up selects and
// decodes exactly as a fresh chat: the history is not compressed, every history position is kept.
TEST_F(ConversationTest, FollowUpEqualsAFreshChatUnderSnapKvWithTheHistoryKeptWhole) {
    auto a = chat();
    const AskRun r1 = ask(*a, q1_, options(true));
    AskOptions o = options(true);
    o.history = {{q1_, r1.result.answer}};
    const AskRun r2 = ask(*a, q2_, o);
    auto b = chat();
    const AskRun fresh = ask(*b, q2_, o);
    expect_same_run(r2, fresh, 1e-4f);

    const Selection& s = *r2.result.selection;
    ASSERT_TRUE(s.compressed);
    const int D = a->session().document_tokens(), L = s.prompt_len, W = s.window;
    EXPECT_EQ(r2.result.history_kept_from, D);  // one short turn: all of it fits the history budget
    for (std::size_t l = 0; l < s.layers.size(); ++l)
        for (std::size_t c = 0; c < s.layers[l].size(); ++c) {
            const auto& kept = s.layers[l][c].kept;
            EXPECT_EQ(kept, fresh.result.selection->layers[l][c].kept);
            // The document part is compressed to the budget, the history is there whole.
            const auto doc_kept = std::count_if(kept.begin(), kept.end(), [&](int32_t p) { return p < D; });
            EXPECT_EQ(doc_kept, o.snapkv.budget - W);
            for (int p = D; p < L - W; ++p) ASSERT_TRUE(std::binary_search(kept.begin(), kept.end(), p)) << p;
        }
}

// Only the tokens not already stored run through the layers: after an ask, its question part is
// stored (and, with citations, its answer too); the follow-up runs from the first difference.
TEST_F(ConversationTest, OnlyTheNewTurnRunsThroughTheLayers) {
    for (const bool citations : {false, true}) {
        SCOPED_TRACE(citations ? "with citations (the answer's K/V are kept)" : "without citations");
        auto a = chat();
        AskOptions o = options(false);
        o.citations = citations;
        const AskRun r1 = ask(*a, q1_, o);
        ASSERT_FALSE(r1.result.generation.tokens.empty()) << "the tiny model should say something";
        const std::vector<int32_t> stored = a->session().stored_tail();
        const std::vector<int32_t> q1_part = build_question_part(ChatTemplateKind::ChatML, *tok_, q1_);
        EXPECT_EQ(static_cast<int>(stored.size()),
                  static_cast<int>(q1_part.size() + (citations ? r1.result.generation.tokens.size() : 0)));

        o.history = {{q1_, r1.result.answer}};
        const ConversationPart part = conversation_part(ChatTemplateKind::ChatML, *tok_, o.history, q2_);
        const int expected_reused = std::min(common_prefix(stored, part.ids), static_cast<int>(part.ids.size()) - 1);
        EXPECT_GE(expected_reused, static_cast<int>(q1_part.size()) - 1);

        const SessionCounters before = a->session().counters();
        o.citations = false;  // count this ask's rows alone
        const AskRun r2 = ask(*a, q2_, o);
        const SessionCounters after = a->session().counters();
        EXPECT_EQ(r2.result.reused_tokens, expected_reused);
        EXPECT_EQ(r2.result.forwarded_tokens, static_cast<int>(part.ids.size()) - expected_reused);
        const auto& g = r2.result.generation;
        const int64_t decode_steps =
            static_cast<int64_t>(g.tokens.size()) - (g.stop == StopReason::TokenLimit ? 1 : 0);
        const int NL = backend_->config().n_layers;
        EXPECT_EQ(after.rows_forwarded - before.rows_forwarded, (r2.result.forwarded_tokens + decode_steps) * NL);
    }
}

// With citations on, the answer's K/V computed for scoring are reused by the next turn: the
// follow-up runs little more than the turn markers and the new question.
TEST_F(ConversationTest, TheAnswersKvAreReusedByTheNextTurn) {
    auto a = chat();
    AskOptions o = options(false);
    o.citations = true;
    const AskRun r1 = ask(*a, q1_, o);
    ASSERT_FALSE(r1.result.generation.tokens.empty());
    o.history = {{q1_, r1.result.answer}};
    const AskRun r2 = ask(*a, q2_, o);
    const std::vector<int32_t> q1_part = build_question_part(ChatTemplateKind::ChatML, *tok_, q1_);
    // The answer re-encoded from its text matches the generated ids here (plain words).
    EXPECT_EQ(tok_->encode("assistant\n" + r1.result.answer).size() - tok_->encode("assistant\n").size(),
              r1.result.generation.tokens.size());
    EXPECT_GE(r2.result.reused_tokens, static_cast<int>(q1_part.size() + r1.result.generation.tokens.size()) - 1);
    auto b = chat();
    const AskRun fresh = ask(*b, q2_, o);
    expect_same_run(r2, fresh, 1e-4f);
}

// An edited earlier turn: the stored K/V are reused up to the first differing token only, and the
// result equals a fresh chat of the edited conversation.
TEST_F(ConversationTest, ChangingAnEarlierTurnRecomputesFromThere) {
    auto a = chat();
    AskOptions o = options(false);
    const std::vector<ChatTurn> turns = {{q1_, "The old man found it."}, {q2_, "Near the river."}};
    o.history = turns;
    (void)ask(*a, q3_, o);
    const std::vector<int32_t> stored = a->session().stored_tail();

    std::vector<ChatTurn> edited = turns;
    edited[0].answer = "A small girl found it.";
    o.history = edited;
    const ConversationPart part = conversation_part(ChatTemplateKind::ChatML, *tok_, edited, q3_);
    const int first_difference = common_prefix(stored, part.ids);
    ASSERT_LT(first_difference, part.turn_starts.at(1));  // the change is inside turn 1
    const AskRun changed = ask(*a, q3_, o);
    EXPECT_EQ(changed.result.reused_tokens, first_difference);
    EXPECT_EQ(changed.result.forwarded_tokens, static_cast<int>(part.ids.size()) - first_difference);
    auto b = chat();
    expect_same_run(changed, ask(*b, q3_, o), 1e-4f);

    // The same conversation again (a regenerate): everything but the last token is reused.
    const AskRun again = ask(*a, q3_, o);
    EXPECT_EQ(again.result.forwarded_tokens, 1);
    expect_same_run(again, changed, 1e-4f);
}

// The history budget: the newest turns that fit history_keep_tokens are kept whole, older ones are
// compressed with the document; 0 compresses all history, -1 keeps all of it.
TEST_F(ConversationTest, HistoryBudgetKeepsTheNewestTurnsWhole) {
    auto a = chat();
    AskOptions o = options(true);
    o.history = {{q1_, "The old man found a red ball near the river."}, {q2_, "The cat hid the key."}};
    const ConversationPart part = conversation_part(ChatTemplateKind::ChatML, *tok_, o.history, q3_);
    const int D = a->session().document_tokens();
    const int second_turn = part.question_start - part.turn_starts[1];

    o.history_keep_tokens = second_turn;  // room for the newest turn only
    AskRun r = ask(*a, q3_, o);
    EXPECT_EQ(r.result.history_kept_from, D + part.turn_starts[1]);
    const Selection& s = *r.result.selection;
    const int W = s.window, L = s.prompt_len, older_end = D + part.turn_starts[1];
    for (const auto& layer : s.layers)
        for (const auto& h : layer) {
            for (int p = older_end; p < L - W; ++p) ASSERT_TRUE(std::binary_search(h.kept.begin(), h.kept.end(), p));
            // Document + older turn share the SnapKV budget.
            EXPECT_EQ(std::count_if(h.kept.begin(), h.kept.end(), [&](int32_t p) { return p < older_end; }),
                      o.snapkv.budget - W);
        }

    o.history_keep_tokens = 0;  // plain SnapKV over document + history
    r = ask(*a, q3_, o);
    EXPECT_EQ(r.result.history_kept_from, L);
    for (const auto& layer : r.result.selection->layers)
        for (const auto& h : layer) EXPECT_EQ(static_cast<int>(h.kept.size()), o.snapkv.budget - W);

    o.history_keep_tokens = -1;
    r = ask(*a, q3_, o);
    EXPECT_EQ(r.result.history_kept_from, D);
}

// An independent question (no history) takes exactly the path it took before conversations: the
// same numbers as driving the session by hand.
TEST_F(ConversationTest, AnIndependentQuestionIsUnchanged) {
    auto a = chat();
    const AskRun r = ask(*a, q1_, options(true));
    EXPECT_EQ(r.result.reused_tokens, 0);
    EXPECT_EQ(r.result.history_tokens, 0);
    EXPECT_EQ(r.result.forwarded_tokens, r.result.question_tokens);

    DocumentSession s(*backend_);
    s.prefill_document(build_document_part(ChatTemplateKind::ChatML, *tok_, "", doc_));
    s.set_question(build_question_part(ChatTemplateKind::ChatML, *tok_, q1_), 8);
    const AskOptions o = options(true);
    auto sel = s.select(o.snapkv);
    GenerationRequest req;
    req.max_new_tokens = o.max_new_tokens;
    req.stop_tokens = end_of_turn_ids(ChatTemplateKind::ChatML, *tok_);
    std::vector<std::vector<float>> logits;
    req.on_logits = [&](std::span<const float> l) { logits.emplace_back(l.begin(), l.end()); };
    const AnswerResult g = s.answer(*sel, req);
    EXPECT_EQ(g.tokens, r.result.generation.tokens);
    EXPECT_EQ(logits, r.logits);  // bit for bit
}

// Moving the sliders after a follow-up (DocumentChat::reselect: other budget, other window) keeps
// the recent turns whole and needs no forward pass.
TEST_F(ConversationTest, ReselectingAfterAFollowUpKeepsTheHistoryWhole) {
    auto a = chat();
    AskOptions o = options(true);
    o.history = {{q1_, "The old man found a red ball."}};
    const AskRun r = ask(*a, q2_, o);
    const int D = a->session().document_tokens();
    const int64_t rows = a->session().counters().rows_forwarded;
    for (const auto& [budget, window] : {std::pair{40, 8}, std::pair{64, 4}}) {
        SnapKvConfig c = o.snapkv;
        c.budget = budget;
        c.window = window;
        const auto sel = a->reselect(c);
        ASSERT_EQ(sel->prompt_len, r.result.selection->prompt_len);
        for (const auto& layer : sel->layers)
            for (const auto& h : layer) {
                for (int p = D; p < sel->prompt_len - window; ++p)
                    ASSERT_TRUE(std::binary_search(h.kept.begin(), h.kept.end(), p)) << p;
                EXPECT_EQ(std::count_if(h.kept.begin(), h.kept.end(), [&](int32_t p) { return p < D; }), budget - window);
            }
    }
    EXPECT_EQ(a->session().counters().rows_forwarded, rows);
}

// A follow-up stopped while its turns run leaves nothing half-stored: the next ask equals a fresh chat.
TEST_F(ConversationTest, AStoppedFollowUpLeavesAUsableSession) {
    auto a = chat();
    AskOptions o = options(false);
    (void)ask(*a, q1_, o);
    std::atomic<bool> stop{true};
    o.history = {{q1_, "The old man found a red ball."}};
    o.cancel = &stop;
    EXPECT_THROW(a->ask(q2_, o), Cancelled);
    stop = false;
    const AskRun after = ask(*a, q2_, o);
    auto b = chat();
    expect_same_run(after, ask(*b, q2_, o), 1e-4f);
}

// Issue 24: a conversation past the context leaves out its oldest turns (it was refused: the 10th of
// 10 turns failed); what still cannot fit with no turn left is refused before any forward pass.
TEST_F(ConversationTest, HistoryBeyondTheContextDropsTheOldestTurns) {
    auto a = chat();
    AskOptions o = options(false);
    std::string long_answer;
    while (tok_->encode(long_answer).size() < 900) long_answer += "The cat hid the key near the river. ";
    o.history = {{q1_, long_answer}, {q1_, "The old man found a red ball."}};
    EXPECT_EQ(a->turns_to_drop(q2_, o.history, o.max_new_tokens), 1);
    const AskRun run = ask(*a, q2_, o);
    EXPECT_EQ(run.result.dropped_turns, 1);
    EXPECT_LE(run.result.generation.prompt_tokens + o.max_new_tokens, 1024);
    // The same as asking with the newest turn only.
    auto b = chat();
    AskOptions newest = o;
    newest.history.erase(newest.history.begin());
    expect_same_run(run, ask(*b, q2_, newest), 1e-4f);

    // A question that does not fit even alone (here: the answer budget) is refused before any layer runs.
    auto c = chat();
    o.max_new_tokens = 1000;
    const SessionCounters before = c->session().counters();
    try {
        c->ask(q2_, o);
        FAIL() << "expected the context check to refuse";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("document + history (0 turns) + question + answer"), std::string::npos) << m;
        EXPECT_NE(m.find("context is 1024"), std::string::npos) << m;
    }
    EXPECT_EQ(c->session().counters().rows_forwarded, before.rows_forwarded);
    EXPECT_EQ(c->session().counters().layer_forward_calls, before.layer_forward_calls);
    // --ignore-context sends every turn (RoPE extrapolates; the tiny model does not care).
    o.ignore_context = true;
    o.max_new_tokens = options(false).max_new_tokens;
    EXPECT_EQ(c->ask(q2_, o).dropped_turns, 0);
}

TEST_F(ConversationTest, EmptyQuestionsAreRefused) {
    auto a = chat();
    AskOptions o = options(false);
    o.history = {{q1_, "An answer."}};
    const auto message = [&](const std::string& q) { return error_text([&] { a->ask(q, o); }); };
    EXPECT_NE(message("  \n").find("the question is empty"), std::string::npos);
    o.history = {{q1_, "An answer."}, {" ", "Another."}};
    EXPECT_NE(message(q2_).find("turn 2 of the history has an empty question"), std::string::npos);
    o.history = {};
    EXPECT_NE(message("").find("the question is empty"), std::string::npos);
    // An empty earlier answer (a turn stopped at once) is fine.
    o.history = {{q1_, ""}};
    EXPECT_NO_THROW(a->ask(q2_, o));
}

TEST_F(ConversationTest, CitationsComeWithTheAnswer) {
    auto a = chat();
    AskOptions o = options(true);
    o.citations = true;
    const AskRun r = ask(*a, q1_, o);
    ASSERT_FALSE(r.result.generation.tokens.empty());
    const int D = a->session().document_tokens();
    ASSERT_EQ(static_cast<int>(r.result.answer_attention.size()), D);
    double total = 0;
    for (int p = 0; p < D; ++p) {
        EXPECT_GE(r.result.answer_attention[p], 0.0f);
        total += r.result.answer_attention[p];
    }
    EXPECT_NEAR(total, 1.0, 1e-3);
    for (int p = 0; p < o.citation_options.sink_tokens; ++p) EXPECT_EQ(r.result.answer_attention[p], 0.0f);
    ASSERT_FALSE(r.result.citations.empty());
    for (std::size_t i = 0; i < r.result.citations.size(); ++i) {
        const Citation& c = r.result.citations[i];
        EXPECT_LE(0, c.first_token);
        EXPECT_LE(c.first_token, c.last_token);
        EXPECT_LT(c.last_token, D);
        EXPECT_GT(c.weight, 0.0);
        EXPECT_LE(c.weight, 1.0);
        if (i > 0) {  // disjoint, not touching
            const Citation& p = r.result.citations[i - 1];
            EXPECT_TRUE(c.last_token + 1 < p.first_token || p.last_token + 1 < c.first_token);
        }
        EXPECT_FALSE(a->document_excerpt(c.first_token, c.last_token).empty());
    }
    // Citations do not change the answer.
    auto b = chat();
    o.citations = false;
    expect_same_run(r, ask(*b, q1_, o), 0.0f);
}

}  // namespace
}  // namespace snapdoc
