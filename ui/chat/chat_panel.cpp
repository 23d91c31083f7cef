#include "ui/chat/chat_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <algorithm>
#include <QVBoxLayout>

#include "ui/chat/chat_view.h"
#include "ui/chat/suggestion_list.h"
#include "ui/widgets/elided_button.h"
#include "ui/widgets/sentence_case.h"
#include "ui/widgets/flow_layout.h"
#include "ui/widgets/theme_colors.h"

namespace snapdoc::ui {

ChatPanel::ChatPanel(QAbstractItemModel* messages, QAbstractItemModel* conversations, QWidget* parent)
    : QWidget(parent) {
    setObjectName("chatPanel");
    conversations_ = new QComboBox(this);
    conversations_->setObjectName("conversationPicker");
    conversations_->setModel(conversations);
    conversations_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    conversations_->setMinimumContentsLength(10);
    new_conversation_ = new QPushButton(tr("New"), this);
    new_conversation_->setObjectName("newConversationButton");
    new_conversation_->setToolTip(tr("Start a new conversation about this document (Ctrl+N)"));
    search_ = new QLineEdit(this);
    search_->setObjectName("conversationSearch");
    search_->setPlaceholderText(tr("Search conversations…"));
    search_->setClearButtonEnabled(true);
    search_->setToolTip(tr("Show the conversations whose title, questions or answers contain this text"));
    rename_ = new QPushButton(tr("Rename"), this);
    rename_->setObjectName("renameConversationButton");
    delete_ = new QPushButton(tr("Delete"), this);
    delete_->setObjectName("deleteConversationButton");
    system_prompt_ = new ElidedButton(QString(), this);
    system_prompt_->setObjectName("systemPromptButton");
    // A button that looks like one (it read as a plain label: issue 23), saying it edits.
    system_prompt_->setStyleSheet("text-align: left; padding: 2px 6px;");
    system_prompt_->setCursor(Qt::PointingHandCursor);
    system_prompt_->setToolTip(
        tr("The system prompt of this conversation (empty: the default from Settings). It comes before "
           "the document in the prompt, so changing it reads the document again."));
    set_system_prompt_text(QString());
    view_ = new ChatView(this);
    view_->setModel(messages);

    context_ = new QProgressBar(this);
    context_->setObjectName("contextMeter");
    context_->setTextVisible(true);
    context_->setMaximumHeight(18);
    set_context(0, 0);
    speed_ = new QLabel(this);
    speed_->setObjectName("speedLabel");
    speed_->setWordWrap(true);
    status_ = new QLabel(this);
    status_->setObjectName("chatStatus");
    status_->setWordWrap(true);

    suggestions_ = new SuggestionList(this);
    connect(suggestions_, &SuggestionList::questionClicked, this, [this](const QString& q) {
        question_->setText(q);
        if (ask_->isEnabled()) {
            submit();
            return;
        }
        // It used to land in the disabled box and wait for a manual Ask.
        queued_ = q;
        set_status(tr("“%1” is asked as soon as the model is ready.").arg(q));
    });

    question_ = new QuestionEdit(this);
    question_->setPlaceholderText(tr("Ask about the document… (Enter sends, Shift+Enter for a new line)"));
    ask_ = new QPushButton(tr("Ask"), this);
    ask_->setObjectName("askButton");
    ask_->setDefault(true);
    stop_ = new QPushButton(tr("Stop"), this);
    stop_->setObjectName("stopButton");
    stop_->setToolTip(tr("Stop the answer (Esc)"));
    regenerate_ = new QPushButton(tr("Regenerate"), this);
    regenerate_->setObjectName("regenerateButton");
    edit_last_ = new QPushButton(tr("Edit last question"), this);
    edit_last_->setObjectName("editQuestionButton");
    edit_last_->setToolTip(
        tr("Put the last question back in the question box and remove it and its answer from the "
           "conversation, to change it and ask again"));
    copy_ = new QPushButton(tr("Copy"), this);
    copy_->setObjectName("copyButton");
    copy_->setToolTip(tr("Copy the selected answer (for a selected question: its answer), or the last answer"));
    compare_ = new QPushButton(tr("Compare full vs SnapKV"), this);
    compare_->setObjectName("compareButton");
    compare_->setToolTip(tr("Answer the question twice, from the full cache and from the compressed one"));

    auto* top = new FlowLayout;
    top->addWidget(new QLabel(tr("Conversation:"), this));
    conversations_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    top->addWidget(conversations_);
    top->addWidget(new_conversation_);
    auto* tools = new FlowLayout;
    search_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    search_->setMinimumWidth(120);
    tools->addWidget(search_);
    tools->addWidget(rename_);
    tools->addWidget(delete_);
    auto* input = new QHBoxLayout;
    input->addWidget(question_, 1);
    input->addWidget(ask_);
    input->addWidget(stop_);
    // Wraps onto a second row in a narrow chat column (1024 px windows) instead of widening it.
    auto* actions = new FlowLayout;
    actions->addWidget(regenerate_);
    actions->addWidget(edit_last_);
    actions->addWidget(copy_);
    actions->addWidget(compare_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addLayout(tools);
    layout->addWidget(system_prompt_);
    layout->addWidget(view_, 1);
    layout->addWidget(context_);
    layout->addWidget(speed_);
    layout->addWidget(status_);
    layout->addWidget(suggestions_);
    layout->addLayout(input);
    layout->addLayout(actions);

    connect(ask_, &QPushButton::clicked, this, &ChatPanel::submit);
    connect(question_, &QuestionEdit::submitted, this, &ChatPanel::submit);
    connect(rename_, &QPushButton::clicked, this, &ChatPanel::renameConversationRequested);
    connect(delete_, &QPushButton::clicked, this, &ChatPanel::deleteConversationRequested);
    connect(system_prompt_, &QPushButton::clicked, this, &ChatPanel::systemPromptRequested);
    connect(search_, &QLineEdit::textChanged, this, &ChatPanel::searchChanged);
    connect(stop_, &QPushButton::clicked, this, &ChatPanel::stopRequested);
    connect(regenerate_, &QPushButton::clicked, this, &ChatPanel::regenerateRequested);
    connect(copy_, &QPushButton::clicked, this, &ChatPanel::copyRequested);
    connect(edit_last_, &QPushButton::clicked, this, &ChatPanel::editLastQuestionRequested);
    connect(compare_, &QPushButton::clicked, this,
            [this] { emit compareRequested(question_->text().trimmed()); });
    connect(new_conversation_, &QPushButton::clicked, this, &ChatPanel::newConversationRequested);
    connect(conversations_, &QComboBox::activated, this, &ChatPanel::conversationChosen);
    set_state(false, false, tr("Open a model and a document to start."));
    set_turn_actions(false, false);
}

void ChatPanel::submit() {
    const QString q = question_->text().trimmed();
    if (q.isEmpty() || !ask_->isEnabled()) return;
    emit askRequested(q);
}

void ChatPanel::set_suggestions(const QStringList& questions) {
    queued_.clear();  // another document: its suggestion is not this one's question
    suggestion_texts_ = questions;
    suggestions_->set_questions(questions);
}

void ChatPanel::set_turn_actions(bool can_regenerate, bool can_copy, bool can_edit) {
    regenerate_->setEnabled(can_regenerate);
    copy_->setEnabled(can_copy);
    edit_last_->setEnabled(can_edit);
}

void ChatPanel::set_state(bool busy, bool can_ask, const QString& hint) {
    ask_->setEnabled(!busy && can_ask);
    question_->setEnabled(can_ask || busy);
    stop_->setEnabled(busy);
    regenerate_->setEnabled(!busy && can_ask);
    compare_->setEnabled(!busy && can_ask);
    new_conversation_->setEnabled(!busy);
    conversations_->setEnabled(!busy);
    rename_->setEnabled(!busy);
    delete_->setEnabled(!busy);
    system_prompt_->setEnabled(!busy);
    if (!hint.isEmpty()) set_status(hint);
    if (!busy && can_ask && !queued_.isEmpty()) {
        // Asked once the chat is free (after this call returns: the caller may still be updating).
        const QString q = queued_;
        queued_.clear();
        QMetaObject::invokeMethod(
            this,
            [this, q] {
                if (!ask_->isEnabled()) return;
                question_->setText(q);
                submit();
            },
            Qt::QueuedConnection);
    }
}

void ChatPanel::set_context(int used, int context) {
    const QLocale en(QLocale::English);
    context_->setRange(0, std::max(1, context));
    context_->setValue(std::min(used, std::max(1, context)));
    context_->setFormat(context > 0
                            ? tr("Context: %1 / %2 tokens").arg(en.toString(used), en.toString(context))
                            : tr("Context: no model"));
    // Past the trained context the model still runs (Settings allows it), but flag it in red.
    context_->setStyleSheet(used > context && context > 0 ? "QProgressBar::chunk { background: #c83232; }"
                                                          : QString());
}

void ChatPanel::set_speed(const QString& text) {
    speed_->setText(text);
}
QString ChatPanel::speed_text() const {
    return speed_->text();
}
QString ChatPanel::context_text() const {
    return context_->format();
}

void ChatPanel::set_status(const QString& text, bool error) {
    status_->setText(sentence_case(text));
    status_->setStyleSheet(error ? QString("color: %1;").arg(for_palette(QColor(0xb0, 0x20, 0x20), palette()).name())
                                 : QString());
}

QString ChatPanel::search_text() const {
    return search_->text();
}

void ChatPanel::set_system_prompt_text(const QString& text) {
    const QString shown = text.isEmpty() ? tr("default (Settings)") : text.simplified();
    system_prompt_->setText(tr("System prompt: %1 · Edit…").arg(shown));
    system_prompt_->setProperty("fullText", text);
}

QString ChatPanel::system_prompt_text() const {
    return system_prompt_->text();
}

QString ChatPanel::status_text() const {
    return status_->text();
}

}  // namespace snapdoc::ui
