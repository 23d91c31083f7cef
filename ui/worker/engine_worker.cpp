#include "ui/worker/engine_worker.h"

#include <spdlog/spdlog.h>

#include <QElapsedTimer>

#include "engine/common/error.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/model/model.h"
#include "engine/model/model_summary.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/gpu_self_check.h"
#include "engine/session/context_check.h"
#include "engine/session/document_chat.h"
#include "engine/session/prefill_estimate.h"
#include "engine/session/run_context.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"
#include "ui/inspector/selection_analysis.h"
#include "ui/worker/held_reselect.h"
#include "ui/worker/model_description.h"
#include "ui/worker/remote_state.h"
#include "ui/worker/text_coalescer.h"
#include "ui/widgets/number_format.h"

namespace snapdoc::ui {

struct EngineWorker::State {
    std::unique_ptr<Model> inspected;  // mapped by inspectModel, adopted by loadModel
    std::unique_ptr<Model> model;
    std::optional<Tokenizer> tokenizer;
    // tokenizer->max_input_bytes_per_token(), taken once per model (a BPE vocabulary is scanned).
    int max_bytes_per_token = 0;
    std::unique_ptr<Backend> backend;
    std::unique_ptr<DocumentChat> chat;
    std::unique_ptr<KvStoreCache> kv_cache;  // null: off
    QString model_path;                      // of the loaded model (its identity keys the K/V cache)
    ModelLoadOptions load_options;           // of the loaded model (a new run context rebuilds its backend)
    // The backend's context option (BackendOptions::context_length; 0 = the model's). LongRoPE's
    // factors depend on it, so it follows the document (document_run_context); a conversation that
    // outgrows it reads the document again at the model's context (long_context).
    int run_context = 0;
    bool long_context = false;
    void attach_kv_cache() {
        if (!chat) return;
        try {
            chat->set_kv_cache(
                kv_cache.get(),
                kv_cache ? kv_cache->model_identity(model_path.toStdString()) : ModelIdentity{}, run_context);
        } catch (const std::exception& e) {
            spdlog::warn("K/V cache off for this model: {}", e.what());
            chat->set_kv_cache(nullptr, {});
        }
    }
    ChatTemplateKind template_kind = ChatTemplateKind::Plain;
    qint64 document_id = -1;    // the prefilled document, -1 if none
    bool has_question = false;  // window scores exist (reselect possible)
    uint64_t question_serial = 0;
    std::shared_ptr<const std::string>
        document_text;  // of the last loadDocument (re-read on a new system prompt)
    std::shared_ptr<const std::string> document_text_run;  // the text long_context was decided for
    std::string next_system_prompt;    // what the next loadDocument reads the document with
    std::string loaded_system_prompt;  // what the prefilled document was read with
    QString question;                  // the last question asked
    // The last question's window scores, copied once per question (and window change) for the
    // snapshots: the engine's own are overwritten by the next question.
    std::shared_ptr<const WindowScores> scores;
    uint64_t scores_serial = 0;

    void drop_document() {
        document_id = -1;
        has_question = false;
        scores.reset();
    }
};

namespace {

QString qstr(const std::string& s) {
    return QString::fromStdString(s);
}

std::unique_ptr<Backend> make_worker_backend(const Model& model, const ModelLoadOptions& options,
                                             int context_length) {
    BackendOptions opts;
    opts.threads = std::max(0, options.threads);
    opts.context_length = context_length;
    // "auto" takes the GPU when one is usable; an explicit "cuda" without one is an error the
    // user sees (not a silent CPU fallback).
    return make_backend(model, opts, options.device.toStdString());
}

// Room for a question in the context a document is read with (document_run_context): the app does not
// know the questions yet; a longer one, or a conversation past it, reads the document again at the
// model's context (EngineWorker::run_ask).
constexpr int64_t kQuestionAllowanceTokens = 256;

}  // namespace

EngineWorker::EngineWorker(QObject* parent) : QObject(parent), s_(std::make_unique<State>()) {}

EngineWorker::~EngineWorker() = default;

void EngineWorker::inspectModel(const QString& path) {
    try {
        auto model = std::make_unique<Model>(load_model(path.toStdString()));
        const ModelInfo info = describe_model(*model, path);
        s_->inspected = std::move(model);
        emit modelInspected(info);
    } catch (const std::exception& e) {
        emit modelFailed(path, qstr(e.what()));
    }
}

void EngineWorker::drop_local_model() {
    s_->chat.reset();
    s_->backend.reset();
    s_->tokenizer.reset();
    s_->model.reset();
    s_->inspected.reset();
    s_->drop_document();
}

const std::string& EngineWorker::next_system_prompt() const {
    return s_->next_system_prompt;
}

void EngineWorker::loadModel(const QString& path, const ModelLoadOptions& options) {
    // Free the old model first: two large models rarely fit in memory together.
    remote_.reset();
    s_->chat.reset();
    s_->backend.reset();
    s_->tokenizer.reset();
    s_->model.reset();
    s_->drop_document();
    try {
        std::unique_ptr<Model> model;
        if (s_->inspected && s_->inspected->path == std::filesystem::path(path.toStdString()))
            model = std::move(s_->inspected);
        else
            model = std::make_unique<Model>(load_model(path.toStdString()));
        s_->inspected.reset();
        Tokenizer tok = Tokenizer::from_model(*model);
        const uint64_t checks_before = last_gpu_self_check().serial;
        auto backend = make_worker_backend(*model, options, 0);
        const GpuSelfCheckReport gpu_check = last_gpu_self_check();
        const ChatTemplateKind kind =
            choose_chat_template(model->chat_template, options.chat_template.toStdString());
        ModelInfo info = describe_model(*model, path);
        info.chat_template = qstr(std::string(chat_template_name(kind)));
        info.backend = qstr(backend->name());
        if (gpu_check.serial != checks_before) {  // this load went through the check (or its verdict)
            info.gpu_check = qstr(gpu_check.message);
            info.gpu_fell_back = gpu_check.fell_back;
        }
        s_->model = std::move(model);
        s_->tokenizer.emplace(std::move(tok));
        s_->max_bytes_per_token = s_->tokenizer->max_input_bytes_per_token();
        s_->backend = std::move(backend);
        s_->template_kind = kind;
        s_->chat = std::make_unique<DocumentChat>(*s_->backend, *s_->tokenizer, kind);
        s_->model_path = path;
        s_->load_options = options;
        s_->run_context = 0;
        s_->long_context = false;
        s_->attach_kv_cache();
        spdlog::info("model loaded: {} ({} backend, template {})", path.toStdString(), s_->backend->name(),
                     chat_template_name(kind));
        emit modelLoaded(info);
    } catch (const std::exception& e) {
        s_->chat.reset();
        s_->backend.reset();
        s_->tokenizer.reset();
        s_->model.reset();
        emit modelFailed(path, qstr(e.what()));
    }
}

void EngineWorker::loadDocument(qint64 document_id, std::shared_ptr<const std::string> text,
                                int reserve_tokens, bool ignore_context, CancelToken cancel) {
    s_->drop_document();
    if (remote_) return load_remote_document(document_id, std::move(text), reserve_tokens, std::move(cancel));
    if (!s_->chat) {
        emit documentFailed(document_id, tr("Open a model first."), false);
        return;
    }
    QElapsedTimer timer;
    timer.start();
    try {
        // The document part is built here (not by DocumentChat::load_document) so its token ids can
        // also give the position -> text map without encoding a 100K-token document twice.
        s_->document_text = text;
        // Too long to be worth encoding: a token stands for at most max_input_bytes_per_token bytes,
        // so the text has at least size / that many tokens. A 60 MB file was encoded for ~40 s with
        // no word before its refusal (issue 37); this one comes at once.
        if (const int bound = s_->max_bytes_per_token; bound > 0 && !ignore_context) {
            const int64_t at_least = static_cast<int64_t>(text->size()) / bound;
            const int ctx = s_->model->config.context_length;
            if (at_least > ctx) {
                emit documentFailed(
                    document_id,
                    tr("The document is at least %1 tokens (%2 MB of text), but the model's context is %3 "
                       "tokens. Use a shorter document, a model with a longer context, or allow longer "
                       "prompts in Settings.")
                        .arg(with_commas(at_least), QString::number(text->size() / 1e6, 'f', 1), with_commas(ctx)),
                    false);
                return;
            }
        }
        const std::string system_prompt = s_->next_system_prompt;
        const std::vector<int32_t> part =
            build_document_part(s_->template_kind, *s_->tokenizer, system_prompt, *text);
        // The shared up-front check (engine/session/context_check.h), before any prefill work.
        const ContextRoom room = context_room(static_cast<int64_t>(part.size()), reserve_tokens,
                                              s_->model->config.context_length, "document", ignore_context);
        if (!room.fits) {
            const int ctx = room.context_length;
            const int64_t needed = room.total;
            const int64_t doc_tokens = static_cast<int64_t>(part.size());
            // Say which part does not fit: the document itself, or the answer room after it.
            const QString message =
                doc_tokens > ctx
                    ? tr("The document is %1 tokens, but the model's context is %2 tokens (the document, a "
                         "question and the answer need about %3). Use a shorter document, a model with a "
                         "longer "
                         "context, or allow longer prompts in Settings.")
                          .arg(with_commas(doc_tokens), with_commas(ctx), with_commas(needed))
                    : tr("The document (%1 tokens) leaves no room for a question and an answer of up to %2 "
                         "tokens: together they need about %3 tokens, but the model's context is %4 tokens. "
                         "Lower the answer length or allow longer prompts in Settings.")
                          .arg(with_commas(doc_tokens), with_commas(reserve_tokens), with_commas(needed),
                               with_commas(ctx));
            emit documentFailed(document_id, message, false);
            return;
        }
        if (text != s_->document_text_run) s_->long_context = false;  // a new document starts short again
        s_->document_text_run = text;
        use_run_context(s_->long_context
                            ? 0
                            : document_run_context(s_->model->config.rope_scaling,
                                                   static_cast<int64_t>(part.size()) + reserve_tokens +
                                                       kQuestionAllowanceTokens));
        std::vector<std::string> pieces;
        pieces.reserve(part.size());
        for (int32_t id : part) pieces.push_back(s_->tokenizer->piece(id));
        auto map =
            std::make_shared<const TokenTextMap>(map_tokens_to_text(pieces, *text));
        if (!map->exact)
            spdlog::warn("token pieces do not match the document text; text positions are approximate");

        const int n_layers = s_->model->config.n_layers;
        // Know before you wait: a short measured probe predicts the prefill (skipped when short).
        // A document in the K/V cache needs no prefill, so no probe either.
        const PrefillEstimate estimate = s_->chat->kv_cache_has(part, system_prompt)
                                             ? PrefillEstimate{}
                                             : estimate_prefill(*s_->backend, part);
        emit documentEstimated(document_id, static_cast<int>(part.size()),
                               estimate.measured ? estimate.seconds : -1.0);
        emit documentProgress(document_id, 0, n_layers, 0.0, 0.0);
        QElapsedTimer prefill_timer;
        prefill_timer.start();
        s_->chat->load_document_tokens(
            part,
            [&](const PrefillProgress& p) {
                // With a measured cost model the fraction follows this machine's weights/attention mix.
                const double fraction =
                    estimate.measured
                        ? estimate.model.fraction_done(p.rows_total, p.total_layers, p.layer, p.rows_done)
                        : p.fraction;
                emit documentProgress(document_id, p.layers_done, p.total_layers, fraction,
                                      prefill_timer.elapsed() / 1000.0);
            },
            cancel.get(), system_prompt);
        s_->document_id = document_id;
        s_->loaded_system_prompt = system_prompt;
        DocumentReady ready;
        ready.document_id = document_id;
        ready.document_tokens = static_cast<int>(part.size());
        // What the template and the system prompt add around a one-token text, taken off the part:
        // the text's own count (the library's figure; it grew with a conversation's system prompt).
        const int around =
            static_cast<int>(
                build_document_part(s_->template_kind, *s_->tokenizer, system_prompt, "x").size()) -
            static_cast<int>(s_->tokenizer->encode("x").size());
        ready.text_tokens = std::max<int>(1, static_cast<int>(part.size()) - around);
        ready.seconds = timer.elapsed() / 1000.0;
        ready.full_store_bytes = s_->chat->session().full_store_bytes();
        ready.token_map = std::move(map);
        const KvCacheReport& cache = s_->chat->cache_report();
        ready.from_kv_cache = cache.served;
        ready.kv_cache_seconds = cache.served ? cache.load_seconds : cache.save_seconds;
        ready.kv_cache_note = qstr(cache.note);
        ready.run_context = s_->run_context;
        spdlog::info("document {}: {} tokens {} in {:.2f} s ({} layers)", document_id, part.size(),
                     ready.from_kv_cache ? "opened from the K/V cache" : "prefilled", ready.seconds,
                     n_layers);
        emit documentLoaded(ready);
    } catch (const Cancelled&) {
        emit documentFailed(document_id,
                            tr("Reading the document was stopped. Click it in the library to read it again."),
                            true);
    } catch (const std::exception& e) {
        emit documentFailed(document_id, qstr(e.what()), false);
    }
}

void EngineWorker::use_run_context(int context_length) {
    if (context_length == s_->run_context) return;
    s_->chat.reset();
    s_->backend.reset();
    s_->backend = make_worker_backend(*s_->model, s_->load_options, context_length);
    s_->chat = std::make_unique<DocumentChat>(*s_->backend, *s_->tokenizer, s_->template_kind);
    s_->run_context = context_length;
    s_->attach_kv_cache();
    if (context_length > 0)
        spdlog::info("LongRoPE short factors: the document chat runs with a {}-token context",
                     context_length);
}

void EngineWorker::setKvCache(const QString& dir, qint64 cap_bytes) {
    if (dir.isEmpty())
        s_->kv_cache.reset();
    else if (s_->kv_cache && s_->kv_cache->dir() == std::filesystem::path(dir.toStdString()))
        s_->kv_cache->set_cap_bytes(cap_bytes);
    else
        s_->kv_cache = std::make_unique<KvStoreCache>(dir.toStdString(), cap_bytes);
    if (s_->kv_cache) s_->kv_cache->evict();  // a lower cap applies now, not at the next save
    s_->attach_kv_cache();
}

void EngineWorker::setSystemPrompt(const std::string& system_prompt) {
    s_->next_system_prompt = system_prompt;
}

double EngineWorker::ensure_system_prompt(const std::string& system_prompt, const AskRequest& request) {
    if (system_prompt == s_->loaded_system_prompt || !s_->document_text) return 0;
    QElapsedTimer timer;
    timer.start();
    const qint64 id = s_->document_id;
    s_->next_system_prompt = system_prompt;
    // The system prompt comes before the document (the template's layout), so the document's K/V
    // change with it: the document is read again, reported like any document load.
    loadDocument(id, s_->document_text, request.generation.max_new_tokens, request.generation.ignore_context,
                 request.cancel);
    if (request.cancel && request.cancel->load()) throw Cancelled();
    if (s_->document_id != id)
        throw Error(tr("The document could not be read again with the new system prompt.").toStdString());
    return timer.elapsed() / 1000.0;
}

SelectionSnapshot EngineWorker::snapshot_of(std::shared_ptr<const Selection> selection,
                                            double select_seconds) const {
    const ModelConfig& c = s_->model->config;
    const DocumentSession& session = s_->chat->session();
    SelectionSnapshot snap;
    snap.question_serial = s_->question_serial;
    snap.document_tokens = session.document_tokens();
    snap.n_layers = c.n_layers;
    snap.n_heads = c.n_heads;
    snap.n_kv_heads = c.n_kv_heads;
    snap.head_dim = c.head_dim;
    snap.kv_bytes_full = session.full_bytes(selection->prompt_len);
    snap.kv_bytes_compressed = session.compressed_bytes(*selection);
    snap.layer_forward_calls = session.counters().layer_forward_calls;
    snap.select_seconds = select_seconds;
    snap.selection = std::move(selection);
    const WindowScores& ws = session.window_scores();
    if (!s_->scores || s_->scores_serial != s_->question_serial || s_->scores->window != ws.window ||
        s_->scores->prompt_len != ws.prompt_len) {
        s_->scores = std::make_shared<const WindowScores>(ws);
        s_->scores_serial = s_->question_serial;
    }
    snap.scores = s_->scores;
    snap.question = s_->question;
    snap.keep_whole_from = session.keep_whole_from();
    return snap;
}

AnswerStats EngineWorker::run_ask(const AskRequest& request, const SnapKvConfig& config, int side,
                                  std::shared_ptr<const Selection>* selection,
                                  std::shared_ptr<const std::vector<float>>* answer_attention) {
    if (!s_->chat) throw Error(tr("Open a model first.").toStdString());
    if (s_->document_id < 0) throw Error(tr("Open a document first.").toStdString());
    const double system_prompt_seconds = ensure_system_prompt(request.system_prompt.toStdString(), request);
    const std::string question = request.question.toStdString();
    const auto& gen = request.generation;
    std::vector<ChatTurn> history;
    history.reserve(request.history.size());
    for (const HistoryTurn& t : request.history)
        history.push_back({t.question.toStdString(), t.answer.toStdString()});
    // Past the run context (LongRoPE's short factors), the document is read again at the model's.
    if (s_->run_context > 0 &&
        int64_t{s_->chat->prompt_tokens_for(question, history)} + std::max(0, gen.max_new_tokens) >
            s_->run_context) {
        spdlog::info("document {}: the chat outgrows the {}-token context; read again at the model's context",
                     s_->document_id, s_->run_context);
        s_->long_context = true;
        const qint64 id = s_->document_id;
        loadDocument(id, s_->document_text, gen.max_new_tokens, gen.ignore_context, request.cancel);
        if (request.cancel && request.cancel->load()) throw Cancelled();
        if (s_->document_id != id) throw Error(tr("The document could not be read again.").toStdString());
    }
    // A conversation past the context leaves out its oldest turns (the engine's rule, DocumentChat::ask).
    if (!gen.ignore_context)
        history.erase(history.begin(),
                      history.begin() + s_->chat->turns_to_drop(question, history, gen.max_new_tokens));
    // The shared check (64-bit, bounded -n) before the question runs through any layer.
    const ContextRoom room =
        context_room(s_->chat->prompt_tokens_for(question, history), gen.max_new_tokens,
                     s_->model->config.context_length, "document + question + answer", gen.ignore_context);
    const int64_t needed = room.total, ctx = room.context_length;
    if (!room.fits)
        throw Error(
            tr("The document, this question and a %1-token answer need %2 tokens, but the model's context is "
               "%3. Shorten the question or the answer limit, or allow longer prompts in Settings.")
                .arg(gen.max_new_tokens)
                .arg(with_commas(needed), with_commas(ctx))
                .toStdString());
    AskOptions opts;
    opts.snapkv = config;
    opts.sampling = gen.sampling;
    opts.max_new_tokens = gen.max_new_tokens;
    opts.cancel = request.cancel.get();
    opts.history = std::move(history);
    opts.ignore_context = gen.ignore_context;
    opts.citations = side < 0;  // the comparison shows no sources
    TextCoalescer coalescer;
    const auto send = [&](const std::string& text) {
        if (text.empty()) return;
        if (side < 0)
            emit answerText(request.id, qstr(text));
        else
            emit compareText(request.id, side, qstr(text));
    };
    opts.on_text = [&](const std::string& piece) {
        if (auto text = coalescer.push(piece)) send(*text);
    };
    s_->has_question = false;
    // The serial and text are this question's from its selection on (answerSelection's snapshot).
    ++s_->question_serial;
    s_->question = request.question;
    if (side < 0)
        opts.on_selection = [&](const std::shared_ptr<const Selection>& sel) {
            emit answerSelection(request.id, snapshot_of(sel, 0));
        };
    const AskResult r = s_->chat->ask(question, opts);
    send(coalescer.flush());
    s_->has_question = true;
    AnswerStats st;
    st.request_id = request.id;
    st.answer = qstr(r.answer);
    st.stop_reason = QString::fromLatin1(stop_reason_name(r.generation.stop));
    st.prompt_tokens = r.generation.prompt_tokens;
    st.question_tokens = r.question_tokens;
    st.generated_tokens = static_cast<int>(r.generation.tokens.size());
    st.question_seconds = r.question_seconds;
    st.select_seconds = r.select_seconds;
    st.decode_seconds = r.generation.decode_seconds;
    st.kv_bytes_full = r.generation.kv_bytes_full;
    st.kv_bytes_compressed = r.generation.kv_bytes_compressed;
    st.history_turns = static_cast<int>(request.history.size());
    st.system_prompt_seconds = system_prompt_seconds;
    for (const Citation& c : r.citations)
        st.citations.push_back({c.first_token, c.last_token, c.weight, c.weak});
    if (selection) *selection = r.selection;
    if (answer_attention && !r.answer_attention.empty())
        *answer_attention = std::make_shared<const std::vector<float>>(r.answer_attention);
    return st;
}

void EngineWorker::ask(const AskRequest& request) {
    if (remote_) return ask_remote(request);
    try {
        std::shared_ptr<const Selection> selection;
        std::shared_ptr<const std::vector<float>> attention;
        const AnswerStats st = run_ask(request, request.snapkv, -1, &selection, &attention);
        SelectionSnapshot snap = snapshot_of(selection, st.select_seconds);
        snap.answer_attention = std::move(attention);
        emit answerFinished(st, snap);
    } catch (const Cancelled&) {
        emit answerFailed(request.id, tr("Stopped before the answer started."));
    } catch (const std::exception& e) {
        emit answerFailed(request.id, qstr(e.what()));
    }
}

void EngineWorker::reselect(const SnapKvConfig& config) {
    if (remote_) {
        emit selectionFailed(tr("The remote engine does not expose its kept positions: there is nothing to re-select."));
        return;
    }
    if (!s_->chat || !s_->has_question) {
        emit selectionFailed(tr("Ask a question first: the selection is scored against it."));
        return;
    }
    try {
        QElapsedTimer timer;
        timer.start();
        auto selection = s_->chat->reselect(config);
        emit selectionReady(snapshot_of(std::move(selection), timer.nsecsElapsed() / 1e9));
    } catch (const std::exception& e) {
        emit selectionFailed(qstr(e.what()));
    }
}

void EngineWorker::reselectFor(const SnapKvConfig& config, const SelectionSnapshot& base) {
    if (remote_) return reselect(config);
    if (s_->chat && s_->has_question && base.question_serial == s_->question_serial) return reselect(config);
    try {
        emit selectionReady(reselect_held(base, config));
    } catch (const std::exception& e) {
        emit selectionFailed(qstr(e.what()));
    }
}

void EngineWorker::compare(const AskRequest& request) {
    if (remote_) {
        emit compareFailed(request.id, tr("Comparing the full cache with SnapKV needs a local model: the remote "
                                          "engine answers with its own cache."));
        return;
    }
    try {
        CompareResult result;
        result.request_id = request.id;
        result.question = request.question;
        SnapKvConfig full = request.snapkv;
        full.enabled = false;
        result.full = run_ask(request, full, 0, nullptr);
        std::shared_ptr<const Selection> selection;
        result.snapkv = run_ask(request, request.snapkv, 1, &selection);
        result.kept_fraction = selection ? kept_fraction(*selection) : 1.0;
        emit compareFinished(result);
        emit selectionReady(snapshot_of(selection, result.snapkv.select_seconds));
    } catch (const Cancelled&) {
        emit compareFailed(request.id, tr("Stopped."));
    } catch (const std::exception& e) {
        emit compareFailed(request.id, qstr(e.what()));
    }
}

}  // namespace snapdoc::ui
