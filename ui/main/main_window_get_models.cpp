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

// Below this a prefill's time is mostly fixed costs, not a rate worth scaling to other models.
constexpr int kMinProbeTokens = 32;

services::PrefillProbeSettings probe_of(const ModelInfo& info, int tokens, double seconds) {
    services::PrefillProbeSettings p;
    p.backend = info.backend.toStdString();
    p.n_layers = info.n_layers;
    p.dim = info.dim;
    p.n_heads = info.n_heads;
    p.n_kv_heads = info.n_kv_heads;
    p.head_dim = info.head_dim;
    p.ffn_dim = info.ffn_dim;
    p.vocab_size = info.vocab_size;
    p.context_length = info.context_length;
    p.tokens = tokens;
    p.seconds = seconds;
    return p;
}

// The probe's prediction for the model it was measured with as a cost model: FLOP-shaped
// (flop_cost_model), scaled so that it predicts what the probe measured; the fit then scales it to
// each model's FLOPs.
std::optional<hub::MeasuredPrefill> measured(const services::PrefillProbeSettings& p) {
    if (p.tokens <= 0 || !(p.seconds > 0) || p.n_layers <= 0) return std::nullopt;
    hub::MeasuredPrefill m;
    m.config.n_layers = p.n_layers;
    m.config.dim = p.dim;
    m.config.n_heads = p.n_heads;
    m.config.n_kv_heads = p.n_kv_heads;
    m.config.head_dim = p.head_dim;
    m.config.ffn_dim = p.ffn_dim;
    m.config.vocab_size = p.vocab_size;
    m.config.context_length = p.context_length;
    m.cost = flop_cost_model(m.config);
    const double k = p.seconds / m.cost.prefill_seconds(p.tokens, m.config.n_layers);
    m.cost.per_row *= k;
    m.cost.per_pair *= k;
    return m;
}

}  // namespace

void MainWindow::connect_get_models() {
    downloads_status_ = new DownloadsStatus(this);
    statusBar()->addPermanentWidget(downloads_status_);
    show_paused_downloads();
    measured_prefill_ = measured(settings_.prefill_probe);  // this machine's, from an earlier run
    connect(downloads_status_, &QPushButton::clicked, this, [this] { open_get_models()->show_downloads(); });
    connect(library_panel_, &LibraryPanel::getModelsRequested, this, [this] { open_get_models(); });
    connect(document_controller_, &DocumentController::prefillEstimated, this,
            [this](qint64 id, int tokens, double seconds) {
                // Known before the prefill runs: the fit can follow the document at once.
                const auto doc = store_.document(id);
                fit_document_name_ = doc ? QString::fromStdString(doc->title) : QString();
                fit_document_tokens_ = tokens;
                keep_prefill_probe(tokens, seconds);
                update_get_models();
            });
    connect(document_controller_, &DocumentController::documentReady, this, [this](const DocumentReady& r) {
        const auto doc = store_.document(r.document_id);
        fit_document_name_ = doc ? QString::fromStdString(doc->title) : QString();
        fit_document_tokens_ = r.document_tokens;
        // The prefill itself is the best probe there is (a short document has no probe before it).
        if (!r.from_kv_cache) keep_prefill_probe(r.document_tokens, r.seconds);
        update_get_models();
    });
    connect(model_controller_, &ModelController::loaded, this, [this](const ModelInfo& info) {
        // A probe scales to any model by FLOPs, but not from the CPU to a GPU or back: then the next
        // document measures again.
        const bool same_device = info.backend.toStdString() == settings_.prefill_probe.backend;
        measured_prefill_ = same_device ? measured(settings_.prefill_probe) : std::nullopt;
        update_get_models();
    });
}

void MainWindow::keep_prefill_probe(int tokens, double seconds) {
    const auto& info = model_controller_->info();
    if (!info || tokens < kMinProbeTokens || !(seconds > 0)) return;
    // Kept in the settings: the next start, or a document from the K/V cache (no prefill to
    // measure), still predicts prefill times, and the recommended pick still weighs them (issue 37).
    settings_.prefill_probe = probe_of(*info, tokens, seconds);
    measured_prefill_ = measured(settings_.prefill_probe);
    save_settings();
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
