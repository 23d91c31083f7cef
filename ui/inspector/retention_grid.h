// Shows the rendered retention heatmap (HeatmapJob's image) with layer labels and, below it, a
// position axis (token index, and page/line of the document where a location lookup is set). Hovering a pixel
// tells the layer, head, position range and the document text there; clicking locks that head
// (outlined) and reports it, which opens the head's detail view and scrolls the document. The
// wheel zooms about the mouse, a drag or Shift+wheel pans, and keys do both (+/-, Left/Right,
// Home/0 shows the whole prompt); every change of the view is reported for a re-render.
#pragma once

#include <QImage>
#include <QWidget>
#include <functional>

#include "ui/inspector/axis_labels.h"
#include "ui/inspector/head_roles.h"
#include "ui/inspector/heatmap_render.h"
#include "ui/inspector/heatmap_view.h"

namespace snapdoc::ui {

class RetentionGrid : public QWidget {
    Q_OBJECT
public:
    explicit RetentionGrid(QWidget* parent = nullptr);

    void set_image(const QImage& image, const HeatmapGeometry& geometry);
    void clear();
    // Text of prompt positions [first, last) for the tooltip ("" when unknown).
    void set_text_lookup(std::function<QString(int first, int last)> lookup) { text_of_ = std::move(lookup); }
    // "page 3 · line 41" for a prompt position ("" when unknown), for the axis and the tooltip.
    void set_location_lookup(std::function<QString(int position)> lookup) {
        location_of_ = std::move(lookup);
    }
    void set_document_tokens(int n) { document_tokens_ = n; }
    void set_locked(int layer, int head);
    // The model's names for its heads: drawn inside each strip tall enough for text, and in the tooltip.
    void set_head_roles(const HeadRoles& roles);
    QString role_of(int layer, int head) const { return roles_.of(layer, head, geometry_.heads); }
    // Height of the strips at their smallest plus the axis: the least the grid needs. The grid's
    // scroll area shows a scroll bar only below it, whatever the current image's height (a stale
    // image taller than a just-shrunk viewport made the bar flicker in and out, which changed the
    // plot width by the bar's width and moved the positions under the mouse).
    void set_minimum_content_height(int h);

    const QImage& image() const { return image_; }
    const HeatmapGeometry& geometry() const { return geometry_; }
    // The zoomed range; the owner sets its total (the prompt length) and renders what it says.
    HeatmapView& view() { return view_; }
    const HeatmapView& view() const { return view_; }
    void set_view(int first, int count);  // emits viewChanged when it moved
    // Width the image should be rendered at to fill the widget.
    int plot_width() const;
    // Layer/head/position under a widget point, as the tooltip shows it ({-1,...} outside).
    struct Hit {
        int layer = -1, head = -1, first = -1, last = -1;
    };
    Hit hit_at(const QPoint& p) const;
    QString tooltip_at(const QPoint& p) const;
    // The axis ticks drawn for the current view: token index and its label (tests).
    struct Tick {
        int position = 0;
        int x = 0;
        QString location;
    };
    std::vector<Tick> axis_ticks() const;
    // The axis labels as drawn: each whole (not clipped) and inside the widget (tests).
    std::vector<AxisLabel> axis_labels() const;
    // The labels left of the strips: one per head ("L0 h0", "h1") where strips are tall enough,
    // else one per layer ("L0") or every few layers (tests).
    std::vector<AxisLabel> strip_labels() const;
    // The role names drawn at the left of the strips that have one, where the strips are tall enough
    // for a line of text (tests).
    std::vector<AxisLabel> role_labels() const;
    static constexpr int kAxisHeight = 34;  // rows below the strips: index, page/line
    static constexpr int kLabelWidth = 46;  // room for "L31 h7" left of the strips

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void headClicked(int layer, int head, int position);
    void plotWidthChanged(int width);
    void viewChanged(int first, int count);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QRect plot_rect() const;
    void view_moved(int old_first, int old_count);
    void paint_axis(QPainter& p);
    QFont axis_font() const;

    QImage image_;
    HeatmapGeometry geometry_;
    HeatmapView view_;
    std::function<QString(int, int)> text_of_;
    std::function<QString(int)> location_of_;
    int document_tokens_ = 0;
    int minimum_content_height_ = 0;
    HeadRoles roles_;
    int locked_layer_ = -1, locked_head_ = -1;
    // Drag state: a press that moves more than a few pixels pans instead of locking a head.
    bool pressed_ = false, dragging_ = false;
    QPoint press_pos_;
    int press_first_ = 0;
};

}  // namespace snapdoc::ui
