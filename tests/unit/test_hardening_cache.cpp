// Issue 24, the K/V cache in the engine: special files at a cache name end at once; the model
// identity covers every byte of the model (a kept mtime cannot fool it) and is remembered by the
// file's (device, inode, size, mtime, ctime); temporaries of live writers count against the cap and
// those of dead ones go at once; the cap applies when a cache is attached; non-finite K/V are
// neither written nor restored; a truncated mapped cache file is named in the SIGBUS report.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/mapped_regions.h"
#include "engine/kv/checksum64.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/kv/kv_store_file.h"
#include "engine/kv/model_identity.h"
#include "engine/model/mapped_file.h"
#include "tests/support/fixtures.h"
#include "tests/support/kv_file_sample.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

void write_bytes(const fs::path& p, std::size_t n, char fill = 'x') {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    const std::string s(n, fill);
    out.write(s.data(), static_cast<std::streamsize>(n));
}

void flip_byte(const fs::path& p, std::size_t at) {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    const char c = static_cast<char>(f.get());
    f.seekp(static_cast<std::streamoff>(at));
    f.put(static_cast<char>(c ^ 0x40));
}

// A small cache file's contents (3 layers, 2 KV heads, 40 tokens).
struct SmallKv : testing::KvFileSample {
    explicit SmallKv(const fs::path& spill) : KvFileSample(spill, {3, 2, 16, 64, 40, 8}, 3) {}
};

// Rewrites a cache file's trailer checksum after an edit, so only the edit itself can be refused.
void reseal(const fs::path& p) {
    std::string b = read_text_file(p);
    const std::size_t body = b.size() - kKvFileTrailerBytes;
    const uint64_t sum = checksum64(b.data(), body, kKvFileChecksumSeed);
    std::memcpy(b.data() + body, &sum, sizeof sum);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << b;
}

TEST(HardeningCacheFile, FifoOrLinkAtTheNameIsRefusedAtOnce) {
    testing::TempDir dir;
    SmallKv s(dir.path());
    const fs::path fifo = dir / "f.snapkv";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto t0 = std::chrono::steady_clock::now();
    for (KvFileLoad mode : {KvFileLoad::Map, KvFileLoad::Read})
        EXPECT_THROW(read_kv_store_file(fifo, s.expect(), mode, int64_t{1} << 30, dir.path()), FormatError);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // it blocked forever in open()
    const fs::path real = dir / "real.snapkv", link = dir / "link.snapkv";
    write_kv_store_file(real, s.key, s.contents());
    fs::create_symlink(real, link);
    try {
        read_kv_store_file(link, s.expect(), KvFileLoad::Map);
        ADD_FAILURE() << "a link at a cache name was followed";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("a symbolic link, not a regular file"), std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(read_kv_store_file(real, s.expect(), KvFileLoad::Map));
    // What the cache does before writing: anything but a regular file at the name goes.
    KvStoreCache::clear_name(link);
    KvStoreCache::clear_name(fifo);
    EXPECT_FALSE(KvStoreCache::occupied(link));
    EXPECT_FALSE(KvStoreCache::occupied(fifo));
    EXPECT_TRUE(fs::exists(real));
    KvStoreCache::clear_name(real);
    EXPECT_TRUE(fs::exists(real));
}

// Flipping weights deep in a model and restoring the mtime (touch -r, cp -p, rsync -t, tar) made the
// next ask serve the old model's K/V: the key hashed only the first 8 MiB plus size and mtime.
TEST(HardeningModelIdentity, AFlipDeepInTheFileWithTheMtimeKeptIsADifferentModel) {
    testing::TempDir dir;
    const fs::path m = dir / "m.gguf";
    write_bytes(m, std::size_t{12} << 20, 'w');
    KvStoreCache cache(dir / "kv");
    const ModelIdentity before = cache.model_identity(m);
    EXPECT_EQ(cache.model_identity(m), before);  // served from the memo
    const auto mtime = fs::last_write_time(m);
    flip_byte(m, std::size_t{10} << 20);
    fs::last_write_time(m, mtime);
    EXPECT_NE(cache.model_identity(m), before);
    EXPECT_NE(model_identity(m), before);  // without a memo too
    flip_byte(m, std::size_t{10} << 20);   // back to the original bytes: the original identity
    EXPECT_EQ(cache.model_identity(m), before);
}

// The memo is what keeps the common open at the cost of a stat: a remembered stamp is trusted
// without reading the file; a ctime change (any write, even with the mtime restored) is not.
TEST(HardeningModelIdentity, TheMemoIsUsedForAnUnchangedStampOnly) {
    testing::TempDir dir;
    const fs::path m = dir / "m.gguf", memo = dir / "memo";
    write_bytes(m, 5000, 'a');
    const ModelIdentity real = model_identity(m, memo);
    {
        ModelHashMemo poisoned(memo);
        poisoned.remember(file_stamp(m), 0x1234);  // pretend an earlier run hashed other bytes
        ASSERT_TRUE(poisoned.save());
    }
    EXPECT_NE(model_identity(m, memo), real);  // the memo was believed: the file was not read
    const auto mtime = fs::last_write_time(m);
    std::this_thread::sleep_for(20ms);  // a ctime tick later
    fs::last_write_time(m, mtime);      // touch -r: same mtime, new ctime
    EXPECT_EQ(model_identity(m, memo), real);
    EXPECT_EQ(ModelHashMemo(memo).find(file_stamp(m)).value_or(0), hash_whole_file(m));
    // A memo that is garbage is an empty memo, not an error.
    write_bytes(memo, 300, '\n');
    EXPECT_EQ(model_identity(m, memo), real);
}

TEST(HardeningModelIdentity, EverySafetensorsShardIsCoveredWhole) {
    testing::TempDir dir;
    const fs::path hf = dir / "hf";
    fs::create_directories(hf);
    std::ofstream(hf / "config.json") << "{}";
    write_bytes(hf / "model-00001-of-00002.safetensors", std::size_t{9} << 20, 'a');
    write_bytes(hf / "model-00002-of-00002.safetensors", std::size_t{9} << 20, 'b');
    KvStoreCache cache(dir / "kv");
    const ModelIdentity before = cache.model_identity(hf);
    const fs::path shard = hf / "model-00002-of-00002.safetensors";
    const auto mtime = fs::last_write_time(shard);
    flip_byte(shard, (std::size_t{9} << 20) - 5);
    fs::last_write_time(shard, mtime);
    EXPECT_NE(cache.model_identity(hf), before);
}

// A child that exits at once: its pid names no process afterwards (reused only after wrap-around).
pid_t dead_pid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    int st = 0;
    ::waitpid(pid, &st, 0);
    return pid;
}

// Temporaries of killed writers (9 of 20 kills left 98 MiB) were not counted against the cap and
// were removed only after an hour.
TEST(HardeningCacheFolder, TemporariesCountAndThoseOfDeadWritersGoAtOnce) {
    testing::TempDir dir;
    const auto now = fs::file_time_type::clock::now();
    write_bytes(dir / "0000000000000001.snapkv", 1000);
    write_bytes(dir / "0000000000000002.snapkv", 1000);
    fs::last_write_time(dir / "0000000000000001.snapkv", now - 20min);
    fs::last_write_time(dir / "0000000000000002.snapkv", now - 10min);
    const std::string live = ".0000000000000003.snapkv.tmp-" + std::to_string(::getpid()) + "-77";
    const std::string dead = ".0000000000000004.snapkv.tmp-" + std::to_string(dead_pid()) + "-78";
    const std::string dead_memo =
        "." + std::string(kModelHashMemoName) + ".tmp-" + std::to_string(dead_pid()) + "-9";
    write_bytes(dir / live, 1000);      // a writer in progress (this process)
    write_bytes(dir / dead, 5000);      // left by a kill -9, just now
    write_bytes(dir / dead_memo, 100);  // the memo's too
    KvStoreCache cache(dir.path(), 2500);
    cache.evict();
    EXPECT_FALSE(fs::exists(dir / dead));
    EXPECT_FALSE(fs::exists(dir / dead_memo));
    EXPECT_TRUE(fs::exists(dir / live));
    // 2000 B of cache files + 1000 B being written > 2500: the oldest file goes.
    EXPECT_FALSE(fs::exists(dir / "0000000000000001.snapkv"));
    EXPECT_TRUE(fs::exists(dir / "0000000000000002.snapkv"));
    write_bytes(dir / dead, 10);
    cache.clear();
    EXPECT_FALSE(fs::exists(dir / dead));
    EXPECT_TRUE(fs::exists(dir / live));
}

TEST(HardeningCacheFile, NonFiniteKvIsNeitherWrittenNorRestored) {
    testing::TempDir dir;
    SmallKv s(dir.path());
    const fs::path file = dir / "a.snapkv";
    write_kv_store_file(file, s.key, s.contents());
    // A well-formed file holding a NaN K/V value (valid checksum): every later question failed with
    // "every logit is -inf or NaN", and the file was never removed.
    const std::size_t kv_at = fs::file_size(file) - kKvFileTrailerBytes - 64;
    {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(kv_at));
        const uint16_t nan16 = 0x7e00;
        f.write(reinterpret_cast<const char*>(&nan16), 2);
    }
    reseal(file);
    for (KvFileLoad mode : {KvFileLoad::Map, KvFileLoad::Read}) {
        try {
            read_kv_store_file(file, s.expect(), mode, int64_t{1} << 30, dir.path());
            ADD_FAILURE() << "restored NaN K/V";
        } catch (const FormatError& e) {
            EXPECT_NE(std::string(e.what()).find("holds NaN or Inf K/V"), std::string::npos) << e.what();
        }
    }
    // A session with NaN K/V (a broken model) leaves no file behind.
    SmallKv bad(dir.path());
    bad.tail_q[1][3] = std::numeric_limits<float>::infinity();
    EXPECT_THROW(write_kv_store_file(dir / "b.snapkv", bad.key, bad.contents()), Error);
    EXPECT_FALSE(fs::exists(dir / "b.snapkv"));
}

TEST(HardeningSigbus, MappedFilesAreNamedByAddress) {
    testing::TempDir dir;
    write_bytes(dir / "m.bin", 10000);
    {
        const auto m = MappedFile::open(dir / "m.bin");
        const char* label = mapped_region_label(m->data() + 9999);
        ASSERT_NE(label, nullptr);
        EXPECT_EQ(std::string(label), "the model file " + (dir / "m.bin").string());
        EXPECT_EQ(mapped_region_label(m->data() + 10000 + 4096), nullptr);
    }
    EXPECT_EQ(mapped_region_label(nullptr), nullptr);
}

// SIGBUS from a truncated *cache* file was reported as "the model".
TEST(HardeningSigbus, ATruncatedMappedCacheFileIsNamed) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    testing::TempDir dir;
    SmallKv s(dir.path());
    const fs::path file = dir / "c.snapkv";
    write_kv_store_file(file, s.key, s.contents());
    EXPECT_EXIT(
        {
            install_sigbus_report("test");
            LoadedKvStore got = read_kv_store_file(file, s.expect(), KvFileLoad::Map);
            ::truncate(file.c_str(), 0);
            const auto* p = static_cast<const volatile uint8_t*>(got.store->data());
            volatile uint8_t sink = p[got.store->bytes() - 1];
            (void)sink;
            ::_exit(0);
        },
        ::testing::ExitedWithCode(1), "a memory-mapped file \\(the K/V cache file .*c.snapkv; it is rebuilt");
}

}  // namespace
}  // namespace snapdoc
