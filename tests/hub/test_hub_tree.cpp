// The tree listing (parsing, quant names, shard grouping, the default pick) and the endpoint rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "app/hub/hub_endpoint.h"
#include "app/hub/hub_tree.h"
#include "engine/common/error.h"
#include "tests/hub/hub_test_env.h"

using namespace snapdoc;
using namespace snapdoc::hub;

namespace {

TEST(HubTree, QuantFromFileNames) {
    EXPECT_EQ(quant_from_file_name("qwen2.5-0.5b-instruct-q4_k_m.gguf"), "Q4_K_M");
    EXPECT_EQ(quant_from_file_name("Llama-3.2-1B-Instruct-Q8_0.gguf"), "Q8_0");
    EXPECT_EQ(quant_from_file_name("Phi-3.5-mini-instruct-IQ4_XS.gguf"), "IQ4_XS");
    EXPECT_EQ(quant_from_file_name("Qwen3-1.7B-BF16.gguf"), "BF16");
    EXPECT_EQ(quant_from_file_name("ggml-model-f16.gguf"), "F16");
    EXPECT_EQ(quant_from_file_name("model.Q5_K_S.gguf"), "Q5_K_S");
    EXPECT_EQ(quant_from_file_name("sub/dir/mistral-7b-instruct-v0.3.Q4_0.gguf"), "Q4_0");
    EXPECT_EQ(quant_from_file_name("Qwen2.5-7B-Instruct-Q4_K_M-00001-of-00002.gguf"), "Q4_K_M");
    EXPECT_EQ(quant_from_file_name("stories260K.gguf"), "");
    EXPECT_EQ(quant_from_file_name("qwen3-4b.gguf"), "");
}

TEST(HubTree, ShardNames) {
    const auto s = parse_shard_name("dir/model-Q4_K_M-00002-of-00005.gguf");
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->prefix, "dir/model-Q4_K_M");
    EXPECT_EQ(s->index, 2);
    EXPECT_EQ(s->count, 5);
    EXPECT_FALSE(parse_shard_name("model-Q4_K_M.gguf"));
    EXPECT_FALSE(parse_shard_name("model-00006-of-00005.gguf"));
    EXPECT_FALSE(parse_shard_name("model-00001-of-00002.bin"));
    // The loader opens only llama.cpp's 5-digit names, so the hub does not offer other sets.
    EXPECT_FALSE(parse_shard_name("model-1-of-3.gguf"));
    EXPECT_FALSE(parse_shard_name("dir/model-001-of-003.gguf"));
}

TEST(HubTree, ParsesTheTreeApiAndSkipsDirectories) {
    const std::string body = R"([
      {"type":"directory","oid":"d1","size":0,"path":"sub"},
      {"type":"file","oid":"abc","size":1519,"path":"README.md"},
      {"type":"file","oid":"def","size":134,"path":"sub/m-Q4_K_M.gguf",
       "lfs":{"oid":")" + std::string(64, 'e') +
                             R"(","size":4683073952,"pointerSize":134}}])";
    const auto files = parse_tree_json(body, "o/r");
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files[0].path, "README.md");
    EXPECT_EQ(files[0].size_bytes, 1519);
    EXPECT_EQ(files[0].sha256, "");
    EXPECT_EQ(files[1].path, "sub/m-Q4_K_M.gguf");
    EXPECT_EQ(files[1].size_bytes, 4683073952);  // the LFS object's size, not the pointer's
    EXPECT_EQ(files[1].sha256, std::string(64, 'e'));
}

TEST(HubTree, BadTreeJsonIsAFormatErrorNamingTheRepo) {
    for (const char* bad : {"", "{", R"({"error":"x"})", R"([{"type":"file"}])",
                            R"([{"type":"file","path":"a.gguf","size":-1}])",
                            R"([{"type":"file","path":"../../etc/passwd","size":1}])",
                            R"([{"type":"file","path":"a.gguf","size":1,"lfs":{"oid":"xyz","size":1}}])"}) {
        try {
            parse_tree_json(bad, "o/r");
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const FormatError& e) {
            EXPECT_NE(std::string(e.what()).find("hub tree listing for o/r"), std::string::npos) << e.what();
        }
    }
}

std::vector<RemoteFile> sample_listing() {
    return {{"README.md", 10, ""},
            {"m-F16.gguf", 1000, ""},
            {"m-Q8_0.gguf", 530, ""},
            {"m-Q4_K_M.gguf", 300, ""},
            {"m-Q2_K.gguf", 200, ""},
            {"mmproj-m-F16.gguf", 90, ""},
            {"big-Q6_K-00002-of-00002.gguf", 400, ""},
            {"big-Q6_K-00001-of-00002.gguf", 400, ""},
            {"half-Q5_0-00001-of-00002.gguf", 400, ""}};
}

TEST(HubTree, GroupsShardsAndPicksTheDefault) {
    const auto choices = gguf_choices(sample_listing());
    ASSERT_EQ(choices.size(), 6u);  // no README, no mmproj; the Q6_K set is one choice
    const GgufChoice* q6 = nullptr;
    for (const auto& c : choices)
        if (c.quant == "Q6_K") q6 = &c;
    ASSERT_NE(q6, nullptr);
    ASSERT_EQ(q6->files.size(), 2u);
    EXPECT_EQ(q6->first_path(), "big-Q6_K-00001-of-00002.gguf");
    EXPECT_TRUE(q6->complete);
    EXPECT_EQ(q6->total_bytes(), 800);
    EXPECT_EQ(pick_choice(choices, "", "o/r").quant, "Q4_K_M");
    EXPECT_EQ(pick_choice(choices, "q8_0", "o/r").quant, "Q8_0");
    EXPECT_EQ(choice_for_file(choices, "big-Q6_K-00002-of-00002.gguf", "o/r").files.size(), 2u);
    try {
        pick_choice(choices, "Q5_0", "o/r");  // only half of that set is listed
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Q4_K_M"), std::string::npos) << e.what();  // lists what exists
    }
    EXPECT_THROW(pick_choice(choices, "IQ1_S", "o/r"), Error);
}

TEST(HubEndpoint, FlagThenEnvironmentThenDefault) {
    ::unsetenv("HF_ENDPOINT");
    ::unsetenv("HF_TOKEN");
    EXPECT_EQ(resolve_endpoint().base_url, "https://huggingface.co");
    EXPECT_EQ(resolve_endpoint().token, "");
    ::setenv("HF_ENDPOINT", "http://mirror.example:8080/", 1);
    ::setenv("HF_TOKEN", "hf_env", 1);
    EXPECT_EQ(resolve_endpoint().base_url, "http://mirror.example:8080");
    EXPECT_EQ(resolve_endpoint().token, "hf_env");
    EXPECT_EQ(resolve_endpoint("https://flag.example", "hf_flag").base_url, "https://flag.example");
    EXPECT_EQ(resolve_endpoint("https://flag.example", "hf_flag").token, "hf_flag");
    ::unsetenv("HF_ENDPOINT");
    ::unsetenv("HF_TOKEN");
    EXPECT_THROW(resolve_endpoint("ftp://x"), Error);
    const HubEndpoint ep{"https://huggingface.co", ""};
    EXPECT_EQ(resolve_url(ep, "o/r", "main", "sub/a b.gguf"),
              "https://huggingface.co/o/r/resolve/main/sub/a%20b.gguf");
    EXPECT_EQ(tree_url(ep, "o/r", "main"), "https://huggingface.co/api/models/o/r/tree/main?recursive=true");
}

TEST(HubEndpoint, RepoIdsAndPathsCannotEscapeTheModelsFolder) {
    EXPECT_NO_THROW(check_repo_id("Qwen/Qwen2.5-0.5B-Instruct-GGUF"));
    for (const char* bad : {"", "noslash", "a/b/c", "../x", "a/..", "a/.hidden", "a b/c", "/abs"})
        EXPECT_THROW(check_repo_id(bad), Error) << bad;
    EXPECT_NO_THROW(check_repo_file_path("sub/a.gguf"));
    for (const char* bad : {"", "/a", "a/../b", "..", "a//b", "a\\b"})
        EXPECT_THROW(check_repo_file_path(bad), Error) << bad;
}

class TreeFetchTest : public snapdoc::testing::HubTest {};

TEST_F(TreeFetchTest, ListsTheLocalHubsRepo) {
    const std::string sha = add("o/r", "sub/m-Q4_K_M.gguf", 1234, 1);
    add("o/r", "README.md", 10, 2);
    auto files = fetch_repo_tree(endpoint(), "o/r");
    ASSERT_EQ(files.size(), 2u);
    std::sort(files.begin(), files.end(), [](auto& a, auto& b) { return a.path < b.path; });
    EXPECT_EQ(files[1].path, "sub/m-Q4_K_M.gguf");
    EXPECT_EQ(files[1].size_bytes, 1234);
    EXPECT_EQ(files[1].sha256, sha);
}

// The hub answers 1,000 entries a page with a Link rel="next" header; every page is followed.
TEST_F(TreeFetchTest, FollowsTheLinkHeaderThroughEveryPage) {
    for (int i = 0; i < 7; ++i) add("o/r", "m-" + std::to_string(i) + "-Q8_0.gguf", 100 + i, i);
    snapdoc::testing::HubFaults f;
    f.tree_page_size = 3;
    hub.set_faults(f);
    auto files = fetch_repo_tree(endpoint(), "o/r");
    EXPECT_EQ(hub.stats().tree_requests, 3);
    ASSERT_EQ(files.size(), 7u);
    std::sort(files.begin(), files.end(), [](auto& a, auto& b) { return a.path < b.path; });
    for (int i = 0; i < 7; ++i) EXPECT_EQ(files[i].size_bytes, 100 + i) << files[i].path;
}

// A server whose next link never ends is refused after 100 pages, not followed forever.
TEST_F(TreeFetchTest, AnEndlessLinkChainIsAnErrorNotAHang) {
    add("o/r", "a.gguf", 10, 1);
    add("o/r", "b.gguf", 10, 2);
    snapdoc::testing::HubFaults f;
    f.tree_page_size = 1;
    f.tree_link_loops = true;
    hub.set_faults(f);
    try {
        fetch_repo_tree(endpoint(), "o/r");
        ADD_FAILURE() << "an endless listing was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("more than 100 pages"), std::string::npos) << e.what();
    }
    EXPECT_EQ(hub.stats().tree_requests, 100);
}

TEST_F(TreeFetchTest, NotFoundGatedAndBrokenAnswersAreErrorsInWords) {
    add("o/r", "m.gguf", 10, 1);
    try {
        fetch_repo_tree(endpoint(), "o/absent");
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("404"), std::string::npos) << e.what();
    }
    hub.set_gated("o/r", "tok");
    try {
        fetch_repo_tree(endpoint(), "o/r");
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("HF_TOKEN"), std::string::npos) << e.what();
    }
    EXPECT_EQ(fetch_repo_tree(endpoint("tok"), "o/r").size(), 1u);
    EXPECT_EQ(hub.stats().authorization_seen.back(), "Bearer tok");
    snapdoc::testing::HubFaults f;
    f.broken_tree_json = true;
    hub.set_faults(f);
    EXPECT_THROW(fetch_repo_tree(endpoint("tok"), "o/r"), FormatError);
    // Nothing listens: a network error naming the URL, not a hang.
    try {
        fetch_repo_tree(HubEndpoint{"http://127.0.0.1:1", ""}, "o/r");
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("127.0.0.1:1"), std::string::npos) << e.what();
    }
}

}  // namespace
