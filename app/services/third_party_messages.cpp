#include "app/services/third_party_messages.h"

#include <poppler-qt6.h>
#include <spdlog/spdlog.h>

#include <QVariant>
#include <QtGlobal>
#include <atomic>
#include <mutex>

namespace snapdoc::services {

namespace {

thread_local PopplerMessageTally* current_tally = nullptr;

std::atomic<bool> font_noise_summarized{false};

void qt_to_log(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    const std::string text = message.toStdString();
    const char* category =
        context.category && std::string_view(context.category) != "default" ? context.category : nullptr;
    auto log = [&](spdlog::level::level_enum level) {
        if (category)
            spdlog::log(level, "qt ({}): {}", category, text);
        else
            spdlog::log(level, "qt: {}", text);
    };
    if (is_qt_font_noise(message)) {
        if (!font_noise_summarized.exchange(true))
            spdlog::info(
                "qt: some fonts lack OpenType tables for a script in this text (\"{}\"); Qt falls back to "
                "basic shaping. These messages go to the log at debug level.",
                text);
        log(spdlog::level::debug);
        return;
    }
    switch (type) {
        case QtDebugMsg:
            log(spdlog::level::debug);
            break;
        case QtInfoMsg:
            log(spdlog::level::info);
            break;
        case QtWarningMsg:
            log(spdlog::level::warn);
            break;
        case QtCriticalMsg:
            log(spdlog::level::err);
            break;
        case QtFatalMsg:
            log(spdlog::level::critical);
            spdlog::default_logger()->flush();  // Qt aborts right after the handler returns
            break;
    }
}

void poppler_to_log(const QString& message, const QVariant& /*closure*/) {
    spdlog::debug("poppler: {}", message.toStdString());
    if (current_tally) current_tally->add(message);
}

}  // namespace

bool is_qt_font_noise(const QString& message) {
    return message.startsWith(QLatin1String("OpenType support missing for"));
}

QtMessageHandler route_qt_messages_to_log() {
    return qInstallMessageHandler(qt_to_log);
}

void route_poppler_messages_to_log() {
    // Poppler keeps one global function; setting it while another thread parses would race.
    static std::once_flag once;
    std::call_once(once, [] { Poppler::setDebugErrorFunction(poppler_to_log, QVariant()); });
}

PopplerMessageTally::PopplerMessageTally() : outer_(current_tally) {
    current_tally = this;
}

PopplerMessageTally::~PopplerMessageTally() {
    current_tally = outer_;
}

void PopplerMessageTally::add(const QString& message) {
    if (count_++ == 0) first_ = message;
}

}  // namespace snapdoc::services
