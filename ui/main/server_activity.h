// What the app knows of its local server from the server's own output (issue 37): the last lines
// of its log, kept in memory up to a cap (a server left running for days must not grow the app), the
// number of requests it has answered, and what it is doing now, in words for the status bar.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <deque>

#include "ui/main/server_log_line.h"

namespace snapdoc::ui {

class ServerActivity {
public:
    static constexpr int kMaxLines = 5000;

    // One line as the child wrote it, without its newline; bytes that are not UTF-8 show as U+FFFD.
    // Returns the line as kept.
    QString add_line(const QByteArray& raw);
    // A new child: its count and activity start again; the log goes on (why the last one stopped
    // stays readable).
    void restart();

    const std::deque<QString>& lines() const { return lines_; }
    QString text() const;  // the kept lines, one per line, for the log view and Copy
    qint64 request_count() const { return requests_; }
    // "Idle", "Answering", "Prefill 34% of 93,210 tokens".
    const QString& activity() const { return activity_; }

private:
    std::deque<QString> lines_;
    qint64 requests_ = 0;
    QString activity_ = idle_text();
    static QString idle_text();
};

}  // namespace snapdoc::ui
