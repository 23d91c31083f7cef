// The question box: multi-line plain text that grows with its content up to a few lines. Enter
// (or keypad Enter) sends, Shift+Enter inserts a line break. Text is plain: pasting rich text
// keeps only its characters.
#pragma once

#include <QPlainTextEdit>

namespace snapdoc::ui {

class QuestionEdit : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit QuestionEdit(QWidget* parent = nullptr);

    QString text() const { return toPlainText(); }
    void setText(const QString& text);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void submitted();

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void fit_height();
};

}  // namespace snapdoc::ui
