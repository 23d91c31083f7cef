// One download in the Get models window: a hub::Download (a file or a shard set) with its progress
// bar, speed and time left, Pause / Resume / Cancel, the error in words, and "Use this model" when
// it is done. The download runs on its own worker thread (hub::Download); its callbacks reach this
// widget as queued calls carrying value copies, so nothing here is touched off the GUI thread.
#pragma once

#include <QString>
#include <QWidget>
#include <memory>

#include "app/hub/download.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace snapdoc::ui {

class DownloadRow : public QWidget {
    Q_OBJECT
public:
    DownloadRow(hub::DownloadRequest request, hub::DownloadOptions options, const QString& title,
                QWidget* parent = nullptr);
    ~DownloadRow() override;  // pauses a running download (its .part stays) and joins its thread

    void start();
    // Shows a download an earlier run left paused (found on disk after a restart) without starting
    // it: Resume starts it where its .part files stopped, Cancel removes them.
    void show_paused_from_earlier_run(int64_t bytes_done, int64_t bytes_total);
    void pause();
    void cancel();
    hub::DownloadState state() const { return state_; }
    const hub::DownloadRequest& request() const { return download_->request(); }
    QString model_path() const { return model_path_; }  // set when done: what to load
    QString title() const { return title_; }
    // Checking, downloading, retrying or verifying (not paused, failed, cancelled or done).
    bool running() const;
    int percent() const { return percent_; }  // of the whole set; -1 while its size is unknown


signals:
    void finished(hub::DownloadState state);
    void progressed();  // state() or percent() changed (the main window's status bar follows)
    void useModel(const QString& path);

private:
    void on_progress(const hub::DownloadProgress& p);
    void on_done(const hub::DownloadResult& r);
    void update_buttons();
    void show_fraction(int64_t bytes_done, int64_t bytes_total);

    QString title_;
    std::unique_ptr<hub::Download> download_;
    hub::DownloadState state_ = hub::DownloadState::Idle;
    QString model_path_;
    int percent_ = -1;
    QLabel* title_label_;
    QProgressBar* bar_;
    QLabel* status_;
    QPushButton* pause_;
    QPushButton* resume_;
    QPushButton* cancel_;
    QPushButton* use_;
};

// "1.2 GiB of 4.6 GiB · 38.5 MiB/s · 1 min 30 s left" from a progress snapshot.
QString progress_text(const hub::DownloadProgress& p);

}  // namespace snapdoc::ui
