#include "ui/main/document_controller.h"

#include <spdlog/spdlog.h>

#include <QEvent>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include "app/services/library_store.h"
#include "engine/common/error.h"
#include "engine/model/model_summary.h"
#include "engine/session/prefill_estimate.h"
#include "ui/dialogs/dialog_provider.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/models/library_model.h"
#include "ui/widgets/sentence_case.h"
#include "ui/worker/engine_host.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/app_theme.h"

namespace snapdoc::ui {

namespace {

// Progress bar steps: the bar moves per chunk (a fraction of the cost-weighted work).
constexpr int kProgressSteps = 1000;

QString duration_text(double seconds) {
    return QString::fromStdString(format_duration(seconds));
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
    panel_.installEventFilter(this);  // a theme change redraws the facts' coloured spans

    EngineWorker* w = engine_.worker();
    connect(w, &EngineWorker::documentEstimated, this, [this](qint64 id, int tokens, double seconds) {
        if (id != current_id_ || !prefilling_) return;
        estimate_seconds_ = seconds;
        time_left_ = PrefillTimeLeft(seconds);
        prefill_tokens_ = tokens;
        if (!prefill_started_) {
            prefill_started_ = true;
            emit prefillStarted(id);
        }
        update_facts();
        panel_.show_progress(model_ && model_->remote()   ? tr("Sending the document to %1…").arg(model_->remote_url)
                             : seconds >= 0 ? tr("Prefilling: %1 (estimate)").arg(duration_text(seconds))
                                            : tr("Prefilling…"),
                             0, kProgressSteps);
        emit prefillEstimated(id, tokens, seconds);
    });
    connect(w, &EngineWorker::documentProgress, this,
            [this](qint64 id, int done, int total, double fraction, double elapsed) {
                if (id != current_id_ || !prefilling_) return;
                if (!prefill_started_) {
                    prefill_started_ = true;
                    emit prefillStarted(id);
                }
                // Short on purpose: the bar is as narrow as the document column (the long form is in
                // the facts line above it), so nothing is clipped.
                // An estimate, and said so: the probe's until the first chunks are timed, then the
                // measured recent rate (which follows the machine's load).
                if (total == 0) {
                    // A remote snapdoc-server prefilling the uploaded document: only its share done.
                    panel_.show_progress(tr("On the server: %1%").arg(static_cast<int>(fraction * 100)),
                                         static_cast<int>(fraction * kProgressSteps + 0.5), kProgressSteps);
                    emit prefillProgress(id, done, total, fraction);
                    return;
                }
                time_left_.observe(fraction, elapsed);
                const double left = time_left_.remaining();
                const QString when =
                    left < 0 ? tr("estimating time left") : tr("%1 left (estimate)").arg(duration_text(left));
                if (time_left_.corrected()) update_facts();
                const int layer = std::min(total, done + 1);
                panel_.show_progress(tr("Layer %1/%2 · %3% · %4")
                                         .arg(layer)
                                         .arg(total)
                                         .arg(static_cast<int>(fraction * 100))
                                         .arg(when),
                                     static_cast<int>(fraction * kProgressSteps + 0.5), kProgressSteps);
                emit prefillProgress(id, done, total, fraction);
            });
    connect(w, &EngineWorker::documentLoaded, this, [this](const DocumentReady& r) {
        if (r.document_id != current_id_) return;  // the user moved on meanwhile
        prefilling_ = false;
        ready_ = r;
        panel_.hide_progress();
        panel_.view()->set_token_map(r.token_map);
        // The text's own count (no template, no system prompt): the library's figure for the document.
        if (model_) store_.set_token_count(r.document_id, r.text_tokens, model_->path.toStdString());
        refresh_library();
        update_facts();
        emit documentReady(r);
    });
    connect(w, &EngineWorker::documentFailed, this,
            [this](qint64 id, const QString& message, bool cancelled) {
                if (id != current_id_) return;
                prefilling_ = false;
                panel_.hide_progress();
                refusal_ = cancelled ? QString() : message;
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
    // A scan's pages are recognised by OCR (seconds a page): each page is said, with the time left.
    documents::OcrOptions ocr;
    ocr.language = settings_.documents.ocr_language;  // Settings > Documents; "" = the locale's, else English
    ocr.progress = [self](const documents::OcrProgress& p) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, p] {
                if (!self || !self->ingesting()) return;
                QString text = tr("Recognising scanned page %1 (OCR): %2 of %3").arg(p.page).arg(p.index).arg(p.count);
                if (p.seconds_left >= 0) text += tr(", %1 left").arg(duration_text(p.seconds_left));
                self->panel_.show_progress(text, p.index - 1, p.count);
            },
            Qt::QueuedConnection);
        return true;  // Stop sets the ingest's cancel flag, which the OCR checks too
    };
    watcher_.setFuture(QtConcurrent::run([path, progress, ocr, cancel = ingest_cancel_]() -> IngestOutcome {
        IngestOutcome out;
        try {
            out.document = services::ingest_document(path, progress, cancel.get(), ocr);
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
        dialogs_.show_error(dialog_parent_, tr("Cannot open document"), sentence_case(out.error));
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
        nd.recognised_pages = d.recognised_pages;
        nd.ocr_language = d.ocr_language.toStdString();
        id = store_.add_document(nd);
    } catch (const std::exception& e) {
        dialogs_.show_error(dialog_parent_, tr("Cannot save document"), sentence_case(QString::fromStdString(e.what())));
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
    refusal_.clear();
    recognised_note_.clear();
    if (!rec->recognised_pages.empty()) {
        QStringList pages;
        for (int page : rec->recognised_pages) pages << QString::number(page + 1);
        recognised_note_ = tr("%n page(s) recognised by OCR (%1): %2. Their text is Tesseract's reading of "
                              "the scanned image, not text the PDF contains.",
                              nullptr, static_cast<int>(pages.size()))
                               .arg(QString::fromStdString(rec->ocr_language), pages.join(QStringLiteral(", ")));
    }
    text_ = std::make_shared<const std::string>(store_.document_text(id));
    store_.touch_document(id);
    panel_.show_document(QString::fromStdString(rec->title), QString::fromStdString(*text_), rec->page_offsets,
                         QString::fromStdString(rec->format));
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
        recognised_note_.clear();
        prefilling_ = false;
        panel_.hide_progress();
        panel_.clear_document();
        emit shown(-1);
    }
    refresh_library();
}

void DocumentController::set_model(std::optional<ModelInfo> model) {
    model_ = std::move(model);
    library_.set_current_model(model_ ? model_->path.toStdString() : std::string());
    ready_.reset();
    panel_.view()->clear_shading();
    update_facts();
    prefill();
}

void DocumentController::stop() {
    if (ingest_cancel_) ingest_cancel_->store(true);
    if (prefill_cancel_) prefill_cancel_->store(true);
}

bool DocumentController::resume() {
    if (current_id_ < 0 || !text_ || !model_ || ready_ || busy()) return false;
    prefill();
    return true;
}

void DocumentController::refresh_library() {
    library_.set_documents(store_.documents());
}

void DocumentController::settings_changed() {
    if (current_id_ < 0 || !text_ || !model_ || ready_ || prefilling_) return;
    prefill();
}

void DocumentController::prefill() {
    if (current_id_ < 0 || !text_ || !model_) return;
    prefill_cancel_ = engine_.new_cancel_token();
    prefilling_ = true;
    refusal_.clear();
    estimate_seconds_ = -1;
    time_left_ = PrefillTimeLeft();
    prefill_tokens_ = 0;
    prefill_started_ = false;
    // prefillStarted follows once the worker has checked the document against the context.
    panel_.show_progress(tr("Tokenizing and checking the document…"), 0, 0);
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
    // Colours picked for a light theme, mirrored on a dark one (and redone when the theme changes).
    const QString error_color = palette_color_name(QColor(0xb0, 0x20, 0x20), panel_),
                  good_color = palette_color_name(QColor(0x20, 0x60, 0x20), panel_),
                  note_color = palette_color_name(QColor(0x80, 0x60, 0x00), panel_);
    QString html = document_facts(*rec, model_ ? model_->path.toStdString() : std::string()).toHtmlEscaped();
    if (model_ && ready_) {
        const int ctx = model_->context_length;
        html +=
            tr(" · <b>%1</b> of the model's %2-token context").arg(with_commas(ready_->document_tokens), with_commas(ctx));
        if (ctx > 0 && ready_->document_tokens > ctx)
            html += tr(" <span style='color:%1'>(longer than the context: allowed in Settings)</span>").arg(error_color);
        // The f16 store re-selection reads (the inspector's figures are the f16 cache attention reads).
        html += tr(" · K/V store %1 (f16)").arg(QString::fromStdString(format_bytes(ready_->full_store_bytes)));
        if (ready_->from_kv_cache)
            html += tr(" · <span style='color:%1'>opened from the K/V cache in %2 s</span> (no prefill)")
                        .arg(good_color)
                        .arg(ready_->kv_cache_seconds, 0, 'f', ready_->kv_cache_seconds < 1 ? 2 : 1);
        else
            html +=
                tr(" · prefilled in %1 s (%2 tok/s)")
                    .arg(ready_->seconds, 0, 'f', 2)
                    .arg(with_commas(static_cast<int64_t>(ready_->document_tokens / std::max(1e-6, ready_->seconds))));
        if (!ready_->kv_cache_note.isEmpty())
            html += QStringLiteral("<br><span style='color:%1'>%2</span>").arg(note_color, ready_->kv_cache_note.toHtmlEscaped());
        if (estimate_seconds_ >= 0 && !ready_->from_kv_cache)
            html += tr(" (the probe estimated %1)").arg(duration_text(estimate_seconds_).remove(QStringLiteral("about ")));
    } else if (!model_) {
        html += tr(" · open a model to ask questions");
    } else if (prefilling_ && prefill_tokens_ > 0) {
        const double total = time_left_.total();
        html += total >= 0 ? (time_left_.corrected()
                                  ? tr(" · prefilling %1 tokens: estimated %2 in all at the measured rate")
                                  : tr(" · prefilling %1 tokens: estimated %2 on this machine (probe)"))
                                 .arg(with_commas(prefill_tokens_), duration_text(total).remove(QStringLiteral("about ")))
                                       : tr(" · prefilling %1 tokens").arg(with_commas(prefill_tokens_));
    }
    if (!recognised_note_.isEmpty())
        html += QStringLiteral("<br><span style='color:%1'>%2</span>").arg(note_color, recognised_note_.toHtmlEscaped());
    const QString shown_problem = problem.isEmpty() ? refusal_ : problem;
    if (!shown_problem.isEmpty())
        html += QStringLiteral("<br><span style='color:%1'>%2</span>").arg(error_color, shown_problem.toHtmlEscaped());
    panel_.set_facts(html);
}

bool DocumentController::eventFilter(QObject* watched, QEvent* event) {
    if (watched == &panel_ && event->type() == QEvent::PaletteChange) update_facts();
    return QObject::eventFilter(watched, event);
}

}  // namespace snapdoc::ui
