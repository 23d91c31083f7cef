#include "ui/main/server_log_line.h"

#include <QRegularExpression>

namespace snapdoc::ui {

namespace {

// spdlog's pattern from engine/common/logging.cpp: "[HH:MM:SS.mmm] [info] message".
const QRegularExpression kInfoPrefix(QStringLiteral(R"(^\[[0-9:.]+\] \[info\] )"));
// The path is everything between the method and the status: a decoded path may hold spaces.
const QRegularExpression kRequest(QStringLiteral(R"(^request: ([A-Z]+) (.+) ([0-9]{3}) ([0-9]+) ms$)"));
const QRegularExpression kPrefill(QStringLiteral(R"(^prefill: ([0-9]{1,3})% of ([0-9]+) tokens$)"));

}  // namespace

ServerLogEvent parse_server_log_line(const QString& line) {
    ServerLogEvent e;
    const QRegularExpressionMatch prefix = kInfoPrefix.match(line);
    if (!prefix.hasMatch()) return e;
    const QString message = line.mid(prefix.capturedLength());
    if (message == QLatin1String("answering")) {
        e.kind = ServerLogEvent::Kind::Answering;
    } else if (message == QLatin1String("idle")) {
        e.kind = ServerLogEvent::Kind::Idle;
    } else if (const auto m = kRequest.match(message); m.hasMatch()) {
        e.kind = ServerLogEvent::Kind::Request;
        e.method = m.captured(1);
        e.path = m.captured(2);
        e.status = m.captured(3).toInt();
        e.milliseconds = m.captured(4).toLongLong();
    } else if (const auto m = kPrefill.match(message); m.hasMatch()) {
        const int percent = m.captured(1).toInt();
        bool ok = false;
        const qint64 tokens = m.captured(2).toLongLong(&ok);
        if (percent > 100 || !ok) return e;  // not a line the server writes
        e.kind = ServerLogEvent::Kind::Prefill;
        e.percent = percent;
        e.tokens = tokens;
    }
    return e;
}

}  // namespace snapdoc::ui
