// The detail of one locked head: its pooled score over the prompt prefix (log scale, maximum per
// pixel column, reaching down to every kept score), the rule that kept its positions (uniform and
// pyramid: the head's top-k threshold; adaptive: the head's floor and the layer's shared threshold,
// see explain_head), the kept positions as a tick strip, and the observation window. Clicking the
// plot reports a position (the document scrolls there).
#pragma once

#include <QWidget>

#include "ui/inspector/axis_labels.h"
#include "ui/inspector/head_roles.h"
#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

class HeadDetailView : public QWidget {
    Q_OBJECT
public:
    explicit HeadDetailView(QWidget* parent = nullptr);

    void set_head(const SelectionSnapshot& snapshot, int layer, int head);
    void clear();
    void set_head_roles(const HeadRoles& roles) {
        roles_ = roles;
        update();
    }
    int layer() const { return layer_; }
    int head() const { return head_; }
    QString summary() const;  // the one-line caption (tests read it)
    // The x axis's labels (prompt positions) as drawn: whole and inside the widget (tests).
    std::vector<AxisLabel> axis_labels() const;

    QSize sizeHint() const override { return {360, 190}; }
    QSize minimumSizeHint() const override { return {160, 120}; }

signals:
    void positionClicked(int position);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRect plot_rect() const;
    int position_at_x(int x) const;

    SelectionSnapshot snapshot_;
    int layer_ = -1, head_ = -1;
    HeadRoles roles_;
};

}  // namespace snapdoc::ui
