// The main window's status-bar entry for downloads from Get models: "⬇ Qwen3 1.7B Q8_0: 42%" while
// one runs ("… (+1 more)" for several); "⏸ … paused at 42%" when none runs but one is paused, also
// one an earlier run left paused (told by set_paused_from_earlier_run before Get models opens);
// hidden when there is none. Closing Get models leaves its
// downloads running, so without this nothing in the main window said one was going on (issue 37).
// A click asks for the Downloads list (clicked()).
#pragma once

#include <QList>
#include <QPointer>
#include <QPushButton>
#include <QStringList>

namespace snapdoc::ui {

class DownloadRow;

class DownloadsStatus : public QPushButton {
    Q_OBJECT
public:
    explicit DownloadsStatus(QWidget* parent = nullptr);
    // Follows this download until it is gone.
    void watch(DownloadRow* row);
    // Titles of downloads left paused on disk by an earlier run (shown until rows are watched).
    void set_paused_from_earlier_run(const QStringList& titles);

private:
    void refresh();

    QList<QPointer<DownloadRow>> rows_;
    QStringList paused_on_disk_;
};

}  // namespace snapdoc::ui
