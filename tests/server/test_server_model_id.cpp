// /v1/models lists the loaded model by its name (issue 37): a client's model picker shows which
// model answers, not "snapdoc". --alias NAME still overrides it, and a reply without a requested
// model names the same id.
#include <gtest/gtest.h>

#include "app/server/model_id.h"
#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

TEST(ListedModelId, AliasThenGgufNameThenFileStem) {
    EXPECT_EQ(server::listed_model_id("bot", "Llama 3.1 8B", "/m/llama.Q4_K_M.gguf"), "bot");
    EXPECT_EQ(server::listed_model_id("", "Llama 3.1 8B", "/m/llama.Q4_K_M.gguf"), "Llama 3.1 8B");
    EXPECT_EQ(server::listed_model_id("", " \t", "/m/llama-3.1-8b.Q4_K_M.gguf"), "llama-3.1-8b.Q4_K_M");
    EXPECT_EQ(server::listed_model_id("", "", "/models/Qwen2.5-0.5B/"), "Qwen2.5-0.5B");  // an HF folder
}

class ServerModelId : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
    // The id /v1/models lists and the "model" of a chat reply whose request named none.
    static std::pair<std::string, std::string> ids(const ServerProcess& s) {
        const json models = http_get(s.port(), "/v1/models").json();
        EXPECT_EQ(models["data"].size(), 1u) << models.dump();
        const json reply = post_json(s.port(), "/v1/chat/completions", chat_body("Hi", 1)).json();
        return {models["data"][0]["id"].get<std::string>(), reply.value("model", std::string())};
    }
};

TEST_F(ServerModelId, ListsTheModelsOwnName) {
    ServerProcess s({"-m", demo_model_path().string()});
    const auto [listed, answered] = ids(s);
    EXPECT_EQ(listed, "snapdoc-demo");  // the demo GGUF's general.name
    EXPECT_EQ(answered, "snapdoc-demo");
    EXPECT_EQ(http_get(s.port(), "/props").json()["model"], "snapdoc-demo");
}

TEST_F(ServerModelId, AliasOverridesIt) {
    ServerProcess s({"-m", demo_model_path().string(), "--alias", "my-reader"});
    const auto [listed, answered] = ids(s);
    EXPECT_EQ(listed, "my-reader");
    EXPECT_EQ(answered, "my-reader");
}

}  // namespace
}  // namespace snapdoc::test
