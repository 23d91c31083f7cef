// Questions and answers: sends asks to the engine worker with the conversation's earlier turns and
// system prompt, streams the answer into the chat model, stores both messages (with the settings,
// statistics, answering model and citations of the answer), keeps the conversation list of the
// current document (search, rename, delete), keeps each answer's selection of this session so a
// click on an old turn shows it again, throttles reselects from the compression controls (at most
// one in flight, the newest waiting), and runs the full-vs-SnapKV comparison.
//
// Decisions (issue 12): Regenerate keeps the earlier answer and adds a new version after it
// ("version 2 of 2"); the history sent with later questions uses each turn's newest version. The
// first answer to a question uses the Settings seed (reproducible); the k-th regenerated version
// uses seed + k, so a sampled answer really changes and each version can still be reproduced (the
// seed is stored with the answer). An answer stopped before any text is not kept (card and store).
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <deque>
#include <map>
#include <optional>

#include "app/services/app_settings.h"
#include "app/services/conversation_export.h"
#include "ui/worker/worker_types.h"

namespace snapdoc::services {
class LibraryStore;
}

namespace snapdoc::ui {

class ChatModel;
class ChatPanel;
class CompareDialog;
class ConversationModel;
class DialogProvider;
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

    // The modal questions (rename, delete, system prompt) go through this seam; null: no dialogs.
    void set_dialogs(DialogProvider* dialogs) { dialogs_ = dialogs; }

    bool ask(const QString& question);
    void stop();
    void regenerate();
    // Puts the last question back in the question box and removes it and its answers (card and
    // store), so the user can change it and ask again; asking re-uses the document's K/V as any
    // question does. Not while an answer streams.
    void edit_last_question();
    void copy_answer();
    void compare(const QString& question);
    void new_conversation();
    void choose_conversation(int row);
    void rename_conversation();  // asks for the new title
    void rename_conversation_to(const QString& title);
    void delete_conversation();  // asks for confirmation
    void edit_system_prompt();   // asks for the text
    void set_system_prompt(const QString& prompt);  // of the current (or the next new) conversation
    QString conversation_system_prompt() const { return system_prompt_; }
    // The system prompt the next question is asked with: the conversation's, else the default.
    QString effective_system_prompt() const;
    void search(const QString& text);
    // A click on a card: shows the kept set of that turn's answer in the inspector (when this
    // session still holds it) and returns whether it could.
    bool show_turn(int row);
    // A click on citation `k` of the answer at `row`: emits citationActivated.
    void activate_citation(int row, int k);
    void reselect(const SnapKvConfig& config);
    // Shows what belongs to the conversation on screen (issue 23): its last question's selection in
    // the inspector (heatmaps, document shading follow it) and its context use, without another
    // conversation's citation highlight; or clears them when this session holds no selection for it.
    void show_active_conversation();
    // Writes the current conversation. Throws Error.
    void export_to(const QString& path, services::ExportFormat format) const;
    void export_to(const QString& path) const;  // format by suffix: .json or Markdown
    // Where the export dialog opens: the last export folder, else Documents, else home, with a file
    // name from the conversation's title. remember_export() stores the folder used.
    QString export_suggestion() const;
    void remember_export(const QString& path);

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
    // A citation was clicked: document token span [first_token, last_token] and its text range
    // [begin, end) (UTF-16 offsets, -1 when unknown).
    void citationActivated(int first_token, int last_token, int begin, int end);
    // The shown answer's attention per document position (null: none), for the document view.
    void answerWeightsChanged(std::shared_ptr<const std::vector<float>> weights);
    // The document's citation highlight belongs to another answer now (a switch, a new question).
    void citationHighlightCleared();

private:
    void start_request(const QString& question, std::vector<HistoryTurn> history, int earlier_versions);
    void keep_turn_snapshot(int64_t message_id, const SelectionSnapshot& snap);
    const std::vector<int>& document_pages();
    const QString& document_text();
    void drop_answer_card(const QString& status);
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
    services::GenerationSettings request_generation_;  // what the streaming answer was asked with
    std::string request_model_;
    DialogProvider* dialogs_ = nullptr;
    QString system_prompt_;  // of the current conversation ("" = the default)
    QString search_;
    QString document_text_;  // loaded on first use, for citation excerpts
    std::vector<int> document_pages_;  // its page starts (a PDF's), loaded on first use: citations' pages
    bool document_pages_loaded_ = false;
    bool document_text_loaded_ = false;
    // Each answer's selection from this session, by message id; the newest kKeptTurns only.
    static constexpr std::size_t kKeptTurns = 16;
    std::map<int64_t, SelectionSnapshot> turn_snapshots_;
    std::deque<int64_t> turn_order_;

    uint64_t compare_id_ = 0;
    QPointer<CompareDialog> compare_dialog_;

    bool reselect_in_flight_ = false;
    std::optional<SnapKvConfig> reselect_pending_;
    int reselects_done_ = 0;
};

}  // namespace snapdoc::ui
