// `snapdoc --screenshot FILE.png [--model M] [--doc D] [--ask Q]...`: drives the real main window
// through the same steps a user would (open the model, open the document, ask), waits for each to
// finish, then saves a PNG of the window and reports an exit code (0: every step succeeded).
// Nobody is there to click a modal dialog: ScreenshotDialogs prints what a dialog would show and
// ends the run at once (it used to wait out the whole timeout behind an error box; issue 14).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <functional>

#include "ui/dialogs/dialog_provider.h"

namespace snapdoc::ui {

class MainWindow;

struct ScreenshotOptions {
    QString output;
    QString model;
    QString document;
    QStringList questions;  // asked in turn; the screenshot follows the last answer
    int timeout_seconds = 300;
    // --screenshot-get-models: capture the Get models window instead, with the fit for the document
    // (as soon as its prefill estimate is known: the long prefill itself is not waited for).
    bool get_models = false;
};

// The dialogs of an unattended run: an error goes to stderr and to `on_error` (the runner, which
// stops there); a model is loaded without asking.
class ScreenshotDialogs : public DialogProvider {
public:
    std::function<void(const QString& title, const QString& text)> on_error;
    void show_error(QWidget* parent, const QString& title, const QString& text) override;
    bool confirm_model(QWidget* parent, const ModelInfo& info) override;
};

class ScreenshotRunner : public QObject {
    Q_OBJECT
public:
    ScreenshotRunner(MainWindow& window, ScreenshotOptions options, QObject* parent = nullptr);
    void start();
    // What a modal error box would have shown: printed, the run fails and captures now.
    void modal_error(const QString& title, const QString& text);

signals:
    void finished(int exit_code);

private:
    void step_document();
    void step_ask();
    void step_capture();
    void capture_get_models();
    void save(const QImage& image);
    void fail(const QString& message);

    MainWindow& window_;
    ScreenshotOptions options_;
    QTimer timeout_;
    bool failed_ = false;
    bool capturing_ = false;
    enum class Stage { Model, Document, Ask, Capture } stage_ = Stage::Model;
};

}  // namespace snapdoc::ui
