// Shows the rendered retention heatmap (HeatmapJob's image) with layer labels. Hovering a pixel
// tells the layer, head, position range and the document text there; clicking locks that head
// (outlined) and reports it, which opens the head's detail view and scrolls the document.
#pragma once

#include <QImage>
#include <QWidget>
#include <functional>

#include "ui/inspector/heatmap_render.h"

namespace snapdoc::ui {

class RetentionGrid : public QWidget {
    Q_OBJECT
public:
    explicit RetentionGrid(QWidget* parent = nullptr);

    void set_image(const QImage& image, const HeatmapGeometry& geometry);
    void clear();
    // Text of prompt positions [first, last) for the tooltip ("" when unknown).
    void set_text_lookup(std::function<QString(int first, int last)> lookup) { text_of_ = std::move(lookup); }
    void set_document_tokens(int n) { document_tokens_ = n; }
    void set_locked(int layer, int head);

    const QImage& image() const { return image_; }
    const HeatmapGeometry& geometry() const { return geometry_; }
    // Width the image should be rendered at to fill the widget.
    int plot_width() const;
    // Layer/head/position under a widget point, as the tooltip shows it ({-1,...} outside).
    struct Hit {
        int layer = -1, head = -1, first = -1, last = -1;
    };
    Hit hit_at(const QPoint& p) const;
    QString tooltip_at(const QPoint& p) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void headClicked(int layer, int head, int position);
    void plotWidthChanged(int width);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QRect plot_rect() const;

    QImage image_;
    HeatmapGeometry geometry_;
    std::function<QString(int, int)> text_of_;
    int document_tokens_ = 0;
    int locked_layer_ = -1, locked_head_ = -1;
};

}  // namespace snapdoc::ui
