// The messages of the conversation on screen. Owned and changed by the GUI thread only: streamed
// answer text arrives from the engine as queued signals and is appended here by the chat
// controller, so the worker never touches this model.
//
// A question may be followed by several answers: Regenerate keeps the earlier answer and adds a
// new version after it; each version's card says "version k of n", and the conversation's history
// (conversation_turns) uses the newest one.
#pragma once

#include <QAbstractListModel>
#include <QStringList>
#include <cstdint>
#include <string>
#include <vector>

#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

// A citation as shown under an answer: the engine's token span plus where it lies in the
// document's text (UTF-16 offsets, -1 when unknown) and a short excerpt.
struct CitationView {
    int first_token = 0, last_token = 0;
    double weight = 0;
    bool weak = false;  // nothing stood out from the background: the strongest passage, alone
    int begin = -1, end = -1;
    int page = 0;  // 1-based page of a PDF the passage begins on; 0: the document has no pages
    QString excerpt;
};

struct ChatMessage {
    int64_t id = 0;  // database id, 0 until stored
    QString role;    // "user" or "assistant"
    QString text;
    QString meta;  // one line under an answer: tokens/s, KV memory, stop reason
    bool streaming = false;
    bool failed = false;
    std::string settings_json = "{}";
    std::string stats_json = "{}";
    std::string model;  // answers: the model that produced it
    std::vector<CitationView> citations;
};

class ChatModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Roles {
        RoleRole = Qt::UserRole + 1,
        MetaRole,
        StreamingRole,
        FailedRole,
        IdRole,
        HeaderRole,         // "Question", "Answer", "Answer · version 2 of 2"
        CitationsRole,      // QStringList, one label per citation
        CitationsWeakRole,  // QVariantList of bool, per citation: a weak one (drawn lighter, explained)
    };

    explicit ChatModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void set_messages(std::vector<ChatMessage> messages);
    int append(ChatMessage message);  // returns the row
    int insert(int row, ChatMessage message);
    void append_text(int row, const QString& text);
    void replace(int row, ChatMessage message);
    void remove_row(int row);
    void remove_from(int row);  // removes rows [row, end)
    const ChatMessage& at(int row) const { return messages_.at(static_cast<std::size_t>(row)); }
    const std::vector<ChatMessage>& messages() const { return messages_; }

    // The question row a row belongs to (itself for a question; -1 before any question).
    int question_row_of(int row) const;
    // The newest finished, non-empty answer to the question at `question_row` (-1: none).
    int latest_answer_row(int question_row) const;
    // The row after the last answer of the question at `question_row` (where a new version goes).
    int end_of_turn(int question_row) const;

private:
    QString header_of(int row) const;
    // Version labels of the row's turn changed (all its answers but `skip_row`).
    void changed_turn(int row, int skip_row = -1);

    std::vector<ChatMessage> messages_;
};

// The conversation's turns for the engine's history, oldest first: each question with its newest
// finished answer. Questions without a usable answer (stopped before any text, failed) are left out,
// so the model never sees an empty or error answer as something it said.
std::vector<HistoryTurn> conversation_turns(const std::vector<ChatMessage>& messages);

// "“excerpt…” · tokens 120–140 · 61%"
QString citation_label(const CitationView& c);

}  // namespace snapdoc::ui
