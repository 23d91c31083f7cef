// Questions and answers: sends asks to the engine worker, streams the answer into the chat model,
// stores both messages (with the settings and statistics of the answer), keeps the conversation
// list of the current document, throttles reselects from the compression controls (at most one in
// flight, the newest waiting), and runs the full-vs-SnapKV comparison.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <optional>

#include "app/services/app_settings.h"
#include "ui/worker/worker_types.h"

namespace snapdoc::services {
class LibraryStore;
}

namespace snapdoc::ui {

class ChatModel;
class ChatPanel;
class CompareDialog;
class ConversationModel;
class EngineHost;
class InspectorPanel;

class ChatController : public QObject {
    Q_OBJECT
public:
    ChatController(EngineHost& engine, services::LibraryStore& store, services::AppSettings& settings,
                   ChatModel& messages, ConversationModel& conversations, ChatPanel& panel,
                   InspectorPanel& inspector, QObject* parent = nullptr);

    // The document on screen changed (-1: none): show its latest conversation.
    void set_document(int64_t id, const QString& title);
    // Engine state from the other controllers, for enabling the chat.
    void set_engine_state(std::optional<ModelInfo> model, std::optional<DocumentReady> document,
                          const QString& hint);

    bool ask(const QString& question);
    void stop();
    void regenerate();
    void copy_answer();
    void compare(const QString& question);
    void new_conversation();
    void choose_conversation(int row);
    void reselect(const SnapKvConfig& config);
    // Writes the current conversation (format by suffix: .json or Markdown). Throws Error.
    void export_to(const QString& path) const;

    bool busy() const { return request_id_ != 0 || compare_id_ != 0; }
    bool can_ask() const { return model_.has_value() && document_.has_value(); }
    int64_t conversation_id() const { return conversation_id_; }
    int reselects_done() const { return reselects_done_; }

signals:
    void answerStarted(quint64 id);
    void answerDone(const snapdoc::ui::AnswerStats& stats);
    void answerError(const QString& message);
    void selectionShown(const snapdoc::ui::SelectionSnapshot& snapshot);
    void busyChanged(bool busy);

private:
    void start_request(const QString& question);
    void load_conversations(int64_t select_id);
    void load_messages();
    void update_panel(const QString& hint = {});
    void send_reselect();

    EngineHost& engine_;
    services::LibraryStore& store_;
    services::AppSettings& settings_;
    ChatModel& messages_;
    ConversationModel& conversations_;
    ChatPanel& panel_;
    InspectorPanel& inspector_;

    int64_t document_id_ = -1;
    QString document_title_;
    int64_t conversation_id_ = -1;
    std::optional<ModelInfo> model_;
    std::optional<DocumentReady> document_;

    uint64_t next_id_ = 1;
    uint64_t request_id_ = 0;  // the answer streaming now (0: none)
    int answer_row_ = -1;
    CancelToken cancel_;
    QString question_;

    uint64_t compare_id_ = 0;
    QPointer<CompareDialog> compare_dialog_;

    bool reselect_in_flight_ = false;
    std::optional<SnapKvConfig> reselect_pending_;
    int reselects_done_ = 0;
};

}  // namespace snapdoc::ui
