// Issue 24 reproducers from the command line, with the demo model: special files at a K/V cache
// file's name (a FIFO blocked `ask` forever in open(); a dangling link turned caching off for
// good), a model rewritten with its mtime kept (served stale K/V), a file-size limit (SIGXFSZ
// killed `ask`), answers kept in --json when a later turn fails, and conversations that outgrow
// the context. Every command runs under `timeout`, so a hang fails instead of blocking.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/model/model.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"
#include "tests/support/repo_paths.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;

using testing::demo_model_path;

class HardeningCacheCli : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(demo_model_path()))
            GTEST_SKIP() << "demo model absent: " << demo_model_path().string();
        std::ofstream(dir / "doc.txt")
            << "Report of the harbour office.\nThe access code for the north gate is "
               "7391. The green office keeps batch number 4410.\n";
    }
    // `ask` over doc.txt with the cache in dir/kv; stderr goes to dir/err.txt (read into *err).
    CommandResult ask(const std::string& extra, std::string* err = nullptr, const std::string& prefix = "",
                      const std::string& model = "") const {
        const std::string m = model.empty() ? demo_model_path().string() : model;
        const CommandResult r =
            run_command(prefix + "timeout 180 " + std::string(SNAPDOC_CLI_PATH) + " ask -m '" + m +
                        "' --doc '" + (dir / "doc.txt").string() + "' --cache-dir '" + (dir / "kv").string() +
                        "' " + (extra.find("-n ") == std::string::npos ? "-n 8 " : "") + extra + " 2>'" +
                        (dir / "err.txt").string() + "'");
        if (err) *err = read_text_file(dir / "err.txt");
        return r;
    }
    CommandResult ask_code(std::string* err = nullptr) const {
        return ask("-q 'What is the access code for the north gate?'", err);
    }
    // The one cache file's path after a first run.
    fs::path cache_file() const {
        for (const auto& e : fs::directory_iterator(dir / "kv"))
            if (e.path().extension() == ".snapkv") return e.path();
        return {};
    }
    static int entries(const fs::path& d) {
        int n = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
        return n;
    }
    static bool is_regular_not_link(const fs::path& p) {
        struct stat st {};
        return ::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    }
    testing::TempDir dir;
};

TEST_F(HardeningCacheCli, FifoAtTheCacheNameIsRebuiltNotAHang) {
    std::string err;
    const CommandResult first = ask_code(&err);
    ASSERT_EQ(first.status, 0) << err;
    const fs::path file = cache_file();
    ASSERT_FALSE(file.empty());
    fs::remove(file);
    ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
    const CommandResult r = ask_code(&err);
    EXPECT_EQ(r.status, 0) << err;  // 124: the open blocked until the timeout
    EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
    EXPECT_NE(err.find("K/V cache: saved"), std::string::npos) << err;
    EXPECT_EQ(r.output, first.output);
    EXPECT_TRUE(is_regular_not_link(file));
    // The warning is printed once (it was printed twice: the log line and the report).
    EXPECT_EQ(err.find("not a regular file"), err.rfind("not a regular file")) << err;
}

TEST_F(HardeningCacheCli, LinksAtTheCacheNameAreReplacedByRegularFiles) {
    std::string err;
    ASSERT_EQ(ask_code(&err).status, 0) << err;
    const fs::path file = cache_file();
    // A link to a valid cache file: refused and replaced; its target is left alone.
    const fs::path elsewhere = dir / "elsewhere.snapkv";
    fs::rename(file, elsewhere);
    fs::create_symlink(elsewhere, file);
    const auto target_size = fs::file_size(elsewhere);
    ASSERT_EQ(ask_code(&err).status, 0) << err;
    EXPECT_NE(err.find("a symbolic link, not a regular file"), std::string::npos) << err;
    EXPECT_TRUE(is_regular_not_link(file));
    EXPECT_EQ(fs::file_size(elsewhere), target_size);
    // A dangling link: it used to make every write fail ("a symlink whose target cannot be
    // resolved"), turning caching off for this document for good.
    fs::remove(file);
    fs::create_symlink(dir / "nowhere.snapkv", file);
    ASSERT_EQ(ask_code(&err).status, 0) << err;
    EXPECT_NE(err.find("K/V cache: saved"), std::string::npos) << err;
    EXPECT_TRUE(is_regular_not_link(file));
    ASSERT_EQ(ask_code(&err).status, 0) << err;
    EXPECT_NE(err.find("served from the K/V cache"), std::string::npos) << err;
}

// --cache-cap-mb applied only at the next write: a run served from the cache left a folder over
// its cap as it was. The cap now applies when the cache is attached (DocumentChat::set_kv_cache).
TEST_F(HardeningCacheCli, TheCapAppliesAtStartAlsoWhenNothingIsWritten) {
    std::string err;
    ASSERT_EQ(ask_code(&err).status, 0) << err;
    const auto old = fs::file_time_type::clock::now() - std::chrono::hours(2);
    for (const char* name : {"00000000000000a1.snapkv", "00000000000000a2.snapkv"}) {
        std::ofstream(dir / "kv" / name) << std::string(3 << 20, 'j');
        fs::last_write_time(dir / "kv" / name, old);
    }
    const CommandResult r = ask("-q 'What is the access code for the north gate?' --cache-cap-mb 4", &err);
    ASSERT_EQ(r.status, 0) << err;
    EXPECT_NE(err.find("served from the K/V cache"), std::string::npos) << err;
    int64_t total = 0;
    for (const auto& e : fs::directory_iterator(dir / "kv"))
        if (e.path().extension() == ".snapkv") total += static_cast<int64_t>(e.file_size());
    EXPECT_LE(total, int64_t{4} << 20);
    EXPECT_FALSE(cache_file().empty());
}

// Under a file-size limit the cache file cannot be written: ask used to die of SIGXFSZ (exit 153)
// with no answer and a temporary left behind. Now the cache says why it did not save, and the
// answer and --json are there.
TEST_F(HardeningCacheCli, FileSizeLimitIsAWarningNotDeath) {
    std::string err;
    const CommandResult r =
        ask("-q 'What is the access code for the north gate?' --json '" + (dir / "out.json").string() + "'",
            &err, "ulimit -f 16; ");  // 16 KiB: the JSON fits, the cache file does not
    EXPECT_EQ(r.status, 0) << err;
    EXPECT_NE(err.find("file-size limit"), std::string::npos) << err;
    EXPECT_FALSE(r.output.empty());
    EXPECT_NO_THROW((void)nlohmann::json::parse(read_text_file(dir / "out.json")));
    for (const auto& e : fs::directory_iterator(dir / "kv"))
        EXPECT_NE(e.path().filename().string()[0], '.') << "temporary left: " << e.path();
}

// A write that passes the limit itself (here --json at a 1 KiB limit) is an EFBIG error naming the
// limit, exit status 1, no temporary file; the answer was printed before.
TEST_F(HardeningCacheCli, WritePastTheFileSizeLimitIsAnErrorWithNoTemporary) {
    std::string err;
    const CommandResult r =
        ask("-q 'What is the access code for the north gate?' --json '" + (dir / "out.json").string() + "'",
            &err, "ulimit -f 1; ");
    EXPECT_EQ(r.status, 1) << err;  // 153: killed by SIGXFSZ
    EXPECT_NE(err.find("ulimit -f"), std::string::npos) << err;
    EXPECT_FALSE(r.output.empty());
    EXPECT_FALSE(fs::exists(dir / "out.json"));
    for (const auto& e : fs::directory_iterator(dir.path()))
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

// An invalid-UTF-8 question: every answer was printed, then --json threw (type_error 316) and no
// JSON was written. Now the bytes are replaced, stderr says so, and the JSON is valid.
TEST_F(HardeningCacheCli, InvalidUtf8QuestionIsReplacedAndJsonWritten) {
    std::string err;
    const CommandResult r = ask(
        "-q \"$(printf 'What is the \\377\\376 code?')\" --json '" + (dir / "out.json").string() + "'", &err);
    ASSERT_EQ(r.status, 0) << err;
    EXPECT_NE(err.find("question 1 is not valid UTF-8"), std::string::npos) << err;
    const auto j = nlohmann::json::parse(read_text_file(dir / "out.json"));
    EXPECT_EQ(j["answers"].size(), 1u);
    EXPECT_NE(j["answers"][0]["question"].get<std::string>().find("\xEF\xBF\xBD"), std::string::npos);
}

// A tiny random model (context 512, not tied, synthetic vocabulary) for runs that need a short
// context or a token whose embedding is NaN: every id that encoding `poison` gives and encoding
// `keep` does not gets a NaN embedding row, so only a question with those ids fails.
fs::path tiny_model(const fs::path& dir, const std::string& poison = "", const std::string& keep = "") {
    testing::TinyModelSpec spec;
    spec.vocab_size = 320;
    testing::TinyWeights w = testing::make_tiny_weights(spec);
    const fs::path file = dir / "tiny.gguf";
    testing::write_tiny_gguf(file, w, DType::F32);
    if (poison.empty()) return file;
    const Model m = load_model(file);
    const Tokenizer tok = Tokenizer::from_model(m);
    const auto kept = tok.encode(keep);
    for (int32_t id : tok.encode(poison))
        if (std::find(kept.begin(), kept.end(), id) == kept.end())
            for (int c = 0; c < spec.dim; ++c)
                w.tok_embeddings[static_cast<std::size_t>(id) * spec.dim + c] =
                    std::numeric_limits<float>::quiet_NaN();
    testing::write_tiny_gguf(file, w, DType::F32);
    return file;
}

// A conversation longer than the context: the 10th of 10 turns was refused, exit 1, no --json.
// Now the oldest turns are left out of the prompt (engine rule, DocumentChat::turns_to_drop), every
// turn is answered, and --json says how many turns each prompt left out.
TEST_F(HardeningCacheCli, ConversationPastTheContextDropsItsOldestTurns) {
    const fs::path model = tiny_model(dir.path());
    std::string qs;
    for (int i = 0; i < 10; ++i) qs += " -q 'which gate has the code and who keeps the batch'";
    std::string err;
    const CommandResult r = ask(
        "--conversation -n 24 --no-citations --temp 0" + qs + " --json '" + (dir / "out.json").string() + "'",
        &err, "", model.string());
    ASSERT_EQ(r.status, 0) << err;
    EXPECT_NE(err.find("turns are left out of the prompt to fit the context"), std::string::npos) << err;
    const auto j = nlohmann::json::parse(read_text_file(dir / "out.json"));
    ASSERT_EQ(j["answers"].size(), 10u);
    EXPECT_EQ(j["answers"][0]["dropped_turns"], 0);
    EXPECT_GT(j["answers"][9]["dropped_turns"].get<int>(), 0);
    for (const auto& a : j["answers"]) EXPECT_LE(a["prompt_tokens"].get<int>() + 24, 512) << a.dump();
}

// A later turn that fails (here: its question's tokens have NaN embeddings, so its prefill stops
// with "NaN or Inf logits") no longer costs the answers before it: --json holds them and the
// error, and the exit status is 1.
TEST_F(HardeningCacheCli, JsonKeepsAnsweredTurnsWhenALaterOneFails) {
    const std::string doc = read_text_file(dir / "doc.txt");
    const std::string good = "what is the code", bad = "zzz xqj vvv";
    const fs::path model = tiny_model(dir.path(), bad, doc + good + "Question: Answer:\n");
    std::string err;
    const CommandResult r = ask(
        "--no-citations -n 4 -q '" + good + "' -q '" + bad + "' --json '" + (dir / "out.json").string() + "'",
        &err, "", model.string());
    EXPECT_EQ(r.status, 1) << err;
    EXPECT_NE(err.find("NaN"), std::string::npos) << err;
    const auto j = nlohmann::json::parse(read_text_file(dir / "out.json"));
    EXPECT_EQ(j["answers"].size(), 1u);
    EXPECT_NE(j.value("error", "").find("NaN"), std::string::npos) << j.dump();
}

}  // namespace
}  // namespace snapdoc
