// The main window: library | document | chat | inspector, menus and shortcuts, drag and drop,
// geometry and recent files. It wires the panels to the three controllers (model, document, chat)
// and holds no engine logic itself; the engine lives on its own thread behind EngineHost.
#pragma once

#include <QMainWindow>
#include <filesystem>
#include <memory>
#include <optional>

#include "app/hub/fit_estimate.h"

#include "app/services/app_settings.h"
#include "ui/dialogs/dialog_provider.h"

class QDialog;
class QLabel;
class QMenu;
class QSplitter;

namespace snapdoc::services {
class LibraryStore;
}

namespace snapdoc::ui {

class ChatController;
class ChatModel;
class ChatPanel;
class ConversationModel;
class DocumentController;
class DocumentPanel;
class EngineHost;
class GetModelsWindow;
class DownloadsStatus;
class InspectorPanel;
class LibraryModel;
class LibraryPanel;
class LocalServerController;
class ModelController;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `dialogs` may be null (the real dialogs); tests pass a recording provider.
    MainWindow(services::LibraryStore& store, std::unique_ptr<DialogProvider> dialogs = nullptr,
               QWidget* parent = nullptr);
    ~MainWindow() override;

    void open_model(const QString& path, bool confirm = true);
    // The start of a session (main_window_session.cpp): `model` and `document` when given (the
    // command line), else what the last session had: its model (or, when that file is gone, the
    // bundled demo model, with a status bar line saying so; the demo model too on a first start),
    // the document and conversation on screen at its close (save_settings keeps them).
    void start(const QString& model = {}, const QString& document = {});

    void open_document(const QString& path);
    bool ask(const QString& question);
    // Answers with the remote engine of the Settings > Connections entry `name` (the Models menu's
    // remote items); false when there is no such connection.
    bool use_connection(const QString& name);
    QMenu* models_menu() const { return models_menu_; }

    services::AppSettings& settings() { return settings_; }
    void save_settings();
    // Allows prompts past the model's context for this run only (--ignore-context); not saved.
    void set_ignore_context_for_session();
    // Starts with this SnapKV budget (--budget; at least the window + 1), as if set with the slider,
    // but for this run only: the stored budget stays unless the user moves the slider.
    void set_budget_for_session(int budget);
    // The on-disk K/V cache folder (main_window_kv_cache.cpp): documents are cached there as the
    // settings say (on/off, cap). Until this is called the cache is off, so a window built by a test
    // never writes into the user's cache.
    void set_kv_cache_dir(const QString& dir);
    const QString& kv_cache_dir() const { return kv_cache_dir_; }

    // The Get models window (main_window_get_models.cpp), created on first use: the File menu, the
    // library panel's button and the first-run notice open it. Its models folder is the hub's
    // default unless set here first (tests).
    GetModelsWindow* open_get_models();
    GetModelsWindow* get_models_window() const { return get_models_; }
    void set_models_dir(const std::filesystem::path& dir);

    ModelController& models() const { return *model_controller_; }
    // The app's snapdoc-server for its loaded model (Settings: Local server).
    LocalServerController& local_server() const { return *local_server_; }
    DocumentController& documents() const { return *document_controller_; }
    ChatController& chat() const { return *chat_controller_; }
    InspectorPanel* inspector() const { return inspector_; }
    ChatPanel* chat_panel() const { return chat_panel_; }
    DocumentPanel* document_panel() const { return document_panel_; }
    LibraryPanel* library_panel() const { return library_panel_; }
    ChatModel& chat_model() const { return *chat_model_; }
    LibraryModel& library_model() const { return *library_model_; }
    ConversationModel& conversation_model() const { return *conversation_model_; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void build_layout();
    void build_menus();
    void connect_controllers();
    void rebuild_recent_menus();
    void rebuild_models_menu();
    void restore_geometry();
    void open_document_dialog();
    void open_model_dialog(bool folder);
    // Where Open model… starts (main_window_session.cpp): the folder of the last model the user
    // chose, else the models folder (where Get models downloads go), never the home folder.
    QString model_dialog_dir();
    // The model path found for a start with no model given ("" when none); `note` gets a sentence
    // for the status bar when the last model could not be used.
    QString start_model(QString* note);
    void export_dialog();
    void settings_dialog();
    void about();
    void show_model_text();
    void show_gpu_check(const QString& message, bool fell_back);  // main_window_gpu_check.cpp
    void connect_get_models();
    void show_paused_downloads();
    void keep_prefill_probe(int tokens, double seconds);  // a measured prefill, for Get models' times  // the downloads an earlier run left paused, in the status bar
    void update_get_models();  // the document, budget and probe the fit is for

    services::LibraryStore& store_;
    services::AppSettings settings_;
    void apply_kv_cache_settings();
    void connect_local_server();         // main_window_local_server.cpp
    void apply_local_server_settings();  // starts, restarts or stops the local server
    void show_server_log();              // Settings > Local Server Log (a window, made on first use)
    void update_server_activity();       // the request count and activity in the status bar
    QString kv_cache_dir_;
    services::AppSettings stored_settings_;     // as last loaded or saved: only changes are written
    std::optional<bool> saved_ignore_context_;  // the stored value while a session override is on
    struct BudgetOverride {
        int stored;   // what the settings hold
        int session;  // what --budget set
    };
    std::optional<BudgetOverride> budget_override_;
    std::unique_ptr<DialogProvider> dialogs_;
    std::unique_ptr<EngineHost> engine_;

    LibraryModel* library_model_;
    ChatModel* chat_model_;
    ConversationModel* conversation_model_;

    QSplitter* splitter_ = nullptr;
    LibraryPanel* library_panel_ = nullptr;
    DocumentPanel* document_panel_ = nullptr;
    ChatPanel* chat_panel_ = nullptr;
    InspectorPanel* inspector_ = nullptr;
    QMenu* recent_documents_ = nullptr;
    QMenu* models_menu_ = nullptr;
    QMenu* recent_models_ = nullptr;

    ModelController* model_controller_ = nullptr;
    DocumentController* document_controller_ = nullptr;
    ChatController* chat_controller_ = nullptr;
    LocalServerController* local_server_ = nullptr;
    QLabel* server_activity_label_ = nullptr;
    QDialog* server_log_window_ = nullptr;
    DownloadsStatus* downloads_status_ = nullptr;  // running downloads, in the status bar
    QLabel* gpu_check_label_ = nullptr;  // created on first use (show_gpu_check)

    GetModelsWindow* get_models_ = nullptr;
    std::filesystem::path models_dir_;
    QString fit_document_name_;
    int64_t fit_document_tokens_ = 0;
    std::optional<hub::MeasuredPrefill> measured_prefill_;
};

}  // namespace snapdoc::ui
