// The local server's log, in its own window (issue 37): the lines LocalServerController keeps,
// following new ones as they come, with Copy. Opened from Settings > Server Log; not modal, so it
// can stay open beside the chat.
#pragma once

#include <QDialog>

class QPlainTextEdit;

namespace snapdoc::ui {

class LocalServerController;

class ServerLogWindow : public QDialog {
    Q_OBJECT
public:
    explicit ServerLogWindow(LocalServerController& server, QWidget* parent = nullptr);

private:
    QPlainTextEdit* view_;
};

}  // namespace snapdoc::ui
