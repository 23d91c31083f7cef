#include "ui/main/chat_controller.h"

#include <spdlog/spdlog.h>

#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QRegularExpression>
#include <QStandardPaths>
#include <algorithm>

#include "app/common/document_pages.h"
#include "app/services/conversation_export.h"
#include "app/services/library_store.h"
#include "engine/common/error.h"
#include "ui/chat/answer_format.h"
#include "ui/chat/chat_panel.h"
#include "ui/chat/chat_view.h"
#include "ui/chat/citation_format.h"
#include "ui/dialogs/compare_dialog.h"
#include "ui/dialogs/dialog_provider.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/inspector/selection_analysis.h"
#include "ui/main/conversation_selection.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"
#include "ui/worker/engine_host.h"

namespace snapdoc::ui {

namespace {

constexpr const char* kExportDirKey = "export_last_dir";

ChatMessage message_of(const services::MessageRecord& m) {
    ChatMessage c;
    c.id = m.id;
    c.role = QString::fromStdString(m.role);
    c.text = QString::fromStdString(m.text);
    c.settings_json = m.settings_json;
    c.stats_json = m.stats_json;
    c.model = m.model;
    c.citations = parse_citations_json(m.citations_json);
    if (m.role == "assistant") c.meta = meta_line_from_json(m.stats_json);
    return c;
}

// The settings stored with an answer: the sampling (with the seed actually used) and SnapKV.
std::string settings_json_of(const services::GenerationSettings& g, const SnapKvConfig& s) {
    return services::answer_settings_json(g, s);
}

}  // namespace

ChatController::ChatController(EngineHost& engine, services::LibraryStore& store,
                               services::AppSettings& settings, ChatModel& messages,
                               ConversationModel& conversations, ChatPanel& panel, InspectorPanel& inspector,
                               QObject* parent)
    : QObject(parent),
      engine_(engine),
      store_(store),
      settings_(settings),
      messages_(messages),
      conversations_(conversations),
      panel_(panel),
      inspector_(inspector) {
    EngineWorker* w = engine_.worker();
    connect(w, &EngineWorker::answerSelection, this, [this](quint64 id, const SelectionSnapshot& snap) {
        // Made before decoding: the inspector and the document show what this answer keeps while it
        // streams; the previous answer's weights and citation highlight are not this one's.
        if (id != request_id_) return;
        inspector_.set_snapshot(snap);
        emit selectionShown(snap);
        emit answerWeightsChanged(nullptr);
        emit citationHighlightCleared();
    });
    connect(w, &EngineWorker::answerText, this, [this](quint64 id, const QString& text) {
        if (id == request_id_) messages_.append_text(answer_row_, text);
    });
    connect(
        w, &EngineWorker::answerFinished, this, [this](const AnswerStats& st, const SelectionSnapshot& snap) {
            if (st.request_id != request_id_) return;
            if (st.stop_reason == QLatin1String("cancelled") && st.answer.trimmed().isEmpty()) {
                // Stopped at 0 tokens: an empty answer is no answer; keep neither card nor message
                // (the history sent with later questions must not contain it either).
                drop_answer_card(tr("Stopped before any text: no answer was kept."));
                inspector_.set_snapshot(snap);
                emit selectionShown(snap);
                emit answerDone(st);
                emit busyChanged(false);
                if (reselect_pending_) send_reselect();
                return;
            }
            ChatMessage m = messages_.at(answer_row_);
            m.streaming = false;
            m.text = st.answer;  // the engine's text is authoritative (it includes the flushed tail)
            m.meta = answer_meta_line(st);
            // A remote engine keeps no positions the app can see: no selection, nothing kept to show.
            m.stats_json = answer_stats_json(st, snap.valid() ? kept_fraction(*snap.selection) : 1.0);
            m.settings_json = settings_json_of(request_generation_, snap.valid() ? snap.selection->config : settings_.snapkv);
            m.model = request_model_;
            m.citations = resolve_citations(st.citations, document_ ? document_->token_map.get() : nullptr,
                                            document_text(), document_pages());
            try {
                if (conversation_id_ >= 0) {
                    services::MessageRecord rec{0, conversation_id_, "assistant", m.text.toStdString(),
                                                m.settings_json, m.stats_json, 0};
                    rec.model = m.model;
                    rec.citations_json = citations_json(m.citations);
                    m.id = store_.add_message(rec);
                }
            } catch (const std::exception& e) {
                panel_.set_status(tr("The answer could not be saved: %1").arg(e.what()), true);
            }
            messages_.replace(answer_row_, m);
            request_id_ = 0;
            answer_row_ = -1;
            panel_.set_speed(speed_line(st));
            if (model_) panel_.set_context(st.prompt_tokens + st.generated_tokens, model_->context_length);
            if (snap.valid()) {
                if (m.id > 0) keep_turn_snapshot(m.id, snap);
                inspector_.set_snapshot(snap);
                emit selectionShown(snap);
                emit answerWeightsChanged(snap.answer_attention);
            }
            load_conversations(conversation_id_);
            update_panel(st.stop_reason == "cancelled" ? tr("Stopped.") : QString(" "));
            emit answerDone(st);
            emit busyChanged(false);
            if (reselect_pending_) send_reselect();  // controls moved while the answer streamed
        });
    connect(w, &EngineWorker::answerFailed, this, [this](quint64 id, const QString& message) {
        if (id != request_id_) return;
        if (cancel_ && cancel_->load()) {
            // Stopped before the first token (during the question's prefill): nothing to keep.
            drop_answer_card(tr("Stopped before the answer started: no answer was kept."));
            emit answerError(message);
            emit busyChanged(false);
            return;
        }
        ChatMessage m = messages_.at(answer_row_);
        m.streaming = false;
        m.failed = true;
        if (m.text.isEmpty()) m.text = message;
        m.meta = message;
        messages_.replace(answer_row_, m);
        request_id_ = 0;
        answer_row_ = -1;
        update_panel(message);
        emit answerError(message);
        emit busyChanged(false);
    });
    connect(w, &EngineWorker::selectionReady, this, [this](const SelectionSnapshot& snap) {
        reselect_in_flight_ = false;
        ++reselects_done_;
        // Only a re-selection of the question on screen: one that was in flight when another
        // conversation (or a comparison's own run) took its place is not shown.
        if (inspector_.snapshot().valid() && snap.question_serial == inspector_.snapshot().question_serial) {
            inspector_.set_snapshot(snap);
            emit selectionShown(snap);
        }
        if (reselect_pending_) send_reselect();
    });
    connect(w, &EngineWorker::selectionFailed, this, [this](const QString& message) {
        reselect_in_flight_ = false;
        panel_.set_status(message, true);
        if (reselect_pending_) send_reselect();
    });
    connect(w, &EngineWorker::compareText, this, [this](quint64 id, int side, const QString& text) {
        if (id == compare_id_ && compare_dialog_) compare_dialog_->append(side, text);
    });
    connect(w, &EngineWorker::compareFinished, this, [this](const CompareResult& r) {
        if (r.request_id != compare_id_) return;
        compare_id_ = 0;
        if (compare_dialog_) compare_dialog_->finish(r);
        update_panel(QString(" "));
        emit busyChanged(false);
    });
    connect(w, &EngineWorker::compareFailed, this, [this](quint64 id, const QString& message) {
        if (id != compare_id_) return;
        compare_id_ = 0;
        if (compare_dialog_) compare_dialog_->fail(message);
        update_panel(message);
        emit busyChanged(false);
    });

    ChatView* view = panel_.view();
    connect(view, &ChatView::clicked, this, [this](const QModelIndex& i) { show_turn(i.row()); });
    connect(view, &ChatView::citationClicked, this, &ChatController::activate_citation);
    connect(&panel_, &ChatPanel::renameConversationRequested, this, &ChatController::rename_conversation);
    connect(&panel_, &ChatPanel::deleteConversationRequested, this, &ChatController::delete_conversation);
    connect(&panel_, &ChatPanel::systemPromptRequested, this, &ChatController::edit_system_prompt);
    connect(&panel_, &ChatPanel::searchChanged, this, &ChatController::search);
}

void ChatController::drop_answer_card(const QString& status) {
    messages_.remove_row(answer_row_);
    request_id_ = 0;
    answer_row_ = -1;
    update_panel(status);
}

const std::vector<int>& ChatController::document_pages() {
    if (!document_pages_loaded_ && document_id_ >= 0) {
        const auto record = store_.document(document_id_);
        // A list that does not fit the text (a damaged library) gives no pages, not wrong ones;
        // the text's UTF-8 bytes bound its UTF-16 length.
        if (record && usable_page_starts(record->page_offsets, record->text_chars))
            document_pages_ = record->page_offsets;
        document_pages_loaded_ = true;
    }
    return document_pages_;
}

const QString& ChatController::document_text() {
    if (!document_text_loaded_ && document_id_ >= 0) {
        document_text_ = QString::fromStdString(store_.document_text(document_id_));
        document_text_loaded_ = true;
    }
    return document_text_;
}

void ChatController::set_document(int64_t id, const QString& title) {
    stop();
    document_id_ = id;
    document_title_ = title;
    document_text_.clear();
    document_pages_.clear();
    document_pages_loaded_ = false;
    document_text_loaded_ = false;
    turn_snapshots_.clear();
    turn_order_.clear();
    conversation_id_ = -1;
    if (id >= 0) {
        const auto list = store_.conversations(id);
        if (!list.empty()) conversation_id_ = list.front().id;
    }
    load_conversations(conversation_id_);
    load_messages();
    panel_.set_speed(QString());
    // Before the document's prefill is posted (DocumentController does it right after `shown`),
    // so the document is read with this conversation's system prompt the first time.
    const std::string prompt = effective_system_prompt().toStdString();
    engine_.post([prompt](EngineWorker& w) { w.setSystemPrompt(prompt); });
}

void ChatController::set_engine_state(std::optional<ModelInfo> model, std::optional<DocumentReady> document,
                                      const QString& hint) {
    // Another model's selections do not fit its inspector.
    if (model && (!model_ || model->path != model_->path)) {
        turn_snapshots_.clear();
        turn_order_.clear();
    }
    model_ = std::move(model);
    document_ = std::move(document);
    if (model_)
        panel_.set_context(document_ ? document_->document_tokens : 0, model_->context_length);
    else
        panel_.set_context(0, 0);
    update_panel(hint);
}

void ChatController::update_panel(const QString& hint) {
    panel_.set_state(busy(), can_ask(), hint);
    // Regenerate needs a question, Copy an answer (both did nothing, silently, without one).
    bool question = false, answer = false;
    for (const ChatMessage& m : messages_.messages()) {
        question = question || m.role == QLatin1String("user");
        answer = answer || (m.role == QLatin1String("assistant") && !m.streaming && !m.failed && !m.text.isEmpty());
    }
    panel_.set_turn_actions(!busy() && can_ask() && question, answer, !busy() && question);
}

QString ChatController::effective_system_prompt() const {
    return system_prompt_.isEmpty() ? QString::fromStdString(settings_.generation.system_prompt) : system_prompt_;
}

bool ChatController::ask(const QString& question) {
    if (busy() || !can_ask() || question.trimmed().isEmpty()) return false;
    // The turns before this question, for the prompt (oldest first).
    std::vector<HistoryTurn> history = conversation_turns(messages_.messages());
    try {
        if (conversation_id_ < 0) {
            const QString line = question.simplified();
            const QString title = line.size() > 60 ? line.left(57) + QStringLiteral("…") : line;
            conversation_id_ =
                store_.create_conversation(document_id_, title.toStdString(), model_->path.toStdString());
            if (!system_prompt_.isEmpty())
                store_.set_conversation_system_prompt(conversation_id_, system_prompt_.toStdString());
        }
        ChatMessage user;
        user.role = QStringLiteral("user");
        user.text = question;
        user.id = store_.add_message({0, conversation_id_, "user", question.toStdString(), "{}", "{}", 0});
        messages_.append(user);
        load_conversations(conversation_id_);
    } catch (const std::exception& e) {
        panel_.set_status(tr("The question could not be saved: %1").arg(e.what()), true);
        return false;
    }
    panel_.question_edit()->clear();
    start_request(question, std::move(history), 0);
    return true;
}

void ChatController::start_request(const QString& question, std::vector<HistoryTurn> history,
                                   int earlier_versions) {
    ChatMessage a;
    a.role = QStringLiteral("assistant");
    a.streaming = true;
    answer_row_ = messages_.append(a);
    request_id_ = next_id_++;
    cancel_ = engine_.new_cancel_token();
    question_ = question;
    request_generation_ = settings_.generation;
    // Stored with the answer (its settings): the system prompt it was really asked with, so an
    // export can tell answers asked before a change of the conversation's system prompt.
    request_generation_.system_prompt = effective_system_prompt().toStdString();
    // A regenerated version must be able to differ from the earlier ones (same seed, same prompt:
    // the same sampled text), and stay reproducible: seed + k for the k-th regenerated version.
    request_generation_.sampling.seed += static_cast<uint64_t>(earlier_versions);
    request_model_ = model_ ? model_->path.toStdString() : std::string();
    // The answer's stored settings name the system prompt it was asked with (the conversation's or
    // the default as it was then): an export shows that, not today's (issue 23 item 24).
    request_generation_.system_prompt = effective_system_prompt().toStdString();
    AskRequest req{request_id_, question, settings_.snapkv, request_generation_, cancel_};
    req.history = std::move(history);
    req.system_prompt = effective_system_prompt();
    engine_.post([req](EngineWorker& w) { w.ask(req); });
    update_panel(tr("Answering…"));
    emit answerStarted(request_id_);
    emit busyChanged(true);
}

void ChatController::stop() {
    if (cancel_) cancel_->store(true);
}

void ChatController::regenerate() {
    if (busy() || !can_ask()) return;
    const int q = messages_.question_row_of(messages_.rowCount() - 1);
    if (q < 0) return;
    // The earlier versions stay (card and store); the new one goes after them, asked with the
    // same history as the first one (the turns before this question).
    const std::vector<ChatMessage> before(messages_.messages().begin(), messages_.messages().begin() + q);
    int versions = 0;
    for (int r = q + 1; r < messages_.end_of_turn(q); ++r)
        if (!messages_.at(r).streaming) ++versions;
    const QString question = messages_.at(q).text;  // a copy: start_request appends to the model
    start_request(question, conversation_turns(before), versions);
}

void ChatController::edit_last_question() {
    if (busy()) return;
    const int q = messages_.question_row_of(messages_.rowCount() - 1);
    if (q < 0) return;
    const QString question = messages_.at(q).text;
    try {
        for (int r = q; r < messages_.rowCount(); ++r) {
            const int64_t id = messages_.at(r).id;
            if (id <= 0) continue;
            store_.delete_message(id);
            turn_snapshots_.erase(id);
            turn_order_.erase(std::remove(turn_order_.begin(), turn_order_.end(), id), turn_order_.end());
        }
    } catch (const std::exception& e) {
        panel_.set_status(tr("The question could not be removed: %1").arg(e.what()), true);
        return;
    }
    messages_.remove_from(q);
    panel_.question_edit()->setText(question);
    panel_.question_edit()->setFocus();
    show_active_conversation();  // the inspector shows the turn before it (or nothing)
    update_panel(tr("Edit the question and ask it again."));
}

void ChatController::copy_answer() {
    const QString text = panel_.view()->current_text();
    if (!text.isEmpty()) QGuiApplication::clipboard()->setText(text);
}

void ChatController::compare(const QString& question_in) {
    if (busy() || !can_ask()) return;
    QString question = question_in;
    // Asked as the chat asks it: after the conversation's earlier turns (it ran alone, so its
    // prompt was not the chat's: 1803 positions against 1867).
    std::vector<HistoryTurn> history = conversation_turns(messages_.messages());
    if (question.isEmpty()) {
        // Default: the last question asked, with the turns before it.
        const auto& all = messages_.messages();
        for (int r = static_cast<int>(all.size()) - 1; r >= 0; --r)
            if (all[static_cast<std::size_t>(r)].role == QLatin1String("user")) {
                question = all[static_cast<std::size_t>(r)].text;
                history = conversation_turns(std::vector<ChatMessage>(all.begin(), all.begin() + r));
                break;
            }
    }
    if (question.isEmpty()) {
        panel_.set_status(tr("Type a question to compare."), true);
        return;
    }
    if (!compare_dialog_) {
        compare_dialog_ = new CompareDialog(panel_.window());
        compare_dialog_->setAttribute(Qt::WA_DeleteOnClose);
        // Esc (or closing) in the comparison window closes it; the comparison must stop with it,
        // not run on unseen and keep the chat busy.
        connect(compare_dialog_, &QDialog::finished, this, [this] {
            if (compare_id_ != 0) stop();
        });
    }
    // A re-selection still waiting goes first: run after the comparison, it would find the
    // engine on the comparison's question and not the one on screen.
    if (reselect_pending_) send_reselect();
    compare_dialog_->start(question);
    compare_dialog_->show();
    compare_id_ = next_id_++;
    cancel_ = engine_.new_cancel_token();
    AskRequest req{compare_id_, question, settings_.snapkv, settings_.generation, cancel_};
    req.history = std::move(history);
    req.system_prompt = effective_system_prompt();
    engine_.post([req](EngineWorker& w) { w.compare(req); });
    update_panel(tr("Comparing full cache and SnapKV…"));
    emit busyChanged(true);
}

void ChatController::new_conversation() {
    if (busy()) return;
    conversation_id_ = -1;  // created with the first question
    system_prompt_.clear();
    panel_.set_system_prompt_text(QString());
    messages_.set_messages({});
    load_conversations(-1);
    panel_.set_speed(QString());
    update_panel();
    show_active_conversation();
}

void ChatController::choose_conversation(int row) {
    if (busy() || row < 0 || row >= conversations_.rowCount()) return;
    conversation_id_ = conversations_.at(row).id;
    load_messages();
    show_active_conversation();
}

void ChatController::rename_conversation() {
    if (busy() || conversation_id_ < 0 || !dialogs_) {
        if (conversation_id_ < 0) panel_.set_status(tr("Ask a question first: there is no conversation yet."));
        return;
    }
    const auto rec = store_.conversation(conversation_id_);
    QString title = rec ? QString::fromStdString(rec->title) : QString();
    if (!dialogs_->edit_text(panel_.window(), tr("Rename conversation"), tr("Title:"), title, false)) return;
    rename_conversation_to(title);
}

void ChatController::rename_conversation_to(const QString& title) {
    const QString t = title.simplified();
    if (conversation_id_ < 0 || t.isEmpty()) return;
    try {
        store_.rename_conversation(conversation_id_, t.toStdString());
    } catch (const std::exception& e) {
        panel_.set_status(tr("Could not rename the conversation: %1").arg(e.what()), true);
        return;
    }
    load_conversations(conversation_id_);
}

void ChatController::delete_conversation() {
    if (busy() || conversation_id_ < 0) return;
    const auto rec = store_.conversation(conversation_id_);
    const QString title = rec ? QString::fromStdString(rec->title) : QString();
    if (!dialogs_ ||
        !dialogs_->confirm(panel_.window(), tr("Delete conversation?"),
                           tr("Delete “%1” and its %2? This cannot be undone.")
                               .arg(title.toHtmlEscaped())
                               .arg(rec && rec->message_count == 1
                                        ? tr("1 message")
                                        : tr("%1 messages").arg(rec ? rec->message_count : 0)),
                           tr("Delete")))
        return;
    try {
        store_.delete_conversation(conversation_id_);
    } catch (const std::exception& e) {
        panel_.set_status(tr("Could not delete the conversation: %1").arg(e.what()), true);
        return;
    }
    const auto left = store_.conversations(document_id_);
    conversation_id_ = left.empty() ? -1 : left.front().id;
    load_conversations(conversation_id_);
    load_messages();
    show_active_conversation();
    panel_.set_status(tr("Conversation deleted."));
}

void ChatController::edit_system_prompt() {
    if (busy() || !dialogs_) return;
    QString text = system_prompt_;
    if (!dialogs_->edit_text(panel_.window(), tr("System prompt"),
                             tr("System prompt of this conversation (empty: the default from Settings):"), text,
                             true))
        return;
    set_system_prompt(text);
}

void ChatController::set_system_prompt(const QString& prompt) {
    const QString before = effective_system_prompt();
    system_prompt_ = prompt.trimmed();
    panel_.set_system_prompt_text(system_prompt_);
    try {
        if (conversation_id_ >= 0)
            store_.set_conversation_system_prompt(conversation_id_, system_prompt_.toStdString());
    } catch (const std::exception& e) {
        panel_.set_status(tr("Could not save the system prompt: %1").arg(e.what()), true);
        return;
    }
    if (effective_system_prompt() != before)
        panel_.set_status(tr("The system prompt comes before the document in the prompt: the next question "
                             "reads the document again (as long as its first reading took)."));
}

void ChatController::search(const QString& text) {
    search_ = text.trimmed();
    load_conversations(conversation_id_);
}

bool ChatController::show_turn(int row) {
    if (row < 0 || row >= messages_.rowCount()) return false;
    const int answer = messages_.at(row).role == QLatin1String("assistant")
                           ? row
                           : messages_.latest_answer_row(messages_.question_row_of(row));
    if (answer < 0) return false;
    const auto it = turn_snapshots_.find(messages_.at(answer).id);
    if (it == turn_snapshots_.end()) {
        panel_.set_status(tr("The kept positions of this answer are not held any more (an earlier session, "
                             "or more than %1 answers ago).")
                              .arg(kKeptTurns));
        return false;
    }
    inspector_.set_snapshot(it->second);
    emit selectionShown(it->second);
    emit answerWeightsChanged(it->second.answer_attention);
    panel_.set_status(tr("The inspector shows what was kept for this answer."));
    return true;
}

void ChatController::activate_citation(int row, int k) {
    if (row < 0 || row >= messages_.rowCount()) return;
    const auto& cits = messages_.at(row).citations;
    if (k < 0 || k >= static_cast<int>(cits.size())) return;
    const CitationView& c = cits[static_cast<std::size_t>(k)];
    emit citationActivated(c.first_token, c.last_token, c.begin, c.end);
}

void ChatController::keep_turn_snapshot(int64_t message_id, const SelectionSnapshot& snap) {
    turn_snapshots_[message_id] = snap;
    turn_order_.push_back(message_id);
    while (turn_order_.size() > kKeptTurns) {
        turn_snapshots_.erase(turn_order_.front());
        turn_order_.pop_front();
    }
}

void ChatController::reselect(const SnapKvConfig& config) {
    settings_.snapkv = config;
    // Only once a question has been scored, and never more than one request queued in the engine.
    if (!inspector_.snapshot().valid()) return;
    reselect_pending_ = config;
    if (!reselect_in_flight_ && !busy()) send_reselect();
}

void ChatController::send_reselect() {
    if (!reselect_pending_) return;
    const SnapKvConfig config = *reselect_pending_;
    reselect_pending_.reset();
    reselect_in_flight_ = true;
    // The worker decides when it runs it (the engine's last question may change before then, e.g. a
    // comparison queued ahead): the engine's reselect for its own last question, else from the
    // scores the snapshot holds.
    engine_.post([config, base = inspector_.snapshot()](EngineWorker& w) { w.reselectFor(config, base); });
}

void ChatController::show_active_conversation() {
    const ConversationSelection view = conversation_selection(messages_.messages(), turn_snapshots_);
    inspector_.reset();  // also clears the document's shading (headCountsReady / selectionShown)
    reselect_pending_.reset();
    if (view.current) {
        if (view.previous) inspector_.set_snapshot(*view.previous);
        inspector_.set_snapshot(*view.current);
        emit selectionShown(*view.current);
    }
    emit answerWeightsChanged(view.current ? view.current->answer_attention : nullptr);
    emit citationHighlightCleared();
    if (model_) {
        const int doc = document_ ? document_->document_tokens : 0;
        panel_.set_context(view.context_tokens > 0 ? view.context_tokens : doc, model_->context_length);
    }
}

void ChatController::load_conversations(int64_t select_id) {
    std::vector<services::ConversationRecord> list;
    if (document_id_ >= 0)
        list = search_.isEmpty() ? store_.conversations(document_id_)
                                 : store_.search_conversations(document_id_, search_.toStdString());
    const int matches = static_cast<int>(list.size());
    conversations_.set_conversations(std::move(list));
    QComboBox* picker = panel_.conversation_picker();
    picker->setCurrentIndex(conversations_.row_of(select_id));
    // A search that leaves out the conversation on screen says so, rather than a blank picker beside
    // a chat that does not match.
    QString note;
    if (picker->currentIndex() < 0 && select_id >= 0 && !search_.isEmpty()) {
        const auto rec = store_.conversation(select_id);
        note = tr("“%1” (open) does not match · %2")
                   .arg(rec ? QString::fromStdString(rec->title) : QString(),
                        matches == 1 ? tr("1 match below") : tr("%1 matches below").arg(matches));
    }
    picker->setPlaceholderText(note);
}

void ChatController::load_messages() {
    std::vector<ChatMessage> list;
    system_prompt_.clear();
    if (conversation_id_ >= 0) {
        if (const auto rec = store_.conversation(conversation_id_))
            system_prompt_ = QString::fromStdString(rec->system_prompt);
        for (const auto& m : store_.messages(conversation_id_)) {
            list.push_back(message_of(m));
            // Answers stored before citations had pages get them from their text range.
            name_missing_pages(list.back().citations, document_pages());
        }
    }
    panel_.set_system_prompt_text(system_prompt_);
    messages_.set_messages(std::move(list));
    update_panel();
}

void ChatController::export_to(const QString& path, services::ExportFormat format) const {
    if (conversation_id_ < 0) throw Error(tr("There is no conversation to export yet.").toStdString());
    services::ConversationExport c;
    c.document_title = document_title_.toStdString();
    if (const auto rec = store_.document(document_id_)) c.document_path = rec->path;
    if (const auto conv = store_.conversation(conversation_id_)) {
        c.model = conv->model;  // only for answers stored before schema 3 (no model of their own)
        c.system_prompt = conv->system_prompt;
    }
    c.messages = store_.messages(conversation_id_);
    services::export_conversation(c, path.toStdString(), format);
}

void ChatController::export_to(const QString& path) const {
    export_to(path, path.endsWith(QLatin1String(".json")) ? services::ExportFormat::Json
                                                          : services::ExportFormat::Markdown);
}

QString ChatController::export_suggestion() const {
    // Never the working directory (an installed app's is its install tree): the folder of the
    // last export, else Documents, else home.
    QString dir;
    if (const auto last = store_.setting(kExportDirKey)) dir = QString::fromStdString(*last);
    if (dir.isEmpty() || !QFileInfo(dir).isDir())
        dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (dir.isEmpty() || !QFileInfo(dir).isDir()) dir = QDir::homePath();
    QString name;
    if (const auto conv = conversation_id_ >= 0 ? store_.conversation(conversation_id_) : std::nullopt)
        name = QString::fromStdString(conv->title);
    name.replace(QRegularExpression(QStringLiteral("[^\\w\\- ]+")), QStringLiteral(" "));
    name = name.simplified().left(50).trimmed();
    if (name.isEmpty()) name = QStringLiteral("conversation");
    return QDir(dir).filePath(name + QStringLiteral(".md"));
}

void ChatController::remember_export(const QString& path) {
    try {
        store_.set_setting(kExportDirKey, QFileInfo(path).absolutePath().toStdString());
    } catch (const std::exception& e) {
        spdlog::warn("could not remember the export folder: {}", e.what());
    }
}

}  // namespace snapdoc::ui
