// A push button whose text is elided ("What is the invoice num…") when it is narrower than its
// text, so a long label (a suggested question, the conversation's system prompt) never makes its
// column wider than the window allows. text() stays the whole text; the tooltip shows it too.
#pragma once

#include <QPushButton>

namespace snapdoc::ui {

class ElidedButton : public QPushButton {
    Q_OBJECT
public:
    explicit ElidedButton(const QString& text = {}, QWidget* parent = nullptr);

    // A few characters and the ellipsis: the layout may give it less than its whole text.
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
};

}  // namespace snapdoc::ui
