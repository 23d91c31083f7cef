// The main window's status-bar entry for downloads from Get models: "⬇ Qwen3 1.7B Q8_0: 42%" while
// one runs ("… (+1 more)" for several), hidden when none does. Closing Get models leaves its
// downloads running, so without this nothing in the main window said one was going on (issue 37).
// A click asks for the Downloads list (clicked()).
#pragma once

#include <QList>
#include <QPointer>
#include <QPushButton>

namespace snapdoc::ui {

class DownloadRow;

class DownloadsStatus : public QPushButton {
    Q_OBJECT
public:
    explicit DownloadsStatus(QWidget* parent = nullptr);
    // Follows this download until it is gone.
    void watch(DownloadRow* row);

private:
    void refresh();

    QList<QPointer<DownloadRow>> rows_;
};

}  // namespace snapdoc::ui
