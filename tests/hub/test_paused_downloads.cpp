// Downloads paused by quitting are found again from their sidecars after a restart (issue 37): the
// set is rebuilt, resumed without asking the hub for its listing, and only the rest is fetched.
// Sidecars that cannot be trusted are not offered.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "app/hub/download.h"
#include "app/hub/download_files.h"
#include "app/hub/paused_downloads.h"
#include "tests/hub/hub_test_env.h"

namespace fs = std::filesystem;
using namespace snapdoc::hub;
using snapdoc::testing::file_sha256;
using snapdoc::testing::HubFaults;

namespace {

class PausedDownloadsTest : public snapdoc::testing::HubTest {
protected:
    // Starts the download, pauses it once `bytes` have arrived, and drops the Download (a quit app).
    void pause_after(const DownloadRequest& request, int64_t bytes) {
        Download d(request, fast_options());
        d.start();
        for (int i = 0; i < 2000 && d.progress().bytes_done < bytes; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        d.pause();
        ASSERT_EQ(d.wait().state, DownloadState::Paused);
    }
    static void put_sidecar(const fs::path& final_path, const Sidecar& sc) {
        fs::create_directories(final_path.parent_path());
        write_sidecar(sidecar_path(final_path), sc);
    }
    static void write_file(const fs::path& p, const std::string& text) {
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }
};

TEST_F(PausedDownloadsTest, AShardSetPausedByQuittingIsListedAndResumesOnlyTheRest) {
    const std::string repo = "tester/set-GGUF";
    std::vector<std::string> names;
    for (int i = 1; i <= 3; ++i) {
        names.push_back("set-Q4_K_M-0000" + std::to_string(i) + "-of-00003.gguf");
        add(repo, names.back(), 100000, 40 + i);
    }
    HubFaults slow;
    slow.bytes_per_second = 400000;
    hub.set_faults(slow);
    pause_after(request(repo, names), 150000);

    const auto paused = find_paused_downloads(models());
    ASSERT_EQ(paused.size(), 1u);
    const PausedDownload& p = paused.front();
    EXPECT_EQ(p.repo, repo);
    EXPECT_EQ(p.title(), repo + " Q4_K_M");
    ASSERT_EQ(p.files.size(), 3u);  // the whole set, shards not started yet included
    EXPECT_EQ(p.files[2].path, names[2]);
    EXPECT_EQ(p.files[2].size_bytes, 100000);
    EXPECT_EQ(p.bytes_total, 300000);
    EXPECT_GE(p.bytes_done, 100000);  // shard 1 is complete, shard 2 partly there
    EXPECT_LT(p.bytes_done, 300000);

    hub.set_faults({});
    const int64_t sent_before = hub.stats().body_bytes_sent;
    const DownloadResult r = Download(resume_request(p, endpoint(), models()), fast_options()).run();
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_EQ(hub.stats().body_bytes_sent - sent_before, 300000 - p.bytes_done);  // only the rest
    check_models_folder();
    EXPECT_TRUE(find_paused_downloads(models()).empty());  // nothing left to resume
}

TEST_F(PausedDownloadsTest, ASingleFileFromAnOlderSidecarWithoutTheSetIsStillOffered) {
    const fs::path final_path = models() / "tester/one-GGUF/one-Q8_0.gguf";
    write_file(part_path(final_path), std::string(1000, 'x'));
    Sidecar sc;
    sc.repo = "tester/one-GGUF";
    sc.file = "one-Q8_0.gguf";
    sc.size_bytes = 5000;
    put_sidecar(final_path, sc);
    const auto paused = find_paused_downloads(models());
    ASSERT_EQ(paused.size(), 1u);
    EXPECT_EQ(paused[0].revision, "main");
    EXPECT_EQ(paused[0].bytes_done, 1000);
    EXPECT_EQ(paused[0].bytes_total, 5000);
    EXPECT_EQ(paused[0].title(), "tester/one-GGUF Q8_0");
}

TEST_F(PausedDownloadsTest, SidecarsThatCannotBeTrustedAreNotOffered) {
    // A shard alone from an older engine: its set is unknown, resuming it would leave it incomplete.
    Sidecar shard;
    shard.repo = "tester/old-GGUF";
    shard.file = "old-Q4_0-00001-of-00002.gguf";
    put_sidecar(models() / shard.repo / shard.file, shard);
    // A sidecar whose repository points elsewhere than where it sits.
    Sidecar moved;
    moved.repo = "tester/elsewhere";
    moved.file = "a.gguf";
    put_sidecar(models() / "tester/here/a.gguf", moved);
    // A path that escapes the folder, a bad repository id, a failed hash, and plain garbage.
    Sidecar escape;
    escape.repo = "tester/x";
    escape.file = "b.gguf";
    escape.set = {{"../../../etc/passwd", 10, ""}};
    put_sidecar(models() / "tester/x/b.gguf", escape);
    Sidecar bad_repo;
    bad_repo.repo = "../up";
    bad_repo.file = "c.gguf";
    put_sidecar(models() / "tester/y/c.gguf", bad_repo);
    Sidecar failed;
    failed.repo = "tester/z";
    failed.file = "d.gguf";
    failed.bad_sha256 = "00";
    put_sidecar(models() / "tester/z/d.gguf", failed);
    write_file(models() / "tester/w/e.gguf.part.json", "{not json");
    write_file(models() / "tester/w/f.gguf.part.json", R"({"repo": "tester/w", "file": "f.gguf", "set": [1]})");
    EXPECT_TRUE(find_paused_downloads(models()).empty());
    EXPECT_TRUE(find_paused_downloads(dir.path() / "no such folder").empty());
}

}  // namespace
