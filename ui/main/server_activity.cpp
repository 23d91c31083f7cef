#include "ui/main/server_activity.h"

#include <QCoreApplication>

#include "ui/widgets/number_format.h"

namespace snapdoc::ui {

QString ServerActivity::idle_text() {
    return QCoreApplication::translate("ServerActivity", "Idle");
}

QString ServerActivity::add_line(const QByteArray& raw) {
    QString line = QString::fromUtf8(raw);
    if (line.endsWith(QLatin1Char('\r'))) line.chop(1);
    lines_.push_back(line);
    if (lines_.size() > static_cast<std::size_t>(kMaxLines)) lines_.pop_front();
    const ServerLogEvent e = parse_server_log_line(line);
    switch (e.kind) {
        case ServerLogEvent::Kind::Request:
            ++requests_;
            break;
        case ServerLogEvent::Kind::Prefill:
            activity_ = QCoreApplication::translate("ServerActivity", "Prefill %1% of %2 tokens")
                            .arg(e.percent)
                            .arg(with_commas(e.tokens));
            break;
        case ServerLogEvent::Kind::Answering:
            activity_ = QCoreApplication::translate("ServerActivity", "Answering");
            break;
        case ServerLogEvent::Kind::Idle:
            activity_ = idle_text();
            break;
        case ServerLogEvent::Kind::Other:
            break;
    }
    return line;
}

void ServerActivity::restart() {
    requests_ = 0;
    activity_ = idle_text();
}

QString ServerActivity::text() const {
    QStringList all(lines_.begin(), lines_.end());
    return all.join(QLatin1Char('\n'));
}

}  // namespace snapdoc::ui
