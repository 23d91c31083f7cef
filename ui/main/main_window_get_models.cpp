// MainWindow and the Get models window: opening it (File menu, the library panel's button, the
// first-run notice), keeping its fit about the open document (its tokens, the SnapKV budget, the
// prefill probe measured with the loaded model), loading a model it hands back, and its running
// downloads in the status bar.
#include <QFileInfo>
#include <QStatusBar>

#include "app/hub/hub_endpoint.h"
#include "app/hub/model_store.h"
#include "app/hub/paused_downloads.h"
#include "app/services/library_store.h"
#include "engine/session/prefill_estimate.h"
#include "ui/hub/download_row.h"
#include "ui/hub/get_models_window.h"
#include "ui/inspector/compression_controls.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/library/library_panel.h"
#include "ui/main/document_controller.h"
#include "ui/main/downloads_status.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"

namespace snapdoc::ui {

namespace {

ModelConfig shape_of(const ModelInfo& i) {
    ModelConfig c;
    c.n_layers = i.n_layers;
    c.dim = i.dim;
    c.n_heads = i.n_heads;
    c.n_kv_heads = i.n_kv_heads;
    c.head_dim = i.head_dim;
    c.ffn_dim = i.ffn_dim;
    c.vocab_size = i.vocab_size;
    c.context_length = i.context_length;
    return c;
}

// The probe's prediction for the loaded model as a cost model: FLOP-shaped (flop_cost_model), scaled
// so that it predicts what the probe measured; the fit then scales it to each model's FLOPs.
std::optional<hub::MeasuredPrefill> measured(const ModelInfo& info, int tokens, double seconds) {
    if (tokens <= 0 || !(seconds > 0) || info.n_layers <= 0) return std::nullopt;
    hub::MeasuredPrefill m;
    m.config = shape_of(info);
    m.cost = flop_cost_model(m.config);
    const double k = seconds / m.cost.prefill_seconds(tokens, m.config.n_layers);
    m.cost.per_row *= k;
    m.cost.per_pair *= k;
    return m;
}

}  // namespace

void MainWindow::connect_get_models() {
    downloads_status_ = new DownloadsStatus(this);
    statusBar()->addPermanentWidget(downloads_status_);
    show_paused_downloads();
    connect(downloads_status_, &QPushButton::clicked, this, [this] { open_get_models()->show_downloads(); });
    connect(library_panel_, &LibraryPanel::getModelsRequested, this, [this] { open_get_models(); });
    connect(document_controller_, &DocumentController::prefillEstimated, this,
            [this](qint64 id, int tokens, double seconds) {
                // Known before the prefill runs: the fit can follow the document at once.
                const auto doc = store_.document(id);
                fit_document_name_ = doc ? QString::fromStdString(doc->title) : QString();
                fit_document_tokens_ = tokens;
                if (const auto& info = model_controller_->info(); info && seconds > 0)
                    measured_prefill_ = measured(*info, tokens, seconds);
                update_get_models();
            });
    connect(document_controller_, &DocumentController::documentReady, this, [this](const DocumentReady& r) {
        const auto doc = store_.document(r.document_id);
        fit_document_name_ = doc ? QString::fromStdString(doc->title) : QString();
        fit_document_tokens_ = r.document_tokens;
        update_get_models();
    });
    connect(model_controller_, &ModelController::loaded, this, [this](const ModelInfo&) {
        measured_prefill_.reset();  // a probe of the previous model; the next document measures again
        update_get_models();
    });
}

void MainWindow::set_models_dir(const std::filesystem::path& dir) {
    models_dir_ = dir;
    show_paused_downloads();
}

void MainWindow::show_paused_downloads() {
    // A download the last run left paused is said at start, before Get models is opened (issue 37).
    QStringList paused;
    for (const auto& p : hub::find_paused_downloads(models_dir_.empty() ? hub::default_models_dir() : models_dir_))
        paused.append(QString::fromStdString(p.title()));
    downloads_status_->set_paused_from_earlier_run(paused);
}

GetModelsWindow* MainWindow::open_get_models() {
    if (!get_models_) {
        GetModelsOptions o;
        try {
            o.endpoint = hub::resolve_endpoint(settings_.hub.endpoint, settings_.hub.token);
        } catch (const std::exception& e) {
            dialogs_->show_error(this, tr("Hugging Face endpoint"), QString::fromStdString(e.what()));
            o.endpoint = hub::resolve_endpoint({}, settings_.hub.token);
        }
        o.models_dir = models_dir_.empty() ? hub::default_models_dir() : models_dir_;
        get_models_ = new GetModelsWindow(std::move(o), *dialogs_, this);
        connect(get_models_, &GetModelsWindow::downloadAdded, downloads_status_, &DownloadsStatus::watch);
        get_models_->restore_paused_downloads();
        connect(get_models_, &GetModelsWindow::useModel, this, [this](const QString& path) {
            open_model(path, /*confirm=*/false);  // chosen in the window: no second question
            raise();
            activateWindow();
        });
    } else {
        try {  // Settings may have changed the endpoint or token since
            get_models_->set_endpoint(hub::resolve_endpoint(settings_.hub.endpoint, settings_.hub.token));
        } catch (const std::exception&) {
        }
    }
    update_get_models();
    get_models_->show();
    get_models_->raise();
    return get_models_;
}

void MainWindow::update_get_models() {
    if (!get_models_) return;
    get_models_->set_budget(inspector_->controls()->config().budget);
    get_models_->set_measured_prefill(measured_prefill_);
    get_models_->set_document(fit_document_name_, fit_document_tokens_);
    const auto& info = model_controller_->info();
    get_models_->set_model_in_use(info ? info->path : QString());
}

}  // namespace snapdoc::ui
