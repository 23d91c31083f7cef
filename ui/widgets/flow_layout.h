// A layout that puts its items in a row and wraps them onto further rows when the row is too narrow
// (buttons under a combo box in a narrow inspector, the chat's action buttons at 1024 px): a short
// window reflows instead of clipping controls or forcing the whole window wider. Items take their
// size hint (at most the row's width); items whose horizontal size policy expands share what is
// left of their row.
#pragma once

#include <QLayout>
#include <QList>

namespace snapdoc::ui {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr, int spacing = 6);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override { return static_cast<int>(items_.size()); }
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

private:
    // Lays the items out in `rect` (when `apply`) and returns the height they need.
    int arrange(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> items_;
    int gap_;
};

}  // namespace snapdoc::ui
