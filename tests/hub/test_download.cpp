// The download engine against the local hub: every fault the issue lists, each ending with the
// final bytes' sha256 and a models folder that never shows an incomplete file.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <fstream>
#include <thread>

#include "app/hub/download.h"
#include "app/hub/download_files.h"
#include "app/hub/model_ref.h"
#include "app/hub/model_store.h"
#include "tests/hub/hub_test_env.h"
#include "tests/support/forward_proxy.h"

namespace fs = std::filesystem;
using namespace snapdoc;
using namespace snapdoc::hub;
using snapdoc::testing::file_sha256;
using snapdoc::testing::HubFaults;

namespace {

class DownloadTest : public snapdoc::testing::HubTest {
protected:
    DownloadResult run(const DownloadRequest& r, DownloadOptions o = fast_options()) {
        Download d(r, std::move(o));
        return d.run();
    }
    fs::path final_of(const std::string& repo, const std::string& file) const {
        return models() / repo / file;
    }
};

constexpr const char* kRepo = "tester/tiny-GGUF";
constexpr const char* kFile = "tiny-Q8_0.gguf";

TEST_F(DownloadTest, DownloadsVerifiesAndMovesIntoPlace) {
    const std::string sha = add(kRepo, kFile, 300000, 1);
    std::vector<DownloadProgress> seen;
    Download d(request(kRepo, {kFile}), fast_options());
    const DownloadResult r = d.run([&](const DownloadProgress& p) { seen.push_back(p); });
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    ASSERT_EQ(r.files.size(), 1u);
    EXPECT_EQ(r.files[0], final_of(kRepo, kFile));
    EXPECT_EQ(file_sha256(r.files[0]), sha);
    EXPECT_FALSE(fs::exists(part_path(r.files[0])));
    EXPECT_FALSE(fs::exists(sidecar_path(r.files[0])));
    EXPECT_FALSE(fs::exists(lock_path(r.files[0])));
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back().state, DownloadState::Done);
    EXPECT_EQ(seen.back().bytes_done, 300000);
    EXPECT_EQ(seen.back().bytes_total, 300000);
    for (size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1].bytes_done, seen[i].bytes_done);
    // The resolve went through the hub's redirect to the CDN path.
    EXPECT_EQ(hub.stats().resolve_requests, 1);
    EXPECT_EQ(hub.stats().cdn_requests, 1);
    check_models_folder();
    // A second run finds the verified file and transfers nothing.
    EXPECT_EQ(run(request(kRepo, {kFile})).state, DownloadState::Done);
    EXPECT_EQ(hub.stats().cdn_requests, 1);
}

TEST_F(DownloadTest, ResumesWithRangeAfterTheConnectionIsCut) {
    const std::string sha = add(kRepo, kFile, 500000, 2);
    HubFaults f;
    f.cut_at_byte = 123457;
    f.cut_times = 2;  // the first two responses end early (the second one mid-way through its range)
    hub.set_faults(f);
    std::vector<std::string> messages;
    Download d(request(kRepo, {kFile}), fast_options());
    const DownloadResult r = d.run([&](const DownloadProgress& p) {
        if (p.state == DownloadState::Retrying) messages.push_back(p.message);
    });
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_EQ(file_sha256(r.files[0]), sha);
    const auto st = hub.stats();
    EXPECT_EQ(st.cdn_requests, 3);
    EXPECT_EQ(st.range_requests, 2);
    EXPECT_EQ(st.body_bytes_sent, 500000);  // nothing was sent twice
    ASSERT_EQ(messages.size(), 2u);
    EXPECT_NE(messages[0].find("retrying"), std::string::npos) << messages[0];
    check_models_folder();
}

TEST_F(DownloadTest, AStallIsDetectedAndRetriedWithoutTheUser) {
    const std::string sha = add(kRepo, kFile, 200000, 3);
    HubFaults f;
    f.stall_at_byte = 50000;
    f.stall_seconds = 30;  // far longer than the tests' 1 s stall timeout; stop() ends it
    f.stall_times = 1;
    hub.set_faults(f);
    bool saw_stall = false;
    Download d(request(kRepo, {kFile}), fast_options());
    const auto t0 = std::chrono::steady_clock::now();
    const DownloadResult r = d.run([&](const DownloadProgress& p) {
        if (p.state == DownloadState::Retrying && p.message.find("stalled") != std::string::npos)
            saw_stall = true;
    });
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_TRUE(saw_stall);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));  // not the 30 s stall
    EXPECT_EQ(file_sha256(r.files[0]), sha);
    EXPECT_GE(hub.stats().range_requests, 1);  // the retry resumed where the stall began
    check_models_folder();
}

TEST_F(DownloadTest, AHashMismatchKeepsThePartAndSaysSoWithBothHashes) {
    const std::string sha = add(kRepo, kFile, 100000, 4);
    DownloadRequest req = request(kRepo, {kFile});
    req.files[0].sha256 = std::string(64, 'a');  // what a wrong listing would say
    const DownloadResult r = run(req);
    ASSERT_EQ(r.state, DownloadState::Failed);
    EXPECT_EQ(r.error_kind, DownloadError::HashMismatch);
    EXPECT_NE(r.error.find(std::string(64, 'a')), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(sha), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(".part"), std::string::npos) << r.error;
    const fs::path final = final_of(kRepo, kFile);
    EXPECT_FALSE(fs::exists(final));
    ASSERT_TRUE(fs::exists(part_path(final)));
    EXPECT_EQ(file_sha256(part_path(final)), sha);
    const auto sc = read_sidecar(sidecar_path(final));
    ASSERT_TRUE(sc.has_value());
    EXPECT_EQ(sc->bad_sha256, sha);
    check_models_folder();
    // With the right hash the next run starts over and succeeds.
    const DownloadResult again = run(request(kRepo, {kFile}));
    ASSERT_EQ(again.state, DownloadState::Done) << again.error;
    EXPECT_EQ(file_sha256(final), sha);
}

TEST_F(DownloadTest, TheLocalHubsWrongSha256IsCaughtToo) {
    add(kRepo, kFile, 5000, 5);
    HubFaults f;
    f.wrong_sha256 = true;
    hub.set_faults(f);
    const auto files = fetch_repo_tree(endpoint(), kRepo);
    ASSERT_EQ(files.size(), 1u);
    DownloadRequest req = request(kRepo, {kFile});
    req.files = files;
    const DownloadResult r = run(req);
    EXPECT_EQ(r.error_kind, DownloadError::HashMismatch) << r.error;
    check_models_folder();
}

TEST_F(DownloadTest, AGatedRepoNeedsAToken) {
    const std::string sha = add(kRepo, kFile, 40000, 6);
    hub.set_gated(kRepo, "hf_secret");
    const DownloadResult none = run(request(kRepo, {kFile}));
    EXPECT_EQ(none.state, DownloadState::Failed);
    EXPECT_EQ(none.error_kind, DownloadError::NeedsToken);
    EXPECT_NE(none.error.find("HF_TOKEN"), std::string::npos) << none.error;
    EXPECT_NE(none.error.find(hub.endpoint() + "/" + kRepo), std::string::npos)
        << none.error;  // the model page
    const DownloadResult wrong = run(request(kRepo, {kFile}, "hf_wrong"));
    EXPECT_EQ(wrong.error_kind, DownloadError::NeedsToken);
    EXPECT_NE(wrong.error.find("403"), std::string::npos) << wrong.error;
    const DownloadResult ok = run(request(kRepo, {kFile}, "hf_secret"));
    ASSERT_EQ(ok.state, DownloadState::Done) << ok.error;
    EXPECT_EQ(file_sha256(ok.files[0]), sha);
    check_models_folder();
}

TEST_F(DownloadTest, TheTokenGoesToTheHubButNotToAnotherCdnHost) {
    const std::string sha = add(kRepo, kFile, 40000, 60);
    hub.set_gated(kRepo, "hf_secret");
    hub.set_cdn_host("localhost");  // the same server under another host name
    const DownloadResult r = run(request(kRepo, {kFile}, "hf_secret"));
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_EQ(file_sha256(r.files[0]), sha);
    const auto st = hub.stats();
    ASSERT_EQ(st.cdn_authorization_seen.size(), 1u);
    EXPECT_EQ(st.cdn_authorization_seen[0], "");  // libcurl drops the header on the cross-host redirect
    EXPECT_EQ(st.authorization_seen.back(), "Bearer hf_secret");
    check_models_folder();
}

TEST_F(DownloadTest, ADiskTooSmallIsRefusedBeforeAnyByte) {
    add(kRepo, kFile, 100000, 7);
    DownloadOptions o = fast_options();
    o.free_space = [](const fs::path&) { return int64_t{50000}; };
    const DownloadResult r = run(request(kRepo, {kFile}), o);
    EXPECT_EQ(r.state, DownloadState::Failed);
    EXPECT_EQ(r.error_kind, DownloadError::DiskFull);
    EXPECT_NE(r.error.find("free disk space"), std::string::npos) << r.error;
    EXPECT_EQ(hub.stats().cdn_requests, 0);
    EXPECT_FALSE(fs::exists(part_path(final_of(kRepo, kFile))));
    check_models_folder();
}

TEST_F(DownloadTest, TheRealStatvfsProbeAlsoRefusesAnImpossibleFile) {
    // A listing claiming 1 EiB: statvfs of the temp folder cannot have room for it.
    DownloadRequest req;
    req.endpoint = endpoint();
    req.repo = kRepo;
    req.models_dir = models();
    req.files = {{kFile, int64_t{1} << 60, std::string(64, '0')}};
    const DownloadResult r = run(req);
    EXPECT_EQ(r.error_kind, DownloadError::DiskFull) << r.error;
    EXPECT_EQ(hub.stats().cdn_requests, 0);
}

TEST_F(DownloadTest, TwoDownloadsOfOneFileDoNotCorruptIt) {
    const std::string sha = add(kRepo, kFile, 400000, 8);
    HubFaults f;
    f.bytes_per_second = 2000000;  // ~0.2 s, so the two overlap
    hub.set_faults(f);
    Download first(request(kRepo, {kFile}), fast_options());
    first.start();
    // Wait (bounded) until the first holds the lock.
    const fs::path lock = lock_path(final_of(kRepo, kFile));
    for (int i = 0; i < 500 && !fs::exists(part_path(final_of(kRepo, kFile))); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    // Without waiting: refused, naming the process.
    const DownloadResult busy = run(request(kRepo, {kFile}));
    if (first.running()) {
        EXPECT_EQ(busy.error_kind, DownloadError::Busy) << busy.error;
        EXPECT_NE(busy.error.find("process " + std::to_string(::getpid())), std::string::npos) << busy.error;
    }
    // Waiting: gets the first one's verified file.
    DownloadOptions wait = fast_options();
    wait.wait_for_lock = true;
    const DownloadResult second = run(request(kRepo, {kFile}), wait);
    const DownloadResult one = first.wait();
    ASSERT_EQ(one.state, DownloadState::Done) << one.error;
    ASSERT_EQ(second.state, DownloadState::Done) << second.error;
    EXPECT_EQ(file_sha256(final_of(kRepo, kFile)), sha);
    EXPECT_EQ(hub.stats().cdn_requests, 1);
    EXPECT_FALSE(fs::exists(lock));
    check_models_folder();
}

TEST_F(DownloadTest, PauseThenResumeInANewDownloadObject) {
    const std::string sha = add(kRepo, kFile, 600000, 9);
    HubFaults f;
    f.bytes_per_second = 200000;  // 3 s for the file; the pause comes after ~0.5 s
    hub.set_faults(f);
    const fs::path final = final_of(kRepo, kFile);
    {
        Download d(request(kRepo, {kFile}), fast_options());
        std::atomic<bool> done{false};
        DownloadResult result;
        d.start({}, [&](const DownloadResult& r) {
            result = r;
            done = true;
        });
        for (int i = 0; i < 1000 && d.progress().bytes_done < 100000; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        d.pause();
        const DownloadResult r = d.wait();
        EXPECT_EQ(r.state, DownloadState::Paused);
        EXPECT_TRUE(done.load());
        EXPECT_EQ(result.state, DownloadState::Paused);
    }  // the Download is gone, like an app that was closed
    ASSERT_TRUE(fs::exists(part_path(final)));
    ASSERT_TRUE(fs::exists(sidecar_path(final)));
    EXPECT_FALSE(fs::exists(final));
    const int64_t kept = static_cast<int64_t>(fs::file_size(part_path(final)));
    EXPECT_GT(kept, 0);
    check_models_folder();
    hub.set_faults({});
    const int64_t sent_before = hub.stats().body_bytes_sent;
    Download again(request(kRepo, {kFile}), fast_options());
    const DownloadResult r = again.run();
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_EQ(file_sha256(final), sha);
    EXPECT_EQ(hub.stats().body_bytes_sent - sent_before, 600000 - kept);  // only the rest
    check_models_folder();
}

TEST_F(DownloadTest, CancelIsImmediateEvenDuringAStallAndRemovesThePart) {
    add(kRepo, kFile, 200000, 10);
    HubFaults f;
    f.stall_at_byte = 1000;
    f.stall_seconds = 30;
    f.stall_times = 1;
    hub.set_faults(f);
    DownloadOptions o = fast_options();
    o.stall_timeout = std::chrono::seconds(60);
    Download d(request(kRepo, {kFile}), o);
    d.start();
    const fs::path final = final_of(kRepo, kFile);
    for (int i = 0; i < 1000 && d.progress().bytes_done < 1000; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const auto t0 = std::chrono::steady_clock::now();
    d.cancel();
    const DownloadResult r = d.wait();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_EQ(r.state, DownloadState::Cancelled);
    EXPECT_FALSE(fs::exists(part_path(final)));
    EXPECT_FALSE(fs::exists(sidecar_path(final)));
    EXPECT_FALSE(fs::exists(final));
}

TEST_F(DownloadTest, AServerThatIgnoresRangeRestartsTheFileCleanly) {
    const std::string sha = add(kRepo, kFile, 300000, 11);
    HubFaults f;
    f.cut_at_byte = 100000;
    f.cut_times = 1;
    f.ignore_range = true;
    hub.set_faults(f);
    const DownloadResult r = run(request(kRepo, {kFile}));
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_EQ(file_sha256(r.files[0]), sha);
    EXPECT_EQ(hub.stats().range_requests, 1);  // asked, got 200, wrote from byte 0
    EXPECT_EQ(hub.stats().body_bytes_sent, 400000);
    check_models_folder();
}

TEST_F(DownloadTest, AnEtagChangeBetweenRequestsRestartsFromZero) {
    const std::string sha = add(kRepo, kFile, 300000, 12);
    HubFaults f;
    f.cut_at_byte = 100000;
    f.cut_times = 1;
    f.rotate_etag = true;
    hub.set_faults(f);
    bool said_changed = false;
    Download d(request(kRepo, {kFile}), fast_options());
    const DownloadResult r = d.run([&](const DownloadProgress& p) {
        if (p.message.find("ETag changed") != std::string::npos) said_changed = true;
    });
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_TRUE(said_changed);
    EXPECT_EQ(file_sha256(r.files[0]), sha);
    check_models_folder();
}

TEST_F(DownloadTest, ServerErrorsAreRetriedWithBackoffThenGiveUpInWords) {
    const std::string sha = add(kRepo, kFile, 20000, 13);
    HubFaults f;
    f.status_code = 503;
    f.status_times = 2;
    hub.set_faults(f);
    const DownloadResult r = run(request(kRepo, {kFile}));
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_EQ(file_sha256(r.files[0]), sha);
    f.status_times = 100;
    hub.set_faults(f);
    fs::remove(r.files[0]);
    DownloadOptions o = fast_options();
    o.max_attempts = 3;
    const DownloadResult gave_up = run(request(kRepo, {kFile}), o);
    EXPECT_EQ(gave_up.error_kind, DownloadError::Network);
    EXPECT_NE(gave_up.error.find("503"), std::string::npos) << gave_up.error;
    EXPECT_NE(gave_up.error.find("3 attempts"), std::string::npos) << gave_up.error;
    check_models_folder();
}

TEST_F(DownloadTest, AnOutageIsRiddenOutForMinutesNotSixAttempts) {
    add(kRepo, kFile, 1000, 15);
    HubFaults f;
    f.status_code = 503;
    f.status_times = 1000000;  // the hub is down for good
    hub.set_faults(f);
    // The defaults, with the clock scaled down: backoff 5-40 ms, give up after 2 s (about 50 tries
    // on an idle machine; 400 ms gave only 6 on a loaded one, where each try takes longer).
    DownloadOptions o = fast_options();
    ASSERT_EQ(DownloadOptions{}.max_attempts, 0) << "a count cap gives up on an outage in seconds";
    ASSERT_GE(DownloadOptions{}.give_up_after, std::chrono::minutes(5));
    o.give_up_after = std::chrono::seconds(2);
    const DownloadResult r = run(request(kRepo, {kFile}), o);
    EXPECT_EQ(r.error_kind, DownloadError::Network);
    const auto at = r.error.find("gave up after ");
    ASSERT_NE(at, std::string::npos) << r.error;
    EXPECT_GT(std::atoi(r.error.c_str() + at + 14), 6) << r.error;
    EXPECT_NE(r.error.find("without progress"), std::string::npos) << r.error;
    check_models_folder();
}

TEST_F(DownloadTest, AMissingFileIs404InWords) {
    add(kRepo, kFile, 1000, 14);
    DownloadRequest req = request(kRepo, {kFile});
    req.files[0].path = "absent.gguf";
    const DownloadResult r = run(req);
    EXPECT_EQ(r.error_kind, DownloadError::NotFound);
    EXPECT_NE(r.error.find("404"), std::string::npos) << r.error;
    check_models_folder();
}

TEST_F(DownloadTest, AShardedSetDownloadsAsOneSet) {
    const std::string repo = "tester/big-GGUF";
    std::vector<std::string> names;
    for (int i = 1; i <= 3; ++i) {
        names.push_back("big-Q4_K_M-0000" + std::to_string(i) + "-of-00003.gguf");
        add(repo, names.back(), 70000 + i, 20 + i);
    }
    HubFaults f;
    f.cut_at_byte = 30000;
    f.cut_times = 2;
    hub.set_faults(f);
    std::vector<int> file_indexes;
    Download d(request(repo, names), fast_options());
    const DownloadResult r = d.run([&](const DownloadProgress& p) {
        if (file_indexes.empty() || file_indexes.back() != p.file_index) file_indexes.push_back(p.file_index);
        EXPECT_EQ(p.file_count, 3);
        EXPECT_EQ(p.bytes_total, 70001 + 70002 + 70003);
    });
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    ASSERT_EQ(r.files.size(), 3u);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(file_sha256(r.files[i]), sha_by_final_path_.at(repo + "/" + names[i]));
    EXPECT_EQ(file_indexes, (std::vector<int>{0, 1, 2}));
    check_models_folder();
}

TEST_F(DownloadTest, AStaleOrForeignPartIsStartedOver) {
    const std::string sha = add(kRepo, kFile, 50000, 30);
    const fs::path final = final_of(kRepo, kFile);
    fs::create_directories(final.parent_path());
    { std::ofstream(part_path(final)) << "junk that no sidecar vouches for"; }
    const DownloadResult r = run(request(kRepo, {kFile}));
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_EQ(file_sha256(final), sha);
    EXPECT_EQ(hub.stats().range_requests, 0);
}

}  // namespace

namespace {

// libcurl takes the proxy from the environment by itself; this shows the engine does not turn
// that off (a download through http_proxy lands the same bytes, and the proxy saw the requests).
TEST_F(DownloadTest, ProxiesFromTheEnvironmentAreUsed) {
    const std::string sha = add(kRepo, kFile, 100000, 40);
    snapdoc::testing::ForwardProxy proxy;
    ::setenv("http_proxy", proxy.url().c_str(), 1);
    ::unsetenv("no_proxy");
    ::unsetenv("NO_PROXY");
    const auto files = fetch_repo_tree(endpoint(), kRepo);
    const DownloadResult r = run(request(kRepo, {kFile}));
    ::unsetenv("http_proxy");
    ASSERT_EQ(files.size(), 1u);
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_EQ(file_sha256(r.files[0]), sha);
    const auto seen = proxy.targets();
    ASSERT_EQ(seen.size(), 3u);  // tree, resolve (302), CDN
    EXPECT_EQ(seen[0].rfind(hub.endpoint() + "/api/models/" + kRepo + "/tree/main", 0), 0u) << seen[0];
    EXPECT_NE(seen[2].find("/cdn/"), std::string::npos) << seen[2];
    check_models_folder();
}

}  // namespace

namespace {

// A real 1 MiB filesystem (tmpfs), where the machine allows mounting one (root in a container
// with CAP_SYS_ADMIN); elsewhere the injected probe above covers the check and this skips.
class SmallFilesystem {
public:
    explicit SmallFilesystem(const fs::path& where) : dir_(where) {
        fs::create_directories(dir_);
        mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m") == 0;
    }
    ~SmallFilesystem() {
        if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    }
    bool mounted() const { return mounted_; }

private:
    fs::path dir_;
    bool mounted_ = false;
};

TEST_F(DownloadTest, ARealSmallDiskIsRefusedUpFrontAndAFullDiskMidwayKeepsThePart) {
    SmallFilesystem small(models());
    if (!small.mounted())
        GTEST_SKIP() << "cannot mount a 1 MiB tmpfs here (needs root/CAP_SYS_ADMIN); "
                        "the injected-probe test covers the check";
    add(kRepo, kFile, 3 << 20, 50);
    // statvfs sees ~1 MiB free: refused before a byte, in words.
    const DownloadResult up_front = run(request(kRepo, {kFile}));
    EXPECT_EQ(up_front.error_kind, DownloadError::DiskFull) << up_front.error;
    EXPECT_EQ(hub.stats().cdn_requests, 0);
    // A probe that is wrong (or another program filling the disk meanwhile): ENOSPC while writing.
    DownloadOptions o = fast_options();
    o.free_space = [](const fs::path&) { return int64_t{1} << 40; };
    const DownloadResult midway = run(request(kRepo, {kFile}), o);
    EXPECT_EQ(midway.error_kind, DownloadError::DiskFull) << midway.error;
    EXPECT_NE(midway.error.find("disk filled up"), std::string::npos) << midway.error;
    EXPECT_TRUE(fs::exists(part_path(final_of(kRepo, kFile))));
    EXPECT_FALSE(fs::exists(final_of(kRepo, kFile)));
    check_models_folder();
}

}  // namespace

namespace {

TEST_F(DownloadTest, AShardSetPausedMidwayIsNotAModelUntilResumed) {
    const std::string repo = "tester/set-GGUF";
    std::vector<std::string> names;
    for (int i = 1; i <= 3; ++i) {
        names.push_back("set-Q4_K_M-0000" + std::to_string(i) + "-of-00003.gguf");
        add(repo, names.back(), 100000, 70 + i);
    }
    HubFaults f;
    f.bytes_per_second = 400000;  // 0.25 s per shard
    hub.set_faults(f);
    const ModelStore store(models());
    {
        Download d(request(repo, names), fast_options());
        d.start();
        for (int i = 0; i < 2000 && d.progress().bytes_done < 150000; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        d.pause();
        ASSERT_EQ(d.wait().state, DownloadState::Paused);
    }
    // The first shard is complete and in place; the set is not a model yet.
    EXPECT_TRUE(fs::exists(final_of(repo, names[0])));
    EXPECT_FALSE(store.find(parse_model_ref(repo + ":Q4_K_M")).has_value());
    const auto listed = store.list(repo);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_FALSE(listed[0].complete);
    check_models_folder();
    hub.set_faults({});
    const int64_t sent_before = hub.stats().body_bytes_sent;
    const DownloadResult r = run(request(repo, names));
    ASSERT_EQ(r.state, DownloadState::Done) << r.error;
    EXPECT_LT(hub.stats().body_bytes_sent - sent_before, 200000);  // shard 1 was not fetched again
    ASSERT_TRUE(store.find(parse_model_ref(repo + ":Q4_K_M")).has_value());
    EXPECT_EQ(store.find(parse_model_ref(repo + ":Q4_K_M"))->files.size(), 3u);
    check_models_folder();
}

}  // namespace
