#include "ui/hub/get_models_window.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "app/hub/model_fetch.h"
#include "app/hub/model_store.h"
#include "app/hub/paused_downloads.h"
#include "engine/model/model_summary.h"
#include "ui/dialogs/dialog_provider.h"
#include "ui/hub/catalogue_table_model.h"
#include "ui/hub/download_row.h"
#include "ui/hub/hub_error_words.h"
#include "ui/hub/local_models_list.h"
#include "ui/hub/repo_browser.h"
#include "ui/widgets/screen_fit.h"

namespace snapdoc::ui {

namespace {
constexpr int64_t kDefaultDocumentTokens = 100000;
QString bytes_text(int64_t bytes) {
    return QString::fromStdString(format_bytes(bytes));
}

// In a QDialog every push button is an auto-default one, and the first becomes the default that
// Enter presses from anywhere: Enter in the repository field pressed Download and fetched the
// recommended model (~4.5 GiB). Here a download, a delete or a cancel takes an explicit click
// (or Space on a focused button), and Enter in the repository field only lists its files.
void no_default_buttons(QWidget& w) {
    for (QPushButton* b : w.findChildren<QPushButton*>()) {
        b->setAutoDefault(false);
        b->setDefault(false);
    }
}
}  // namespace

GetModelsWindow::GetModelsWindow(GetModelsOptions options, DialogProvider& dialogs, QWidget* parent)
    : QDialog(parent),
      options_(std::move(options)),
      dialogs_(dialogs),
      catalogue_(std::make_shared<const hub::Catalogue>(hub::builtin_catalogue())),
      fit_watcher_(new QFutureWatcher<std::shared_ptr<const CatalogueFit>>(this)) {
    setObjectName("getModelsWindow");
    setWindowTitle(tr("Get models"));
    fit_options_.document_tokens = kDefaultDocumentTokens;

    fit_header_ = new QLabel(this);
    fit_header_->setObjectName("fitHeaderLabel");
    fit_header_->setWordWrap(true);
    catalogue_model_ = new CatalogueTableModel(this);
    catalogue_view_ = new QTableView(this);
    catalogue_view_->setObjectName("catalogueTable");
    catalogue_view_->setModel(catalogue_model_);
    catalogue_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    catalogue_view_->setSelectionMode(QAbstractItemView::SingleSelection);
    catalogue_view_->verticalHeader()->hide();
    catalogue_view_->horizontalHeader()->setStretchLastSection(true);
    catalogue_view_->setWordWrap(false);
    pick_label_ = new QLabel(this);
    pick_label_->setObjectName("recommendedLabel");
    pick_label_->setWordWrap(true);
    download_button_ = new QPushButton(tr("Download"), this);
    download_button_->setObjectName("downloadCatalogueButton");
    download_button_->setEnabled(false);
    status_ = new QLabel(this);
    status_->setObjectName("getModelsStatus");
    status_->setWordWrap(true);

    repo_browser_ = new RepoBrowser(this);
    repo_browser_->set_endpoint(options_.endpoint);
    downloads_box_ = new QWidget(this);
    downloads_layout_ = new QVBoxLayout(downloads_box_);
    downloads_empty_ =
        new QLabel(tr("No downloads yet: choose a model above and press Download."), downloads_box_);
    downloads_empty_->setObjectName("downloadsEmptyLabel");
    downloads_empty_->setWordWrap(true);
    downloads_layout_->addWidget(downloads_empty_);
    downloads_layout_->addStretch(1);
    auto* downloads_scroll = new QScrollArea(this);
    downloads_scroll->setObjectName("downloadsArea");
    downloads_scroll->setWidgetResizable(true);
    downloads_scroll->setWidget(downloads_box_);
    local_models_ = new LocalModelsList(options_.models_dir, dialogs_, this);
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName("getModelsTabs");
    tabs_->addTab(downloads_scroll, tr("Downloads"));
    tabs_->addTab(local_models_, tr("Downloaded models"));
    tabs_->addTab(repo_browser_, tr("Any Hugging Face repository"));

    connect(catalogue_view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &GetModelsWindow::update_download_button);
    connect(catalogue_view_, &QTableView::pressed, this, [this] { user_picked_ = true; });
    connect(download_button_, &QPushButton::clicked, this, [this] {
        // A row already in the models folder is loaded, not downloaded again.
        const int row = catalogue_view_->currentIndex().row();
        const QString local = catalogue_model_->local_path(row);
        if (!local.isEmpty())
            emit useModel(local);
        else
            download_catalogue_row(row);
    });
    connect(repo_browser_, &RepoBrowser::downloadRequested, this,
            [this](const QString& repo, const QString& rev, const hub::GgufChoice& c) {
                download_choice(repo, rev, c);
            });
    connect(local_models_, &LocalModelsList::useModel, this, &GetModelsWindow::useModel);
    connect(local_models_, &LocalModelsList::refreshed, this, &GetModelsWindow::mark_downloaded);
    connect(fit_watcher_, &QFutureWatcher<std::shared_ptr<const CatalogueFit>>::finished, this, [this] {
        show_fit(fit_watcher_->result());
        if (fit_again_) {
            fit_again_ = false;
            refresh_fit();
        }
    });

    auto* top = new QWidget(this);
    auto* top_layout = new QVBoxLayout(top);
    top_layout->setContentsMargins(0, 0, 0, 0);
    top_layout->addWidget(fit_header_);
    top_layout->addWidget(catalogue_view_, 1);
    auto* pick_row = new QHBoxLayout;
    pick_row->addWidget(pick_label_, 1);
    pick_row->addWidget(download_button_);
    top_layout->addLayout(pick_row);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(tabs_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({600, 220});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addWidget(status_);
    open_on_screen(*this, {1180, 860});  // or less on a small screen
    no_default_buttons(*this);
    refresh_fit();
}

GetModelsWindow::~GetModelsWindow() {
    fit_watcher_->waitForFinished();
    // Download rows are children: each pauses its download (the .part stays) and joins its thread.
}

void GetModelsWindow::set_document(const QString& name, int64_t tokens) {
    document_name_ = tokens > 0 ? name : QString();
    fit_options_.document_tokens = tokens > 0 ? tokens : kDefaultDocumentTokens;
    refresh_fit();
}

void GetModelsWindow::set_budget(int budget) {
    fit_options_.snapkv_budget = budget;
    refresh_fit();
}

void GetModelsWindow::set_measured_prefill(std::optional<hub::MeasuredPrefill> prefill) {
    fit_options_.prefill = std::move(prefill);
    refresh_fit();
}

void GetModelsWindow::set_model_in_use(const QString& path) {
    local_models_->set_model_in_use(path.toStdString());
}

void GetModelsWindow::set_endpoint(const hub::HubEndpoint& endpoint) {
    options_.endpoint = endpoint;
    repo_browser_->set_endpoint(endpoint);
}

void GetModelsWindow::refresh_fit() {
    repo_browser_->set_fit_inputs(options_.machine, fit_options_);  // cheap: arithmetic on a read shape
    if (fit_watcher_->isRunning()) {
        fit_again_ = true;
        return;
    }
    // The machine query may start the CUDA driver (slow the first time): off the GUI thread, like the
    // estimates themselves; the snapshot comes back whole.
    fit_watcher_->setFuture(
        QtConcurrent::run([catalogue = catalogue_, machine = options_.machine, fit = fit_options_] {
            return compute_catalogue_fit(catalogue, machine ? *machine : hub::this_machine(), fit);
        }));
}

bool GetModelsWindow::fit_pending() const {
    return fit_again_ || fit_watcher_->isRunning() || !catalogue_model_->fit();
}

void GetModelsWindow::show_fit(std::shared_ptr<const CatalogueFit> fit) {
    // The recommended pick is preselected until the user picks a row themselves.
    const int keep = user_picked_ && catalogue_view_->currentIndex().isValid()
                         ? catalogue_view_->currentIndex().row()
                         : -1;
    catalogue_model_->set_fit(fit);
    mark_downloaded();
    catalogue_view_->resizeColumnsToContents();
    const hub::MachineMemory& m = fit->machine;
    QString machine = m.ram_bytes > 0 ? tr("%1 RAM").arg(bytes_text(m.ram_bytes)) : tr("RAM unknown");
    machine += m.device_free_bytes > 0 ? tr(", %1 free on the GPU").arg(bytes_text(m.device_free_bytes))
                                       : tr(", no CUDA GPU");
    const QString doc =
        document_name_.isEmpty()
            ? tr("a %1 document (none is open)").arg(token_count(fit->options.document_tokens))
            : tr("%1 (%2)").arg(document_name_, token_count(fit->options.document_tokens));
    QString prefill =
        fit->options.prefill
            ? tr("Prefill times are scaled by FLOPs from a probe measured here with the loaded model.")
            : tr("Prefill times appear once a document of 2,048+ tokens has been opened (a probe measures "
                 "this machine).");
    fit_header_->setText(
        tr("<b>Fit for %1 on this machine</b> (%2; SnapKV budget %3). Needs: weights + the full K/V "
           "store (f16) + the layer being prefilled + the compressed K/V + scratch. %4")
            .arg(doc.toHtmlEscaped(), machine)
            .arg(fit->options.snapkv_budget)
            .arg(prefill));
    if (const CatalogueRow* r = catalogue_model_->row_at(fit->recommended)) {
        const bool slow = r->fit.prefill_seconds > fit->options.max_prefill_seconds;
        const QString limit = short_duration(fit->options.max_prefill_seconds);
        const QString why =
            !fit->options.prefill ? tr("the largest model that fits this document here")
            : slow
                ? tr("none that fits prefills this document within %1 here; this one is the quickest")
                      .arg(limit)
                : tr("the largest model that fits this document here and prefills it within %1").arg(limit);
        pick_label_->setText(tr("Recommended: <b>%1 %2</b> — %3; %4.")
                                 .arg(QString::fromStdString(r->entry->name),
                                      QString::fromStdString(r->file->quant), why,
                                      QString::fromStdString(r->fit.reason).toHtmlEscaped()));
    } else {
        pick_label_->setText(
            tr("No catalogue model fits this document here; the Longest document column says how long a "
               "document each one can take."));
    }
    const int select = keep >= 0 ? keep : fit->recommended;
    if (select >= 0) catalogue_view_->selectRow(select);
    update_download_button();
    emit fitUpdated();
}

void GetModelsWindow::mark_downloaded() {
    const hub::ModelStore store(options_.models_dir);
    std::vector<QString> paths(static_cast<std::size_t>(catalogue_model_->rowCount()));
    for (int row = 0; row < catalogue_model_->rowCount(); ++row) {
        const CatalogueRow* r = catalogue_model_->row_at(row);
        try {
            const auto local = store.find(hub::parse_model_ref(r->entry->repo, r->file->files.front()));
            if (local && local->complete)
                paths[static_cast<std::size_t>(row)] = QString::fromStdString(local->path().string());
        } catch (const std::exception&) {
            // An unreadable models folder: no marks, the Downloaded models tab says why.
        }
    }
    catalogue_model_->set_local_paths(std::move(paths));
    update_download_button();
}

void GetModelsWindow::update_download_button() {
    const QModelIndex current = catalogue_view_->currentIndex();
    const bool local = current.isValid() && !catalogue_model_->local_path(current.row()).isEmpty();
    download_button_->setText(local ? tr("Load") : tr("Download"));
    download_button_->setToolTip(local ? tr("This model is already downloaded: load it") : QString());
    download_button_->setEnabled(current.isValid());
}

bool GetModelsWindow::confirm_unfitting_download(const CatalogueRow& r) {
    if (r.fit.badge != hub::FitBadge::DoesNotFit) return true;
    const hub::FitEstimate& f = r.fit;
    const int64_t needed = f.on_device ? f.memory.without_store() : f.memory.total();
    const int64_t have = f.on_device ? f.device_free_bytes : f.ram_bytes;
    const QString where = f.on_device ? tr("free on the GPU") : tr("of RAM");
    QString text = f.within_context
                       ? tr("This model needs %1; this machine has %2 %3.").arg(bytes_text(needed), bytes_text(have), where)
                       : tr("The document is longer than this model's %1K-token context.")
                             .arg(r.entry->shape.context_length / 1024);
    text += " " + tr("Download anyway (%1)?").arg(bytes_text(f.memory.weights));
    return dialogs_.confirm(this, tr("Download a model that does not fit?"), text, tr("Download anyway"));
}

void GetModelsWindow::download_catalogue_row(int row) {
    const CatalogueRow* r = catalogue_model_->row_at(row);
    if (!r || !confirm_unfitting_download(*r)) return;
    const hub::ModelRef ref = hub::parse_model_ref(r->entry->repo, r->file->files.front());
    const QString title = QString::fromStdString(r->entry->name + " " + r->file->quant);
    status_->setText(tr("Looking up %1 on the hub…").arg(QString::fromStdString(r->entry->repo)));
    auto* watcher = new QFutureWatcher<std::pair<hub::RemoteChoice, std::string>>(this);
    connect(watcher, &QFutureWatcher<std::pair<hub::RemoteChoice, std::string>>::finished, this,
            [this, watcher, ref, title] {
                const auto [remote, error] = watcher->result();
                watcher->deleteLater();
                if (!error.empty()) {
                    const QString words = hub_error_in_words(QString::fromStdString(error));
                    status_->setText(words);
                    // Where the eye goes after pressing Download, not only in the small print.
                    if (downloads().isEmpty())
                        downloads_empty_->setText(tr("%1 could not be downloaded. %2").arg(title, words));
                    emit downloadFailedToStart(words);
                    return;
                }
                status_->clear();
                add_download(
                    hub::make_request(options_.endpoint, ref, remote, hub::ModelStore(options_.models_dir)),
                    title);
            });
    watcher->setFuture(QtConcurrent::run([endpoint = options_.endpoint, ref] {
        try {
            return std::make_pair(hub::resolve_remote(endpoint, ref), std::string());
        } catch (const std::exception& e) {
            return std::make_pair(hub::RemoteChoice{}, std::string(e.what()));
        }
    }));
}

DownloadRow* GetModelsWindow::download_choice(const QString& repo, const QString& revision,
                                              const hub::GgufChoice& choice) {
    hub::DownloadRequest request;
    request.endpoint = options_.endpoint;
    request.repo = repo.toStdString();
    request.revision = revision.toStdString();
    request.files = choice.files;
    request.models_dir = options_.models_dir;
    return add_download(
        std::move(request),
        repo + " " + QString::fromStdString(choice.quant.empty() ? choice.first_path() : choice.quant));
}

DownloadRow* GetModelsWindow::add_download(hub::DownloadRequest request, const QString& title) {
    DownloadRow* row = add_row(std::move(request), title);
    row->start();
    emit downloadAdded(row);
    return row;
}

void GetModelsWindow::restore_paused_downloads() {
    const auto listed = [this](const hub::PausedDownload& p) {
        for (const DownloadRow* row : downloads())
            if (row->request().repo == p.repo && !row->request().files.empty() &&
                row->request().files.front().path == p.files.front().path)
                return true;
        return false;
    };
    for (const hub::PausedDownload& p : hub::find_paused_downloads(options_.models_dir)) {
        if (listed(p)) continue;
        DownloadRow* row = add_row(hub::resume_request(p, options_.endpoint, options_.models_dir),
                                   QString::fromStdString(p.title()));
        row->show_paused_from_earlier_run(p.bytes_done, p.bytes_total);
        emit downloadAdded(row);
    }
}

DownloadRow* GetModelsWindow::add_row(hub::DownloadRequest request, const QString& title) {
    auto* row = new DownloadRow(std::move(request), options_.download, title, downloads_box_);
    no_default_buttons(*row);
    downloads_empty_->hide();
    downloads_layout_->insertWidget(downloads_layout_->count() - 1, row);
    connect(row, &DownloadRow::useModel, this, &GetModelsWindow::useModel);
    connect(row, &DownloadRow::finished, this, [this](hub::DownloadState s) {
        // The refresh marks the catalogue's downloaded rows too.
        if (s == hub::DownloadState::Done || s == hub::DownloadState::Cancelled) local_models_->refresh();
    });
    tabs_->setCurrentIndex(0);
    return row;
}

void GetModelsWindow::show_downloads() {
    tabs_->setCurrentIndex(0);
    show();
    raise();
    activateWindow();
}

QList<DownloadRow*> GetModelsWindow::downloads() const {
    return downloads_box_->findChildren<DownloadRow*>();
}

}  // namespace snapdoc::ui
