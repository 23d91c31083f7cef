// A dialog's tall content in a frameless scroll area that scrolls vertically only. The dialog can
// then be as short as a small screen needs (Settings could not be shorter than 875 px), while its
// button box, laid out beside this and not inside it, stays in view. Unlike a plain QScrollArea
// its size hint is the whole content's, so on a big screen the dialog still opens without a
// scroll bar (see open_on_screen).
#pragma once

#include <QScrollArea>

namespace snapdoc::ui {

class ScrollingBody : public QScrollArea {
    Q_OBJECT
public:
    // Takes ownership of `content`.
    explicit ScrollingBody(QWidget* content, QWidget* parent = nullptr);

    QSize sizeHint() const override;
    // As wide as the content needs (no horizontal scrolling), a few lines high.
    QSize minimumSizeHint() const override;
};

}  // namespace snapdoc::ui
