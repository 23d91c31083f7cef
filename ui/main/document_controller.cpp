#include "ui/main/document_controller.h"

#include <spdlog/spdlog.h>

#include <QLocale>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include "app/services/library_store.h"
#include "engine/common/error.h"
#include "engine/model/model_summary.h"
#include "ui/dialogs/dialog_provider.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/models/library_model.h"
#include "ui/worker/engine_host.h"

namespace snapdoc::ui {

namespace {

QString num(int64_t n) {
    return QLocale(QLocale::English).toString(static_cast<qlonglong>(n));
}

QString eta_text(int done, int total, double elapsed) {
    if (done <= 0 || elapsed <= 0) return QObject::tr("estimating time left…");
    const double left = elapsed / done * (total - done);
    if (left < 1) return QObject::tr("under a second left");
    if (left < 90) return QObject::tr("about %1 s left").arg(static_cast<int>(left + 0.5));
    return QObject::tr("about %1 min left").arg(static_cast<int>(left / 60 + 0.5));
}

}  // namespace

DocumentController::DocumentController(EngineHost& engine, services::LibraryStore& store,
                                       const services::AppSettings& settings, LibraryModel& library,
                                       DocumentPanel& panel, DialogProvider& dialogs, QWidget* dialog_parent,
                                       QObject* parent)
    : QObject(parent),
      engine_(engine),
      store_(store),
      settings_(settings),
      library_(library),
      panel_(panel),
      dialogs_(dialogs),
      dialog_parent_(dialog_parent) {
    qRegisterMetaType<IngestOutcome>();
    connect(&watcher_, &QFutureWatcher<IngestOutcome>::finished, this, &DocumentController::on_ingested);
    connect(&panel_, &DocumentPanel::stopRequested, this, &DocumentController::stop);

    EngineWorker* w = engine_.worker();
    connect(w, &EngineWorker::documentProgress, this, [this](qint64 id, int done, int total, double elapsed) {
        if (id != current_id_ || !prefilling_) return;
        const int pct = total > 0 ? 100 * done / total : 0;
        panel_.show_progress(tr("Prefilling the document: layer %1 of %2 — %3% — %4")
                                 .arg(done)
                                 .arg(total)
                                 .arg(pct)
                                 .arg(eta_text(done, total, elapsed)),
                             done, total);
    });
    connect(w, &EngineWorker::documentLoaded, this, [this](const DocumentReady& r) {
        if (r.document_id != current_id_) return;  // the user moved on meanwhile
        prefilling_ = false;
        ready_ = r;
        panel_.hide_progress();
        panel_.view()->set_token_map(r.token_map);
        if (model_) store_.set_token_count(r.document_id, r.document_tokens, model_->path.toStdString());
        refresh_library();
        update_facts();
        emit documentReady(r);
    });
    connect(w, &EngineWorker::documentFailed, this,
            [this](qint64 id, const QString& message, bool cancelled) {
                if (id != current_id_) return;
                prefilling_ = false;
                panel_.hide_progress();
                update_facts(message);
                if (!cancelled) spdlog::warn("document {} not loaded: {}", id, message.toStdString());
                emit documentFailed(id, message);
            });
}

DocumentController::~DocumentController() {
    if (ingest_cancel_) ingest_cancel_->store(true);
    watcher_.waitForFinished();
}

void DocumentController::open_file(const QString& path) {
    if (ingesting()) {
        if (ingest_cancel_) ingest_cancel_->store(true);
        watcher_.waitForFinished();
    }
    ingest_path_ = path;
    ingest_cancel_ = std::make_shared<std::atomic<bool>>(false);
    panel_.show_progress(tr("Reading %1…").arg(path), 0, 0);
    // Progress hops to the GUI thread through a queued call on this object; the QPointer drops it
    // if the controller is gone by then.
    QPointer<DocumentController> self(this);
    auto progress = [self](int done, int total) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, done, total] {
                if (self && self->ingesting())
                    self->panel_.show_progress(tr("Extracting text: page %1 of %2").arg(done).arg(total),
                                               done, total);
            },
            Qt::QueuedConnection);
    };
    watcher_.setFuture(QtConcurrent::run([path, progress, cancel = ingest_cancel_]() -> IngestOutcome {
        IngestOutcome out;
        try {
            out.document = services::ingest_document(path, progress, cancel.get());
        } catch (const Cancelled&) {
            out.cancelled = true;
        } catch (const std::exception& e) {
            out.error = QString::fromStdString(e.what());
        }
        return out;
    }));
}

void DocumentController::on_ingested() {
    IngestOutcome out = watcher_.result();
    panel_.hide_progress();
    if (out.cancelled) return;
    if (!out.document) {
        dialogs_.show_error(dialog_parent_, tr("Cannot open document"), out.error);
        emit openFailed(ingest_path_, out.error);
        if (current_id_ >= 0 && prefilling_) panel_.show_progress(tr("Prefilling the document…"), 0, 0);
        return;
    }
    const services::IngestedDocument& d = *out.document;
    int64_t id = -1;
    try {
        services::NewDocument nd;
        nd.path = d.path.toStdString();
        nd.title = d.title.toStdString();
        nd.content_hash = d.content_hash;
        nd.format = d.format.toStdString();
        nd.text = d.text;
        nd.byte_size = d.byte_size;
        nd.page_offsets = d.page_offsets;
        id = store_.add_document(nd);
    } catch (const std::exception& e) {
        dialogs_.show_error(dialog_parent_, tr("Cannot save document"), QString::fromStdString(e.what()));
        return;
    }
    refresh_library();
    emit opened(id, d.path);
    show(id);
}

void DocumentController::show(int64_t id) {
    const auto rec = store_.document(id);
    if (!rec) return;
    if (prefill_cancel_) prefill_cancel_->store(true);
    prefilling_ = false;
    current_id_ = id;
    ready_.reset();
    text_ = std::make_shared<const std::string>(store_.document_text(id));
    store_.touch_document(id);
    panel_.show_document(QString::fromStdString(rec->title), QString::fromStdString(*text_),
                         rec->page_offsets);
    refresh_library();
    update_facts();
    emit shown(id);
    prefill();
}

void DocumentController::remove(int64_t id) {
    store_.remove_document(id);
    if (id == current_id_) {
        if (prefill_cancel_) prefill_cancel_->store(true);
        current_id_ = -1;
        text_.reset();
        ready_.reset();
        prefilling_ = false;
        panel_.hide_progress();
        panel_.clear_document();
        emit shown(-1);
    }
    refresh_library();
}

void DocumentController::set_model(std::optional<ModelInfo> model) {
    model_ = std::move(model);
    ready_.reset();
    panel_.view()->clear_shading();
    update_facts();
    prefill();
}

void DocumentController::stop() {
    if (ingest_cancel_) ingest_cancel_->store(true);
    if (prefill_cancel_) prefill_cancel_->store(true);
}

void DocumentController::refresh_library() {
    library_.set_documents(store_.documents());
}

void DocumentController::prefill() {
    if (current_id_ < 0 || !text_ || !model_) return;
    prefill_cancel_ = engine_.new_cancel_token();
    prefilling_ = true;
    emit prefillStarted(current_id_);
    panel_.show_progress(tr("Tokenizing the document…"), 0, 0);
    // Room for a typical question plus the longest answer when checking whether the document fits.
    const int reserve = settings_.generation.max_new_tokens + 64;
    engine_.post(
        [id = current_id_, text = text_, reserve, ignore = settings_.generation.ignore_context,
         cancel = prefill_cancel_](EngineWorker& w) { w.loadDocument(id, text, reserve, ignore, cancel); });
}

void DocumentController::update_facts(const QString& problem) {
    const auto rec = current_id_ >= 0 ? store_.document(current_id_) : std::nullopt;
    if (!rec) {
        panel_.set_facts(QString());
        return;
    }
    QString html = document_facts(*rec).toHtmlEscaped();
    if (model_ && ready_) {
        const int ctx = model_->context_length;
        html +=
            tr(" · <b>%1</b> of the model's %2-token context").arg(num(ready_->document_tokens), num(ctx));
        if (ctx > 0 && ready_->document_tokens > ctx)
            html += tr(" <span style='color:#b02020'>(longer than the context: allowed in Settings)</span>");
        html += tr(" · full KV %1").arg(QString::fromStdString(format_bytes(ready_->full_store_bytes)));
        if (ready_->from_kv_cache)
            html += tr(" · <span style='color:#206020'>opened from the K/V cache in %1 s</span> (no prefill)")
                        .arg(ready_->kv_cache_seconds, 0, 'f', ready_->kv_cache_seconds < 1 ? 2 : 1);
        else
            html +=
                tr(" · prefilled in %1 s (%2 tok/s)")
                    .arg(ready_->seconds, 0, 'f', 2)
                    .arg(num(static_cast<int64_t>(ready_->document_tokens / std::max(1e-6, ready_->seconds))));
        if (!ready_->kv_cache_note.isEmpty())
            html += QStringLiteral("<br><span style='color:#806000'>%1</span>").arg(ready_->kv_cache_note.toHtmlEscaped());
    } else if (!model_) {
        html += tr(" · open a model to ask questions");
    }
    if (!problem.isEmpty())
        html += QStringLiteral("<br><span style='color:#b02020'>%1</span>").arg(problem.toHtmlEscaped());
    panel_.set_facts(html);
}

}  // namespace snapdoc::ui
