#include "ui/main/chat_controller.h"

#include <spdlog/spdlog.h>

#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QLineEdit>

#include "app/services/conversation_export.h"
#include "app/services/library_store.h"
#include "engine/common/error.h"
#include "ui/chat/answer_format.h"
#include "ui/chat/chat_panel.h"
#include "ui/chat/chat_view.h"
#include "ui/dialogs/compare_dialog.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/inspector/selection_analysis.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"
#include "ui/worker/engine_host.h"

namespace snapdoc::ui {

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
    connect(w, &EngineWorker::answerText, this, [this](quint64 id, const QString& text) {
        if (id == request_id_) messages_.append_text(answer_row_, text);
    });
    connect(
        w, &EngineWorker::answerFinished, this, [this](const AnswerStats& st, const SelectionSnapshot& snap) {
            if (st.request_id != request_id_) return;
            ChatMessage m = messages_.at(answer_row_);
            m.streaming = false;
            m.text = st.answer;  // the engine's text is authoritative (it includes the flushed tail)
            m.meta = answer_meta_line(st);
            m.stats_json = answer_stats_json(st, kept_fraction(*snap.selection));
            m.settings_json = services::answer_settings_json(settings_.generation, snap.selection->config);
            try {
                if (conversation_id_ >= 0)
                    m.id = store_.add_message({0, conversation_id_, "assistant", m.text.toStdString(),
                                               m.settings_json, m.stats_json, 0});
            } catch (const std::exception& e) {
                panel_.set_status(tr("The answer could not be saved: %1").arg(e.what()), true);
            }
            messages_.replace(answer_row_, m);
            request_id_ = 0;
            answer_row_ = -1;
            panel_.set_speed(speed_line(st));
            if (model_) panel_.set_context(st.prompt_tokens + st.generated_tokens, model_->context_length);
            inspector_.set_snapshot(snap);
            emit selectionShown(snap);
            load_conversations(conversation_id_);
            update_panel(st.stop_reason == "cancelled" ? tr("Stopped.") : QString(" "));
            emit answerDone(st);
            emit busyChanged(false);
            if (reselect_pending_) send_reselect();  // controls moved while the answer streamed
        });
    connect(w, &EngineWorker::answerFailed, this, [this](quint64 id, const QString& message) {
        if (id != request_id_) return;
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
        inspector_.set_snapshot(snap);
        emit selectionShown(snap);
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
}

void ChatController::set_document(int64_t id, const QString& title) {
    stop();
    document_id_ = id;
    document_title_ = title;
    conversation_id_ = -1;
    if (id >= 0) {
        const auto list = store_.conversations(id);
        if (!list.empty()) conversation_id_ = list.front().id;
    }
    load_conversations(conversation_id_);
    load_messages();
    panel_.set_speed(QString());
}

void ChatController::set_engine_state(std::optional<ModelInfo> model, std::optional<DocumentReady> document,
                                      const QString& hint) {
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
}

bool ChatController::ask(const QString& question) {
    if (busy() || !can_ask() || question.trimmed().isEmpty()) return false;
    try {
        if (conversation_id_ < 0) {
            const QString title = question.size() > 60 ? question.left(57) + QStringLiteral("…") : question;
            conversation_id_ =
                store_.create_conversation(document_id_, title.toStdString(), model_->path.toStdString());
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
    start_request(question);
    return true;
}

void ChatController::start_request(const QString& question) {
    ChatMessage a;
    a.role = QStringLiteral("assistant");
    a.streaming = true;
    answer_row_ = messages_.append(a);
    request_id_ = next_id_++;
    cancel_ = engine_.new_cancel_token();
    question_ = question;
    AskRequest req{request_id_, question, settings_.snapkv, settings_.generation, cancel_};
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
    const auto& all = messages_.messages();
    int user_row = -1;
    for (int r = static_cast<int>(all.size()) - 1; r >= 0; --r)
        if (all[static_cast<std::size_t>(r)].role == QLatin1String("user")) {
            user_row = r;
            break;
        }
    if (user_row < 0) return;
    const QString question = all[static_cast<std::size_t>(user_row)].text;
    // Drop the answer(s) after that question, in the store and on screen, then answer again.
    try {
        for (std::size_t r = static_cast<std::size_t>(user_row) + 1; r < all.size(); ++r)
            if (all[r].id > 0) store_.delete_message(all[r].id);
    } catch (const std::exception& e) {
        panel_.set_status(tr("Could not remove the old answer: %1").arg(e.what()), true);
        return;
    }
    messages_.remove_from(user_row + 1);
    start_request(question);
}

void ChatController::copy_answer() {
    const QString text = panel_.view()->current_text();
    if (!text.isEmpty()) QGuiApplication::clipboard()->setText(text);
}

void ChatController::compare(const QString& question_in) {
    if (busy() || !can_ask()) return;
    QString question = question_in;
    if (question.isEmpty()) {
        // Default: the last question asked.
        for (auto it = messages_.messages().rbegin(); it != messages_.messages().rend(); ++it)
            if (it->role == QLatin1String("user")) {
                question = it->text;
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
    }
    compare_dialog_->start(question);
    compare_dialog_->show();
    compare_id_ = next_id_++;
    cancel_ = engine_.new_cancel_token();
    AskRequest req{compare_id_, question, settings_.snapkv, settings_.generation, cancel_};
    engine_.post([req](EngineWorker& w) { w.compare(req); });
    update_panel(tr("Comparing full cache and SnapKV…"));
    emit busyChanged(true);
}

void ChatController::new_conversation() {
    if (busy()) return;
    conversation_id_ = -1;  // created with the first question
    messages_.set_messages({});
    load_conversations(-1);
    panel_.set_speed(QString());
}

void ChatController::choose_conversation(int row) {
    if (busy() || row < 0 || row >= conversations_.rowCount()) return;
    conversation_id_ = conversations_.at(row).id;
    load_messages();
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
    engine_.post([config](EngineWorker& w) { w.reselect(config); });
}

void ChatController::load_conversations(int64_t select_id) {
    conversations_.set_conversations(document_id_ >= 0 ? store_.conversations(document_id_)
                                                       : std::vector<services::ConversationRecord>{});
    panel_.conversation_picker()->setCurrentIndex(conversations_.row_of(select_id));
}

void ChatController::load_messages() {
    std::vector<ChatMessage> list;
    if (conversation_id_ >= 0)
        for (const auto& m : store_.messages(conversation_id_)) {
            ChatMessage c;
            c.id = m.id;
            c.role = QString::fromStdString(m.role);
            c.text = QString::fromStdString(m.text);
            c.settings_json = m.settings_json;
            c.stats_json = m.stats_json;
            if (m.role == "assistant") c.meta = meta_line_from_json(m.stats_json);
            list.push_back(std::move(c));
        }
    messages_.set_messages(std::move(list));
}

void ChatController::export_to(const QString& path) const {
    if (conversation_id_ < 0) throw Error(tr("There is no conversation to export yet.").toStdString());
    services::ConversationExport c;
    c.document_title = document_title_.toStdString();
    if (const auto rec = store_.document(document_id_)) c.document_path = rec->path;
    for (const auto& conv : store_.conversations(document_id_))
        if (conv.id == conversation_id_) c.model = conv.model;
    c.messages = store_.messages(conversation_id_);
    services::export_conversation(c, path.toStdString());
}

}  // namespace snapdoc::ui
