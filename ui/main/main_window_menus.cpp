// MainWindow's menus, shortcuts and the dialogs they open (kept apart from the layout and wiring).
#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QKeySequence>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QStandardPaths>

#include "app/services/conversation_export.h"
#include "app/services/library_store.h"
#include "ui/chat/chat_panel.h"
#include "ui/dialogs/dialog_provider.h"
#include "ui/widgets/sentence_case.h"
#include "ui/dialogs/settings_dialog.h"
#include "ui/dialogs/shortcuts_dialog.h"
#include "ui/inspector/compression_controls.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/local_server_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"
#include "ui/widgets/app_theme.h"
#include "ui/worker/engine_host.h"

namespace snapdoc::ui {

void MainWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open Document…"), QKeySequence::Open, this, &MainWindow::open_document_dialog);
    file->addAction(tr("Open &Model File (.gguf)…"), QKeySequence(tr("Ctrl+Shift+O")), this,
                    [this] { open_model_dialog(false); });
    file->addAction(tr("Open Model &Folder (Hugging Face)…"), QKeySequence(tr("Ctrl+Alt+O")), this,
                    [this] { open_model_dialog(true); });
    file->addAction(tr("&Get Models (Hugging Face)…"), QKeySequence(tr("Ctrl+Shift+M")), this,
                    [this] { open_get_models(); });
    recent_documents_ = file->addMenu(tr("Recent &Documents"));
    recent_models_ = file->addMenu(tr("Recent Mo&dels"));
    // Built again as it opens, so a file deleted meanwhile drops out.
    for (QMenu* recent : {recent_documents_, recent_models_})
        connect(recent, &QMenu::aboutToShow, this, &MainWindow::rebuild_recent_menus);
    file->addSeparator();
    file->addAction(tr("&Export Conversation…"), QKeySequence(tr("Ctrl+E")), this,
                    &MainWindow::export_dialog);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setMenuRole(QAction::QuitRole);

    // Local models and the Connections' remote ones side by side; built as it opens, so a
    // connection added in Settings is there at once.
    models_menu_ = menuBar()->addMenu(tr("&Models"));
    models_menu_->setObjectName("modelsMenu");
    connect(models_menu_, &QMenu::aboutToShow, this, &MainWindow::rebuild_models_menu);
    rebuild_models_menu();

    QMenu* chat = menuBar()->addMenu(tr("&Chat"));
    chat->addAction(tr("&Ask"), QKeySequence(tr("Ctrl+Return")), this,
                    [this] { chat_controller_->ask(chat_panel_->question_edit()->text().trimmed()); });
    QAction* stop = chat->addAction(tr("&Stop"), QKeySequence(Qt::Key_Escape), this, [this] {
        chat_controller_->stop();
        document_controller_->stop();
    });
    stop->setShortcutContext(Qt::WindowShortcut);
    chat->addAction(tr("&Regenerate"), QKeySequence(tr("Ctrl+R")), chat_controller_,
                    &ChatController::regenerate);
    chat->addAction(tr("&Copy Answer"), QKeySequence(tr("Ctrl+Shift+C")), chat_controller_,
                    &ChatController::copy_answer);
    chat->addAction(tr("Compare &Full vs SnapKV"), QKeySequence(tr("Ctrl+K")), this,
                    [this] { chat_controller_->compare(chat_panel_->question_edit()->text().trimmed()); });
    chat->addSeparator();
    chat->addAction(tr("&New Conversation"), QKeySequence::New, chat_controller_,
                    &ChatController::new_conversation);

    QMenu* settings = menuBar()->addMenu(tr("&Settings"));
    settings->addAction(tr("&Settings…"), QKeySequence(tr("Ctrl+,")), this, &MainWindow::settings_dialog);
    settings->addAction(tr("Toggle SnapKV &Compression"), QKeySequence(tr("Ctrl+Shift+K")), this, [this] {
        SnapKvConfig c = inspector_->controls()->config();
        c.enabled = !c.enabled;
        inspector_->controls()->set_config(c);
        chat_controller_->reselect(c);
    });
    settings->addAction(tr("Local Server &Log…"), this, &MainWindow::show_server_log);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), QKeySequence(tr("Ctrl+/")), this, [this] {
        ShortcutsDialog dialog(*menuBar(), this);
        dialog.exec();
    });
    help->addAction(tr("&About snapdoc"), this, &MainWindow::about);
    rebuild_recent_menus();
}

void MainWindow::rebuild_recent_menus() {
    auto fill = [this](QMenu* menu, const std::vector<std::string>& paths, bool models) {
        menu->clear();
        for (const std::string& p : paths) {
            const QString path = QString::fromStdString(p);
            // A file deleted since (a model removed in Get models) is not offered: opening it could
            // only fail. It stays in the settings, so a restart can still say the last model is gone.
            if (!QFileInfo::exists(path)) continue;
            QAction* a = menu->addAction(QFileInfo(path).fileName(), this, [this, path, models] {
                if (models)
                    open_model(path, true);
                else
                    open_document(path);
            });
            a->setToolTip(path);
        }
        menu->setEnabled(!menu->actions().isEmpty());
    };
    fill(recent_documents_, settings_.recent_documents, false);
    fill(recent_models_, settings_.recent_models, true);
}

void MainWindow::rebuild_models_menu() {
    models_menu_->clear();
    const auto& info = model_controller_->info();
    const QString current = info ? info->path : QString();
    models_menu_->addSection(tr("On this machine"));
    int local = 0;
    for (const std::string& p : settings_.recent_models) {
        const QString path = QString::fromStdString(p);
        if (!QFileInfo::exists(path)) continue;
        QAction* a = models_menu_->addAction(QFileInfo(path).fileName(), this, [this, path] { open_model(path, true); });
        a->setToolTip(path);
        a->setCheckable(true);
        a->setChecked(path == current);
        ++local;
    }
    if (local == 0) models_menu_->addAction(tr("(none opened yet)"))->setEnabled(false);
    models_menu_->addAction(tr("Open Model File…"), this, [this] { open_model_dialog(false); });
    models_menu_->addSection(tr("Remote (Settings > Connections)"));
    for (const services::ConnectionSettings& c : settings_.connections) {
        const QString name = QString::fromStdString(c.name);
        const QString model = QString::fromStdString(c.model);
        QAction* a = models_menu_->addAction(model.isEmpty() ? name : tr("%1 — %2").arg(name, model), this,
                                             [this, name] { use_connection(name); });
        a->setObjectName(QStringLiteral("remoteModelAction"));
        a->setToolTip(QString::fromStdString(c.url));
        a->setCheckable(true);
        a->setChecked(current.startsWith(QStringLiteral("remote://%1/").arg(name)));
    }
    if (settings_.connections.empty())
        models_menu_->addAction(tr("Add one in Settings > Connections…"), this, &MainWindow::settings_dialog);
}

bool MainWindow::use_connection(const QString& name) {
    for (const services::ConnectionSettings& c : settings_.connections)
        if (QString::fromStdString(c.name) == name) {
            model_controller_->open_remote(c);
            return true;
        }
    return false;
}

void MainWindow::open_document_dialog() {
    const QString dir =
        settings_.recent_documents.empty()
            ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
            : QFileInfo(QString::fromStdString(settings_.recent_documents.front())).absolutePath();
    const QString path = dialogs_->open_document_file(this, dir);
    if (!path.isEmpty()) open_document(path);
}

void MainWindow::open_model_dialog(bool folder) {
    const QString dir = model_dialog_dir();
    const QString path = dialogs_->open_model_path(this, dir, folder);
    if (!path.isEmpty()) open_model(path, true);
}

void MainWindow::export_dialog() {
    if (chat_controller_->conversation_id() < 0) {
        dialogs_->show_error(this, tr("Nothing to export"),
                             tr("Ask a question first: there is no conversation yet."));
        return;
    }
    // The dialog opens in the last export folder (else Documents, else home), never the working
    // directory; the chosen filter decides the format and the name gets its suffix.
    QString filter;
    const QString typed = dialogs_->save_export_file(this, chat_controller_->export_suggestion(), &filter);
    if (typed.isEmpty()) return;
    const auto format = filter.contains(QLatin1String("json"), Qt::CaseInsensitive) ? services::ExportFormat::Json
                                                                                     : services::ExportFormat::Markdown;
    const QString path = QString::fromStdString(services::export_file_for(typed.toStdString(), format).string());
    try {
        chat_controller_->export_to(path, format);
        chat_controller_->remember_export(path);
        chat_panel_->set_status(tr("Exported to %1").arg(path));
    } catch (const std::exception& e) {
        dialogs_->show_error(this, tr("Export failed"), sentence_case(QString::fromStdString(e.what())));
    }
}

void MainWindow::settings_dialog() {
    SettingsDialog dialog(settings_.generation, this);
    dialog.set_kv_cache_dir(kv_cache_dir_);
    dialog.set_hub(settings_.hub);
    dialog.set_local_server(settings_.local_server, local_server_->status_text());
    dialog.set_documents(settings_.documents);
    dialog.set_appearance(settings_.appearance);
    dialog.set_connections(settings_.connections);
    if (dialog.exec() != QDialog::Accepted) return;
    settings_.documents = dialog.documents();
    settings_.connections = dialog.connections();
    settings_.generation = dialog.settings();
    settings_.hub = dialog.hub();
    settings_.local_server = dialog.local_server();
    if (dialog.appearance().theme != settings_.appearance.theme) {
        settings_.appearance = dialog.appearance();
        apply_theme(parse_theme(QString::fromStdString(settings_.appearance.theme)));
    }
    apply_kv_cache_settings();
    apply_local_server_settings();
    saved_ignore_context_.reset();  // the user's explicit choice replaces a --ignore-context override
    save_settings();
    // "Allow longer prompts" or a shorter answer may now let a refused document in.
    document_controller_->settings_changed();
}

void MainWindow::about() {
    QMessageBox::about(
        this, tr("About snapdoc"),
        tr("<b>snapdoc</b> %1<br>Chat with long documents on your own machine. The document's KV "
           "cache is compressed with SnapKV (Li et al., NeurIPS 2024); the inspector shows what "
           "each attention head keeps.<br><br>Library: %2")
            .arg(QApplication::applicationVersion(),
                 QString::fromStdString(store_.path().string()).toHtmlEscaped()));
}

}  // namespace snapdoc::ui
