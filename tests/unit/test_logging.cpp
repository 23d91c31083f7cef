#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "engine/common/error.h"
#include "engine/common/logging.h"

namespace snapdoc {
namespace {

// Sets/unsets SNAPDOC_LOG_LEVEL for one test and restores the previous value, so tests do not leak
// environment into each other or depend on the developer's shell.
class EnvLevel {
public:
    explicit EnvLevel(const char* value) {
        if (const char* old = std::getenv("SNAPDOC_LOG_LEVEL")) saved_ = old;
        if (value) {
            ::setenv("SNAPDOC_LOG_LEVEL", value, 1);
        } else {
            ::unsetenv("SNAPDOC_LOG_LEVEL");
        }
    }
    ~EnvLevel() {
        if (saved_) {
            ::setenv("SNAPDOC_LOG_LEVEL", saved_->c_str(), 1);
        } else {
            ::unsetenv("SNAPDOC_LOG_LEVEL");
        }
        init_logging("warn");  // leave the process at the default level for later tests
    }

private:
    std::optional<std::string> saved_;
};

TEST(Logging, DefaultIsWarn) {
    EnvLevel env(nullptr);
    init_logging("");
    EXPECT_EQ(spdlog::get_level(), spdlog::level::warn);
    EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::warn);
}

TEST(Logging, FlagWins) {
    EnvLevel env("error");
    init_logging("debug");
    EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::debug);
}

TEST(Logging, EnvironmentUsedWithoutFlag) {
    EnvLevel env("info");
    init_logging("");
    EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::info);
}

TEST(Logging, AllLevelNames) {
    EnvLevel env(nullptr);
    const std::pair<const char*, spdlog::level::level_enum> cases[] = {
        {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
        {"warn", spdlog::level::warn},   {"error", spdlog::level::err},   {"off", spdlog::level::off},
        {"DEBUG", spdlog::level::debug},
    };
    for (const auto& [name, level] : cases) {
        init_logging(name);
        EXPECT_EQ(spdlog::default_logger()->level(), level) << name;
    }
}

TEST(Logging, InvalidValueListsValidOnes) {
    EnvLevel env(nullptr);
    try {
        init_logging("verbose");
        FAIL() << "accepted an invalid level";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("verbose"), std::string::npos) << msg;
        for (const char* name : {"trace", "debug", "info", "warn", "error", "off"})
            EXPECT_NE(msg.find(name), std::string::npos) << msg;
    }
    // spdlog's own parser maps "warning"/"err" too; we accept exactly the documented names.
    EXPECT_THROW(init_logging("warning"), Error);
}

TEST(Logging, InvalidEnvironmentValueIsNamed) {
    EnvLevel env("loud");
    try {
        init_logging("");
        FAIL() << "accepted an invalid SNAPDOC_LOG_LEVEL";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("SNAPDOC_LOG_LEVEL"), std::string::npos) << e.what();
    }
}

TEST(Logging, WritesToStderrNotStdout) {
    EnvLevel env(nullptr);
    init_logging("info");
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    spdlog::info("hello from the logging test");
    spdlog::debug("below the level");
    const std::string out = testing::internal::GetCapturedStdout();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(out, "");
    EXPECT_NE(err.find("hello from the logging test"), std::string::npos) << err;
    EXPECT_EQ(err.find("below the level"), std::string::npos) << err;
}

}  // namespace
}  // namespace snapdoc
