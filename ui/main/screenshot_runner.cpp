#include "ui/main/screenshot_runner.h"

#include <QFileInfo>
#include <QImage>
#include <QPixmap>
#include <cstdio>

#include "ui/hub/get_models_window.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/inspector/retention_grid.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"

namespace snapdoc::ui {

void ScreenshotDialogs::show_error(QWidget*, const QString& title, const QString& text) {
    if (on_error)
        on_error(title, text);
    else
        std::fprintf(stderr, "snapdoc --screenshot: %s: %s\n", qPrintable(title), qPrintable(text));
}

bool ScreenshotDialogs::confirm_model(QWidget*, const ModelInfo&) {
    return true;
}

void ScreenshotRunner::modal_error(const QString& title, const QString& text) {
    fail(title + ": " + text);
    step_capture();
}

ScreenshotRunner::ScreenshotRunner(MainWindow& window, ScreenshotOptions options, QObject* parent)
    : QObject(parent), window_(window), options_(std::move(options)) {
    timeout_.setSingleShot(true);
    connect(&timeout_, &QTimer::timeout, this, [this] {
        fail(tr("timed out after %1 s").arg(options_.timeout_seconds));
        step_capture();
    });
    connect(&window_.models(), &ModelController::loaded, this, [this] {
        if (stage_ == Stage::Model) step_document();
    });
    connect(&window_.models(), &ModelController::failed, this,
            [this](const QString&, const QString& message) {
                if (stage_ != Stage::Model) return;
                fail(tr("model: %1").arg(message));
                step_document();
            });
    connect(&window_.documents(), &DocumentController::documentReady, this, [this] {
        if (stage_ == Stage::Document) step_ask();
    });
    connect(&window_.documents(), &DocumentController::prefillEstimated, this, [this] {
        // The Get models fit needs the document's length and this machine's probe, not the prefill.
        if (options_.get_models && stage_ == Stage::Document) step_capture();
    });
    connect(&window_.documents(), &DocumentController::documentFailed, this,
            [this](qint64, const QString& message) {
                if (stage_ != Stage::Document) return;
                fail(tr("document: %1").arg(message));
                step_capture();
            });
    connect(&window_.documents(), &DocumentController::openFailed, this,
            [this](const QString&, const QString& message) {
                if (stage_ != Stage::Document) return;
                fail(tr("document: %1").arg(message));
                step_capture();
            });
    connect(&window_.documents(), &DocumentController::shown, this, [this] {
        // Without a model there is no prefill to wait for.
        if (stage_ == Stage::Document && !window_.models().info()) step_capture();
    });
    connect(&window_.chat(), &ChatController::answerDone, this, [this] {
        // The next question once this answer's selection is on screen.
        if (stage_ == Stage::Ask) QTimer::singleShot(0, this, &ScreenshotRunner::step_ask);
    });
    connect(&window_.chat(), &ChatController::answerError, this, [this](const QString& message) {
        if (stage_ != Stage::Ask) return;
        fail(tr("answer: %1").arg(message));
        step_capture();
    });
}

void ScreenshotRunner::start() {
    // SNAPDOC_SCREENSHOT_SIZE=WxH sizes the window first (the docs' 1024×700 and 1600×1000 shots).
    // Without it the window keeps its big-monitor size: the offscreen platform's made-up 800×800
    // screen, which the window would otherwise shrink to fit, is no real screen.
    const QStringList size = qEnvironmentVariable("SNAPDOC_SCREENSHOT_SIZE").split('x');
    if (size.size() == 2 && size[0].toInt() > 0 && size[1].toInt() > 0)
        window_.resize(size[0].toInt(), size[1].toInt());
    else
        window_.resize(1600, 950);
    timeout_.start(options_.timeout_seconds * 1000);
    if (options_.model.isEmpty()) return step_document();
    stage_ = Stage::Model;
    window_.open_model(options_.model, /*confirm=*/false);
}

void ScreenshotRunner::step_document() {
    stage_ = Stage::Document;
    if (options_.document.isEmpty()) return step_capture();
    window_.open_document(options_.document);
}

void ScreenshotRunner::step_ask() {
    stage_ = Stage::Ask;
    if (options_.questions.isEmpty()) return step_capture();
    if (!window_.ask(options_.questions.takeFirst())) {
        fail(tr("the question could not be asked"));
        step_capture();
    }
}

void ScreenshotRunner::step_capture() {
    if (capturing_) return;
    capturing_ = true;
    stage_ = Stage::Capture;
    timeout_.stop();
    if (options_.get_models) return capture_get_models();
    // Show one head's detail, as a user's click would, so the screenshot has every inspector part.
    const SelectionSnapshot& snap = window_.inspector()->snapshot();
    if (snap.valid()) window_.inspector()->lock_head(snap.n_layers - 1, 0);
    // SNAPDOC_SCREENSHOT_HEATMAP_VIEW=FIRST,COUNT zooms the heatmap to those positions first (the
    // docs' zoomed-heatmap screenshot); the wait below covers its render.
    const QStringList view = qEnvironmentVariable("SNAPDOC_SCREENSHOT_HEATMAP_VIEW").split(',');
    if (view.size() == 2) window_.inspector()->grid()->set_view(view[0].toInt(), view[1].toInt());
    // Give the heatmap render (thread pool) and the layout a moment to land.
    QTimer::singleShot(700, this, [this] { save(window_.grab().toImage()); });
}

void ScreenshotRunner::capture_get_models() {
    GetModelsWindow* g = window_.open_get_models();
    g->resize(1180, 860);  // its big-monitor size, as the main window above
    // Poll until the newest fit (document, budget, probe) is on screen, then let the layout land.
    auto* poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this, g, poll] {
        if (g->fit_pending()) return;
        poll->stop();
        poll->deleteLater();
        QTimer::singleShot(500, this, [this, g] { save(g->grab().toImage()); });
    });
    poll->start(100);
}

void ScreenshotRunner::save(const QImage& image) {
    const bool saved = !image.isNull() && image.save(options_.output, "PNG");
    if (!saved)
        fail(tr("cannot write %1").arg(options_.output));
    else
        std::fprintf(stderr, "screenshot: %s (%dx%d)\n", qPrintable(QFileInfo(options_.output).absoluteFilePath()),
                     image.width(), image.height());
    emit finished(failed_ ? 1 : 0);
}

void ScreenshotRunner::fail(const QString& message) {
    failed_ = true;
    std::fprintf(stderr, "snapdoc --screenshot: %s\n", qPrintable(message));
}

}  // namespace snapdoc::ui
