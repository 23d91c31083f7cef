// Documents, from file to prefilled KV: ingestion on Qt's thread pool (with progress and stop), the
// library record in the store, the document view, and the engine prefill (layer progress with
// percentage and ETA). It tracks which document is shown and whether the engine holds it.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <memory>
#include <map>
#include <optional>
#include <string>

#include "app/services/app_settings.h"
#include "app/services/document_ingest.h"
#include "engine/session/prefill_time_left.h"
#include "ui/worker/worker_types.h"

namespace snapdoc::services {
class LibraryStore;
}

class QWidget;

namespace snapdoc::ui {

class DialogProvider;
class DocumentPanel;
class EngineHost;
class LibraryModel;

struct IngestOutcome {
    std::optional<services::IngestedDocument> document;
    QString error;
    bool cancelled = false;
};

class DocumentController : public QObject {
    Q_OBJECT
public:
    // `settings` is read at each prefill (answer length and whether long prompts are allowed).
    DocumentController(EngineHost& engine, services::LibraryStore& store,
                       const services::AppSettings& settings, LibraryModel& library, DocumentPanel& panel,
                       DialogProvider& dialogs, QWidget* dialog_parent, QObject* parent = nullptr);
    ~DocumentController() override;

    // Reads a file off the GUI thread, adds it to the library and shows it.
    void open_file(const QString& path);
    // Shows a library document and, when a model is loaded, prefills it.
    void show(int64_t id);
    void remove(int64_t id);
    // The model changed: prefill the shown document into it.
    void set_model(std::optional<ModelInfo> model);
    void stop();
    // The shown document is not in the model (its reading was stopped, or it failed): read it again
    // (a click on it in the library does this). Returns whether a reading started.
    bool resume();
    void refresh_library();
    // The generation settings changed (answer length, "allow longer prompts"): a shown document
    // that was refused, or not loaded yet, is checked and prefilled again with them.
    void settings_changed();

    int64_t current_id() const { return current_id_; }
    bool busy() const { return ingesting() || prefilling_; }
    bool ingesting() const { return watcher_.isRunning(); }
    // The shown document is prefilled in the engine.
    bool ready() const { return ready_.has_value(); }
    const std::optional<DocumentReady>& ready_info() const { return ready_; }

signals:
    void opened(qint64 id, const QString& path);  // added to the library (recent files)
    void shown(qint64 id);
    // The document passed the context check and its prefill begins (a refused document never
    // gets here: the check comes first).
    void prefillStarted(qint64 id);
    // The probe's prediction before the prefill (seconds < 0: too short to probe), then every chunk.
    void prefillEstimated(qint64 id, int tokens, double seconds);
    void prefillProgress(qint64 id, int done_layers, int total_layers, double fraction);
    void documentReady(const snapdoc::ui::DocumentReady& ready);
    void documentFailed(qint64 id, const QString& message);
    void openFailed(const QString& path, const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void on_ingested();
    void prefill();
    void update_facts(const QString& problem = {});

    EngineHost& engine_;
    services::LibraryStore& store_;
    const services::AppSettings& settings_;
    LibraryModel& library_;
    DocumentPanel& panel_;
    DialogProvider& dialogs_;
    QWidget* dialog_parent_;

    QFutureWatcher<IngestOutcome> watcher_;
    // The shown document's pages read by OCR, as the library keeps them: the facts line says so.
    QString recognised_note_;
    std::shared_ptr<std::atomic<bool>> ingest_cancel_;
    QString ingest_path_;

    int64_t current_id_ = -1;
    std::shared_ptr<const std::string> text_;
    std::optional<ModelInfo> model_;
    bool prefilling_ = false;
    bool prefill_started_ = false;  // past the context check (prefillStarted emitted)
    double estimate_seconds_ = -1;  // the probe's prediction for the running prefill (< 0: none)
    PrefillTimeLeft time_left_;     // the probe, corrected from the running prefill's chunk timings
    int prefill_tokens_ = 0;
    QString refusal_;               // why the shown document is not loaded (e.g. the context check)
    CancelToken prefill_cancel_;
    std::optional<DocumentReady> ready_;
};

}  // namespace snapdoc::ui

Q_DECLARE_METATYPE(snapdoc::ui::IngestOutcome)
