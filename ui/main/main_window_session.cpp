// MainWindow's session start (first start and restart) and where Open model… begins: a fresh data
// folder gets the bundled demo model, a restart gets back the last model, document and
// conversation from what is already stored (Recent Models and the session row of the settings, the
// library's documents and conversations).
#include <spdlog/spdlog.h>

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QStatusBar>

#include "app/common/resource_paths.h"
#include "app/hub/model_store.h"
#include "app/services/library_store.h"
#include "ui/chat/chat_panel.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/models/conversation_model.h"

namespace snapdoc::ui {

namespace {

bool is_bundled_demo(const QString& path) {
    return QFileInfo(path).fileName() == QLatin1String("snapdoc-demo.gguf");
}

}  // namespace

void MainWindow::start(const QString& model, const QString& document) {
    QString note;
    const QString to_load = model.isEmpty() ? start_model(&note) : model;
    // Named on the command line or loaded before: no confirmation, the user already chose it.
    if (!to_load.isEmpty()) open_model(to_load, /*confirm=*/false);
    if (!note.isEmpty()) statusBar()->showMessage(note);  // stays until the next message
    if (!document.isEmpty()) {
        open_document(document);
        return;
    }
    // The document on screen at the last close (else the one shown last: the library lists them by
    // the time they were last shown). Showing it selects its latest conversation and, once the
    // model is in, reads it again (from the K/V cache when that is on).
    int64_t id = settings_.last_document;
    if (id < 0 || !store_.document(id)) {
        const auto documents = store_.documents();
        id = documents.empty() ? -1 : documents.front().id;
    }
    if (id < 0) return;
    document_controller_->show(id);
    // The conversation on screen at the last close, when it is this document's and still there.
    const auto last =
        settings_.last_conversation >= 0 ? store_.conversation(settings_.last_conversation) : std::nullopt;
    if (!last || last->document_id != id) return;
    const int row = conversation_model_->row_of(last->id);
    if (row < 0) return;
    chat_panel_->conversation_picker()->setCurrentIndex(row);
    chat_controller_->choose_conversation(row);
}

QString MainWindow::start_model(QString* note) {
    if (!settings_.recent_models.empty()) {
        const QString last = QString::fromStdString(settings_.recent_models.front());
        if (QFileInfo::exists(last)) return last;
        *note = tr("The last model, %1, is no longer there (moved or deleted); the bundled demo model is "
                   "loaded instead. Open model… or Recent Models to choose another.")
                    .arg(QDir::toNativeSeparators(last));
    }
    try {
        return QString::fromStdString(bundled_demo_model().string());
    } catch (const std::exception& e) {
        // Only an install without its share folder gets here: start empty, and say why.
        spdlog::warn("no model to open at start: {}", e.what());
        *note = note->isEmpty()
                    ? tr("No model loaded: the bundled demo model was not found.")
                    : tr("The last model, %1, is no longer there, and the bundled demo model was not "
                         "found: open a model to start.")
                          .arg(QString::fromStdString(settings_.recent_models.front()));
        return {};
    }
}

QString MainWindow::model_dialog_dir() {
    // The last model's folder when the user chose it; the bundled demo model's folder is the
    // install's share directory, nothing a user keeps models in.
    if (!settings_.recent_models.empty()) {
        const QString last = QString::fromStdString(settings_.recent_models.front());
        if (!is_bundled_demo(last) && QFileInfo::exists(last)) return QFileInfo(last).absolutePath();
    }
    try {
        const QString dir =
            QString::fromStdString((models_dir_.empty() ? hub::default_models_dir() : models_dir_).string());
        // A fresh install has none yet, and the dialog would fall back to the working directory.
        QDir().mkpath(dir);
        return dir;
    } catch (const std::exception& e) {
        spdlog::warn("no models folder for the Open model dialog: {}", e.what());
        return QDir::homePath();
    }
}

}  // namespace snapdoc::ui
