#include "ui/main/local_server_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace snapdoc::ui {

namespace {

constexpr int kDrainWaitMs = 5000;  // SIGTERM finishes the requests in flight; then it is killed
constexpr qsizetype kMaxPartialLineBytes = 64 * 1024;
const QString kListening = QStringLiteral("listening on ");
const QString kName = QStringLiteral("snapdoc-server: ");

// Next to the app's executable (an installed app), else where this build put it.
QString default_program() {
    const QString beside =
        QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("snapdoc-server"));
#ifdef SNAPDOC_SERVER_BUILD_PATH
    if (!QFileInfo(beside).isExecutable()) return QStringLiteral(SNAPDOC_SERVER_BUILD_PATH);
#endif
    return beside;
}

}  // namespace

LocalServerController::LocalServerController(QObject* parent)
    : QObject(parent), program_(default_program()) {}

LocalServerController::~LocalServerController() {
    // No signals from a controller being destroyed: its receivers may be going away with it.
    blockSignals(true);
    stop();
}

void LocalServerController::apply(const services::LocalServerSettings& server,
                                  const services::GenerationSettings& generation, const QString& model_path,
                                  const QString& kv_cache_dir) {
    if (!server.enabled || model_path.isEmpty()) {
        stop();
        set_status(server.enabled ? tr("Local server: waiting for a model") : QString());
        return;
    }
    // Loopback only: the app shares the user's documents with local clients, not the network.
    QStringList args{"-m", model_path, "--host", "127.0.0.1", "--port", QString::number(server.port)};
    // Info, not the default warn: its request, prefill and idle lines feed the status bar and log.
    args.append({"--log-level", "info"});
    if (!server.api_key.empty()) args << "--api-key" << QString::fromStdString(server.api_key);
    if (generation.kv_cache && !kv_cache_dir.isEmpty())
        args << "--cache-dir" << kv_cache_dir << "--cache-cap-mb"
             << QString::number(generation.kv_cache_cap_mb);
    else
        args << "--no-cache";
    if (generation.threads > 0) args << "--threads" << QString::number(generation.threads);
    if (!generation.device.empty()) args << "--device" << QString::fromStdString(generation.device);
    if (!generation.chat_template.empty())
        args << "--template" << QString::fromStdString(generation.chat_template);
    if (running() && args == args_) return;
    stop();
    start(args);
}

void LocalServerController::start(const QStringList& args) {
    args_ = args;
    address_.clear();
    last_error_.clear();
    stderr_buffer_.clear();
    activity_.restart();
    emit activityChanged();
    if (!QFileInfo(program_).isExecutable()) {
        set_status(tr("Local server: %1 is missing (build the snapdoc-server target)").arg(program_));
        return;
    }
    process_ = new QProcess(this);
    connect(process_, &QProcess::readyReadStandardOutput, this, &LocalServerController::read_stdout);
    connect(process_, &QProcess::readyReadStandardError, this, &LocalServerController::read_stderr);
    connect(process_, &QProcess::finished, this, &LocalServerController::finished);
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) set_status(tr("Local server: cannot start %1").arg(program_));
    });
    set_status(tr("Local server: starting…"));
    process_->start(program_, args);
}

void LocalServerController::stop() {
    if (!process_) return;
    QProcess* p = process_;
    stopping_ = true;
    if (p->state() != QProcess::NotRunning) {
        p->terminate();  // SIGTERM: the server drains the requests in flight
        if (!p->waitForFinished(kDrainWaitMs)) {
            p->kill();
            p->waitForFinished(kDrainWaitMs);
        }
    }
    stopping_ = false;
    p->disconnect(this);
    p->deleteLater();
    process_ = nullptr;
    args_.clear();
    address_.clear();
    set_status(QString());
}

void LocalServerController::read_stdout() {
    while (process_ && process_->canReadLine()) {
        QByteArray raw = process_->readLine();
        if (raw.endsWith('\n')) raw.chop(1);
        const QString line = record(raw).trimmed();
        const int at = line.indexOf(kListening);
        if (at < 0) continue;
        address_ = line.mid(at + kListening.size());
        set_status(tr("Local server: %1 (loading the model…)").arg(address_));
    }
}

void LocalServerController::read_stderr() {
    if (!process_) return;
    // Its own channel, buffered here: QProcess's readLine() reads the current (stdout) channel.
    stderr_buffer_ += process_->readAllStandardError();
    for (int nl; (nl = stderr_buffer_.indexOf('\n')) >= 0;) {
        const QString line = record(stderr_buffer_.left(nl)).trimmed();
        stderr_buffer_.remove(0, nl + 1);
        // Its own messages start with its name (the usage text and log lines do not).
        if (!line.startsWith(kName)) continue;
        if (line.contains(" ready (")) {
            if (!address_.isEmpty()) set_status(tr("Local server: %1").arg(address_));
        } else {
            last_error_ = line.mid(kName.size());
        }
    }
    // A line without an end (garbage, a binary dump) is kept as a line once it is this long, so the
    // buffer stays bounded.
    if (stderr_buffer_.size() > kMaxPartialLineBytes) {
        record(stderr_buffer_);
        stderr_buffer_.clear();
    }
}

void LocalServerController::finished(int code, QProcess::ExitStatus status) {
    if (stopping_) return;
    read_stderr();
    address_.clear();
    args_.clear();
    const QString why = !last_error_.isEmpty()          ? last_error_
                        : status == QProcess::CrashExit ? tr("it crashed")
                                                        : tr("exit status %1").arg(code);
    set_status(tr("Local server stopped: %1").arg(why));
    process_->deleteLater();
    process_ = nullptr;
}

QString LocalServerController::record(const QByteArray& raw) {
    const qint64 requests = activity_.request_count();
    const QString activity = activity_.activity();
    const QString line = activity_.add_line(raw);
    emit logLine(line);
    if (requests != activity_.request_count() || activity != activity_.activity()) emit activityChanged();
    return line;
}

void LocalServerController::set_status(const QString& text) {
    if (text == status_) return;
    status_ = text;
    emit statusChanged(text);
}

}  // namespace snapdoc::ui
