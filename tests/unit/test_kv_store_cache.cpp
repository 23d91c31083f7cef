// The K/V cache folder (LRU by a byte cap, clear, default location, model identity) and its use by
// DocumentChat: the second load of a document is served from the cache and answers exactly as the
// prefilled one; a corrupt or mismatched file is rebuilt, never used.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "engine/common/error.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_chat.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/repo_paths.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

void write_bytes(const fs::path& p, std::size_t n, char fill = 'x') {
    std::ofstream out(p, std::ios::binary);
    const std::string s(n, fill);
    out.write(s.data(), static_cast<std::streamsize>(n));
}

class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        if (value)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (had_)
            ::setenv(name_, old_.c_str(), 1);
        else
            ::unsetenv(name_);
    }

private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

TEST(KvStoreCacheFolder, DefaultDirFollowsXdgThenHome) {
    {
        ScopedEnv x("XDG_CACHE_HOME", "/tmp/xdg-test");
        EXPECT_EQ(KvStoreCache::default_dir(), fs::path("/tmp/xdg-test/snapdoc/kv"));
    }
    ScopedEnv x("XDG_CACHE_HOME", nullptr);
    ScopedEnv h("HOME", "/home/someone");
    EXPECT_EQ(KvStoreCache::default_dir(), fs::path("/home/someone/.cache/snapdoc/kv"));
    ScopedEnv rel("XDG_CACHE_HOME", "relative/path");  // the XDG spec: relative paths are ignored
    EXPECT_EQ(KvStoreCache::default_dir(), fs::path("/home/someone/.cache/snapdoc/kv"));
}

TEST(KvStoreCacheFolder, EvictsLeastRecentlyUsedDownToTheCap) {
    testing::TempDir dir;
    KvStoreCache cache(dir.path(), 2500);
    const auto now = fs::file_time_type::clock::now();
    const char* names[] = {"0000000000000001.snapkv", "0000000000000002.snapkv", "0000000000000003.snapkv",
                           "0000000000000004.snapkv"};
    for (int i = 0; i < 4; ++i) {
        write_bytes(dir / names[i], 1000);
        fs::last_write_time(dir / names[i],
                            now - std::chrono::minutes(40 - i * 10));  // 1 oldest ... 4 newest
    }
    write_bytes(dir / "notes.txt", 5000);  // not ours: never counted or removed
    cache.touch(dir / names[0]);           // used just now: becomes the newest
    EXPECT_EQ(cache.usage().files, 4);
    EXPECT_EQ(cache.usage().bytes, 4000);
    cache.evict(dir / names[1]);  // keep 2 even though it is now the oldest
    EXPECT_TRUE(fs::exists(dir / names[0]));
    EXPECT_TRUE(fs::exists(dir / names[1]));
    EXPECT_FALSE(fs::exists(dir / names[2]));
    EXPECT_FALSE(fs::exists(dir / names[3]) && fs::exists(dir / names[2]));
    EXPECT_LE(cache.usage().bytes, 2500 + 1000);  // within the cap except for the kept file
    EXPECT_TRUE(fs::exists(dir / "notes.txt"));
}

TEST(KvStoreCacheFolder, ClearRemovesOnlyCacheFilesAndStaleTemporaries) {
    testing::TempDir dir;
    KvStoreCache cache(dir.path());
    write_bytes(dir / "00000000000000aa.snapkv", 10);
    write_bytes(dir / ".00000000000000bb.snapkv.tmp-1", 10);  // a writer in progress
    write_bytes(dir / ".00000000000000cc.snapkv.tmp-2", 10);  // left by a crash
    fs::last_write_time(dir / ".00000000000000cc.snapkv.tmp-2", fs::file_time_type::clock::now() - 2h);
    write_bytes(dir / "keep.me", 10);
    cache.clear();
    EXPECT_FALSE(fs::exists(dir / "00000000000000aa.snapkv"));
    EXPECT_TRUE(fs::exists(dir / ".00000000000000bb.snapkv.tmp-1"));
    EXPECT_FALSE(fs::exists(dir / ".00000000000000cc.snapkv.tmp-2"));
    EXPECT_TRUE(fs::exists(dir / "keep.me"));
    EXPECT_EQ(cache.usage().files, 0);
}

TEST(KvStoreCacheFolder, RoomRespectsTheCap) {
    testing::TempDir dir;
    KvStoreCache cache(dir.path(), 1000);
    EXPECT_EQ(cache.room_for(999), "");
    EXPECT_NE(cache.room_for(1001).find("larger than the K/V cache cap"), std::string::npos);
    KvStoreCache huge(dir.path(), int64_t{1} << 62);
    EXPECT_NE(huge.room_for(int64_t{1} << 61).find("not enough free disk space"), std::string::npos);
}

TEST(KvStoreCacheFolder, ModelIdentityFollowsContentAndSizeNotTime) {
    testing::TempDir dir;
    const fs::path m = dir / "m.gguf";
    write_bytes(m, 4096, 'a');
    const ModelIdentity a = model_identity(m);
    EXPECT_EQ(model_identity(m), a);
    const auto t = fs::last_write_time(m);
    {
        std::fstream f(m, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(100);
        f.put('b');
    }
    fs::last_write_time(m, t);  // same size and time, different bytes
    EXPECT_NE(model_identity(m).content_hash, a.content_hash);
    write_bytes(m, 4096, 'a');
    fs::last_write_time(m, t + 1s);
    EXPECT_EQ(model_identity(m), a);  // the same bytes (a copy, a touch) are the same model
    write_bytes(m, 4097, 'a');
    EXPECT_NE(model_identity(m), a);
    EXPECT_THROW(model_identity(dir / "absent.gguf"), Error);
}

// --- DocumentChat with the demo model (skips when it is absent, like tests/golden) ---

using testing::demo_model_path;

class KvCacheChat : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(demo_model_path()))
            GTEST_SKIP() << "demo model absent: " << demo_model_path().string();
        model = std::make_unique<Model>(load_model(demo_model_path()));
        tok = std::make_unique<Tokenizer>(Tokenizer::from_model(*model));
        backend = make_cpu_backend(*model);
        kind = choose_chat_template(model->chat_template, "");
        cache = std::make_unique<KvStoreCache>(dir / "kv");
        identity = cache->model_identity(demo_model_path());
    }
    std::unique_ptr<DocumentChat> chat_with_cache() {
        auto c = std::make_unique<DocumentChat>(*backend, *tok, kind);
        c->set_kv_cache(cache.get(), identity);
        return c;
    }
    static AskOptions opts() {
        AskOptions o;
        o.snapkv.budget = 64;
        o.snapkv.window = 16;
        o.max_new_tokens = 16;
        return o;
    }
    static constexpr const char* kDoc =
        "Report of the harbour office.\nThe access code for the north gate is 7391. The green office keeps "
        "batch number 4410. Greta inspected the boiler near the hill mill in the evening. About 37 tourists "
        "waited near the depot on Friday. The access code for the south tower is 2288.\n";
    static constexpr const char* kQuestion = "What is the access code for the north gate?";

    testing::TempDir dir;
    std::unique_ptr<Model> model;
    std::unique_ptr<Tokenizer> tok;
    std::unique_ptr<Backend> backend;
    ChatTemplateKind kind{};
    ModelIdentity identity;
    std::unique_ptr<KvStoreCache> cache;
};

TEST_F(KvCacheChat, SecondLoadIsServedFromTheCacheWithTheSameAnswer) {
    auto first = chat_with_cache();
    first->load_document(kDoc);
    EXPECT_FALSE(first->served_from_cache());
    EXPECT_TRUE(first->cache_report().saved) << first->cache_report().note;
    EXPECT_EQ(cache->usage().files, 1);
    const AskResult a = first->ask(kQuestion, opts());

    auto second = chat_with_cache();  // a new chat: as after switching documents or a restart
    second->load_document(kDoc);
    EXPECT_TRUE(second->served_from_cache()) << second->cache_report().note;
    EXPECT_EQ(second->cache_report().prefill_seconds, 0.0);
    EXPECT_TRUE(second->session().store_mapped_from_cache());
    const AskResult b = second->ask(kQuestion, opts());
    EXPECT_EQ(a.answer, b.answer);
    EXPECT_EQ(a.generation.tokens, b.generation.tokens);
    EXPECT_EQ(second->session().last_logits(), first->session().last_logits());  // bit for bit
    EXPECT_EQ(second->document_ids(), first->document_ids());

    // A different system prompt (or template) is a different key: prefilled, not served.
    auto third = chat_with_cache();
    third->load_document(kDoc, {}, nullptr, "You are terse.");
    EXPECT_FALSE(third->served_from_cache());
    EXPECT_EQ(cache->usage().files, 2);
}

TEST_F(KvCacheChat, CorruptOrTruncatedFileIsRebuiltNotTrusted) {
    auto first = chat_with_cache();
    first->load_document(kDoc);
    const fs::path file = first->cache_report().file;
    ASSERT_TRUE(fs::exists(file));
    const AskResult a = first->ask(kQuestion, opts());
    for (int round = 0; round < 2; ++round) {
        if (round == 0) {  // one flipped bit in the K/V
            std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(static_cast<std::streamoff>(fs::file_size(file) - 100));
            f.put('\x55');
        } else {
            fs::resize_file(file, fs::file_size(file) / 2);
        }
        auto again = chat_with_cache();
        again->load_document(kDoc);
        EXPECT_FALSE(again->served_from_cache());
        EXPECT_NE(again->cache_report().note.find("rebuilt"), std::string::npos);
        EXPECT_TRUE(again->cache_report().saved);
        EXPECT_EQ(again->ask(kQuestion, opts()).answer, a.answer);
        auto after = chat_with_cache();  // the rebuilt file is good
        after->load_document(kDoc);
        EXPECT_TRUE(after->served_from_cache()) << after->cache_report().note;
    }
}

TEST_F(KvCacheChat, ReadModeAndNoCacheGiveTheSameSession) {
    auto first = chat_with_cache();
    first->load_document(kDoc);
    DocumentChat plain(*backend, *tok, kind);
    plain.load_document(kDoc);
    EXPECT_FALSE(plain.cache_report().enabled);
    DocumentSession read(*backend);
    const auto ids = first->document_ids();
    const KvCacheKey key = make_kv_cache_key(identity, tokenizer_identity(*tok),
                                             compute_identity(backend->config(), 0), kind, "", ids);
    read.restore_document_cache(first->cache_report().file, key, ids, KvFileLoad::Read);
    EXPECT_FALSE(read.store_mapped_from_cache());
    const auto q = build_question_part(kind, *tok, kQuestion);
    read.set_question(q, 16);
    plain.session().set_question(q, 16);
    EXPECT_EQ(read.last_logits(), plain.session().last_logits());
}

TEST_F(KvCacheChat, UnwritableFolderIsAWarningNotAnError) {
    write_bytes(dir / "blocker", 1);
    KvStoreCache bad(dir / "blocker" / "kv");  // a file where the folder should be
    DocumentChat c(*backend, *tok, kind);
    c.set_kv_cache(&bad, identity);
    c.load_document(kDoc);
    EXPECT_FALSE(c.cache_report().saved);
    EXPECT_NE(c.cache_report().note.find("not saved to the K/V cache"), std::string::npos);
    EXPECT_NO_THROW(c.ask(kQuestion, opts()));
}

}  // namespace
}  // namespace snapdoc
