// Everything spdlog's default logger writes while a CapturedLog is alive, at every level, as
// "level|message" lines; the previous default logger is restored when it goes.
#pragma once

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <QRegularExpression>
#include <QStringList>
#include <memory>

namespace snapdoc::test {

class CapturedLog {
public:
    CapturedLog()
        : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(4096)),
          previous_(spdlog::default_logger()) {
        auto logger = std::make_shared<spdlog::logger>("captured", sink_);
        logger->set_level(spdlog::level::trace);
        logger->set_pattern("%l|%v");
        spdlog::set_default_logger(logger);
    }
    ~CapturedLog() { spdlog::set_default_logger(previous_); }
    CapturedLog(const CapturedLog&) = delete;
    CapturedLog& operator=(const CapturedLog&) = delete;

    QStringList lines() const {
        QStringList out;
        for (const std::string& l : sink_->last_formatted()) out << QString::fromStdString(l).trimmed();
        return out;
    }
    QStringList lines_starting(const QString& prefix) const {
        return lines().filter(QRegularExpression("^" + QRegularExpression::escape(prefix)));
    }

private:
    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
    std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace snapdoc::test
