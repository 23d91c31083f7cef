// The GPU self-check's failure paths and its verdict file, on the emulated device: a layer whose
// output is wrong and a kernel launch that fails (cuda_fault_injection.h, compiled into this suite
// only) must make "auto" fall back to the CPU with a message naming the device and the step, an
// explicit "cuda" refuse, and the verdict be remembered, re-checked on a driver change or when
// forced, and a corrupt verdict file be ignored with a warning.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/common/error.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cuda/cuda_fault_injection.h"
#include "engine/runtime/cuda/cuda_gpu_identity.h"
#include "engine/runtime/gpu_self_check.h"
#include "tests/cuda/cuda_model_fixture.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;
using Outcome = GpuSelfCheckReport::Outcome;
constexpr const char* kEmuDevice = "snapdoc CUDA emulator (CPU)";

// Captures what the engine logs (warnings about the verdict file) for the test's duration.
class LogCapture {
public:
    LogCapture() : saved_(spdlog::default_logger()) {
        auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(out_));
        logger->set_level(spdlog::level::info);
        spdlog::set_default_logger(logger);
    }
    ~LogCapture() { spdlog::set_default_logger(saved_); }
    std::string text() const { return out_.str(); }

private:
    std::ostringstream out_;
    std::shared_ptr<spdlog::logger> saved_;
};

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class EmuGpuSelfCheck : public ::testing::Test {
protected:
    void SetUp() override {
        tiny = cudatest::load_tiny(cudatest::gqa4_tiny_spec(21), DType::F32);
        enable(false);
    }
    void TearDown() override {
        cuda::fault::clear();
        set_gpu_self_check_settings({});
        unsetenv("SNAPDOC_CUDA_EMU_DRIVER_VERSION");
    }
    void enable(bool force) { set_gpu_self_check_settings({true, force, file()}); }
    fs::path file() const { return dir / "cache" / "gpu-self-check.json"; }
    nlohmann::json verdicts() const { return nlohmann::json::parse(read_text(file()))["verdicts"]; }

    testing::TempDir dir{"snapdoc-emu-self-check"};
    std::unique_ptr<cudatest::LoadedTiny> tiny;
};

TEST_F(EmuGpuSelfCheck, WrongLayerOutputFallsBackNamingDeviceAndLayer) {
    cuda::fault::corrupt_layer_output(1);
    auto backend = make_backend(*tiny->model, {}, "auto");
    const GpuSelfCheckReport r = last_gpu_self_check();
    EXPECT_EQ(backend->name(), "cpu");
    EXPECT_EQ(r.outcome, Outcome::Failed);
    EXPECT_TRUE(r.fell_back);
    EXPECT_FALSE(r.remembered);
    EXPECT_EQ(r.step, "layer 1 of the prefill");
    for (const char* part : {"GPU self-check failed on", kEmuDevice, "compute ", "driver ", "layer 1 of the prefill",
                             "logits differ from the CPU", "using the CPU instead"})
        EXPECT_NE(r.message.find(part), std::string::npos) << "missing '" << part << "' in: " << r.message;

    const auto v = verdicts();
    ASSERT_EQ(v.size(), 1u);
    EXPECT_FALSE(v[0]["passed"].get<bool>());
    EXPECT_EQ(v[0]["device"], kEmuDevice);
    EXPECT_EQ(v[0]["step"], "layer 1 of the prefill");
    EXPECT_GT(v[0]["worst_nmse"].get<double>(), v[0]["tolerance"].get<double>());
}

TEST_F(EmuGpuSelfCheck, LaunchFailureFallsBackNamingTheKernel) {
    cuda::fault::fail_launch("swiglu kernel");
    auto backend = make_backend(*tiny->model, {}, "auto");
    const GpuSelfCheckReport r = last_gpu_self_check();
    EXPECT_EQ(backend->name(), "cpu");
    EXPECT_EQ(r.outcome, Outcome::Failed);
    EXPECT_EQ(r.step, "layer 0 of the prefill");
    for (const char* part : {kEmuDevice, "layer 0 of the prefill", "swiglu kernel", "cudaErrorLaunchFailure"})
        EXPECT_NE(r.message.find(part), std::string::npos) << "missing '" << part << "' in: " << r.message;
}

TEST_F(EmuGpuSelfCheck, OutputLaunchFailureNamesTheLogitsStep) {
    cuda::fault::fail_launch("logits download");  // the first copy back of the prefill's logits
    make_backend(*tiny->model, {}, "auto");
    EXPECT_EQ(last_gpu_self_check().step, "the output projection (logits) of the prefill");
}

TEST_F(EmuGpuSelfCheck, ExplicitCudaRefusesAFailedDevice) {
    cuda::fault::fail_launch("rms_norm kernel");
    try {
        make_backend(*tiny->model, {}, "cuda");
        FAIL() << "expected the failed self-check to refuse --device cuda";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(kEmuDevice), std::string::npos) << what;
        EXPECT_NE(what.find("rms_norm kernel"), std::string::npos) << what;
        EXPECT_NE(what.find("--device auto or cpu"), std::string::npos) << what;
    }
    EXPECT_FALSE(last_gpu_self_check().fell_back);
}

TEST_F(EmuGpuSelfCheck, VerdictIsRememberedUntilForced) {
    cuda::fault::corrupt_layer_output(0);
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cpu");
    cuda::fault::clear();  // the device is sound now, but the remembered failure still holds
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cpu");
    EXPECT_TRUE(last_gpu_self_check().remembered);
    EXPECT_NE(last_gpu_self_check().message.find("--gpu-self-check runs it again"), std::string::npos);

    enable(/*force=*/true);  // --gpu-self-check
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cuda");
    EXPECT_FALSE(last_gpu_self_check().remembered);
    EXPECT_EQ(last_gpu_self_check().outcome, Outcome::Passed);
    // Forced once per process: a second backend (a model reload) uses the fresh verdict.
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cuda");
    EXPECT_TRUE(last_gpu_self_check().remembered);
    const auto v = verdicts();
    ASSERT_EQ(v.size(), 1u);
    EXPECT_TRUE(v[0]["passed"].get<bool>());
}

TEST_F(EmuGpuSelfCheck, DriverChangeRunsTheCheckAgain) {
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cuda");
    EXPECT_FALSE(last_gpu_self_check().remembered);
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cuda");
    EXPECT_TRUE(last_gpu_self_check().remembered);

    setenv("SNAPDOC_CUDA_EMU_DRIVER_VERSION", "12080", 1);  // a driver upgrade that broke a kernel
    cuda::fault::corrupt_layer_output(2);
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cpu");
    const GpuSelfCheckReport r = last_gpu_self_check();
    EXPECT_FALSE(r.remembered);
    EXPECT_NE(r.message.find("CUDA 12.8"), std::string::npos) << r.message;
    const auto v = verdicts();  // the old driver's entry is stale for good and dropped
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0]["driver"], "CUDA 12.8");
    EXPECT_FALSE(v[0]["passed"].get<bool>());
}

TEST_F(EmuGpuSelfCheck, CorruptVerdictFileIsIgnoredWithAWarning) {
    const std::string bad[] = {
        "{\"format\": \"snapdoc-gpu-self-check\", \"version\": 1, \"verdicts\": [",  // cut short
        "\x01\x02 not json",
        "{\"format\": \"snapdoc-gpu-self-check\", \"version\": 1, \"verdicts\": [{\"passed\": \"yes\"}]}",
        "{\"format\": \"snapdoc-gpu-self-check\", \"version\": 99, \"verdicts\": []}",
        "[1, 2, 3]",
    };
    for (const std::string& text : bad) {
        SCOPED_TRACE(text);
        fs::create_directories(file().parent_path());
        std::ofstream(file(), std::ios::trunc) << text;
        LogCapture log;
        EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cuda");
        EXPECT_FALSE(last_gpu_self_check().remembered);  // the check ran
        EXPECT_NE(log.text().find("ignoring the GPU self-check verdict file " + file().string()), std::string::npos)
            << log.text();
        // ...and the file is whole again, with the fresh verdict.
        const auto v = verdicts();
        ASSERT_EQ(v.size(), 1u);
        EXPECT_TRUE(v[0]["passed"].get<bool>());
    }
}

TEST_F(EmuGpuSelfCheck, OffUnlessTheAppTurnsItOn) {
    set_gpu_self_check_settings({});
    cuda::fault::corrupt_layer_output(0);
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cuda");  // unchecked: as before
    EXPECT_FALSE(fs::exists(file()));
}

// The verdict file itself: keys, replacement, pruning, atomic replacement.
GpuIdentity identity(std::string driver, std::string weights = "f32") {
    return {"NVIDIA Test GPU", "9.0", std::move(driver), "0.1.0", std::move(weights)};
}

TEST(GpuVerdictCacheFile, KeysReplacesAndPrunes) {
    testing::TempDir dir("snapdoc-verdicts");
    const GpuVerdictCache cache(dir / "sub" / "v.json");
    EXPECT_FALSE(cache.find(identity("550.1")).has_value());  // no file: nothing, no error
    GpuVerdict pass;
    pass.passed = true;
    pass.worst_nmse = 1e-6;
    cache.store(identity("550.1"), pass);
    cache.store(identity("550.1", "bf16"), pass);
    ASSERT_TRUE(cache.find(identity("550.1")).has_value());
    EXPECT_TRUE(cache.find(identity("550.1"))->passed);
    EXPECT_DOUBLE_EQ(cache.find(identity("550.1"))->worst_nmse, 1e-6);
    EXPECT_FALSE(cache.find(identity("560.2")).has_value());  // a new driver is a miss
    GpuIdentity other_version = identity("550.1");
    other_version.snapdoc_version = "0.2.0";
    EXPECT_FALSE(cache.find(other_version).has_value());

    GpuVerdict fail;
    fail.message = "GPU self-check failed on ...";
    fail.step = "layer 3 of the prefill";
    cache.store(identity("560.2"), fail);  // the old driver's f32 entry goes, bf16 stays
    EXPECT_FALSE(cache.find(identity("550.1")).has_value());
    EXPECT_TRUE(cache.find(identity("550.1", "bf16")).has_value());
    ASSERT_TRUE(cache.find(identity("560.2")).has_value());
    EXPECT_EQ(cache.find(identity("560.2"))->step, "layer 3 of the prefill");

    // Written by rename: no temporary is left next to it.
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir / "sub")) files += e.is_regular_file();
    EXPECT_EQ(files, 1);
}

TEST(GpuVerdictCacheFile, UnwritableFolderIsAnError) {
    testing::TempDir dir("snapdoc-verdicts");
    std::ofstream(dir / "blocker") << "a file where the folder should be";
    const GpuVerdictCache cache(dir / "blocker" / "v.json");
    EXPECT_THROW(cache.store(identity("550.1"), GpuVerdict{}), Error);
}

}  // namespace
}  // namespace snapdoc
