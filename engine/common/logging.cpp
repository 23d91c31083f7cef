#include "engine/common/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "engine/common/error.h"

namespace snapdoc {

namespace {

// Our own table rather than spdlog::level::from_str, which maps every unknown name to "off" and would
// silently disable logging on a typo.
constexpr std::array<std::pair<std::string_view, spdlog::level::level_enum>, 6> kLevels{{
    {"trace", spdlog::level::trace},
    {"debug", spdlog::level::debug},
    {"info", spdlog::level::info},
    {"warn", spdlog::level::warn},
    {"error", spdlog::level::err},
    {"off", spdlog::level::off},
}};

}  // namespace

spdlog::level::level_enum parse_log_level(std::string_view value, std::string_view source) {
    std::string lower(value);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& [name, level] : kLevels) {
        if (lower == name) return level;
    }
    std::string valid;
    for (const auto& [name, level] : kLevels) {
        if (!valid.empty()) valid += ", ";
        valid += name;
    }
    throw Error("invalid log level '" + std::string(value) + "' from " + std::string(source) +
                " (valid: " + valid + ")");
}

void init_logging(std::string_view level_flag) {
    spdlog::level::level_enum level = spdlog::level::warn;
    if (!level_flag.empty()) {
        level = parse_log_level(level_flag, "--log-level");
    } else if (const char* env = std::getenv("SNAPDOC_LOG_LEVEL"); env != nullptr && *env != '\0') {
        level = parse_log_level(env, "SNAPDOC_LOG_LEVEL");
    }

    // A fresh logger object (not registered by name) each call, so calling twice cannot hit spdlog's
    // "logger with name already exists" error; set_default_logger replaces the previous default.
    // The color sink only emits colour codes when stderr is a terminal.
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto logger = std::make_shared<spdlog::logger>("snapdoc", std::move(sink));
    logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    logger->set_level(level);
    // stderr is unbuffered by convention; flush on every message so a crash never loses the last lines.
    logger->flush_on(spdlog::level::trace);
    spdlog::set_default_logger(std::move(logger));
    spdlog::set_level(level);
}

}  // namespace snapdoc
