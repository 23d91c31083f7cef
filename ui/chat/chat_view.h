// The conversation list: variable-height message cards that re-layout as an answer streams in,
// following the newest text while the user has not scrolled away from the bottom.
#pragma once

#include <QListView>

namespace snapdoc::ui {

class ChatView : public QListView {
    Q_OBJECT
public:
    explicit ChatView(QWidget* parent = nullptr);
    // Text of the selected message, or of the last answer when nothing is selected.
    QString current_text() const;

protected:
    void dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight,
                     const QList<int>& roles) override;
    void rowsInserted(const QModelIndex& parent, int start, int end) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void follow();
    bool at_bottom() const;
};

}  // namespace snapdoc::ui
