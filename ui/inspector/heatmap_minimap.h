// The whole prompt at a glance under the zoomed heatmap: all strips summed per column (the minimap
// image HeatmapJob renders) with a frame around the part the grid shows. Clicking or dragging moves
// the view there (the view keeps its width).
#pragma once

#include <QImage>
#include <QWidget>

namespace snapdoc::ui {

class HeatmapMinimap : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapMinimap(QWidget* parent = nullptr);

    void set_image(const QImage& image);
    // The whole prompt's length and the view [first, first + count).
    void set_view(int total, int first, int count);
    void clear();
    const QImage& image() const { return image_; }
    // The view frame in widget pixels (tests).
    QRect frame_rect() const;
    int left_margin() const { return left_; }
    void set_left_margin(int px);  // aligns the bar with the grid's plot (its layer labels' width)

    QSize sizeHint() const override { return {360, 16}; }
    QSize minimumSizeHint() const override { return {60, 16}; }

signals:
    void centerRequested(int position);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRect bar_rect() const;
    int position_at(int x) const;

    QImage image_;
    int total_ = 0, first_ = 0, count_ = 0;
    int left_ = 0;
};

}  // namespace snapdoc::ui
