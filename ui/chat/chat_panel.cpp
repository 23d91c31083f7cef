#include "ui/chat/chat_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/chat/chat_view.h"

namespace snapdoc::ui {

ChatPanel::ChatPanel(QAbstractItemModel* messages, QAbstractItemModel* conversations, QWidget* parent)
    : QWidget(parent) {
    setObjectName("chatPanel");
    conversations_ = new QComboBox(this);
    conversations_->setObjectName("conversationPicker");
    conversations_->setModel(conversations);
    conversations_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    conversations_->setMinimumContentsLength(18);
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
    system_prompt_ = new QPushButton(this);
    system_prompt_->setObjectName("systemPromptButton");
    // A button that looks like one (it was flat: a plain label nobody clicked), saying what it does.
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

    suggestions_ = new QWidget(this);
    suggestions_->setObjectName("suggestions");
    suggestion_rows_ = new QVBoxLayout(suggestions_);
    suggestion_rows_->setContentsMargins(0, 0, 0, 0);
    suggestion_rows_->setSpacing(2);
    suggestion_rows_->addWidget(new QLabel(tr("Suggested questions:"), suggestions_));
    suggestions_->hide();

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
    copy_ = new QPushButton(tr("Copy"), this);
    copy_->setObjectName("copyButton");
    copy_->setToolTip(tr("Copy the selected answer (for a selected question: its answer), or the last answer"));
    compare_ = new QPushButton(tr("Compare full vs SnapKV"), this);
    compare_->setObjectName("compareButton");
    compare_->setToolTip(tr("Answer the question twice, from the full cache and from the compressed one"));

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Conversation:"), this));
    top->addWidget(conversations_, 1);
    top->addWidget(new_conversation_);
    auto* tools = new QHBoxLayout;
    tools->addWidget(search_, 1);
    tools->addWidget(rename_);
    tools->addWidget(delete_);
    auto* input = new QHBoxLayout;
    input->addWidget(question_, 1);
    input->addWidget(ask_);
    input->addWidget(stop_);
    auto* actions = new QHBoxLayout;
    actions->addWidget(regenerate_);
    actions->addWidget(copy_);
    actions->addWidget(compare_);
    actions->addStretch(1);
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
    connect(compare_, &QPushButton::clicked, this,
            [this] { emit compareRequested(question_->text().trimmed()); });
    connect(new_conversation_, &QPushButton::clicked, this, &ChatPanel::newConversationRequested);
    connect(conversations_, &QComboBox::activated, this, &ChatPanel::conversationChosen);
    set_state(false, false, tr("Open a model and a document to start."));
}

void ChatPanel::submit() {
    const QString q = question_->text().trimmed();
    if (q.isEmpty() || !ask_->isEnabled()) return;
    emit askRequested(q);
}

void ChatPanel::set_suggestions(const QStringList& questions) {
    // Row 0 is the label; the buttons after it are rebuilt.
    while (suggestion_rows_->count() > 1) {
        QLayoutItem* item = suggestion_rows_->takeAt(1);
        delete item->widget();
        delete item;
    }
    suggestion_texts_ = questions;
    for (const QString& q : questions) {
        auto* button = new QPushButton(q, suggestions_);
        button->setObjectName("suggestionButton");
        button->setFlat(true);
        button->setStyleSheet("text-align: left;");
        button->setToolTip(tr("Ask this question"));
        connect(button, &QPushButton::clicked, this, [this, q] {
            question_->setText(q);
            submit();
        });
        suggestion_rows_->addWidget(button);
    }
    suggestions_->setVisible(!questions.isEmpty());
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

void ChatPanel::set_status(const QString& text, bool error) {
    status_->setText(text);
    status_->setStyleSheet(error ? "color: #b02020;" : QString());
}

QString ChatPanel::search_text() const {
    return search_->text();
}

void ChatPanel::set_system_prompt_text(const QString& text) {
    const QString shown = text.isEmpty() ? tr("default (Settings)") : text.simplified();
    system_prompt_->setText(
        fontMetrics().elidedText(tr("System prompt: %1").arg(shown), Qt::ElideRight, 380) + tr("  · Edit…"));
    system_prompt_->setProperty("fullText", text);
}

QString ChatPanel::system_prompt_text() const {
    return system_prompt_->text();
}

QString ChatPanel::status_text() const {
    return status_->text();
}

}  // namespace snapdoc::ui
