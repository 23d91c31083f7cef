// The "Get models" window: the catalogue with a fit badge per model for the current document (or
// 100K tokens when none is open) on this machine, the recommended pick preselected; any Hugging Face
// repository's GGUF files; the downloads with progress, speed, time left, pause / resume / cancel
// and "Use this model"; the models already downloaded, with their size and Delete. Downloads run on
// their own threads (hub::Download) and report through queued calls; the fit is computed on Qt's
// thread pool and arrives as an immutable snapshot. Qt-free hub code does the work (app/hub).
#pragma once

#include <QDialog>
#include <QFutureWatcher>
#include <filesystem>
#include <memory>
#include <optional>

#include "app/hub/download.h"
#include "app/hub/fit_estimate.h"
#include "app/hub/hub_endpoint.h"
#include "ui/hub/catalogue_fit.h"

class QLabel;
class QPushButton;
class QTableView;
class QTabWidget;
class QVBoxLayout;

namespace snapdoc::ui {

class CatalogueTableModel;
class DialogProvider;
class DownloadRow;
class LocalModelsList;
class RepoBrowser;

struct GetModelsOptions {
    hub::HubEndpoint endpoint;
    std::filesystem::path models_dir;
    hub::DownloadOptions download;
    // The machine's memory for the fit; unset: measured (hub::this_machine) off the GUI thread.
    std::optional<hub::MachineMemory> machine;
};

class GetModelsWindow : public QDialog {
    Q_OBJECT
public:
    GetModelsWindow(GetModelsOptions options, DialogProvider& dialogs, QWidget* parent = nullptr);
    ~GetModelsWindow() override;

    // The document the fit is for (0 tokens: none, the fit is for 100K tokens), the SnapKV budget,
    // and a prefill probe measured here with the loaded model (to scale to each model's shape).
    void set_document(const QString& name, int64_t tokens);
    void set_budget(int budget);
    void set_measured_prefill(std::optional<hub::MeasuredPrefill> prefill);
    void set_endpoint(const hub::HubEndpoint& endpoint);
    // The model the app has loaded (Downloaded models warns before deleting it).
    void set_model_in_use(const QString& path);

    // Downloads a catalogue row (what the Download button does with the selected row): a row marked
    // "does not fit" asks first (the memory it needs and this machine has); its files' sizes and
    // sha256 come from the hub's listing (on the thread pool), then the download row appears
    // (downloadAdded). A row already downloaded makes the button Load (useModel) instead.
    void download_catalogue_row(int row);
    DownloadRow* download_choice(const QString& repo, const QString& revision, const hub::GgufChoice& choice);

    CatalogueTableModel* catalogue_model() const { return catalogue_model_; }
    QTableView* catalogue_view() const { return catalogue_view_; }
    RepoBrowser* repo_browser() const { return repo_browser_; }
    LocalModelsList* local_models() const { return local_models_; }
    QList<DownloadRow*> downloads() const;
    // Lists the downloads an earlier run left unfinished in the models folder (hub::
    // find_paused_downloads) as paused rows (downloadAdded each); Resume continues them. Rows already
    // listed for the same files are not added twice.
    void restore_paused_downloads();
    // Shows the window on its Downloads tab (the main window's download status was clicked).
    void show_downloads();
    void refresh_fit();
    bool fit_pending() const;  // a fit is computing or waiting: what is shown is not the newest

signals:
    void useModel(const QString& path);
    void fitUpdated();  // a new fit snapshot is shown (tests, screenshot)
    void downloadAdded(snapdoc::ui::DownloadRow* row);
    void downloadFailedToStart(const QString& message);

private:
    void show_fit(std::shared_ptr<const CatalogueFit> fit);
    void mark_downloaded();  // the catalogue rows found in the models folder
    void update_download_button();
    bool confirm_unfitting_download(const CatalogueRow& row);
    DownloadRow* add_download(hub::DownloadRequest request, const QString& title);  // add_row + start
    DownloadRow* add_row(hub::DownloadRequest request, const QString& title);

    GetModelsOptions options_;
    DialogProvider& dialogs_;
    std::shared_ptr<const hub::Catalogue> catalogue_;
    hub::FitOptions fit_options_;
    QString document_name_;
    CatalogueTableModel* catalogue_model_;
    QTableView* catalogue_view_;
    QLabel* fit_header_;
    QLabel* pick_label_;
    QPushButton* download_button_;
    QTabWidget* tabs_;
    RepoBrowser* repo_browser_;
    QWidget* downloads_box_;
    QVBoxLayout* downloads_layout_;
    QLabel* downloads_empty_;
    LocalModelsList* local_models_;
    QFutureWatcher<std::shared_ptr<const CatalogueFit>>* fit_watcher_;
    bool fit_again_ = false;  // a newer request arrived while one was computing
    QLabel* status_;
    bool user_picked_ = false;  // a row was clicked: keep it selected across fits
};

}  // namespace snapdoc::ui
