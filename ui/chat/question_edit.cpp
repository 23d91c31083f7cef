#include "ui/chat/question_edit.h"

#include <QKeyEvent>
#include <QTextLayout>
#include <algorithm>
#include <QTextBlock>

namespace snapdoc::ui {

namespace {
constexpr int kMaxLines = 6;
}

QuestionEdit::QuestionEdit(QWidget* parent) : QPlainTextEdit(parent) {
    setObjectName("questionEdit");
    setTabChangesFocus(true);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    connect(this, &QPlainTextEdit::textChanged, this, &QuestionEdit::fit_height);
    fit_height();
}

void QuestionEdit::setText(const QString& text) {
    setPlainText(text);
    moveCursor(QTextCursor::End);
}

void QuestionEdit::keyPressEvent(QKeyEvent* event) {
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (enter && !(event->modifiers() & Qt::ShiftModifier)) {
        // Ctrl+Enter is the menu's Ask shortcut; plain Enter sends too. Either way: no newline.
        emit submitted();
        event->accept();
        return;
    }
    if (enter) {  // Shift+Enter: a line break (QPlainTextEdit would insert a line separator)
        insertPlainText(QStringLiteral("\n"));
        event->accept();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

QSize QuestionEdit::minimumSizeHint() const {
    const QFontMetrics fm(font());
    const int frame = 2 * frameWidth() + static_cast<int>(2 * document()->documentMargin());
    return {80, fm.lineSpacing() + frame};
}

QSize QuestionEdit::sizeHint() const {
    const QFontMetrics fm(font());
    // Visual lines (wrapped) of the current text, between 2 and kMaxLines.
    int lines = 0;
    for (QTextBlock b = document()->begin(); b.isValid(); b = b.next())
        lines += std::max(1, b.layout() ? b.layout()->lineCount() : 1);
    lines = std::clamp(lines, 2, kMaxLines);
    const int frame = 2 * frameWidth() + static_cast<int>(2 * document()->documentMargin());
    return {QPlainTextEdit::sizeHint().width(), lines * fm.lineSpacing() + frame};
}

void QuestionEdit::fit_height() {
    setFixedHeight(sizeHint().height());
}

}  // namespace snapdoc::ui
