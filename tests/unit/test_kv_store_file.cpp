// K/V cache files: a round trip gives back the same f16 store, tail queries and tokens (mapped or
// read); a truncated, corrupt, foreign or mismatched file is refused with a FormatError (never
// used); a write that fails (full disk) throws and leaves no file.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <random>

#include "engine/common/error.h"
#include "engine/kv/checksum64.h"
#include "engine/kv/kv_store_file.h"
#include "tests/support/kv_file_sample.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;

using Sample = testing::KvFileSample;

class KvStoreFile : public ::testing::Test {
protected:
    testing::TempDir dir;
    Sample s{dir.path()};
    fs::path file = dir / "a.snapkv";

    void expect_same(const LoadedKvStore& got) {
        ASSERT_TRUE(got.store);
        EXPECT_EQ(got.store->bytes(), s.store->bytes());
        EXPECT_EQ(std::memcmp(got.store->data(), s.store->data(), static_cast<std::size_t>(s.store->bytes())),
                  0);
        EXPECT_EQ(got.tail_rows, s.shape.tail_rows);
        EXPECT_EQ(got.tail_q, s.tail_q);
    }
    std::vector<char> bytes() const {
        std::ifstream in(file, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), {}};
    }
    void put(const std::vector<char>& b) const {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(b.data(), static_cast<std::streamsize>(b.size()));
    }
    void expect_refused(const std::string& what_contains) {
        for (KvFileLoad mode : {KvFileLoad::Map, KvFileLoad::Read}) {
            try {
                read_kv_store_file(file, s.expect(), mode, int64_t{1} << 30, dir.path());
                ADD_FAILURE() << "accepted a bad file (" << what_contains << ")";
            } catch (const FormatError& e) {
                EXPECT_NE(std::string(e.what()).find(what_contains), std::string::npos) << e.what();
            }
        }
    }
};

TEST_F(KvStoreFile, RoundTripMappedAndRead) {
    write_kv_store_file(file, s.key, s.contents());
    EXPECT_EQ(static_cast<int64_t>(fs::file_size(file)), kv_store_file_bytes(s.shape));
    const LoadedKvStore mapped = read_kv_store_file(file, s.expect(), KvFileLoad::Map);
    expect_same(mapped);
    EXPECT_TRUE(mapped.store->mapped_from_cache());
    const LoadedKvStore read = read_kv_store_file(file, s.expect(), KvFileLoad::Read);
    expect_same(read);
    EXPECT_FALSE(read.store->mapped_from_cache());
    // The mapping outlives the file's name (eviction unlinks files that may be in use).
    fs::remove(file);
    std::vector<float> k(s.shape.tokens * s.shape.head_dim), v(k.size()), k0(k.size()), v0(k.size());
    mapped.store->load_rows(2, 1, 0, s.shape.tokens, k.data(), v.data());
    s.store->load_rows(2, 1, 0, s.shape.tokens, k0.data(), v0.data());
    EXPECT_EQ(k, k0);
    EXPECT_EQ(v, v0);
}

TEST_F(KvStoreFile, AcceptsAFileWithMoreTailRowsThanNeeded) {
    write_kv_store_file(file, s.key, s.contents());
    KvFileExpectation e = s.expect();
    e.shape.tail_rows = 10;
    EXPECT_EQ(read_kv_store_file(file, e, KvFileLoad::Map).tail_rows, 40);
    e.shape.tail_rows = 41;  // the session wants a longer tail than the file has
    EXPECT_THROW(read_kv_store_file(file, e, KvFileLoad::Map), FormatError);
}

TEST_F(KvStoreFile, TruncatedFilesAreRefused) {
    write_kv_store_file(file, s.key, s.contents());
    const std::vector<char> full = bytes();
    for (std::size_t keep : {std::size_t{0}, std::size_t{100}, std::size_t{4096}, full.size() / 2,
                             full.size() - 16, full.size() - 1}) {
        put(std::vector<char>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(keep)));
        expect_refused("truncated");
    }
    std::vector<char> longer = full;
    longer.push_back('x');
    put(longer);
    expect_refused("trailing bytes");
}

// A refused file leaves no descriptor open: the reader's constructor used to throw after open(),
// so every truncated or non-regular cache file read cost one descriptor until the process ran out
// (fuzz_kv_cache_file hit the limit; an app reopening a corrupt cache would too).
TEST_F(KvStoreFile, RefusedFilesLeaveNoDescriptorOpen) {
    auto open_descriptors = [] {
        int n = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
        return n;
    };
    if (!fs::exists("/proc/self/fd")) GTEST_SKIP() << "no /proc/self/fd on this system";
    write_kv_store_file(file, s.key, s.contents());
    const std::vector<char> full = bytes();
    const int before = open_descriptors();
    for (int i = 0; i < 50; ++i) {
        put(std::vector<char>(full.begin(), full.begin() + 100));  // too short for header + trailer
        expect_refused("truncated");
        put(std::vector<char>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(full.size() / 2)));
        expect_refused("truncated");
    }
    EXPECT_EQ(open_descriptors(), before);
}

TEST_F(KvStoreFile, AnyFlippedByteIsCaught) {
    write_kv_store_file(file, s.key, s.contents());
    const std::vector<char> good = bytes();
    // One byte in each region: header padding, tokens, tail queries, the K/V blob (first, middle,
    // last), the padding before it, and the stored checksum.
    const std::size_t kv_end = good.size() - 16;
    for (std::size_t at : {std::size_t{2000}, std::size_t{4096 + 7}, std::size_t{4096 + 600 + 13}, kv_end - 1,
                           kv_end - s.store->bytes(), kv_end - s.store->bytes() / 2,
                           kv_end - s.store->bytes() - 3, good.size() - 12}) {
        std::vector<char> bad = good;
        bad[at] ^= 0x10;
        put(bad);
        expect_refused("checksum");
    }
    // The end marker and the header's own fields fail earlier, with their own words.
    std::vector<char> bad = good;
    bad[good.size() - 3] ^= 1;
    put(bad);
    expect_refused("end marker");
    bad = good;
    bad[0] = 'X';
    put(bad);
    expect_refused("bad magic");
    bad = good;
    bad[8] = 9;  // format version
    put(bad);
    expect_refused("format version");
}

TEST_F(KvStoreFile, MismatchedKeyShapeOrTokensAreRefused) {
    write_kv_store_file(file, s.key, s.contents());
    auto refused = [&](KvFileExpectation e, const std::string& word) {
        try {
            read_kv_store_file(file, e, KvFileLoad::Map);
            ADD_FAILURE() << "accepted: " << word;
        } catch (const FormatError& err) {
            EXPECT_NE(std::string(err.what()).find(word), std::string::npos) << err.what();
        }
    };
    KvFileExpectation e = s.expect();
    e.key.model.content_hash += 1;
    refused(e, "different model");
    e = s.expect();
    e.key.system_prompt_hash ^= 1;
    refused(e, "different model");
    e = s.expect();
    e.key.engine_version += 1;
    refused(e, "engine version");
    e = s.expect();
    e.shape.head_dim = 8;
    refused(e, "shape");
    std::vector<int32_t> other = s.tokens;
    other[77] += 1;  // same key (a hash collision, say) but different ids
    e = s.expect();
    e.tokens = other;
    refused(e, "token ids differ");
    // Not a file at all.
    EXPECT_THROW(read_kv_store_file(dir / "missing.snapkv", s.expect(), KvFileLoad::Map), FormatError);
}

// A write that fails part way (here: the file size limit, as a full disk would) throws and leaves
// neither the file nor a temporary behind; an existing good file stays as it was.
TEST_F(KvStoreFile, FailedWriteLeavesNoFile) {
    write_kv_store_file(file, s.key, s.contents());
    const std::vector<char> before = bytes();
    struct rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    auto* prev = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 8192;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    EXPECT_THROW(write_kv_store_file(file, s.key, s.contents()), Error);
    EXPECT_THROW(write_kv_store_file(dir / "b.snapkv", s.key, s.contents()), Error);
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, prev);
    EXPECT_EQ(bytes(), before);
    EXPECT_FALSE(fs::exists(dir / "b.snapkv"));
    int entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
    EXPECT_EQ(entries, 1);
}

TEST(KvChecksum, StreamingEqualsOneShotAndDetectsChanges) {
    std::vector<unsigned char> data(1000);
    std::mt19937 rng(9);
    for (auto& b : data) b = static_cast<unsigned char>(rng());
    const uint64_t whole = checksum64(data.data(), data.size());
    for (std::size_t split : {0, 1, 31, 32, 33, 500, 999}) {
        Checksum64 c;
        c.update(data.data(), split);
        c.update(data.data() + split, data.size() - split);
        EXPECT_EQ(c.digest(), whole) << split;
    }
    for (std::size_t i = 0; i < data.size(); i += 37) {
        auto d = data;
        d[i] ^= 1;
        EXPECT_NE(checksum64(d.data(), d.size()), whole) << i;
    }
    EXPECT_NE(checksum64(data.data(), 999), checksum64(data.data(), 1000));
    EXPECT_NE(checksum64(data.data(), 1000, 1), whole);
}

}  // namespace
}  // namespace snapdoc
