// One line of snapdoc-server's stderr, read for the app's status bar (issue 37): the server's
// activity lines (app/server/activity_log.h: "request: …", "prefill: …", "answering", "idle" after
// spdlog's "[time] [info] ") become events; every other line, garbage included, is Kind::Other and
// is only shown in the log.
#pragma once

#include <QString>

namespace snapdoc::ui {

struct ServerLogEvent {
    enum class Kind { Other, Request, Prefill, Answering, Idle };
    Kind kind = Kind::Other;
    // Request
    QString method, path;
    int status = 0;
    qint64 milliseconds = 0;
    // Prefill
    int percent = 0;
    qint64 tokens = 0;
};

ServerLogEvent parse_server_log_line(const QString& line);

}  // namespace snapdoc::ui
