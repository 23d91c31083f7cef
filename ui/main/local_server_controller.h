// The app's local OpenAI-compatible server (issue 21 item 4): it runs the real snapdoc-server
// executable as a child process for the model the app has loaded, so Open WebUI or a script can use
// what the app has open. A child process rather than the server library inside the app: the server
// keeps its own engine, queue and sessions, so a client never waits on (or disturbs) the app's own
// answers, a server fault cannot take the window down, and it is the same binary, flags and
// behaviour as the documented command line. The weights are mmapped, so both processes share their
// pages; the K/V cache folder is the app's, so a document cached by either opens in the other.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "app/services/app_settings.h"
#include "ui/main/server_activity.h"

namespace snapdoc::ui {

class LocalServerController : public QObject {
    Q_OBJECT
public:
    explicit LocalServerController(QObject* parent = nullptr);
    ~LocalServerController() override;  // stops the child (SIGTERM; it drains)

    // snapdoc-server next to the app's executable unless set (tests point at the build's).
    void set_program(const QString& path) { program_ = path; }
    const QString& program() const { return program_; }

    // What the server should be: started, restarted (when the model, port, key, cache or load
    // options changed) or stopped (setting off, or no model loaded). Idempotent.
    void apply(const services::LocalServerSettings& server, const services::GenerationSettings& generation,
               const QString& model_path, const QString& kv_cache_dir);
    // SIGTERM, then a bounded wait for the drain; a child still running after it is killed.
    void stop();

    // "http://127.0.0.1:PORT" once the child printed where it listens, else "".
    const QString& address() const { return address_; }
    // The state in words for the status bar and the settings dialog ("" when off).
    const QString& status_text() const { return status_; }
    bool running() const { return process_ && process_->state() != QProcess::NotRunning; }

    // Its log (stdout and stderr lines), request count and current activity.
    const ServerActivity& activity() const { return activity_; }

signals:
    void statusChanged(const QString& text);
    void logLine(const QString& line);  // each line the child writes, as kept in activity()
    void activityChanged();             // the request count or the activity changed

private:
    void start(const QStringList& args);
    void read_stdout();
    void read_stderr();
    void finished(int code, QProcess::ExitStatus status);
    void set_status(const QString& text);
    QString record(const QByteArray& raw);  // into activity_, with the signals

    QString program_;
    QProcess* process_ = nullptr;
    QStringList args_;  // of the running child: apply() restarts only when they change
    QString address_;
    QString status_;
    QByteArray stderr_buffer_;  // a partial last line
    QString last_error_;        // the child's last stderr line: why it stopped, in its words
    ServerActivity activity_;
    bool stopping_ = false;
};

}  // namespace snapdoc::ui
