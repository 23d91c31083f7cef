// snapdoc-server's pieces on their own (no model, no sockets): stop strings over streamed text,
// request parsing that names the field, the split candidates of a rendered prompt, the SSE framing.
#include <gtest/gtest.h>

#include "app/server/api_error.h"
#include "app/server/openai_request.h"
#include "app/server/openai_response.h"
#include "app/server/prompt_plan.h"
#include "app/server/stop_matcher.h"
#include "engine/common/error.h"
#include "engine/model/model.h"
#include "engine/session/conversation.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::server {
namespace {

using nlohmann::json;

TEST(StopMatcher, HoldsBackAPossibleStopAndCutsAtTheFirstOne) {
    StopMatcher m({"END", "stop here"});
    EXPECT_EQ(m.push("Hello E"), "Hello ");  // "E" may begin "END"
    EXPECT_EQ(m.push("X"), "EX");
    EXPECT_EQ(m.push(" sto"), " ");
    EXPECT_EQ(m.push("p her"), "");
    EXPECT_EQ(m.push("e and more"), "");
    EXPECT_TRUE(m.stopped());
    EXPECT_EQ(m.push("later"), "");
    EXPECT_EQ(m.flush(), "");

    StopMatcher n({"\n\n"});
    EXPECT_EQ(n.push("a\n"), "a");
    EXPECT_EQ(n.push("b"), "\nb");
    EXPECT_EQ(n.push("\n"), "");
    EXPECT_EQ(n.flush(), "\n");
    EXPECT_FALSE(n.stopped());
}

std::string param_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ApiError& e) {
        EXPECT_EQ(e.status(), 400);
        return e.body()["error"]["param"].is_string() ? e.body()["error"]["param"].get<std::string>() : "";
    }
    return "<no error>";
}

TEST(OpenAiRequest, ParsesFieldsAndNamesTheBadOne) {
    const ChatRequest r = parse_chat_request(json::parse(R"({
        "messages": [{"role": "developer", "content": "sys"},
                     {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}],
        "max_tokens": 5, "max_completion_tokens": 7, "stop": "x", "seed": 3, "n": 1,
        "stream": true, "stream_options": {"include_usage": true},
        "snapkv": {"budget": 256, "enabled": false}})"));
    ASSERT_EQ(r.messages.size(), 2u);
    EXPECT_EQ(r.messages[0].role, MessageRole::System);
    EXPECT_EQ(r.messages[1].content, "a\nb");
    EXPECT_EQ(*r.gen.max_tokens, 7);  // max_completion_tokens wins
    EXPECT_EQ(r.gen.stop, std::vector<std::string>{"x"});
    EXPECT_EQ(*r.gen.seed, 3u);
    EXPECT_TRUE(r.gen.stream && r.gen.include_usage);
    EXPECT_EQ(*r.gen.snapkv.budget, 256);
    EXPECT_FALSE(*r.gen.snapkv.enabled);

    const auto chat = [](const char* text) { return [=] { parse_chat_request(parse_body(text)); }; };
    EXPECT_EQ(param_of(chat(R"({"messages": [{"role": "user", "content": "a"}], "max_tokens": -1})")), "max_tokens");
    EXPECT_EQ(param_of(chat(R"({"messages": [{"role": "user", "content": "a"}], "max_tokens": 1.5})")), "max_tokens");
    EXPECT_EQ(param_of(chat(R"({"messages": [{"role": "user", "content": "a"}], "top_p": 0})")), "top_p");
    EXPECT_EQ(param_of(chat(R"({"messages": [{"role": "user"}]})")), "messages[0].content");
    EXPECT_EQ(param_of(chat(R"({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})")),
              "messages[0].content[0].type");
    EXPECT_EQ(param_of(chat(R"({"messages": [{"role": "user", "content": "a"}], "stream_options": 1})")),
              "stream_options");
    std::string deep(100000, '[');
    EXPECT_EQ(param_of([&] { parse_body(deep); }), "");  // refused before nlohmann recurses
    EXPECT_EQ(param_of([] { parse_completion_request(parse_body(R"({"prompt": [1, -2]})")); }), "prompt");
}

TEST(PromptPlan, CandidatesPreferTheLastUserMessagesParagraphSplit) {
    MessagePrompt p;
    p.ids.assign(100, 7);
    p.turn_starts = {-1, 3, 60, 70};
    p.paragraph_splits = {-1, 50, -1, 90};
    const SplitCandidates c = split_candidates(p, 2048);
    ASSERT_FALSE(c.ends.empty());
    EXPECT_EQ(c.ends.front(), 90);
    EXPECT_EQ(c.ends[1], 70);
    // A long last message with no break: cut at the tail budget.
    p.paragraph_splits = {-1, -1, -1, -1};
    p.turn_starts = {-1, 3, -1, -1};
    EXPECT_EQ(split_candidates(p, 10).ends.front(), 90);
    // Recent turns kept whole: the oldest turn start after the document within 25 tokens of the last user turn.
    p.turn_starts = {-1, 3, 60, 70};
    EXPECT_EQ(history_keep_from(p, 50, 25), 60);
    EXPECT_EQ(history_keep_from(p, 50, 5), -1);
}

TEST(OpenAiResponse, ChunksAndUsageHaveTheOpenAiFields) {
    const ResponseMeta meta = new_response_meta(Endpoint::Chat, "m");
    Outcome o;
    o.prompt_tokens = 10;
    o.completion_tokens = 2;
    o.reused_tokens = 8;
    o.kept_entries = 4;
    o.full_entries = 16;
    const json u = usage_json(o);
    EXPECT_EQ(u["total_tokens"], 12);
    EXPECT_EQ(u["prompt_tokens_details"]["cached_tokens"], 8);
    EXPECT_EQ(u["snapkv"]["compression_ratio"], 4.0);
    const std::string first = sse_data(delta_chunk(meta, "Hi", true));
    EXPECT_EQ(first.rfind("data: {", 0), 0u);
    EXPECT_EQ(first.substr(first.size() - 2), "\n\n");
    EXPECT_EQ(json::parse(first.substr(6))["choices"][0]["delta"]["role"], "assistant");
    EXPECT_TRUE(usage_chunk(meta, o)["choices"].empty());
    // A cut UTF-8 sequence never makes invalid JSON.
    EXPECT_NO_THROW(json::parse(sse_data(delta_chunk(meta, "\xe2\x82", false)).substr(6)));
}

}  // namespace
}  // namespace snapdoc::server

namespace snapdoc::server {
namespace {

// The messages form of an `ask` prompt gives `ask`'s ids, for every template the demo vocabulary
// can lay out (this is what makes the server's answer equal the CLI's).
TEST(MessagePrompt, PastedDocumentAndQuestionGiveTheDocumentPromptsIds) {
    const auto path = std::filesystem::path(SNAPDOC_SOURCE_DIR) / "resources/models/snapdoc-demo.gguf";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "demo model absent; skipping";
    const Model model = load_model(path);
    const Tokenizer tok = Tokenizer::from_model(model);
    const std::string doc = "The alarm code for the south office is 3013.\nThe gate is red.";
    int checked = 0;
    for (std::string_view name : chat_template_names()) {
        const ChatTemplateKind kind = parse_chat_template_name(name);
        for (const std::string sys : {"", "Be brief."}) {
            std::vector<ChatMessage> m;
            if (!sys.empty()) m.push_back({MessageRole::System, sys});
            m.push_back({MessageRole::User, doc + "\n\nQuestion: What is the alarm code?"});
            DocumentPrompt want;
            try {
                want = build_document_prompt(kind, tok, sys, doc, "What is the alarm code?");
            } catch (const Error&) {
                continue;  // the vocabulary lacks this template's pieces
            }
            const MessagePrompt got = build_message_prompt(kind, tok, m);
            std::vector<int32_t> ids = want.document_part;
            ids.insert(ids.end(), want.question_part.begin(), want.question_part.end());
            EXPECT_EQ(got.ids, ids) << name;
            EXPECT_EQ(got.paragraph_splits.back(), static_cast<int>(want.document_part.size())) << name;
            // Whitespace around the break (a file's trailing newline, spaces) is the same prompt.
            for (const std::string user : {doc + "\n\n\nQuestion: What is the alarm code?",
                                           doc + "  \n\n Question: What is the alarm code?",
                                           doc + "\n \n\t\n\nQuestion: What is the alarm code?"}) {
                std::vector<ChatMessage> w(m.begin(), m.end() - 1);
                w.push_back({MessageRole::User, user});
                EXPECT_EQ(build_message_prompt(kind, tok, w).ids, ids) << name << ": " << json(user).dump();
            }

            // The conversation continued: document part + build_conversation_part.
            m.push_back({MessageRole::Assistant, "It is 3013."});
            m.push_back({MessageRole::User, "Question: Which gate?"});
            const ConversationPart conv =
                build_conversation_part(kind, tok, {{"What is the alarm code?", "It is 3013."}}, "Which gate?");
            ids = want.document_part;
            ids.insert(ids.end(), conv.ids.begin(), conv.ids.end());
            EXPECT_EQ(build_message_prompt(kind, tok, m).ids, ids) << name << " (two turns)";
            ++checked;
        }
    }
    EXPECT_GE(checked, 4);
}

}  // namespace
}  // namespace snapdoc::server
