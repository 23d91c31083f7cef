#include "ui/hub/download_row.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "engine/model/model_summary.h"
#include "ui/hub/catalogue_fit.h"

namespace snapdoc::ui {

namespace {
QString bytes_text(int64_t bytes) {
    return QString::fromStdString(format_bytes(bytes));
}
}  // namespace

QString progress_text(const hub::DownloadProgress& p) {
    QString s = bytes_text(p.bytes_done);
    if (p.bytes_total >= 0) s += QObject::tr(" of %1").arg(bytes_text(p.bytes_total));
    if (p.state == hub::DownloadState::Downloading && p.bytes_per_second > 0)
        s += QObject::tr(" · %1/s").arg(bytes_text(static_cast<int64_t>(p.bytes_per_second)));
    if (p.state == hub::DownloadState::Downloading && p.eta_seconds >= 0)
        s += QObject::tr(" · %1 left").arg(short_duration(p.eta_seconds));
    if (p.file_count > 1) s += QObject::tr(" · file %1 of %2").arg(p.file_index + 1).arg(p.file_count);
    if (p.state != hub::DownloadState::Downloading) s += " · " + QString::fromUtf8(hub::state_name(p.state));
    if (!p.message.empty()) s += " · " + QString::fromStdString(p.message);
    return s;
}

DownloadRow::DownloadRow(hub::DownloadRequest request, hub::DownloadOptions options, const QString& title,
                         QWidget* parent)
    : QWidget(parent),
      title_(title),
      download_(std::make_unique<hub::Download>(std::move(request), std::move(options))) {
    setObjectName("downloadRow");
    setProperty("downloadTitle", title);
    title_label_ = new QLabel(title, this);
    title_label_->setObjectName("downloadTitle");
    bar_ = new QProgressBar(this);
    bar_->setObjectName("downloadProgress");
    bar_->setRange(0, 1000);
    bar_->setValue(0);
    status_ = new QLabel(tr("waiting to start"), this);
    status_->setObjectName("downloadStatus");
    status_->setWordWrap(true);
    pause_ = new QPushButton(tr("Pause"), this);
    pause_->setObjectName("pauseDownloadButton");
    resume_ = new QPushButton(tr("Resume"), this);
    resume_->setObjectName("resumeDownloadButton");
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName("cancelDownloadButton");
    use_ = new QPushButton(tr("Use this model"), this);
    use_->setObjectName("useDownloadedModelButton");
    connect(pause_, &QPushButton::clicked, this, &DownloadRow::pause);
    connect(resume_, &QPushButton::clicked, this, &DownloadRow::start);
    connect(cancel_, &QPushButton::clicked, this, &DownloadRow::cancel);
    connect(use_, &QPushButton::clicked, this, [this] { emit useModel(model_path_); });

    auto* top = new QHBoxLayout;
    top->addWidget(title_label_, 1);
    top->addWidget(pause_);
    top->addWidget(resume_);
    top->addWidget(cancel_);
    top->addWidget(use_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(bar_);
    layout->addWidget(status_);
    update_buttons();
}

DownloadRow::~DownloadRow() {
    // Joins the worker first: no callback can queue a call to this widget after that.
    download_.reset();
}

void DownloadRow::start() {
    if (download_->running()) return;
    state_ = hub::DownloadState::Checking;
    status_->setText(tr("starting"));
    update_buttons();
    // The callbacks run on the download's thread: they only post copies to this widget, whose
    // destructor joins that thread before the widget goes (so `this` is alive when they post).
    download_->start(
        [this](const hub::DownloadProgress& p) {
            QMetaObject::invokeMethod(
                this, [this, p] { on_progress(p); }, Qt::QueuedConnection);
        },
        [this](const hub::DownloadResult& r) {
            QMetaObject::invokeMethod(
                this, [this, r] { on_done(r); }, Qt::QueuedConnection);
        });
}

void DownloadRow::show_paused_from_earlier_run(int64_t bytes_done, int64_t bytes_total) {
    state_ = hub::DownloadState::Paused;
    show_fraction(bytes_done, bytes_total);
    QString sizes = bytes_text(bytes_done);
    if (bytes_total >= 0) sizes += tr(" of %1").arg(bytes_text(bytes_total));
    status_->setText(tr("paused in an earlier session (%1); Resume continues where it stopped").arg(sizes));
    update_buttons();
    emit progressed();
}

void DownloadRow::show_fraction(int64_t bytes_done, int64_t bytes_total) {
    if (bytes_total <= 0) return;
    bar_->setValue(static_cast<int>(1000.0 * static_cast<double>(bytes_done) / static_cast<double>(bytes_total)));
    percent_ = static_cast<int>(100 * bytes_done / bytes_total);
}

void DownloadRow::pause() {
    download_->pause();
}

void DownloadRow::cancel() {
    const bool running = download_->running();
    download_->cancel();
    if (running) return;  // the worker removes the .part as it stops and reports through on_done
    // Paused or failed: cancel() removed the .part at once and no callback follows.
    hub::DownloadResult r;
    r.state = hub::DownloadState::Cancelled;
    on_done(r);
}

void DownloadRow::on_progress(const hub::DownloadProgress& p) {
    if (state_ == hub::DownloadState::Done || state_ == hub::DownloadState::Cancelled) return;
    state_ = p.state;
    show_fraction(p.bytes_done, p.bytes_total);
    status_->setText(progress_text(p));
    update_buttons();
    emit progressed();
}

bool DownloadRow::running() const {
    using S = hub::DownloadState;
    return state_ == S::Checking || state_ == S::Downloading || state_ == S::Retrying || state_ == S::Verifying;
}

void DownloadRow::on_done(const hub::DownloadResult& r) {
    state_ = r.state;
    switch (r.state) {
        case hub::DownloadState::Done:
            bar_->setValue(1000);
            model_path_ = r.files.empty() ? QString() : QString::fromStdString(r.files.front().string());
            status_->setText(tr("done: %1").arg(model_path_));
            break;
        case hub::DownloadState::Paused:
            status_->setText(tr("paused (%1)").arg(status_->text()));
            break;
        case hub::DownloadState::Cancelled:
            bar_->setValue(0);
            status_->setText(tr("cancelled; the partial file was removed"));
            break;
        default:
            status_->setText(tr("failed: %1").arg(QString::fromStdString(r.error)));
            if (r.error_kind == hub::DownloadError::NeedsToken)
                status_->setText(status_->text() +
                                 tr(" — set a Hugging Face token in Settings, then Resume."));
            break;
    }
    update_buttons();
    emit progressed();
    emit finished(r.state);
}

void DownloadRow::update_buttons() {
    using S = hub::DownloadState;
    pause_->setVisible(running());
    resume_->setVisible(state_ == S::Paused || state_ == S::Failed);
    cancel_->setVisible(running() || state_ == S::Paused || state_ == S::Failed);
    use_->setVisible(state_ == S::Done && !model_path_.isEmpty());
}

}  // namespace snapdoc::ui
