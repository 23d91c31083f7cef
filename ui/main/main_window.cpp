#include "ui/main/main_window.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QSplitter>
#include <QStatusBar>

#include "app/services/document_ingest.h"
#include "app/services/library_store.h"
#include "app/services/suggested_questions.h"
#include "engine/model/model_summary.h"
#include "ui/chat/chat_panel.h"
#include "ui/dialogs/dialog_provider.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/inspector/compression_controls.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/library/library_panel.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/local_server_controller.h"
#include "ui/main/model_controller.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"
#include "ui/models/library_model.h"
#include "ui/widgets/app_theme.h"
#include "ui/widgets/screen_fit.h"
#include "ui/worker/engine_host.h"

namespace snapdoc::ui {

namespace {

// Why the inspector is empty with a remote engine ("" for a local model).
QString remote_inspector_note(const ModelInfo& info) {
    if (!info.remote()) return QString();
    if (info.remote_snapdoc_server())
        return MainWindow::tr("The answers come from the snapdoc-server at %1: heatmaps for remote sessions are not "
                              "available yet (the citations are).")
            .arg(info.remote_url);
    return MainWindow::tr("The remote engine (%1 at %2) does not expose kept positions: there are no heatmaps, "
                          "head details or re-selection for its answers.")
        .arg(info.remote_engine, info.remote_url);
}

bool is_model_path(const QString& path) {
    const QFileInfo fi(path);
    return (fi.isFile() && fi.suffix().compare("gguf", Qt::CaseInsensitive) == 0) ||
           (fi.isDir() && QFileInfo::exists(path + "/config.json"));
}

}  // namespace

MainWindow::MainWindow(services::LibraryStore& store, std::unique_ptr<DialogProvider> dialogs,
                       QWidget* parent)
    : QMainWindow(parent),
      store_(store),
      settings_(services::load_settings(store)),
      stored_settings_(settings_),
      dialogs_(dialogs ? std::move(dialogs) : std::make_unique<DialogProvider>()),
      engine_(std::make_unique<EngineHost>()) {
    setObjectName("mainWindow");
    setWindowTitle(tr("snapdoc"));
    setAcceptDrops(true);
    // A forced theme before any widget is built; "system" leaves the platform's palette alone, so
    // it keeps following the desktop's own light/dark switch.
    if (const Theme theme = parse_theme(QString::fromStdString(settings_.appearance.theme)); theme != Theme::System)
        apply_theme(theme);
    library_model_ = new LibraryModel(this);
    chat_model_ = new ChatModel(this);
    conversation_model_ = new ConversationModel(this);
    build_layout();
    model_controller_ = new ModelController(*engine_, *dialogs_, this, this);
    document_controller_ = new DocumentController(*engine_, store_, settings_, *library_model_,
                                                  *document_panel_, *dialogs_, this, this);
    chat_controller_ = new ChatController(*engine_, store_, settings_, *chat_model_, *conversation_model_,
                                          *chat_panel_, *inspector_, this);
    build_menus();
    connect_controllers();
    connect_get_models();
    connect_local_server();
    show_model_text();
    inspector_->controls()->set_config(settings_.snapkv);
    // The first-run notice depends on whether the library is empty (show_model_text).
    connect(library_model_, &QAbstractItemModel::modelReset, this, [this] { show_model_text(); });
    connect(library_model_, &QAbstractItemModel::rowsInserted, this, [this] { show_model_text(); });
    connect(library_model_, &QAbstractItemModel::rowsRemoved, this, [this] { show_model_text(); });
    document_controller_->refresh_library();
    restore_geometry();
    statusBar()->showMessage(tr("Library: %1").arg(QString::fromStdString(store_.path().string())), 5000);
}

MainWindow::~MainWindow() {
    // Stop the engine thread before the controllers and panels it reports to go away.
    engine_.reset();
    // And the local server while this window can still take its last lines: stopping waits for the
    // process, and QProcess delivers its final output (logLine, activityChanged) during that wait.
    // From the child deletion below, those signals reached this half-destroyed window (a crash seen
    // in ui.test_local_server under load).
    if (local_server_) local_server_->stop();
}

void MainWindow::build_layout() {
    library_panel_ = new LibraryPanel(library_model_, this);
    document_panel_ = new DocumentPanel(this);
    chat_panel_ = new ChatPanel(chat_model_, conversation_model_, this);
    inspector_ = new InspectorPanel(this);
    inspector_->set_text_lookup(
        [view = document_panel_->view()](int first, int last) { return view->text_of(first, last); });
    inspector_->set_location_lookup([panel = document_panel_](int position) { return panel->location_of(position); });
    splitter_ = new QSplitter(Qt::Horizontal, this);
    splitter_->setObjectName("mainSplitter");
    splitter_->addWidget(library_panel_);
    splitter_->addWidget(document_panel_);
    splitter_->addWidget(chat_panel_);
    splitter_->addWidget(inspector_);
    splitter_->setChildrenCollapsible(false);
    splitter_->setSizes({230, 470, 450, 450});
    setCentralWidget(splitter_);
}

void MainWindow::connect_controllers() {
    // Model
    connect(library_panel_, &LibraryPanel::openModelRequested, this, [this] { open_model_dialog(false); });
    connect(model_controller_, &ModelController::loadingStarted, this, [this](const QString& path) {
        library_panel_->set_model_text(tr("Loading %1…").arg(QFileInfo(path).fileName()), path);
    });
    connect(model_controller_, &ModelController::loaded, this, [this](const ModelInfo& info) {
        if (!info.remote()) {
            services::push_recent(settings_.recent_models, info.path.toStdString());
            rebuild_recent_menus();
            save_settings();
        }
        show_model_text();
        inspector_->reset();
        inspector_->set_engine_note(remote_inspector_note(info));
        inspector_->set_shape({info.n_layers, info.n_heads, info.n_kv_heads, info.head_dim},
                              info.context_length);
        inspector_->set_head_roles(HeadRoles(info.head_roles, info.n_heads));
        // With no document open the hint names what is still missing (it used to keep saying
        // "Open a model and a document" with the model loaded); a shown document's reading says
        // its own state next.
        chat_controller_->set_engine_state(
            info, std::nullopt,
            document_controller_->current_id() < 0 ? tr("Model ready. Open a document to ask about it.") : QString());
        document_controller_->set_model(info);
        apply_local_server_settings();  // the local server follows the loaded model
    });
    connect(model_controller_, &ModelController::failed, this, [this](const QString&, const QString&) {
        show_model_text();
        chat_controller_->set_engine_state(model_controller_->info(), document_controller_->ready_info(),
                                           QString());
    });

    // Documents
    connect(library_panel_, &LibraryPanel::openDocumentRequested, this, &MainWindow::open_document_dialog);
    connect(library_panel_, &LibraryPanel::documentActivated, this, [this](qint64 id) {
        // The shown document again: read it into the model when its reading was stopped.
        if (id != document_controller_->current_id())
            document_controller_->show(id);
        else
            document_controller_->resume();
    });
    connect(library_panel_, &LibraryPanel::removeDocumentRequested, this, [this](qint64 id) {
        // Asked first (it deletes the document's conversations too), and the file leaves Recent.
        const auto rec = store_.document(id);
        if (!rec) return;
        const auto conversations = store_.conversations(id);
        if (!dialogs_->confirm(this, tr("Remove from library?"),
                               tr("Remove “%1” and its %n conversation(s) from the library? The file on disk "
                                  "is not touched.",
                                  nullptr, static_cast<int>(conversations.size()))
                                   .arg(QString::fromStdString(rec->title).toHtmlEscaped()),
                               tr("Remove")))
            return;
        auto& recent = settings_.recent_documents;
        recent.erase(std::remove(recent.begin(), recent.end(), rec->path), recent.end());
        rebuild_recent_menus();
        save_settings();
        document_controller_->remove(id);
    });
    connect(document_controller_, &DocumentController::opened, this, [this](qint64, const QString& path) {
        services::push_recent(settings_.recent_documents, path.toStdString());
        rebuild_recent_menus();
        save_settings();
    });
    connect(document_controller_, &DocumentController::shown, this, [this](qint64 id) {
        library_panel_->select_document(id);
        inspector_->reset();
        inspector_->set_document_tokens(0);
        const auto rec = id >= 0 ? store_.document(id) : std::nullopt;
        const QString title = rec ? QString::fromStdString(rec->title) : QString();
        setWindowTitle(title.isEmpty() ? tr("snapdoc") : tr("%1 — snapdoc").arg(title));
        chat_panel_->set_suggestions(rec ? services::load_suggested_questions(QString::fromStdString(rec->path))
                                         : QStringList());
        chat_controller_->set_document(id, title);
        chat_controller_->set_engine_state(
            model_controller_->info(), std::nullopt,
            model_controller_->info() ? QString() : tr("Open a model to ask questions."));
    });
    connect(document_controller_, &DocumentController::prefillProgress, this,
            [this](qint64, int, int total, double fraction) {
                const auto& info = model_controller_->info();
                if (total == 0 && info && info->remote())
                    statusBar()->showMessage(tr("The document on %1: %2% read by the server")
                                                 .arg(info->remote_url)
                                                 .arg(static_cast<int>(fraction * 100)),
                                             5000);
            });
    connect(document_controller_, &DocumentController::prefillStarted, this, [this](qint64) {
        inspector_->controls()->set_unavailable_reason(QString());
        chat_controller_->set_engine_state(model_controller_->info(), std::nullopt,
                                           tr("Reading the document into the model…"));
    });
    connect(document_controller_, &DocumentController::documentReady, this, [this](const DocumentReady& r) {
        inspector_->reset();
        inspector_->set_document_tokens(r.document_tokens);
        chat_controller_->set_engine_state(
            model_controller_->info(), r,
            tr("Ready: %1 document tokens held in the KV store. Ask a question.").arg(r.document_tokens));
        chat_controller_->show_active_conversation();  // the context bar: the conversation's use
    });
    connect(document_controller_, &DocumentController::documentFailed, this,
            [this](qint64, const QString& message) {
                // The compression panel says why there is nothing to estimate (not "load a model").
                inspector_->controls()->set_unavailable_reason(message);  // a sentence of its own
                chat_controller_->set_engine_state(model_controller_->info(), std::nullopt, message);
            });

    // Chat
    connect(chat_panel_, &ChatPanel::askRequested, chat_controller_, &ChatController::ask);
    connect(chat_panel_, &ChatPanel::stopRequested, chat_controller_, &ChatController::stop);
    connect(chat_panel_, &ChatPanel::regenerateRequested, chat_controller_, &ChatController::regenerate);
    connect(chat_panel_, &ChatPanel::editLastQuestionRequested, chat_controller_,
            &ChatController::edit_last_question);
    connect(chat_panel_, &ChatPanel::copyRequested, chat_controller_, &ChatController::copy_answer);
    connect(chat_panel_, &ChatPanel::compareRequested, chat_controller_, &ChatController::compare);
    connect(chat_panel_, &ChatPanel::newConversationRequested, chat_controller_,
            &ChatController::new_conversation);
    connect(chat_panel_, &ChatPanel::conversationChosen, chat_controller_,
            &ChatController::choose_conversation);
    chat_controller_->set_dialogs(dialogs_.get());
    connect(chat_controller_, &ChatController::citationActivated, this,
            [this](int first_token, int, int begin, int end) {
                if (begin < 0 || !document_panel_->scrollToAndHighlight(begin, end))
                    document_panel_->view()->scroll_to_position(first_token);
            });
    connect(chat_controller_, &ChatController::citationHighlightCleared, document_panel_->view(),
            &DocumentView::clear_highlight);
    connect(chat_controller_, &ChatController::answerWeightsChanged, document_panel_,
            qOverload<std::shared_ptr<const std::vector<float>>>(&DocumentPanel::setAnswerWeights));

    // Inspector
    connect(inspector_, &InspectorPanel::configChanged, chat_controller_, &ChatController::reselect);
    connect(inspector_, &InspectorPanel::headCountsReady, this,
            [this](std::shared_ptr<const std::vector<uint16_t>> counts, int strips) {
                document_panel_->view()->set_head_counts(std::move(counts), strips);
            });
    connect(inspector_, &InspectorPanel::selectionShown, document_panel_, &DocumentPanel::set_selection);
    connect(inspector_, &InspectorPanel::headLocked, this, [this](int layer, int head, int position) {
        document_panel_->set_shading_head(layer, head);
        document_panel_->view()->scroll_to_position(position);
    });
    connect(inspector_, &InspectorPanel::positionClicked, this,
            [this](int position) { document_panel_->view()->scroll_to_position(position); });
}

void MainWindow::show_model_text() {
    const auto& info = model_controller_->info();
    show_gpu_check(info ? info->gpu_check : QString(), info && info->gpu_fell_back);
    // First run: nothing loaded yet, or only the bundled demo model (it answers its sample reports
    // only). The notice stands while the library is empty; once documents are in, the demo model's
    // line says it instead (the notice's height squeezed the library at 1024x700).
    const bool demo = info && QFileInfo(info->path).fileName() == QLatin1String("snapdoc-demo.gguf");
    library_panel_->set_first_run_notice((!info || demo) && library_model_->rowCount() == 0);
    if (!info) {
        library_panel_->set_model_text(tr("No model"), tr("Open a .gguf file or a Hugging Face folder."));
        return;
    }
    if (info->remote()) {
        library_panel_->set_model_text(
            info->name, tr("Remote: %1 · context %2")
                            .arg(info->backend, info->context_length > 0 ? QString::number(info->context_length)
                                                                         : tr("not given by the server")));
        return;
    }
    library_panel_->set_model_text(info->name,
                                   tr("%1 · %2 (%9) · %3 layers · %4 heads (%5 KV) · context %6 · template %7 · %8")
                                       .arg(info->format, info->type_mix_short)
                                       .arg(info->n_layers)
                                       .arg(info->n_heads)
                                       .arg(info->n_kv_heads)
                                       .arg(info->context_length)
                                       .arg(info->chat_template, info->backend)
                                       .arg(QString::fromStdString(format_bytes(info->weight_bytes))) +
                                       (demo ? tr(" · a demo: it answers its sample reports only; Get models… for "
                                                  "your documents")
                                             : QString()));
}

void MainWindow::open_model(const QString& path, bool confirm) {
    model_controller_->open(path, confirm,
                            {settings_.generation.threads, QString::fromStdString(settings_.generation.device),
                             QString::fromStdString(settings_.generation.chat_template)});
}

void MainWindow::open_document(const QString& path) {
    document_controller_->open_file(path);
}

bool MainWindow::ask(const QString& question) {
    return chat_controller_->ask(question);
}

void MainWindow::set_ignore_context_for_session() {
    if (!saved_ignore_context_) saved_ignore_context_ = settings_.generation.ignore_context;
    settings_.generation.ignore_context = true;
}

void MainWindow::set_budget_for_session(int budget) {
    SnapKvConfig c = inspector_->controls()->config();
    const int stored = budget_override_ ? budget_override_->stored : c.budget;
    c.budget = std::max(budget, c.window + 1);
    budget_override_ = BudgetOverride{stored, c.budget};
    inspector_->controls()->set_config(c);
    chat_controller_->reselect(c);
}

void MainWindow::save_settings() {
    settings_.snapkv = inspector_->controls()->config();
    settings_.last_document = document_controller_->current_id();
    settings_.last_conversation = chat_controller_->conversation_id();
    settings_.window_geometry = saveGeometry().toBase64().toStdString();
    settings_.window_state = splitter_->saveState().toBase64().toStdString();
    try {
        services::AppSettings stored = settings_;
        if (saved_ignore_context_) stored.generation.ignore_context = *saved_ignore_context_;
        if (budget_override_ && stored.snapkv.budget == budget_override_->session)
            stored.snapkv.budget = budget_override_->stored;
        services::save_settings(store_, stored, stored_settings_);
    } catch (const std::exception& e) {
        spdlog::error("settings not saved: {}", e.what());
    }
}

void MainWindow::restore_geometry() {
    // Both bounded by the screen it opens on: 1600×950 suits a big monitor only, and a geometry
    // saved on one (or on a monitor that is gone) must not reopen past a laptop's edges.
    if (!settings_.window_geometry.empty() &&
        restoreGeometry(QByteArray::fromBase64(QByteArray::fromStdString(settings_.window_geometry))))
        keep_on_screen(*this);
    else
        open_on_screen(*this, {1600, 950});
    if (!settings_.window_state.empty())
        splitter_->restoreState(QByteArray::fromBase64(QByteArray::fromStdString(settings_.window_state)));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    save_settings();
    engine_->cancel_all();
    document_controller_->stop();
    local_server_->stop();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        if (!url.isLocalFile()) continue;
        const QString path = url.toLocalFile();
        if (is_model_path(path))
            open_model(path, true);
        else
            open_document(path);  // unsupported files get ingestion's clear message
        break;                    // one file at a time: each open replaces the last
    }
    event->acceptProposedAction();
}

}  // namespace snapdoc::ui
