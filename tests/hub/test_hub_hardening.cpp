// Issue 39, items 14-16: the hub client against a hostile listing or a hostile local user.
//  - The token goes only to the configured endpoint's origin, not to a host a Link: next names.
//  - A file listed without a sha256 is reported "size checked", never "verified".
//  - A symbolic link planted at a download's .part, sidecar or lock name is refused, and its target
//    (outside the models folder) is not written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "app/hub/download.h"
#include "app/hub/download_files.h"
#include "app/hub/hub_tree.h"
#include "app/hub/http_request.h"
#include "tests/hub/hub_test_env.h"

namespace fs = std::filesystem;
using namespace snapdoc;
using namespace snapdoc::hub;
using snapdoc::testing::HubFaults;
using snapdoc::testing::LocalHub;

namespace {

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

class HubHardening : public snapdoc::testing::HubTest {
protected:
    // A link at `link_name(final)` pointing at a file outside the models folder: the download
    // fails saying so, and the file is left as it was.
    void expect_link_refused(const DownloadRequest& req, fs::path (*link_name)(const fs::path&),
                             const fs::path& outside) {
        const fs::path final = req.models_dir / req.repo / req.files[0].path;
        fs::create_directories(final.parent_path());
        std::ofstream(outside) << "not yours";
        fs::remove(link_name(final));
        fs::create_symlink(outside, link_name(final));
        Download d(req, fast_options());
        const DownloadResult res = d.run();
        EXPECT_EQ(res.state, DownloadState::Failed) << link_name(final);
        EXPECT_NE(res.error.find("symbolic link"), std::string::npos) << res.error;
        EXPECT_EQ(read_all(outside), "not yours") << link_name(final);
        EXPECT_TRUE(fs::is_symlink(link_name(final)));
        fs::remove(link_name(final));
    }
};

constexpr const char* kRepo = "o/r";

TEST(HubOrigin, SameOriginComparesSchemeHostAndPort) {
    EXPECT_TRUE(same_origin("https://huggingface.co/api/x?cursor=1", "https://huggingface.co"));
    EXPECT_TRUE(same_origin("https://HuggingFace.co:443/api", "https://huggingface.co"));
    EXPECT_TRUE(same_origin("http://127.0.0.1:8080/a", "http://127.0.0.1:8080/prefix"));
    EXPECT_FALSE(same_origin("http://127.0.0.1:8081/a", "http://127.0.0.1:8080"));
    EXPECT_FALSE(same_origin("http://huggingface.co/api", "https://huggingface.co"));
    EXPECT_FALSE(same_origin("https://huggingface.co.evil.example/api", "https://huggingface.co"));
    EXPECT_FALSE(same_origin("https://evil.example/?https://huggingface.co", "https://huggingface.co"));
    EXPECT_FALSE(same_origin("not a url", "https://huggingface.co"));
}

// The listing's next page is on a second loopback server: it is fetched, without Authorization.
TEST_F(HubHardening, TheTokenIsNotSentToTheHostALinkHeaderNames) {
    add(kRepo, "a.gguf", 10, 1);
    add(kRepo, "b.gguf", 10, 2);
    LocalHub other;
    other.add_file(kRepo, "a.gguf", std::string(10, 'a'));
    HubFaults f;
    f.tree_page_size = 1;
    f.tree_next_host = "127.0.0.1:" + std::to_string(other.port());
    hub.set_faults(f);
    fetch_repo_tree(endpoint("hf_secret"), kRepo);
    ASSERT_GE(hub.stats().tree_requests, 1);
    for (const std::string& a : hub.stats().authorization_seen) EXPECT_EQ(a, "Bearer hf_secret");
    ASSERT_GE(other.stats().tree_requests, 1);
    for (const std::string& a : other.stats().authorization_seen) EXPECT_EQ(a, "") << "the token leaked";
}

TEST_F(HubHardening, AFileListedWithoutSha256IsSizeCheckedNotVerified) {
    add(kRepo, "m-Q8_0.gguf", 5000, 3);
    HubFaults f;
    f.no_sha256 = true;
    hub.set_faults(f);
    const auto files = fetch_repo_tree(endpoint(), kRepo);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_TRUE(files[0].sha256.empty());
    DownloadRequest r = request(kRepo, {"m-Q8_0.gguf"});
    r.files = files;
    Download d(r, fast_options());
    const DownloadResult res = d.run();
    ASSERT_EQ(res.state, DownloadState::Done) << res.error;
    ASSERT_EQ(res.checks.size(), 1u);
    EXPECT_EQ(res.checks[0], FileCheck::SizeOnly);
    EXPECT_STREQ(check_words(res.checks), "size checked");
    EXPECT_STREQ(check_words({FileCheck::Sha256}), "verified");
}

TEST_F(HubHardening, SymlinksAtThePartSidecarAndLockNamesAreRefusedAndTheirTargetsKept) {
    add(kRepo, "m-Q8_0.gguf", 5000, 4);
    const DownloadRequest req = request(kRepo, {"m-Q8_0.gguf"});
    const fs::path outside = dir.path() / "outside.txt";  // not under models()
    expect_link_refused(req, part_path, outside);
    expect_link_refused(req, sidecar_path, outside);
    expect_link_refused(req, lock_path, outside);
    // With the links gone the same download works.
    Download d(req, fast_options());
    EXPECT_EQ(d.run().state, DownloadState::Done);
    check_models_folder();
}

}  // namespace
