// "Suggested questions:" and one flat button per question, scrolling past about four rows so a
// 700 px window leaves the chat its room. Its height comes from the buttons' own size hints each
// time the layout asks (issue 37: a height fixed when the list was filled took the size of buttons
// not yet shown, which a QLayout item reports as 0 × 0, and squeezed the rows to ~5 px).
#pragma once

#include <QScrollArea>
#include <QStringList>
#include <QWidget>

class QVBoxLayout;

namespace snapdoc::ui {

// The scroll area of the list: as tall as its first four rows (and half of a fifth when more
// follow), never shorter, so the rows keep their whole height.
class SuggestionScroll : public QScrollArea {
    Q_OBJECT
public:
    explicit SuggestionScroll(QWidget* parent = nullptr);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

private:
    int rows_height() const;
};

class SuggestionList : public QWidget {
    Q_OBJECT
public:
    explicit SuggestionList(QWidget* parent = nullptr);
    // Replaces the buttons; an empty list hides the whole row.
    void set_questions(const QStringList& questions);

signals:
    void questionClicked(const QString& question);

private:
    SuggestionScroll* scroll_;
    QVBoxLayout* rows_;
};

}  // namespace snapdoc::ui
