// The document's full K/V kept on the GPU (engine/runtime/cuda/cuda_full_kv_store.h, resident
// mode): a session on the CUDA backend re-snaps for later questions without uploading any K/V
// (counted by the emulator's copy accounting), and gives exactly the selections and answers of the
// same backend moving rows through the host (DocumentSessionOptions::backend_kv_store = false),
// and the CPU backend's up to f16 rounding (kept sets ties aside, greedy tokens to a near tie).
#include "tests/cuda/cuda_store_fixture.h"

#include <cstdio>

#include "engine/kv/checksum64.h"
#include "engine/runtime/cuda/cuda_full_kv_store.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using namespace cudatest;

struct Turn {
    std::shared_ptr<const Selection> sel;
    Decoded decoded;
    int64_t h2d = 0;  // host->device bytes of set_question + answer (emulator only)
};

Turn ask(DocumentSession& s, const std::vector<int32_t>& q, const SnapKvConfig& cfg) {
    Turn t;
#ifdef SNAPDOC_CUDA_EMU
    cuda_emu::reset_copy_stats();
#endif
    s.set_question(q, cfg.window);
#ifdef SNAPDOC_CUDA_EMU
    t.h2d += cuda_emu::copy_stats().h2d;
#endif
    t.sel = s.select(cfg);  // uploads only the window scores (device pooling/top-k), not counted
#ifdef SNAPDOC_CUDA_EMU
    cuda_emu::reset_copy_stats();
#endif
    s.answer(*t.sel, recording_greedy(8, t.decoded));
#ifdef SNAPDOC_CUDA_EMU
    t.h2d += cuda_emu::copy_stats().h2d;
#endif
    return t;
}

TEST_F(CudaStoreTest, ResnapUploadsNoKvAndMatchesTheHostPathAndTheCpu) {
    DocumentSessionOptions host_path;
    host_path.backend_kv_store = false;
    DocumentSession dev(*gpu), host(*gpu_host, host_path), ref(*cpu);
    dev.prefill_document(doc);
    host.prefill_document(doc);
    ref.prefill_document(doc);
    ASSERT_NE(dev.backend_kv_store(), nullptr);
    EXPECT_TRUE(dev.backend_kv_store()->resident()) << dev.backend_kv_store()->describe();
    EXPECT_GE(dev.backend_kv_store()->device_bytes(), store_bytes());
    EXPECT_EQ(host.backend_kv_store(), nullptr);
    EXPECT_EQ(ref.backend_kv_store(), nullptr);  // the CPU backend keeps the default host path
    std::printf("%s\n", dev.backend_kv_store()->describe().c_str());

    for (auto gqa : {GqaMode::KvHead, GqaMode::QueryHead})
        for (const auto& q : questions) {
            SnapKvConfig snap;
            snap.budget = 64;
            snap.window = 8;
            snap.gqa = gqa;
            snap.policy = gqa == GqaMode::KvHead ? BudgetPolicy::Uniform : BudgetPolicy::Adaptive;
            const Turn d = ask(dev, q, snap), h = ask(host, q, snap), c = ask(ref, q, snap);
            ASSERT_TRUE(d.sel->compressed);
            // Same backend, same f16 K/V: identical scores, selections and answers.
            for (int l = 0; l < cfg().n_layers; ++l)
                EXPECT_TRUE(same_bits(dev.window_scores().layers[l], host.window_scores().layers[l])) << "layer " << l;
            expect_identical_selection(*d.sel, *h.sel);
            EXPECT_EQ(d.decoded.tokens, h.decoded.tokens);
            // Against the CPU backend (f32 K/V): kept sets ties aside, greedy tokens up to a near tie.
            expect_same_kept_ties_aside(*d.sel, *c.sel, 2e-3 * snap.window);
            const int agree = expect_greedy_agrees(d.decoded, c.decoded, 1e-5, 0.02);
            EXPECT_GE(agree, 1);
#ifdef SNAPDOC_CUDA_EMU
            // Not one layer of the document's K/V went up: only token ids, positions, window
            // queries, kept indices and the question's own rows. The host path uploads the whole
            // document (in f32) for every layer of every question.
            EXPECT_LT(d.h2d, layer_store_bytes()) << "device-resident re-snap uploaded " << d.h2d << " bytes";
            EXPECT_GE(h.h2d, 2 * store_bytes());
            std::printf("re-snap (%s, %zu-token question): host->device %lld bytes resident vs %lld via the host "
                        "(document K/V: %lld bytes f16); %d of 8 tokens as on the CPU\n",
                        gqa == GqaMode::KvHead ? "kv-head" : "query-head", q.size(), static_cast<long long>(d.h2d),
                        static_cast<long long>(h.h2d), static_cast<long long>(store_bytes()), agree);
#endif
        }
}

// Conversations (set_turns reuses the stored tail and runs only the new tokens): the device-kept
// session answers exactly as the host path, its tail kept on the device too.
TEST_F(CudaStoreTest, ConversationTurnsMatchTheHostPath) {
    DocumentSessionOptions host_path;
    host_path.backend_kv_store = false;
    DocumentSession dev(*gpu), host(*gpu_host, host_path);
    dev.prefill_document(doc);
    host.prefill_document(doc);
    SnapKvConfig c;
    c.budget = 48;
    c.window = 8;
    const auto turn2 = testing::concat(questions[0], questions[1]);
    for (DocumentSession* s : {&dev, &host}) {
        s->set_question(questions[0], c.window);
        EXPECT_EQ(s->set_turns(turn2, c.window, -1), static_cast<int>(questions[0].size()));
    }
    const auto a = dev.select(c), b = host.select(c);
    expect_identical_selection(*a, *b);
#ifdef SNAPDOC_CUDA_EMU
    cuda_emu::reset_copy_stats();
#endif
    const auto ta = dev.answer(*a, testing::greedy_request(6)).tokens;
#ifdef SNAPDOC_CUDA_EMU
    // Kept indices and decode state only: less than the window rows of K/V the host path sends.
    const int64_t window_rows = int64_t{c.window} * cfg().kv_dim() * 4 * 2 * cfg().n_layers;
    std::printf("answer after set_turns: %lld bytes host->device (window rows via the host: %lld)\n",
                static_cast<long long>(cuda_emu::copy_stats().h2d), static_cast<long long>(window_rows));
    EXPECT_LT(cuda_emu::copy_stats().h2d, window_rows);
#endif
    EXPECT_EQ(ta, host.answer(*b, testing::greedy_request(6)).tokens);
}

// Partial prefix reuse on the device store: a document that shares its first rows with a held one
// takes them over (copied in the host store, uploaded with the layer) and runs only the rest; the
// device-kept session selects and answers exactly as the host path does.
TEST_F(CudaStoreTest, PrefillFromAHeldSessionMatchesTheHostPath) {
    DocumentSessionOptions host_path;
    host_path.backend_kv_store = false;
    DocumentSession base_dev(*gpu), base_host(*gpu_host, host_path);
    base_dev.prefill_document(doc);
    base_host.prefill_document(doc);
    const auto edited = testing::concat(std::vector<int32_t>(doc.begin(), doc.begin() + 200),
                                        testing::random_ids(150, cfg().vocab_size, 9));
    DocumentSession dev(*gpu), host(*gpu_host, host_path);
    const int reuse = dev.reusable_rows(base_dev, 200, static_cast<int>(edited.size()));
    ASSERT_EQ(reuse, 200);
    dev.prefill_document_from(base_dev, reuse, edited);
    host.prefill_document_from(base_host, reuse, edited);
    ASSERT_NE(dev.backend_kv_store(), nullptr);
    SnapKvConfig c;
    c.budget = 48;
    c.window = 8;
    for (DocumentSession* s : {&dev, &host}) s->set_question(questions[0], c.window);
    for (int l = 0; l < cfg().n_layers; ++l)
        EXPECT_TRUE(same_bits(dev.window_scores().layers[l], host.window_scores().layers[l])) << "layer " << l;
    const auto a = dev.select(c), b = host.select(c);
    expect_identical_selection(*a, *b);
    EXPECT_EQ(dev.answer(*a, testing::greedy_request(6)).tokens, host.answer(*b, testing::greedy_request(6)).tokens);
}

// The host store is complete after a device-kept prefill: a cache file written from it restores
// a session that answers exactly as the device-kept one — read into RAM or mapped in place, and
// taken onto the GPU again at restore (one upload), so its re-snaps upload no K/V either.
TEST_F(CudaStoreTest, CacheFileFromTheDeviceStoreRestoresOntoTheDevice) {
    testing::TempDir dir;
    KvCacheKey key;
    key.model = {1, 3};
    key.tokens_hash = checksum64(doc.data(), doc.size() * 4);
    DocumentSession dev(*gpu);
    dev.prefill_document(doc);
    ASSERT_TRUE(dev.backend_kv_store() && dev.backend_kv_store()->resident());
    dev.save_document_cache(dir / "doc.snapkv", key, doc);
    SnapKvConfig cfg;
    cfg.budget = 48;
    cfg.window = 8;
    dev.set_question(questions[0], cfg.window);
    const auto a = dev.select(cfg);
    const auto want = dev.answer(*a, testing::greedy_request(6)).tokens;
    for (KvFileLoad mode : {KvFileLoad::Read, KvFileLoad::Map}) {
        DocumentSession restored(*gpu_host);
        restored.restore_document_cache(dir / "doc.snapkv", key, doc, mode);
        ASSERT_NE(restored.backend_kv_store(), nullptr);
        EXPECT_TRUE(restored.backend_kv_store()->resident());
#ifdef SNAPDOC_CUDA_EMU
        cuda_emu::reset_copy_stats();
#endif
        restored.set_question(questions[0], cfg.window);
#ifdef SNAPDOC_CUDA_EMU
        int64_t h2d = cuda_emu::copy_stats().h2d;
#endif
        const auto b = restored.select(cfg);  // (uploads the window scores)
        expect_identical_selection(*a, *b);
#ifdef SNAPDOC_CUDA_EMU
        cuda_emu::reset_copy_stats();
#endif
        EXPECT_EQ(restored.answer(*b, testing::greedy_request(6)).tokens, want);
#ifdef SNAPDOC_CUDA_EMU
        h2d += cuda_emu::copy_stats().h2d;
        EXPECT_LT(h2d, layer_store_bytes());
#endif
    }
}

}  // namespace
}  // namespace snapdoc
