// The chat column: conversation picker with search, rename, delete and the conversation's system
// prompt; the message list, the context meter and speed readout, and the multi-line question box
// (Enter sends, Shift+Enter breaks the line) with ask / stop / regenerate / copy / compare. It only
// emits requests; the chat controller decides what they do.
#pragma once

#include <QStringList>
#include <QWidget>

#include "ui/chat/question_edit.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QAbstractItemModel;

namespace snapdoc::ui {

class ChatView;
class SuggestionList;

class ChatPanel : public QWidget {
    Q_OBJECT
public:
    ChatPanel(QAbstractItemModel* messages, QAbstractItemModel* conversations, QWidget* parent = nullptr);

    ChatView* view() const { return view_; }
    QuestionEdit* question_edit() const { return question_; }
    QComboBox* conversation_picker() const { return conversations_; }
    QLineEdit* search_edit() const { return search_; }
    QString search_text() const;
    // "System prompt: default" / "System prompt: Answer in one sentence." (elided)
    void set_system_prompt_text(const QString& text);
    QString system_prompt_text() const;

    // busy: an answer is being generated (stop enabled, ask disabled). can_ask: a model and a
    // prefilled document are there; `hint` says what is missing otherwise.
    void set_state(bool busy, bool can_ask, const QString& hint);
    // Regenerate (there is a question to answer again), Copy (there is an answer) and Edit last
    // question (there is one and nothing is streaming).
    void set_turn_actions(bool can_regenerate, bool can_copy, bool can_edit = false);
    // A suggestion clicked while asking is not possible (the document is being read, an answer is
    // streaming) waits here and is asked as soon as it is ("" = none).
    QString queued_question() const { return queued_; }
    void set_context(int used_tokens, int context_tokens);
    void set_speed(const QString& text);
    void set_status(const QString& text, bool error = false);
    // Suggested questions (the document's side file, see app/services/suggested_questions.h): one
    // button each above the question box; clicking one asks it (or fills the box while asking is
    // not possible). An empty list hides the row.
    void set_suggestions(const QStringList& questions);
    QStringList suggestions() const { return suggestion_texts_; }
    QString status_text() const;
    QString speed_text() const;
    QString context_text() const;  // "Context: 1,811 / 131,072 tokens"

signals:
    void askRequested(const QString& question);
    void stopRequested();
    void regenerateRequested();
    void editLastQuestionRequested();
    void copyRequested();
    void compareRequested(const QString& question);
    void newConversationRequested();
    void conversationChosen(int row);
    void renameConversationRequested();
    void deleteConversationRequested();
    void systemPromptRequested();
    void searchChanged(const QString& text);

private:
    void submit();

    QComboBox* conversations_;
    QPushButton* new_conversation_;
    QLineEdit* search_;
    QPushButton* rename_;
    QPushButton* delete_;
    QPushButton* system_prompt_;
    ChatView* view_;
    QProgressBar* context_;
    QLabel* speed_;
    QLabel* status_;
    SuggestionList* suggestions_;
    QStringList suggestion_texts_;
    QString queued_;
    QuestionEdit* question_;
    QPushButton* ask_;
    QPushButton* stop_;
    QPushButton* regenerate_;
    QPushButton* edit_last_;
    QPushButton* copy_;
    QPushButton* compare_;
};

}  // namespace snapdoc::ui
