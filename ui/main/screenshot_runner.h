// `snapdoc --screenshot FILE.png [--model M] [--doc D] [--ask Q]...`: drives the real main window
// through the same steps a user would (open the model, open the document, ask), waits for each to
// finish, then saves a PNG of the window and reports an exit code (0: every step succeeded).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace snapdoc::ui {

class MainWindow;

struct ScreenshotOptions {
    QString output;
    QString model;
    QString document;
    QStringList questions;  // asked in turn; the screenshot follows the last answer
    int timeout_seconds = 300;
};

class ScreenshotRunner : public QObject {
    Q_OBJECT
public:
    ScreenshotRunner(MainWindow& window, ScreenshotOptions options, QObject* parent = nullptr);
    void start();

signals:
    void finished(int exit_code);

private:
    void step_document();
    void step_ask();
    void step_capture();
    void fail(const QString& message);

    MainWindow& window_;
    ScreenshotOptions options_;
    QTimer timeout_;
    bool failed_ = false;
    bool capturing_ = false;
    enum class Stage { Model, Document, Ask, Capture } stage_ = Stage::Model;
};

}  // namespace snapdoc::ui
