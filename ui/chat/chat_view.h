// The conversation list: variable-height message cards that re-layout as an answer streams in,
// following the newest text while the user has not scrolled away from the bottom.
#pragma once

#include <QListView>

namespace snapdoc::ui {

class ChatView : public QListView {
    Q_OBJECT
public:
    explicit ChatView(QWidget* parent = nullptr);
    // The answer Copy copies: the selected answer; for a selected question, its newest answer;
    // with nothing selected, the last answer. Never a question's own text.
    QString current_text() const;
    // Where citation `k` of the row's card is, in viewport coordinates (tests click it).
    QRect citation_rect(int row, int k) const;
    // The tooltip over a viewport point: a citation's (citation_tooltip), else the item's own.
    QString tooltip_at(const QPoint& pos) const;

signals:
    void citationClicked(int row, int k);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    bool viewportEvent(QEvent* event) override;  // a citation's tooltip (what "weak" means)
    void dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight,
                     const QList<int>& roles) override;
    void rowsInserted(const QModelIndex& parent, int start, int end) override;
    // Another conversation was loaded (a switch, a restart): its latest answer is what one reads on.
    void reset() override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void follow();
    bool at_bottom() const;
    // Whether the view keeps to the bottom while its items are laid out again (a loaded
    // conversation's cards get their heights over several layout passes, so one scroll after a
    // reset lands short); false once the user scrolls away from the bottom.
    bool stick_to_bottom_ = false;
};

}  // namespace snapdoc::ui
