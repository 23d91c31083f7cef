#include "app/services/log_setup.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>

#include "engine/common/logging.h"

namespace snapdoc::services {

void init_app_logging(const std::string& log_file, std::string_view level_flag) {
    init_logging(level_flag);  // validates the level and applies the CLI's rules for stderr
    const auto stderr_level = spdlog::default_logger()->level();
    auto to_stderr = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    to_stderr->set_level(stderr_level);
    auto to_file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(log_file, 5 << 20, 3);
    to_file->set_level(std::min(stderr_level, spdlog::level::info));
    auto logger = std::make_shared<spdlog::logger>("snapdoc", spdlog::sinks_init_list{to_stderr, to_file});
    logger->set_level(std::min(stderr_level, spdlog::level::info));
    logger->flush_on(spdlog::level::warn);
    spdlog::set_default_logger(logger);
    spdlog::flush_every(std::chrono::seconds(2));
}

}  // namespace snapdoc::services
