// The models folder (listing, finding a reference offline, deleting) and model references.
#include <gtest/gtest.h>

#include <fstream>

#include "app/hub/download.h"
#include "app/hub/download_files.h"
#include "app/hub/model_fetch.h"
#include "app/hub/hub_page_url.h"
#include "app/hub/model_ref.h"
#include "app/hub/model_store.h"
#include "engine/common/error.h"
#include "tests/hub/hub_test_env.h"

namespace fs = std::filesystem;
using namespace snapdoc;
using namespace snapdoc::hub;

namespace {

void write_file(const fs::path& p, std::size_t n) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << std::string(n, 'x');
}

TEST(ModelRef, ParsesLlamaCppStyleReferences) {
    auto r = parse_model_ref("hf://Qwen/Qwen2.5-0.5B-Instruct-GGUF:q4_k_m");
    EXPECT_EQ(r.repo, "Qwen/Qwen2.5-0.5B-Instruct-GGUF");
    EXPECT_EQ(r.quant, "q4_k_m");
    EXPECT_EQ(r.file, "");
    r = parse_model_ref("owner/name@dev");
    EXPECT_EQ(r.repo, "owner/name");
    EXPECT_EQ(r.revision, "dev");
    r = parse_model_ref("owner/name", "sub/m.gguf");
    EXPECT_EQ(r.file, "sub/m.gguf");
    EXPECT_EQ(r.to_string(), "owner/name sub/m.gguf");
    EXPECT_TRUE(is_hf_uri("hf://a/b"));
    EXPECT_FALSE(is_hf_uri("/models/a.gguf"));
    EXPECT_THROW(parse_model_ref("hf://justone"), Error);
    EXPECT_THROW(parse_model_ref("a/b:"), Error);
    EXPECT_THROW(parse_model_ref("a/b:Q4_0", "m.gguf"), Error);
    EXPECT_THROW(parse_model_ref("a/b", "../m.gguf"), Error);
}

TEST(ModelRef, AcceptsTheHubPageAddressesABrowserShows) {
    auto r = parse_model_ref("https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF");
    EXPECT_EQ(r.repo, "Qwen/Qwen2.5-0.5B-Instruct-GGUF");
    EXPECT_EQ(r.file, "");
    EXPECT_EQ(r.revision, "");
    r = parse_model_ref("https://huggingface.co/owner/name/");  // a trailing slash, as often copied
    EXPECT_EQ(r.repo, "owner/name");
    r = parse_model_ref("http://www.hf.co/owner/name?library=gguf#files");
    EXPECT_EQ(r.repo, "owner/name");
    r = parse_model_ref("https://huggingface.co/owner/name/tree/dev");
    EXPECT_EQ(r.revision, "dev");
    r = parse_model_ref("https://huggingface.co/owner/name/blob/main/sub/My%20Model-Q4_K_M.gguf");
    EXPECT_EQ(r.repo, "owner/name");
    EXPECT_EQ(r.revision, "");
    EXPECT_EQ(r.file, "sub/My Model-Q4_K_M.gguf");
    r = parse_model_ref("https://huggingface.co/owner/name/resolve/v2/m.gguf?download=true");
    EXPECT_EQ(r.revision, "v2");
    EXPECT_EQ(r.file, "m.gguf");
    EXPECT_TRUE(is_hub_page_url("https://huggingface.co/a/b"));
    EXPECT_FALSE(is_hub_page_url("https://huggingface.community/a/b"));
    EXPECT_FALSE(is_hub_page_url("https://example.com/huggingface.co/a/b"));
    // Pages that name no model, and paths that would leave the repository.
    EXPECT_THROW(parse_model_ref("https://huggingface.co/owner"), Error);
    EXPECT_THROW(parse_model_ref("https://huggingface.co/owner/name/discussions/3"), Error);
    EXPECT_THROW(parse_model_ref("https://huggingface.co/owner/name/blob/main"), Error);
    EXPECT_THROW(parse_model_ref("https://huggingface.co/owner/name/blob/main/%2E%2E/x.gguf"), Error);
    EXPECT_THROW(parse_model_ref("https://huggingface.co/owner/name/blob/main/m.gguf", "other.gguf"), Error);
}

TEST(ModelStore, ListsCompleteModelsOnlyAndFindsThemOffline) {
    snapdoc::testing::TempDir tmp;
    const ModelStore store(tmp.path());
    write_file(store.file_path("o/r", "m-Q4_K_M.gguf"), 300);
    write_file(store.file_path("o/r", "m-Q8_0.gguf"), 500);
    write_file(part_path(store.file_path("o/r", "m-F16.gguf")), 50);  // unfinished: not a model
    write_file(store.file_path("o/big", "b-Q6_K-00001-of-00002.gguf"), 100);
    write_file(store.file_path("o/big", "b-Q6_K-00002-of-00002.gguf"), 100);
    write_file(store.file_path("o/r", "README.md"), 5);
    const auto all = store.list();
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].repo, "o/big");
    EXPECT_EQ(all[0].files.size(), 2u);
    EXPECT_EQ(all[0].size_bytes, 200);
    EXPECT_EQ(all[0].file_name(), "b-Q6_K-00001-of-00002.gguf");
    EXPECT_EQ(all[1].quant, "Q4_K_M");
    EXPECT_EQ(all[2].quant, "Q8_0");
    EXPECT_EQ(store.partial_bytes(), 50);
    EXPECT_EQ(store.find(parse_model_ref("hf://o/r"))->quant, "Q4_K_M");
    EXPECT_EQ(store.find(parse_model_ref("o/r:Q8_0"))->size_bytes, 500);
    EXPECT_FALSE(store.find(parse_model_ref("o/r:F16")).has_value());
    EXPECT_EQ(store.find(parse_model_ref("o/big", "b-Q6_K-00002-of-00002.gguf"))->files.size(), 2u);
    EXPECT_FALSE(store.find(parse_model_ref("o/none")).has_value());
    EXPECT_TRUE(ModelStore(tmp.path() / "absent").list().empty());

    store.remove(all[0]);
    EXPECT_FALSE(fs::exists(tmp.path() / "o" / "big"));
    EXPECT_EQ(store.list().size(), 2u);
}

TEST(ModelStore, RefusesToDeleteWhatIsBeingDownloaded) {
    snapdoc::testing::TempDir tmp;
    const ModelStore store(tmp.path());
    const fs::path f = store.file_path("o/r", "m-Q4_K_M.gguf");
    write_file(f, 10);
    long holder = 0;
    auto lock = FileLock::try_acquire(lock_path(f), &holder);
    ASSERT_TRUE(lock.has_value());
    EXPECT_THROW(store.remove(store.list().at(0)), Error);
    lock->release_and_remove();
    EXPECT_NO_THROW(store.remove(store.list().at(0)));
}

TEST(ModelStore, DefaultFolderFollowsXdg) {
    const char* old = std::getenv("SNAPDOC_MODELS_DIR");
    const std::string saved = old ? old : "";
    ::unsetenv("SNAPDOC_MODELS_DIR");
    ::setenv("XDG_DATA_HOME", "/tmp/xdg-test", 1);
    EXPECT_EQ(default_models_dir(), fs::path("/tmp/xdg-test/snapdoc/models"));
    ::setenv("SNAPDOC_MODELS_DIR", "/tmp/models-test", 1);
    EXPECT_EQ(default_models_dir(), fs::path("/tmp/models-test"));
    if (old)
        ::setenv("SNAPDOC_MODELS_DIR", saved.c_str(), 1);
    else
        ::unsetenv("SNAPDOC_MODELS_DIR");
}

class FetchModelTest : public snapdoc::testing::HubTest {};

TEST_F(FetchModelTest, DownloadsOnceThenUsesTheLocalCopy) {
    const std::string sha = add("o/r", "m-Q4_K_M.gguf", 5000, 1);
    add("o/r", "m-Q8_0.gguf", 9000, 2);
    const ModelStore store(models());
    auto out = fetch_model(endpoint(), parse_model_ref("hf://o/r"), store, {}, nullptr, fast_options());
    ASSERT_EQ(out.result.state, DownloadState::Done) << out.result.error;
    EXPECT_FALSE(out.was_local);
    EXPECT_EQ(snapdoc::testing::file_sha256(out.result.files.at(0)), sha);
    const int tree_before = hub.stats().tree_requests;
    out = fetch_model(endpoint(), parse_model_ref("hf://o/r"), store, {}, nullptr, fast_options());
    EXPECT_TRUE(out.was_local);
    EXPECT_EQ(hub.stats().tree_requests, tree_before);  // no network for a local model
    check_models_folder();
}

}  // namespace
